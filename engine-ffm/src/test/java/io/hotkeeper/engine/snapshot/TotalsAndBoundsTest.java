package io.hotkeeper.engine.snapshot;

import io.hotkeeper.engine.HeavyHitter;
import io.hotkeeper.engine.Hotkeeper;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code totalWeight}, {@code heavyHitters(phi)} and the per-key bounds of docs/theory.md ("Per-key bounds"): the
 * stated confidence holds empirically on a Zipf stream and on real text, for the tracked keys and for every
 * distinct key of the stream.
 */
class TotalsAndBoundsTest {

    @Test
    void totalWeightIsTheStreamLengthWithStatsAndALowerBoundWithout() throws Exception {
        long[] stream = java.util.Arrays.copyOf(SnapshotStreams.zipf(), 400_000);
        try (Hotkeeper counted = Hotkeeper.builder().memoryBytes(16 * 1024).seed(1).recordStats().build();
             Hotkeeper derived = Hotkeeper.builder().memoryBytes(16 * 1024).seed(1).build()) {
            Thread[] threads = new Thread[2];
            for (int t = 0; t < 2; t++) {
                int from = t * 200_000;
                threads[t] = Thread.ofPlatform().start(() -> {
                    counted.observeAll(stream, from, from + 200_000);
                    derived.observeAll(stream, from, from + 200_000);
                });
            }
            for (Thread t : threads) {
                t.join();
            }
            counted.observe("weighted", 1_000);
            derived.observe("weighted", 1_000);
            assertEquals(401_000, counted.totalWeight());
            // Without stats: the counts the table holds (what the lottery took and pending combined counts are not
            // in it), a lower bound; about half the stream on this Zipf 1.0 stream at 16 KiB.
            long lower = derived.totalWeight();
            System.out.println("derived total without stats: " + lower + " of 401000");
            assertTrue(lower > 0 && lower <= 401_000, "derived total " + lower);
            // The snapshot's table also holds the pending combined counts of tracked keys (two threads engaged
            // AUTO combining), so it holds at least as much.
            long snapshotTable = derived.snapshot().tableWeight();
            assertTrue(lower <= snapshotTable && snapshotTable <= 401_000, lower + " <= " + snapshotTable);
        }
    }

    /**
     * Issue #26: a total past {@code Long.MAX_VALUE} saturates there, live (stats on and off, a shared stripe too),
     * through {@code snapshot()} and its bytes, and through merges; before, the stripes wrapped and
     * {@code snapshot()} threw a SnapshotFormatException on the negative total.
     */
    @Test
    void aTotalPastTheLongRangeSaturatesAndStillSnapshots() throws Exception {
        try (Hotkeeper counted = Hotkeeper.builder().memoryBytes(16 * 1024).seed(1).recordStats().build();
             Hotkeeper derived = Hotkeeper.builder().memoryBytes(16 * 1024).seed(1).build()) {
            for (Hotkeeper h : List.of(counted, derived)) {
                h.observe("a", Long.MAX_VALUE);
                h.observe("b", Long.MAX_VALUE - 1);
                h.observe(7L, 3);
            }
            assertEquals(Long.MAX_VALUE, counted.totalWeight());
            // Without stats: the slot counts, each saturated at the largest count, a lower bound.
            assertTrue(derived.totalWeight() > 0, "derived total " + derived.totalWeight());
            HotkeeperSnapshot snapshot = counted.snapshot();
            assertEquals(Long.MAX_VALUE, snapshot.totalWeight());
            assertEquals(Long.MAX_VALUE, HotkeeperSnapshot.read(snapshot.toBytes()).totalWeight());
            assertEquals(Long.MAX_VALUE, HotkeeperSnapshot.mergeAll(List.of(snapshot, snapshot)).snapshot().totalWeight());
            try (Hotkeeper into = Hotkeeper.builder().memoryBytes(16 * 1024).seed(1).recordStats().build()) {
                into.merge(snapshot);
                into.merge(snapshot);
                into.observe("c", 5);
                assertEquals(Long.MAX_VALUE, into.totalWeight());
                assertEquals(Long.MAX_VALUE, into.snapshot().totalWeight());
            }
            // A thread without a stripe of its own (more threads than exclusive stripes) adds through a CAS loop.
            Thread[] threads = new Thread[4];
            for (int t = 0; t < threads.length; t++) {
                threads[t] = Thread.ofPlatform().start(() -> counted.observe("d", Long.MAX_VALUE / 2));
            }
            for (Thread t : threads) {
                t.join();
            }
            assertEquals(Long.MAX_VALUE, counted.totalWeight());
        }
    }

    @Test
    void heavyHittersAreEveryKeyAboveThePhiThreshold() {
        long[] stream = SnapshotStreams.zipf();
        Map<ByteBuffer, Long> exact = SnapshotStreams.exactBytes(stream);
        try (Hotkeeper hk = Hotkeeper.builder().memoryBytes(16 * 1024).seed(3).recordStats().build()) {
            hk.observeAll(stream);
            for (double phi : new double[] {0.001, 0.005, 0.02}) {
                double threshold = phi * stream.length;
                List<HeavyHitter> heavy = hk.heavyHitters(phi);
                heavy.forEach(h -> assertTrue(h.estimate() >= threshold, h.toString()));
                long truly = exact.values().stream().filter(c -> c >= threshold).count();
                long found = heavy.stream().filter(h -> exact.get(ByteBuffer.wrap(h.key())) >= threshold).count();
                System.out.printf("phi %.3f: %d keys above, %d reported, %d of them above%n", phi, truly,
                        heavy.size(), found);
                assertEquals(truly, found, "phi=" + phi);
                assertEquals(hk.snapshot().heavyHitters(phi).size(), heavy.size());
            }
        }
    }

    private static void coverage(String name, Hotkeeper hk, Map<ByteBuffer, Long> exact) {
        for (double confidence : new double[] {0.9, 0.95, 0.99}) {
            long tracked = 0;
            long trackedIn = 0;
            for (HeavyHitter h : hk.topK(Integer.MAX_VALUE / 2)) {
                tracked++;
                if (hk.bounds(h.key(), confidence).contains(exact.getOrDefault(ByteBuffer.wrap(h.key()), 0L))) {
                    trackedIn++;
                }
            }
            long all = 0;
            long allIn = 0;
            for (Map.Entry<ByteBuffer, Long> e : exact.entrySet()) {
                byte[] key = new byte[e.getKey().remaining()];
                e.getKey().duplicate().get(key);
                all++;
                if (hk.bounds(key, confidence).contains(e.getValue())) {
                    allIn++;
                }
            }
            double trackedRate = trackedIn / (double) tracked;
            double allRate = allIn / (double) all;
            KeyBounds top = hk.bounds(hk.topK(1).getFirst().key(), confidence);
            System.out.printf("%s, confidence %.2f: tracked keys %d/%d = %.4f, all keys %d/%d = %.4f, top key %s%n",
                    name, confidence, trackedIn, tracked, trackedRate, allIn, all, allRate, top);
            assertTrue(trackedRate >= confidence, name + " tracked coverage " + trackedRate + " < " + confidence);
            assertTrue(allRate >= confidence, name + " overall coverage " + allRate + " < " + confidence);
        }
    }

    @Test
    void boundsHoldAtTheirConfidenceOnZipf() {
        long[] stream = SnapshotStreams.zipf();
        try (Hotkeeper hk = Hotkeeper.builder().memoryBytes(16 * 1024).seed(5).recordStats().build()) {
            hk.observeAll(stream);
            coverage("zipf 1.0", hk, SnapshotStreams.exactBytes(stream));
        }
    }

    @Test
    void boundsHoldAtTheirConfidenceOnText() {
        List<String> words = SnapshotStreams.words();
        try (Hotkeeper hk = Hotkeeper.builder().memoryBytes(4096).seed(5).recordStats().build()) {
            for (String w : words) {
                hk.observe(w);
            }
            coverage("repository text, 4 KiB", hk, SnapshotStreams.exactBytes(words));
        }
    }
}
