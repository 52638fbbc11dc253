package io.hotkeeper.engine;

import io.hotkeeper.engine.HeavyHitter.Kind;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A heavy hitter knows how its key was observed (long, text, bytes) and renders it that way: the rendering rules
 * one by one, then the kind carried from each {@code observe} overload through the key shards to {@code topK}, the
 * merged top keys of several tables, and the expelled-key listener.
 */
class HeavyHitterTest {

    private static final long SEED = 7;

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] le(long v) {
        byte[] b = new byte[8];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (v >>> (8 * i));
        }
        return b;
    }

    @Test
    void aLongKeyRendersAsItsNumber() {
        assertEquals("42", new HeavyHitter(le(42), 5, false, Kind.LONG).keyAsString());
        assertEquals("-1", new HeavyHitter(le(-1), 5, false, Kind.LONG).keyAsString());
        assertEquals(Long.toString(Long.MIN_VALUE),
                new HeavyHitter(le(Long.MIN_VALUE), 5, false, Kind.LONG).keyAsString());
        assertEquals("HeavyHitter[key=42, kind=LONG, estimate=5]",
                new HeavyHitter(le(42), 5, false, Kind.LONG).toString());
    }

    @Test
    void aLongCutShortByMaxKeyBytesIsNoNumberAndRendersEscaped() {
        HeavyHitter h = new HeavyHitter(new byte[] {42, 0, 0}, 5, true, Kind.LONG);
        assertEquals("*\\x00\\x00", h.keyAsString());
        assertThrows(IllegalStateException.class, h::keyAsLong);
        assertEquals("HeavyHitter[key=*\\x00\\x00, kind=LONG, estimate=5, truncated]", h.toString());
    }

    @Test
    void textRendersAsTheTextItselfAndToStringKeepsItOnOneLine() {
        HeavyHitter h = new HeavyHitter(utf8("naïve\tключ\n"), 9, false, Kind.TEXT);
        assertEquals("naïve\tключ\n", h.keyAsString());
        assertEquals("HeavyHitter[key=naïve\\tключ\\n, kind=TEXT, estimate=9]", h.toString());
    }

    @Test
    void bytesRenderEscapedOnOneLineThatMapsBackToTheBytes() {
        assertEquals("\\x01\\x02\\x03", new HeavyHitter(new byte[] {1, 2, 3}, 1, false, Kind.BYTES).keyAsString());
        assertEquals("a\\\\b\\t\\n\\r\\x7F", new HeavyHitter(utf8("a\\b\t\n\r\u007f"), 1, false, Kind.BYTES)
                .keyAsString());
        // Well-formed UTF-8 stays readable; C1 controls and line/paragraph separators are escaped byte by byte.
        assertEquals("café", new HeavyHitter(utf8("café"), 1, false, Kind.BYTES).keyAsString());
        assertEquals("\\xC2\\x85\\xE2\\x80\\xA8", new HeavyHitter(utf8("\u0085\u2028"), 1, false, Kind.BYTES)
                .keyAsString());
        // Malformed UTF-8: a stray continuation byte, an overlong form, a surrogate, a sequence cut short.
        assertEquals("\\x80\\xC0\\xAF\\xED\\xA0\\x80x\\xE2\\x82",
                new HeavyHitter(new byte[] {(byte) 0x80, (byte) 0xC0, (byte) 0xAF, (byte) 0xED, (byte) 0xA0,
                        (byte) 0x80, 'x', (byte) 0xE2, (byte) 0x82}, 1, false, Kind.BYTES).keyAsString());
        // A long's bytes observed as bytes are bytes.
        assertEquals("*\\x00\\x00\\x00\\x00\\x00\\x00\\x00", new HeavyHitter(le(42), 1, false, Kind.BYTES)
                .keyAsString());
    }

    @Test
    void theThreeArgumentConstructorMeansBytesAndKindTakesPartInEquality() {
        HeavyHitter bytes = new HeavyHitter(le(42), 3, false);
        assertEquals(Kind.BYTES, bytes.kind());
        assertEquals(new HeavyHitter(le(42), 3, false, Kind.BYTES), bytes);
        assertEquals(new HeavyHitter(le(42), 3, false, Kind.BYTES).hashCode(), bytes.hashCode());
        assertNotEquals(new HeavyHitter(le(42), 3, false, Kind.LONG), bytes);
        assertThrows(NullPointerException.class, () -> new HeavyHitter(le(1), 1, false, null));
    }

    @Test
    void topKReportsTheKindOfEveryObserveOverload() {
        try (Hotkeeper hk = Hotkeeper.builder().sizedFor(10).seed(SEED).build();
             Arena arena = Arena.ofConfined()) {
            MemorySegment segmentKey = arena.allocateFrom("seg-key");   // NUL-terminated: 8 bytes
            for (int i = 0; i < 1000; i++) {
                hk.observe(42L);
                hk.observe("GET /api/v1/quote");
                hk.observe(new byte[] {1, 2, 3});
                hk.observe(segmentKey);
            }
            Map<String, HeavyHitter> top = hk.topK(4).stream()
                    .collect(Collectors.toMap(HeavyHitter::keyAsString, Function.identity()));
            assertEquals(4, top.size(), top.toString());
            assertEquals(Kind.LONG, top.get("42").kind());
            assertEquals(42L, top.get("42").keyAsLong());
            assertEquals(Kind.TEXT, top.get("GET /api/v1/quote").kind());
            assertEquals(Kind.BYTES, top.get("\\x01\\x02\\x03").kind());
            assertEquals(Kind.BYTES, top.get("seg-key\\x00").kind());
            assertArrayEquals(new byte[] {1, 2, 3}, top.get("\\x01\\x02\\x03").key());
            top.values().forEach(h -> assertEquals(1000, h.estimate(), h.toString()));
        }
    }

    @Test
    void theKindIsHowTheKeyWasObservedWhenItWasPromoted() {
        // The sketch counts bytes: 42L and its 8 little-endian bytes are one key, reported as it entered.
        try (Hotkeeper hk = Hotkeeper.builder().sizedFor(10).seed(SEED).build()) {
            for (int i = 0; i < 100; i++) {
                hk.observe(le(42));
            }
            for (int i = 0; i < 100; i++) {
                hk.observe(42L);
            }
            List<HeavyHitter> top = hk.topK(10);
            assertEquals(1, top.size(), top.toString());
            assertEquals(Kind.BYTES, top.getFirst().kind());
            assertEquals(200, top.getFirst().estimate());
        }
    }

    @Test
    void aTruncatedLongKeepsItsKind() {
        try (Hotkeeper hk = Hotkeeper.builder().sizedFor(10).seed(SEED).maxKeyBytes(3).build()) {
            for (int i = 0; i < 100; i++) {
                hk.observe(42L);
            }
            HeavyHitter h = hk.topK(1).getFirst();
            assertEquals(Kind.LONG, h.kind());
            assertTrue(h.truncated());
            assertEquals("*\\x00\\x00", h.keyAsString());
        }
    }

    @Test
    void theMergedTopKeysOfSeveralTablesKeepTheKind() throws Exception {
        try (Hotkeeper hk = Hotkeeper.builder().sizedFor(10).seed(SEED)
                .partitioning(Partitioning.perWorker(2)).build()) {
            Thread a = Thread.ofPlatform().start(() -> {
                for (int i = 0; i < 500; i++) {
                    hk.observe(7L);
                    hk.observe("text");
                }
            });
            a.join();
            for (int i = 0; i < 500; i++) {
                hk.observe(7L);
                hk.observe("text");
            }
            assertEquals(2, hk.info().tables(), "two tables, so topK merges");
            Map<String, HeavyHitter> top = hk.topK(2).stream()
                    .collect(Collectors.toMap(HeavyHitter::keyAsString, Function.identity()));
            assertEquals(Kind.LONG, top.get("7").kind(), top.toString());
            assertEquals(Kind.TEXT, top.get("text").kind(), top.toString());
        }
    }

    @Test
    void anExpelledKeyCarriesItsKind() {
        List<HeavyHitter> expelled = new CopyOnWriteArrayList<>();
        // A 4 KiB table and a promotion floor of 1: a stream of distinct text keys soon expels tracked ones.
        try (Hotkeeper hk = Hotkeeper.builder().memoryBytes(4096).seed(SEED).minCount(1)
                .expelledKeyListener(expelled::add).build()) {
            for (int i = 0; i < 100_000 && expelled.isEmpty(); i++) {
                hk.observe("key-" + i);
            }
            assertFalse(expelled.isEmpty(), "some key was expelled");
            HeavyHitter first = expelled.getFirst();
            assertEquals(Kind.TEXT, first.kind());
            assertTrue(first.keyAsString().startsWith("key-"), first.toString());
        }
    }
}
