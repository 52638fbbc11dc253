package io.hotkeeper.engine.shard;

import io.hotkeeper.engine.hash.Utf8;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Writes a {@code CharSequence} as UTF-8 ({@link Utf8}, the encoder the hash uses) straight into native memory, stopping at a byte limit without
 * splitting a character (unpaired surrogates become '?', as in {@code String.getBytes(UTF_8)}). Static, so that
 * recording a text key allocates nothing.
 *
 * <p>Threads: any (the caller owns the target range). Progress: wait-free.
 */
final class Utf8Writer {
    /** Flag in {@link #write}'s result: the key did not fit and was cut at a character boundary. */
    static final long TRUNCATED = 1L << 32;

    private Utf8Writer() {
    }

    /**
     * Writes the UTF-8 bytes of {@code s} at {@code target[base, base + limit)}; returns the bytes written, with
     * {@link #TRUNCATED} set if {@code s} did not fit.
     */
    static long write(MemorySegment target, long base, int limit, CharSequence s) {
        return encode(target, base, limit, s);
    }

    /**
     * The bytes {@link #write} would write for {@code s} under {@code limit}, with {@link #TRUNCATED} set if
     * {@code s} does not fit; writes nothing (sizes a key's entry before it is allocated).
     */
    static long length(CharSequence s, int limit) {
        return encode(null, 0, limit, s);
    }

    private static long encode(MemorySegment target, long base, int limit, CharSequence s) {
        int written = 0;
        int n = s.length();
        for (int i = 0; i < n; i++) {
            long utf8 = Utf8.encode(s, i, n);
            int encoded = Utf8.bytesOf(utf8);
            int bytes = Utf8.lengthOf(utf8);
            if (written + bytes > limit) {
                return written | TRUNCATED;
            }
            if (target == null) {
                written += bytes;
            } else {
                for (int b = 0; b < bytes; b++) {
                    target.set(ValueLayout.JAVA_BYTE, base + written++, (byte) (encoded >>> (8 * b)));
                }
            }
            if (bytes == 4) {
                i++; // the low surrogate was part of this character
            }
        }
        return written;
    }
}
