package io.hotkeeper.engine.snapshot;

import io.hotkeeper.engine.HeavyHitter;
import io.hotkeeper.engine.Hotkeeper;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A stream split into N parts, each into its own sketch, merged: precision@100 within 0.02 of one sketch over the
 * whole stream, for N = 2, 4, 16, on Zipf keys and on the words of this repository's text, by table (same seed)
 * and into a live instance (same seed); by keys (different seeds) within the stated loss of 0.05. The text is the
 * repository's own, so it grows with it; the figures printed say where each run stands.
 */
class MergeTest {
    private static final int K = 100;
    private static final long MEMORY = 16 * 1024;
    private static final double TOLERANCE = 0.02;
    /**
     * A merge by keys (different seeds) loses what each part counted without tracking (docs/format.md): a key
     * near rank 100 of the repository's text occurs ~150 times, ~9 per part at 16 parts, close to the promotion
     * floor of 8, so some parts never track it. Measured 0.97-1.00 there (and 1.00 on Zipf); stated as 0.05.
     */
    private static final double KEY_MERGE_TOLERANCE = 0.05;

    private interface Feed {
        void into(Hotkeeper hk, int part, int parts);
    }

    private static Hotkeeper sketch(long seed) {
        return Hotkeeper.builder().memoryBytes(MEMORY).seed(seed).k(K).recordStats().build();
    }

    private static HotkeeperSnapshot snapshotOf(long seed, Feed feed, int part, int parts) {
        try (Hotkeeper hk = sketch(seed)) {
            feed.into(hk, part, parts);
            return hk.snapshot();
        }
    }

    private static void check(String name, Feed feed, Map<ByteBuffer, Long> exact, long length) {
        double single;
        try (Hotkeeper hk = sketch(7)) {
            feed.into(hk, 0, 1);
            single = SnapshotStreams.precision(hk.topK(K), exact, K);
        }
        for (int parts : new int[] {2, 4, 16}) {
            List<HotkeeperSnapshot> same = new ArrayList<>();
            List<HotkeeperSnapshot> different = new ArrayList<>();
            for (int p = 0; p < parts; p++) {
                same.add(snapshotOf(7, feed, p, parts));
                different.add(snapshotOf(100 + p, feed, p, parts));
            }
            HotkeeperSnapshot.Merged byTable = HotkeeperSnapshot.mergeAll(same);
            assertTrue(byTable.report().byTable());
            assertEquals(length, byTable.snapshot().totalWeight());
            double tablePrecision = SnapshotStreams.precision(byTable.snapshot().topK(K), exact, K);
            HotkeeperSnapshot.Merged byKeys = HotkeeperSnapshot.mergeAll(different);
            assertFalse(byKeys.report().byTable());
            assertEquals(length, byKeys.snapshot().totalWeight());
            double keyPrecision = SnapshotStreams.precision(byKeys.snapshot().topK(K), exact, K);
            double livePrecision;
            try (Hotkeeper live = sketch(7)) {
                for (HotkeeperSnapshot s : same) {
                    assertTrue(live.merge(s).byTable());
                }
                assertEquals(length, live.totalWeight());
                livePrecision = SnapshotStreams.precision(live.topK(K), exact, K);
            }
            System.out.printf("%s: single %.2f, %d parts: by table %.2f (dropped %d of %d), live %.2f, by keys %.2f"
                            + " (dropped %d)%n", name, single, parts, tablePrecision, byTable.report().droppedWeight(),
                    byTable.report().mergedWeight(), livePrecision, keyPrecision, byKeys.report().droppedWeight());
            assertTrue(tablePrecision >= single - TOLERANCE, name + " by table, " + parts + " parts: "
                    + tablePrecision + " vs " + single);
            assertTrue(livePrecision >= single - TOLERANCE, name + " live, " + parts + " parts: "
                    + livePrecision + " vs " + single);
            assertTrue(keyPrecision >= single - KEY_MERGE_TOLERANCE, name + " by keys, " + parts + " parts: "
                    + keyPrecision + " vs " + single);
        }
    }

    @Test
    void zipfSplitAndMergedMatchesOneSketch() {
        long[] stream = SnapshotStreams.zipf();
        check("zipf 1.0", (hk, part, parts) -> {
            long[] slice = SnapshotStreams.split(stream, parts)[part];
            hk.observeAll(slice);
        }, SnapshotStreams.exactBytes(stream), stream.length);
    }

    @Test
    void textSplitAndMergedMatchesOneSketch() {
        List<String> words = SnapshotStreams.words();
        assertTrue(words.size() > 100_000, "words: " + words.size());
        check("repository text (" + words.size() + " words)", (hk, part, parts) -> {
            for (String w : SnapshotStreams.split(words, parts).get(part)) {
                hk.observe(w);
            }
        }, SnapshotStreams.exactBytes(words), words.size());
    }

    /** Merging is commutative exactly (same bytes) and associative within the tolerance. */
    @Test
    void mergeIsCommutativeAndAssociative() {
        long[] stream = SnapshotStreams.zipf();
        Map<ByteBuffer, Long> exact = SnapshotStreams.exactBytes(stream);
        long[][] parts = SnapshotStreams.split(stream, 3);
        for (long[] seeds : new long[][] {{7, 7, 7}, {1, 2, 3}}) {
            HotkeeperSnapshot[] s = new HotkeeperSnapshot[3];
            for (int i = 0; i < 3; i++) {
                try (Hotkeeper hk = sketch(seeds[i])) {
                    hk.observeAll(parts[i]);
                    s[i] = hk.snapshot();
                }
            }
            assertArrayEquals(HotkeeperSnapshot.merge(s[0], s[1]).toBytes(),
                    HotkeeperSnapshot.merge(s[1], s[0]).toBytes());
            assertArrayEquals(HotkeeperSnapshot.merge(s[0], s[1], s[2]).toBytes(),
                    HotkeeperSnapshot.merge(s[2], s[0], s[1]).toBytes());
            HotkeeperSnapshot left = HotkeeperSnapshot.merge(HotkeeperSnapshot.merge(s[0], s[1]), s[2]);
            HotkeeperSnapshot right = HotkeeperSnapshot.merge(s[0], HotkeeperSnapshot.merge(s[1], s[2]));
            double l = SnapshotStreams.precision(left.topK(K), exact, K);
            double r = SnapshotStreams.precision(right.topK(K), exact, K);
            assertTrue(Math.abs(l - r) <= TOLERANCE, "seeds " + java.util.Arrays.toString(seeds) + ": " + l + " vs " + r);
            // The top keys themselves agree too, within the tolerance.
            long common = left.topK(K).stream().map(h -> ByteBuffer.wrap(h.key()))
                    .filter(key -> right.topK(K).stream().anyMatch(h -> ByteBuffer.wrap(h.key()).equals(key)))
                    .count();
            assertTrue(common >= K * (1 - TOLERANCE), "common top keys: " + common);
        }
    }

    /** A merge by table sums what each part counted: two halves of one key's count give the whole. */
    @Test
    void aMergeByTableAddsEachPartsCountsForAKeyTrackedInOnlyOnePart() {
        try (Hotkeeper a = sketch(7);
             Hotkeeper b = Hotkeeper.builder().memoryBytes(MEMORY).seed(7).k(K).recordStats().minCount(8)
                     .build()) {
            a.observe("hot", 1000);
            b.observe("hot", 5); // below b's promotion floor (8): b does not track it
            assertTrue(b.snapshot().keys().isEmpty());
            HotkeeperSnapshot merged = HotkeeperSnapshot.merge(a.snapshot(), b.snapshot());
            assertEquals(1005, merged.estimate("hot"));
            HotkeeperSnapshot byKeys;
            try (Hotkeeper c = Hotkeeper.builder().memoryBytes(MEMORY).seed(8).k(K).recordStats().minCount(8)
                    .build()) {
                c.observe("hot", 5); // untracked in c (below its floor of 8)
                byKeys = HotkeeperSnapshot.merge(a.snapshot(), c.snapshot());
            }
            assertEquals(1000, byKeys.estimate("hot"), "by keys, an untracked count is lost (stated)");
            a.merge(b.snapshot());
            assertEquals(1005, a.estimate("hot"));
            assertEquals(1005, a.totalWeight(), "1000 seen here, 5 merged");
        }
    }

    @Test
    void heavyHittersOfAMergedSnapshotUseTheMergedTotal() {
        HotkeeperSnapshot merged;
        try (Hotkeeper a = sketch(7); Hotkeeper b = sketch(7)) {
            a.observe("x", 600);
            a.observe("y", 100);
            b.observe("x", 200);
            b.observe("z", 100);
            merged = HotkeeperSnapshot.merge(a.snapshot(), b.snapshot());
        }
        assertEquals(1000, merged.totalWeight());
        List<HeavyHitter> heavy = merged.heavyHitters(0.1);
        assertEquals(List.of("x", "y", "z"), heavy.stream().map(HeavyHitter::keyAsString).sorted().toList());
        assertEquals(List.of("x"), merged.heavyHitters(0.5).stream().map(HeavyHitter::keyAsString).toList());
    }
}
