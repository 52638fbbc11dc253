package io.hotkeeper.cli;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class KeyEscaperTest {
    private static String esc(int... bytes) {
        byte[] b = new byte[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            b[i] = (byte) bytes[i];
        }
        return KeyEscaper.escape(b);
    }

    private static String esc(String s) {
        return KeyEscaper.escape(s.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void printableTextIsCopied() {
        assertEquals("GET /api/v1/quote?x=1", esc("GET /api/v1/quote?x=1"));
        assertEquals("héllo 日本 😀 ‽", esc("héllo 日本 😀 ‽"));
        assertEquals("", esc(""));
    }

    @Test
    void shortEscapes() {
        assertEquals("a\\tb\\nc\\rd\\\\e", esc("a\tb\nc\rd\\e"));
    }

    @Test
    void controlBytesAndDelBecomeHex() {
        assertEquals("\\x00\\x01\\x1F\\x7F \\x1B[0m", esc(0x00, 0x01, 0x1F, 0x7F, ' ', 0x1B, '[', '0', 'm'));
    }

    @Test
    void c1ControlsAndLineSeparatorsBecomeHexPerByte() {
        assertEquals("\\xC2\\x80\\xC2\\x9F", esc("\u0080\u009f"));
        assertEquals("\\xE2\\x80\\xA8\\xE2\\x80\\xA9", esc("\u2028\u2029"));
        assertEquals("\u00a0", esc("\u00a0")); // the first code point after C1 is copied
    }

    @Test
    void malformedUtf8BecomesHexPerByte() {
        assertEquals("\\x80", esc(0x80));                         // stray continuation byte
        assertEquals("\\xC0\\xAF", esc(0xC0, 0xAF));              // overlong '/'
        assertEquals("\\xE0\\x80\\xAF", esc(0xE0, 0x80, 0xAF));   // overlong 3-byte
        assertEquals("\\xED\\xA0\\x80", esc(0xED, 0xA0, 0x80));   // surrogate U+D800
        assertEquals("\\xF4\\x90\\x80\\x80", esc(0xF4, 0x90, 0x80, 0x80)); // > U+10FFFF
        assertEquals("\\xF5", esc(0xF5));
        assertEquals("a\\xE6\\x97", esc('a', 0xE6, 0x97));        // cut short (a truncated key)
        assertEquals("\\xE6x", esc(0xE6, 'x'));
        assertEquals("\\xFF\\xFE", esc(0xFF, 0xFE));
    }

    @Test
    void everySingleByte() {
        for (int b = 0; b < 256; b++) {
            String e = esc(b);
            String expected = switch (b) {
                case '\t' -> "\\t";
                case '\n' -> "\\n";
                case '\r' -> "\\r";
                case '\\' -> "\\\\";
                default -> b >= 0x20 && b < 0x7F ? String.valueOf((char) b) : String.format("\\x%02X", b);
            };
            assertEquals(expected, e, "byte " + b);
        }
    }

    @Test
    void outputIsOneTabFreeLineThatRoundTrips() {
        Random random = new Random(7);
        for (int i = 0; i < 5000; i++) {
            byte[] key = new byte[random.nextInt(40)];
            random.nextBytes(key);
            if (i % 3 == 0) {
                key = (new String(key, StandardCharsets.ISO_8859_1) + "日本\u0085é").getBytes(StandardCharsets.UTF_8);
            }
            String e = KeyEscaper.escape(key);
            assertTrue(e.chars().noneMatch(c -> c == '\t' || c == '\n' || c == '\r' || c < 0x20 || c == 0x7F), e);
            assertArrayEquals(key, KeyEscaper.unescape(e), e);
        }
    }
}
