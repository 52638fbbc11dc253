package io.hotkeeper.engine.hash;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class KeyHasherTest {
    private final KeyHasher hasher = KeyHasher.seeded(7);

    @Test
    void longKeyHashesLikeItsEightLittleEndianBytes() {
        SplittableRandom r = new SplittableRandom(1);
        for (int i = 0; i < 1000; i++) {
            long k = r.nextLong();
            byte[] bytes = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(k).array();
            assertEquals(hasher.hash(bytes), hasher.hash(k));
        }
    }

    @Test
    void charSequenceHashesLikeItsUtf8Bytes() {
        String[] samples = {"", "a", "hello world", "ünïcödé", "日本語のキー", "emoji 😀🚀 mix", "x".repeat(100),
                "bad \uD800 surrogate", "tail \uDC00", "exactly8", "sixteen-bytes-xx"};
        for (String s : samples) {
            assertEquals(hasher.hash(s.getBytes(StandardCharsets.UTF_8)), hasher.hash(s), s);
            assertEquals(hasher.hash(s), hasher.hash(new StringBuilder(s)), s);
        }
        SplittableRandom r = new SplittableRandom(2);
        for (int i = 0; i < 2000; i++) {
            StringBuilder sb = new StringBuilder();
            int len = r.nextInt(40);
            for (int j = 0; j < len; j++) {
                sb.append((char) r.nextInt(0x10000));
            }
            String s = sb.toString();
            assertEquals(hasher.hash(s.getBytes(StandardCharsets.UTF_8)), hasher.hash(s));
        }
        // Mostly ASCII with a rare wide character, a surrogate pair or a lone surrogate anywhere: the 8-character
        // ASCII runs and the general loop must meet exactly where the byte path's words do.
        String[] rare = {"\u00e9", "\u65e5", "\uD83D\uDE00", "\uD800", "\u007f", "\u0080"};
        for (int i = 0; i < 20_000; i++) {
            StringBuilder sb = new StringBuilder();
            int len = r.nextInt(48);
            for (int j = 0; j < len; j++) {
                sb.append(r.nextInt(30) == 0 ? rare[r.nextInt(rare.length)] : String.valueOf((char) (32 + r.nextInt(95))));
            }
            String s = sb.toString();
            assertEquals(hasher.hash(s.getBytes(StandardCharsets.UTF_8)), hasher.hash(s), s);
            assertEquals(hasher.hash(s), hasher.hash(new StringBuilder(s)), s);
        }
    }

    @Test
    void byteRangesAndSegmentSlicesAgree() {
        SplittableRandom r = new SplittableRandom(3);
        byte[] buffer = new byte[300];
        r.nextBytes(buffer);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment native_ = arena.allocate(buffer.length + 3).asSlice(3);
            native_.copyFrom(MemorySegment.ofArray(buffer));
            for (int off = 0; off < 20; off++) {
                for (int len = 0; len < 40; len++) {
                    byte[] copy = java.util.Arrays.copyOfRange(buffer, off, off + len);
                    long expected = hasher.hash(copy);
                    assertEquals(expected, hasher.hash(buffer, off, len));
                    assertEquals(expected, hasher.hash(native_, off, len));
                    assertEquals(expected, hasher.hash(native_.asSlice(off, len)));
                    assertEquals(expected, hasher.hash(MemorySegment.ofArray(copy)));
                }
            }
        }
    }

    @Test
    void seedsAreReproducibleAndIndependent() {
        assertEquals(KeyHasher.seeded(7).hash("k"), hasher.hash("k"));
        assertNotEquals(KeyHasher.seeded(8).hash("k"), hasher.hash("k"));
        assertNotEquals(KeyHasher.selfSeeded().hash(42L), KeyHasher.selfSeeded().hash(42L));
        // Length is part of the key: a trailing zero byte makes another key.
        assertNotEquals(hasher.hash(new byte[] {1}), hasher.hash(new byte[] {1, 0}));
        assertNotEquals(hasher.hash(new byte[0]), hasher.hash(new byte[] {0}));
    }

    @Test
    void everyOutputBitIsBalancedAndSequentialKeysDoNotCollide() {
        int n = 1 << 16;
        int[] ones = new int[64];
        Set<Long> seen = new HashSet<>();
        for (long k = 0; k < n; k++) {
            long h = hasher.hash(k);
            assertTrue(seen.add(h));
            for (int b = 0; b < 64; b++) {
                ones[b] += (int) ((h >>> b) & 1);
            }
        }
        for (int b = 0; b < 64; b++) {
            double frac = ones[b] / (double) n;
            assertTrue(Math.abs(frac - 0.5) < 0.01, "bit " + b + " set in " + frac);
        }
    }
}
