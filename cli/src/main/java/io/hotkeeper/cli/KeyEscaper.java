package io.hotkeeper.cli;

/**
 * Renders key bytes as one line of text that can be turned back into the same bytes (docs/cli.md, "Escaping").
 *
 * <ul>
 *   <li>{@code \} becomes {@code \\}, TAB {@code \t}, LF {@code \n}, CR {@code \r};</li>
 *   <li>every byte of a C0 control (U+0000..U+001F), DEL (U+007F), a C1 control (U+0080..U+009F, two bytes in
 *       UTF-8), U+2028 or U+2029 becomes {@code \xHH} (two upper-case hex digits);</li>
 *   <li>every byte that is not part of a well-formed UTF-8 sequence (stray continuation bytes, overlong forms,
 *       surrogates, values above U+10FFFF, a sequence cut short, e.g. by key truncation) becomes {@code \xHH};</li>
 *   <li>every other well-formed UTF-8 sequence is copied as the character it encodes.</li>
 * </ul>
 * The rules depend on the bytes only, never on the Unicode version or the locale. Threads: any. Progress:
 * wait-free.
 */
final class KeyEscaper {
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private KeyEscaper() {
    }

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
            if ((cp >= 0x80 && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029) {
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

    /** The length of the well-formed UTF-8 sequence at {@code i} (lead byte >= 0x80), or 0 if it is not one. */
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
                lo = 0x90;
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

    /**
     * The inverse of {@link #escape}: {@code \\}, {@code \t}, {@code \n}, {@code \r} and {@code \xHH} become
     * their byte, every other character its UTF-8 bytes (used by {@code hotkeeper unescape}).
     *
     * @throws IllegalArgumentException on a backslash not followed by one of those escapes
     */
    static byte[] unescape(String text) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(text.length());
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c == '\\') {
                char e = i + 1 < text.length() ? text.charAt(i + 1) : ' ';
                switch (e) {
                    case '\\' -> out.write('\\');
                    case 't' -> out.write('\t');
                    case 'n' -> out.write('\n');
                    case 'r' -> out.write('\r');
                    case 'x' -> {
                        int hi = i + 2 < text.length() ? Character.digit(text.charAt(i + 2), 16) : -1;
                        int lo = i + 3 < text.length() ? Character.digit(text.charAt(i + 3), 16) : -1;
                        if (hi < 0 || lo < 0) {
                            throw new IllegalArgumentException("\\x needs two hex digits at column " + (i + 1));
                        }
                        out.write(hi << 4 | lo);
                        i += 2;
                    }
                    default -> throw new IllegalArgumentException("bad escape at column " + (i + 1)
                            + ": a backslash must be followed by \\, t, n, r or xHH");
                }
                i += 2;
                continue;
            }
            int cp = text.codePointAt(i);
            byte[] bytes = new String(Character.toChars(cp)).getBytes(java.nio.charset.StandardCharsets.UTF_8);
            out.write(bytes, 0, bytes.length);
            i += Character.charCount(cp);
        }
        return out.toByteArray();
    }
}
