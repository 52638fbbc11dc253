package io.hotkeeper.engine.hash;

/**
 * The one UTF-8 encoder of the engine, used both to hash a {@code CharSequence} key ({@link KeyHasher}) and to
 * store it in a key shard, so the two agree byte for byte: a text key hashes exactly as its stored bytes do.
 * Unpaired surrogates become {@code '?'}, as in {@code String.getBytes(UTF_8)}. Allocation-free.
 *
 * <p>Threads: any (the caller keeps the sequence stable during the call). Progress: wait-free.
 */
public final class Utf8 {
    private Utf8() {
    }

    /**
     * The UTF-8 encoding of the character at {@code s[i]} ({@code n = s.length()}): the low 32 bits hold its bytes,
     * first byte lowest; bits 32.. hold how many bytes (1 to 4). Four bytes means a surrogate pair: the caller
     * steps over {@code s[i + 1]} too.
     */
    public static long encode(CharSequence s, int i, int n) {
        char c = s.charAt(i);
        if (c < 0x80) {
            return c | 1L << 32;
        }
        if (c < 0x800) {
            return ((0xC0 | (c >>> 6)) | (0x80 | (c & 0x3F)) << 8) | 2L << 32;
        }
        if (Character.isSurrogate(c)) {
            char low;
            if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(low = s.charAt(i + 1))) {
                int cp = Character.toCodePoint(c, low);
                return ((0xF0 | (cp >>> 18)) | (0x80 | ((cp >>> 12) & 0x3F)) << 8
                        | (0x80 | ((cp >>> 6) & 0x3F)) << 16 | (0x80 | (cp & 0x3F)) << 24) & 0xFFFF_FFFFL
                        | 4L << 32;
            }
            return '?' | 1L << 32;
        }
        return ((0xE0 | (c >>> 12)) | (0x80 | ((c >>> 6) & 0x3F)) << 8 | (0x80 | (c & 0x3F)) << 16) | 3L << 32;
    }

    /** The bytes of an {@link #encode} result, first byte lowest. */
    public static int bytesOf(long encoded) {
        return (int) encoded;
    }

    /** The byte count (1 to 4) of an {@link #encode} result; 4 is a surrogate pair (two chars). */
    public static int lengthOf(long encoded) {
        return (int) (encoded >>> 32);
    }
}
