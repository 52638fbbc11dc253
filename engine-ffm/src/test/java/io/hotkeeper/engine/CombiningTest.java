package io.hotkeeper.engine;

import io.hotkeeper.engine.core.Internals;
import io.hotkeeper.engine.combine.CombinerLayout;
import io.hotkeeper.engine.hash.KeyHasher;
import io.hotkeeper.engine.shard.ShardIntegrity;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Per-worker hot-key combining: admission, absorbed observations, flushes, displacement, and the error bound. */
class CombiningTest {
    private static final long SEED = 77;
    private static final int ENTRIES = 16;
    private static final int THRESHOLD = 16;

    private static Hotkeeper sketch() {
        return Hotkeeper.builder().recordStats().memoryBytes(1 << 20).seed(SEED).combining(CombiningMode.ON).combiner(ENTRIES, THRESHOLD).build();
    }

    @Test
    void keysBelowTheAdmissionCountAlwaysWriteTheTable() {
        try (Hotkeeper hk = sketch()) {
            for (int i = 1; i < 2 * THRESHOLD; i++) {
                assertEquals(i, hk.observe(42L));
            }
            HotkeeperStats s = hk.stats();
            assertEquals(1, s.claims());
            assertEquals(2 * THRESHOLD - 2, s.refreshes());
            assertEquals(0, s.combined());
            assertEquals(0, hk.info().combiners(), "no block before the worker's first hot key");
        }
    }

    @Test
    void aHotKeyIsAbsorbedAndFlushedEveryThresholdObservations() {
        int n = 1000;
        try (Hotkeeper hk = sketch()) {
            for (int i = 1; i <= n; i++) {
                assertEquals(i, hk.observe(42L), "a lone worker's view is the exact count");
                assertEquals(i, hk.estimate(42L), "estimates add the pending count");
            }
            // 2T observations through the table (the last one admits), then a flush of T every T observations.
            int combined = n - 2 * THRESHOLD;
            int flushes = combined / THRESHOLD;
            HotkeeperStats s = hk.stats();
            assertEquals((long) flushes * THRESHOLD, s.combined());
            assertEquals(2 * THRESHOLD - 1 + flushes, s.refreshes());
            assertEquals(1, hk.info().combiners());
            assertEquals(n, hk.topK(1).get(0).estimate(), "topK adds the pending count");
            assertEquals(combined % THRESHOLD, hk.flush(), "flush hands over what is pending");
            assertEquals(0, hk.flush());
            assertEquals(combined, hk.stats().combined());
            assertEquals(n, hk.estimate(42L));
        }
    }

    @Test
    void topKRanksByTableCountPlusPendingCount() {
        try (Hotkeeper hk = sketch()) {
            long a = 42;
            long b = 43;
            for (int i = 0; i < 3 * THRESHOLD - 1; i++) {
                hk.observe(a); // table 2T (admitted there), then T - 1 pending
            }
            hk.observe(b, 2 * THRESHOLD + 5); // weighted: never combined, all in the table
            assertEquals(3 * THRESHOLD - 1, hk.estimate(a));
            assertEquals(2 * THRESHOLD + 5, hk.estimate(b));
            // b's table count is the higher one; a's pending count puts it first.
            HeavyHitter top = hk.topK(1).get(0);
            assertEquals(a, java.nio.ByteBuffer.wrap(top.key()).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong());
            assertEquals(3 * THRESHOLD - 1, top.estimate());
            assertEquals(2, hk.topK(2).size());
            assertEquals(List.of(), hk.topK(0), "no keys asked, none given");
            assertEquals(2 * THRESHOLD + 5, hk.topK(2).get(1).estimate());
        }
    }

    @Test
    void aHotterKeyDisplacesACombinedOneAndItsPendingCountGoesToTheTable() {
        KeyHasher hasher = KeyHasher.seeded(SEED);
        long a = 1;
        long b = 2;
        while (set(hasher.hash(b)) != set(hasher.hash(a))) {
            b++;
        }
        long c = b + 1;
        while (set(hasher.hash(c)) != set(hasher.hash(a))) {
            c++;
        }
        try (Hotkeeper hk = sketch()) {
            int na = 2 * THRESHOLD + 5; // admitted at 2T, then 5 pending
            for (int i = 0; i < na; i++) {
                hk.observe(a);
            }
            int nb = 2 * THRESHOLD + 1; // admitted into the set's other way, then 1 pending
            for (int i = 0; i < nb; i++) {
                hk.observe(b);
            }
            assertEquals(0, hk.stats().combined(), "two keys of one set both stay");
            int nc = 2 * THRESHOLD + 3; // c's count passes the weaker base (a's and b's are both 2T) at 2T + 1
            for (int i = 0; i < nc; i++) {
                hk.observe(c);
            }
            assertEquals(5, hk.stats().combined(), "a's 5 pending went to the table when c displaced it");
            assertEquals(na, hk.estimate(a));
            assertEquals(nb, hk.estimate(b));
            assertEquals(nc, hk.estimate(c));
            assertEquals(na + 1, hk.observe(a), "a is no longer combined: its observation writes the table");
            assertEquals(5 + 1, hk.stats().combined(), "... and a, hotter than b (2T at its flush), displaced b");
            assertEquals(2, hk.flush(), "c's 2 pending (a has none yet)");
            assertEquals(nb, hk.estimate(b));
            assertEquals(nc, hk.estimate(c));
        }
    }

    @Test
    void aSaturatedKeyReportsTheMaximumOnEveryPathOfTheCombiner() {
        // Both hit paths (the inlined one and the slow one) must clamp base + pending to MAX_COUNT: above it the
        // sum would spill into the result's flag bits and read back as a tiny estimate.
        try (Hotkeeper hk = sketch()) {
            hk.observe(7L, io.hotkeeper.engine.table.TableLayout.MAX_COUNT);
            for (int i = 0; i < 4 * THRESHOLD; i++) {
                assertEquals(io.hotkeeper.engine.table.TableLayout.MAX_COUNT, hk.observe(7L), "observation " + i);
            }
            // estimate is a sum (the saturated table count plus the units pending since), not an observe result.
            assertTrue(hk.estimate(7L) >= io.hotkeeper.engine.table.TableLayout.MAX_COUNT);
        }
    }

    @Test
    void withCombiningOffEveryObservationWritesTheTable() {
        try (Hotkeeper hk = Hotkeeper.builder().recordStats().seed(SEED).combining(CombiningMode.OFF).build()) {
            for (int i = 0; i < 500; i++) {
                hk.observe(7L);
            }
            assertEquals(499, hk.stats().refreshes());
            assertEquals(0, hk.stats().combined());
            assertEquals(0, hk.flush());
            assertEquals(0, hk.info().combinerEntries());
            assertEquals(CombiningMode.OFF, hk.info().combining());
        }
    }

    @Test
    void byteAndTextKeysCombineAndStillGetPromotedWithTheirBytes() {
        try (Hotkeeper hk = sketch()) {
            for (int i = 0; i < 1000; i++) {
                hk.observe("checkout");
                hk.observe(new byte[] {1, 2, 3});
            }
            assertEquals(1000, hk.estimate("checkout"));
            assertEquals(1000, hk.estimate(new byte[] {1, 2, 3}));
            assertTrue(hk.contains("checkout"));
            assertEquals(2, hk.topK(2).size());
            assertEquals(List.of(), hk.topK(0), "no keys asked, none given");
            assertTrue(hk.stats().combined() > 1500);
        }
    }

    @Test
    void aConcurrentEstimateIsNeverAboveTheTrueCountNorBelowItByMoreThanTheThreshold() throws Exception {
        int n = 2_000_000;
        try (Hotkeeper hk = sketch()) {
            AtomicLong done = new AtomicLong();
            // Halfway, the writer waits until the reader has read 100 times, so the two always overlap.
            java.util.concurrent.CountDownLatch overlapped = new java.util.concurrent.CountDownLatch(100);
            Thread writer = Thread.ofPlatform().start(() -> {
                for (int i = 1; i <= n; i++) {
                    hk.observe(9L);
                    done.setRelease(i);
                    if (i == n / 2) {
                        try {
                            overlapped.await();
                        } catch (InterruptedException e) {
                            throw new IllegalStateException(e);
                        }
                    }
                }
            });
            long reads = 0;
            while (done.getAcquire() < n) {
                long before = done.getAcquire();
                long estimate = hk.estimate(9L);
                long after = done.getAcquire();
                // `after` observations at most are done, and the one in flight may be mid-flush (up to T units
                // neither pending nor yet in the table).
                assertTrue(estimate <= after + 1, "over-count: " + estimate + " > " + after + " + 1");
                assertTrue(estimate >= before - THRESHOLD, "under-count beyond the bound: " + estimate + " vs " + before);
                reads++;
                if (before > 0) {
                    overlapped.countDown();
                }
            }
            writer.join();
            ShardIntegrity.checkAll(Internals.keyShardSets(hk));
            assertEquals(n, hk.estimate(9L));
            assertTrue(reads >= 100, "the reader raced the writer: " + reads + " reads");
        }
    }

    @Test
    void invalidCombinerSizesNameTheParameter() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Hotkeeper.builder().recordStats().combiner(100, 64));
        assertEquals("combinerEntries=100: must be a power of two in 16..65536", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Hotkeeper.builder().recordStats().combiner(256, 1));
        assertEquals("flushThreshold=1: must be >= 2 and <= 32768", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Hotkeeper.builder().recordStats().combiner(8, 64));
        assertTrue(e.getMessage().startsWith("combinerEntries=8"));
    }

    @Test
    void autoUnderABudgetForOneThreadResolvesToOff() {
        // memory(total) with one expected thread plans no combiner block (MemoryPlan), so AUTO could never engage:
        // the sketch has no combiners at all and says OFF, which callers need not set themselves (the CLI's one
        // ingest thread, the Spark aggregate). With two expected threads a block is planned and AUTO stays.
        try (Hotkeeper hk = Hotkeeper.builder().memory(64 * 1024).expectedThreads(1).seed(SEED).build()) {
            assertEquals(CombiningMode.OFF, hk.info().combining());
            assertEquals(0, hk.info().combinerEntries());
            assertFalse(hk.info().nativeBytesByPart().containsKey("combiner"));
        }
        try (Hotkeeper hk = Hotkeeper.builder().memory(64 * 1024).expectedThreads(2).seed(SEED).build()) {
            assertEquals(CombiningMode.AUTO, hk.info().combining());
        }
    }

    @Test
    void autoModeLeavesALoneThreadOnTheTableAndEngagesWithASecondOne() throws Exception {
        try (Hotkeeper hk = Hotkeeper.builder().recordStats().memoryBytes(1 << 20).seed(SEED).combiner(ENTRIES, THRESHOLD).build()) {
            assertEquals(CombiningMode.AUTO, hk.info().combining());
            for (int i = 0; i < 1000; i++) {
                hk.observe(5L);
            }
            assertEquals(0, hk.stats().combined(), "one worker: nothing combined");
            assertEquals(false, hk.info().combiningEngaged());
            assertEquals(0, hk.info().combiners(), "a lone thread creates no block (the second is noticed by identity)");
            Thread other = Thread.ofPlatform().start(() -> {
                for (int i = 0; i < 1000; i++) {
                    hk.observe(6L);
                }
            });
            other.join();
            ShardIntegrity.checkAll(Internals.keyShardSets(hk));
            assertEquals(true, hk.info().combiningEngaged());
            for (int i = 0; i < 1000; i++) {
                hk.observe(5L);
            }
            assertTrue(hk.stats().combined() > 0, "engaged: " + hk.stats());
            assertEquals(2000, hk.estimate(5L));
            assertEquals(1000, hk.estimate(6L));
        }
    }

    /**
     * Reset must not leave a combined key in its worker's block with no table slot (LifecycleModelTest's shrunk
     * case): the worker's next observation drops its hot set, so the key is claimed and tracked afresh, and topK
     * and contains agree with estimate.
     */
    @Test
    void afterResetAHotKeyIsInTheTableAgainAtItsNextObservation() {
        try (Hotkeeper hk = sketch()) {
            observe(hk, 42L, 2 * THRESHOLD + 3); // admitted at 2T, then 3 pending
            hk.flush();
            hk.reset();
            hk.observe(42L);
            assertTracked(hk, 42L, 1);
        }
    }

    /** Pending counts are not cleared by reset (owner-only state): the drop hands them to the new table. */
    @Test
    void afterResetPendingCountsReachTheNewTableWithTheirKey() {
        try (Hotkeeper hk = sketch()) {
            observe(hk, 42L, 2 * THRESHOLD + 3); // admitted at 2T, then 3 pending
            hk.reset();
            assertEquals(3, hk.estimate(42L), "pending counts are not cleared");
            hk.observe(42L);
            assertTracked(hk, 42L, 4);
            assertEquals(0, hk.flush(), "the drop already handed the pending counts to the table");
            observe(hk, 42L, 2 * THRESHOLD);
            assertTracked(hk, 42L, 4 + 2 * THRESHOLD);
        }
    }

    /** The same after a window's slices are all recycled (each new slice's table is cleared). */
    @Test
    void afterAWholeWindowSpanAHotKeyIsInTheNewSliceAtItsNextObservation() {
        AtomicLong now = new AtomicLong(1_000_000_000_000L);
        try (Hotkeeper hk = Hotkeeper.builder().memoryBytes(1 << 20).seed(SEED).combining(CombiningMode.ON)
                .combiner(ENTRIES, THRESHOLD).partitioning(Partitioning.window(java.time.Duration.ofSeconds(2), 2))
                .clock(now::get).build()) {
            observe(hk, 42L, 2 * THRESHOLD + 3);
            hk.flush();
            now.addAndGet(2_000_000_000L);
            hk.observe(42L);
            assertTracked(hk, 42L, 1);
            now.addAndGet(1_000_000_000L); // one slice on: the key's slot stays in the older slice
            hk.observe(42L);
            assertTracked(hk, 42L, 2);
        }
    }

    private static void observe(Hotkeeper hk, long key, int n) {
        for (int i = 0; i < n; i++) {
            hk.observe(key);
        }
    }

    private static void assertTracked(Hotkeeper hk, long key, long count) {
        assertEquals(count, hk.estimate(key));
        List<HeavyHitter> top = hk.topK(10);
        assertEquals(1, top.size(), "topK lists the key: " + top);
        assertEquals(key, top.get(0).keyAsLong());
        assertEquals(count, top.get(0).estimate());
        assertTrue(hk.contains(key));
    }

    @Test
    void flushAfterCloseThrows() {
        Hotkeeper hk = sketch();
        for (int i = 0; i < 100; i++) {
            hk.observe(1L);
        }
        hk.close();
        assertEquals(Hotkeeper.CLOSED_MESSAGE, assertThrows(IllegalStateException.class, hk::flush).getMessage());
        var e = assertThrows(IllegalStateException.class, () -> hk.observe(1L));
        assertEquals(Hotkeeper.CLOSED_MESSAGE, e.getMessage());
        LifecycleTest.assertArenaClosed(e.getCause());
        e = assertThrows(IllegalStateException.class, () -> hk.estimate(1L));
        assertEquals(Hotkeeper.CLOSED_MESSAGE, e.getMessage());
        LifecycleTest.assertArenaClosed(e.getCause());
    }

    @Test
    void layoutConstantsAgree() {
        assertEquals(16, CombinerLayout.ENTRY_BYTES);
        assertEquals(2 * CombinerLayout.ENTRY_BYTES, CombinerLayout.SET_BYTES);
        int setMask = ENTRIES / CombinerLayout.WAYS - 1;
        assertEquals(CombinerLayout.HEADER_BYTES, CombinerLayout.setOffset(0, setMask));
        assertEquals(CombinerLayout.HEADER_BYTES + 7 * CombinerLayout.SET_BYTES, CombinerLayout.setOffset(-1L, setMask));
        long state = CombinerLayout.state(123_456, 17);
        assertEquals(123_456, CombinerLayout.base(state));
        assertEquals(17, CombinerLayout.pending(state));
        assertEquals(CombinerLayout.MAX_BASE, CombinerLayout.base(CombinerLayout.state(Long.MAX_VALUE, 0)));
        assertTrue(CombinerLayout.MAX_FLUSH_THRESHOLD <= CombinerLayout.PENDING_MASK);
    }

    private static long set(long hash) {
        return (hash >>> CombinerLayout.INDEX_SHIFT) & (ENTRIES / CombinerLayout.WAYS - 1);
    }
}
