package io.hotkeeper.engine;

/**
 * Renders key bytes as one line of readable text that can be turned back into the same bytes; the rules of
 * {@code hotkeeper top} (docs/cli.md, "Escaping"):
 * <ul>
 *   <li>{@code \} becomes {@code \\}, TAB {@code \t}, LF {@code \n}, CR {@code \r};</li>
 *   <li>every byte of another C0 control (U+0000..U+001F), DEL (U+007F), a C1 control (U+0080..U+009F),
 *       U+2028 or U+2029 becomes {@code \xHH} (two upper-case hex digits);</li>
 *   <li>every byte that is not part of a well-formed UTF-8 sequence (stray continuation bytes, overlong forms,
 *       surrogates, values above U+10FFFF, a sequence cut short) becomes {@code \xHH};</li>
 *   <li>every other well-formed UTF-8 sequence is copied as the character it encodes.</li>
 * </ul>
 * The rules look at the bytes only, never at the Unicode version or the locale.
 *
 * <p>Threads: any (stateless). Progress: wait-free.
 */
final class KeyText {
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private KeyText() {
    }

    /** The escaped rendering of {@code key}; see the class documentation. */
    static String escape(byte[] key) {
        StringBuilder out = new StringBuilder(key.length + 8);
        int i = 0;
        while (i < key.length) {
            int b = key[i] & 0xFF;
            if (b < 0x80) {
                switch (b) {
                    case '\\' -> out.append("\\\\");
                    case '\t' -> out.append("\\t");
                    case '\n' -> out.append("\\n");
                    case '\r' -> out.append("\\r");
                    default -> {
                        if (b < 0x20 || b == 0x7F) {
                            hex(out, b);
                        } else {
                            out.append((char) b);
                        }
                    }
                }
                i++;
                continue;
            }
            int length = sequenceLength(key, i);
            if (length == 0) {
                hex(out, b);
                i++;
                continue;
            }
            int cp = decode(key, i, length);
            if (cp <= 0x9F || cp == 0x2028 || cp == 0x2029) {
                for (int j = 0; j < length; j++) {
                    hex(out, key[i + j] & 0xFF);
                }
            } else {
                out.appendCodePoint(cp);
            }
            i += length;
        }
        return out.toString();
    }

    /** The length of the well-formed UTF-8 sequence at {@code i} (lead byte >= 0x80), or 0 if there is none. */
    private static int sequenceLength(byte[] key, int i) {
        int b0 = key[i] & 0xFF;
        int length;
        int lo = 0x80;
        int hi = 0xBF;
        if (b0 >= 0xC2 && b0 <= 0xDF) {
            length = 2;
        } else if (b0 >= 0xE0 && b0 <= 0xEF) {
            length = 3;
            if (b0 == 0xE0) {
                lo = 0xA0; // no overlong forms
            } else if (b0 == 0xED) {
                hi = 0x9F; // no surrogates
            }
        } else if (b0 >= 0xF0 && b0 <= 0xF4) {
            length = 4;
            if (b0 == 0xF0) {
                lo = 0x90; // no overlong forms
            } else if (b0 == 0xF4) {
                hi = 0x8F; // <= U+10FFFF
            }
        } else {
            return 0;
        }
        if (i + length > key.length) {
            return 0;
        }
        int b1 = key[i + 1] & 0xFF;
        if (b1 < lo || b1 > hi) {
            return 0;
        }
        for (int j = 2; j < length; j++) {
            int c = key[i + j] & 0xFF;
            if (c < 0x80 || c > 0xBF) {
                return 0;
            }
        }
        return length;
    }

    private static int decode(byte[] key, int i, int length) {
        int cp = key[i] & (0xFF >>> (length + 1));
        for (int j = 1; j < length; j++) {
            cp = (cp << 6) | (key[i + j] & 0x3F);
        }
        return cp;
    }

    private static void hex(StringBuilder out, int b) {
        out.append('\\').append('x').append(HEX[b >>> 4]).append(HEX[b & 0xF]);
    }
}
