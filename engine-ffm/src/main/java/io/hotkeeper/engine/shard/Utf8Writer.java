package io.hotkeeper.engine.shard;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Encodes a {@code CharSequence} as UTF-8 straight into native memory, stopping at a byte limit without
 * splitting a character (unpaired surrogates become '?', as in {@code String.getBytes(UTF_8)}).
 *
 * <p>Threads: one (a short-lived per-call object). Progress: wait-free.
 */
final class Utf8Writer {
    private final MemorySegment target;
    private final long base;
    private final int limit;
    private int written;
    private boolean truncated;

    Utf8Writer(MemorySegment target, long base, int limit) {
        this.target = target;
        this.base = base;
        this.limit = limit;
    }

    void write(CharSequence s) {
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                if (!room(1)) {
                    return;
                }
                put(c);
            } else if (c < 0x800) {
                if (!room(2)) {
                    return;
                }
                put(0xC0 | (c >>> 6));
                put(0x80 | (c & 0x3F));
            } else if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                    if (!room(4)) {
                        return;
                    }
                    int cp = Character.toCodePoint(c, s.charAt(++i));
                    put(0xF0 | (cp >>> 18));
                    put(0x80 | ((cp >>> 12) & 0x3F));
                    put(0x80 | ((cp >>> 6) & 0x3F));
                    put(0x80 | (cp & 0x3F));
                } else {
                    if (!room(1)) {
                        return;
                    }
                    put('?');
                }
            } else {
                if (!room(3)) {
                    return;
                }
                put(0xE0 | (c >>> 12));
                put(0x80 | ((c >>> 6) & 0x3F));
                put(0x80 | (c & 0x3F));
            }
        }
    }

    private boolean room(int bytes) {
        if (written + bytes > limit) {
            truncated = true;
            return false;
        }
        return true;
    }

    private void put(int b) {
        target.set(ValueLayout.JAVA_BYTE, base + written++, (byte) b);
    }

    int written() {
        return written;
    }

    boolean truncated() {
        return truncated;
    }
}
