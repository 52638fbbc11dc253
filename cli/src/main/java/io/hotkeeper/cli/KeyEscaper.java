package io.hotkeeper.cli;

import io.hotkeeper.engine.HeavyHitter;

/**
 * Key bytes as one line of text and back (docs/cli.md, "Escaping"): the escaping is the engine's
 * {@link HeavyHitter#escape} (one implementation for the library's {@code keyAsString} and the tool's output), the
 * reverse is here. The rules:
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

    private KeyEscaper() {
    }

    /** The escaped rendering of {@code key}: the engine's one implementation, {@link HeavyHitter#escape}. */
    static String escape(byte[] key) {
        return HeavyHitter.escape(key);
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
