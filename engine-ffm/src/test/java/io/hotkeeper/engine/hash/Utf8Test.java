package io.hotkeeper.engine.hash;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/** The engine's one UTF-8 encoder agrees with the JDK's, unpaired surrogates included. */
class Utf8Test {
    @Test
    void encodesAsTheJdkDoes() {
        SplittableRandom random = new SplittableRandom(7);
        char[] pool = {'a', 'Z', 0x7F, 0x80, 0x7FF, 0x800, 0xFFFF, 0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xE000, 0x20AC};
        for (int round = 0; round < 20_000; round++) {
            StringBuilder s = new StringBuilder();
            int length = random.nextInt(12);
            for (int i = 0; i < length; i++) {
                s.append(random.nextBoolean() ? pool[random.nextInt(pool.length)] : (char) random.nextInt(0x10000));
            }
            String text = s.toString();
            assertArrayEquals(text.getBytes(StandardCharsets.UTF_8), encode(text), () -> text.chars()
                    .mapToObj(Integer::toHexString).toList().toString());
        }
    }

    private static byte[] encode(CharSequence s) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < s.length(); i++) {
            long utf8 = Utf8.encode(s, i, s.length());
            for (int b = 0; b < Utf8.lengthOf(utf8); b++) {
                out.write(Utf8.bytesOf(utf8) >>> (8 * b));
            }
            if (Utf8.lengthOf(utf8) == 4) {
                i++;
            }
        }
        return out.toByteArray();
    }
}
