package io.hotkeeper.engine;

import io.hotkeeper.engine.core.Internals;
import io.hotkeeper.engine.shard.ShardIntegrity;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The per-worker salt, the default of a table written by several expected threads, beside the paths it meets: one
 * shared table written by two threads, then decay, snapshot, merge and reset; per-node tables, which share one
 * per-worker salt; and a sliding window, whose slices are recycled. Each run is eviction-heavy (a 4 KiB table
 * against thousands of one-off keys, PerTableSaltTest's stream), so both threads draw many times, through the
 * salt's own worker lookup (no stats, so observations carry no worker).
 */
class PerWorkerSaltTest {
    private static final long HEAVY = PerTableSaltTest.HEAVY;

    private static void churn(KeyObserver into, int thread, int n) {
        PerTableSaltTest.churn(into, thread, n);
    }

    @Test
    void oneTableOfTwoThreadsThenDecaySnapshotMergeAndReset() throws Exception {
        try (Hotkeeper hk = Hotkeeper.builder().memoryBytes(4096).seed(3).expectedThreads(2).build()) {
            assertEquals(SaltMode.PER_WORKER, hk.saltMode(), "the default for two expected writers");
            assertEquals(2, hk.saltShards());
            Concurrently.run(2, t -> {
                churn(hk, t, 40_000);
                hk.flush(); // the thread's pending hot-key counts to the table, which decay halves
            });
            ShardIntegrity.checkAll(Internals.keyShardSets(hk));
            long heavy = hk.estimate(HEAVY);
            assertTrue(heavy >= 18_000 && heavy <= 20_000, "heavy estimate " + heavy);
            assertEquals(HEAVY, hk.topK(1).get(0).keyAsLong());

            hk.decay(0.5);
            assertEquals(heavy / 2, hk.estimate(HEAVY), 1);
            try (Hotkeeper fresh = Hotkeeper.builder().memoryBytes(4096).seed(3).expectedThreads(2).build()) {
                fresh.merge(hk.snapshot());
                assertEquals(hk.estimate(HEAVY), fresh.estimate(HEAVY));
                assertEquals(HEAVY, fresh.topK(1).get(0).keyAsLong());
            }
            hk.reset();
            assertEquals(0, hk.estimate(HEAVY));
            Concurrently.run(2, t -> churn(hk, t, 4_000));
            assertEquals(HEAVY, hk.topK(1).get(0).keyAsLong(), "draws go on after a reset");
        }
    }

    @Test
    void perNodeTablesShareOneSaltOfACounterPerWriter() throws Exception {
        ThreadLocal<Integer> node = ThreadLocal.withInitial(() -> 0);
        try (Hotkeeper hk = SimulatedNodes.build(Hotkeeper.builder().memoryBytes(4096).seed(4).expectedThreads(4),
                2, node::get)) {
            assertEquals(SaltMode.PER_WORKER, hk.saltMode());
            assertEquals(4, hk.saltShards(), "one salt for both tables, a counter per expected writer");
            assertEquals(4 * 128L, hk.info().nativeBytesByPart().get("salt"));
            Concurrently.run(4, t -> {
                node.set(t % 2);
                churn(hk, t, 20_000);
            });
            ShardIntegrity.checkAll(Internals.keyShardSets(hk));
            long heavy = hk.estimate(HEAVY); // summed over the two nodes' tables
            assertTrue(heavy >= 18_000 && heavy <= 20_000, "heavy estimate " + heavy);
            assertEquals(HEAVY, hk.topK(1).get(0).keyAsLong());
        }
    }

    @Test
    void aWindowOfTwoThreadsAcrossRecycling() throws Exception {
        AtomicLong now = new AtomicLong(1_000_000_000_000L);
        try (Hotkeeper hk = Hotkeeper.builder().memoryBytes(4096).seed(5).expectedThreads(2)
                .partitioning(Partitioning.window(Duration.ofSeconds(3), 3)).clock(now::get).build()) {
            assertEquals(SaltMode.PER_WORKER, hk.saltMode());
            for (int second = 0; second < 7; second++) { // slices recycled twice over
                int s = second;
                Concurrently.run(2, t -> churn(hk, 2 * s + t, 4_000));
                now.addAndGet(1_000_000_000L);
            }
            // The window holds the last three seconds: the heavy key's 2 x 1,000 per second in each.
            long heavy = hk.estimate(HEAVY);
            assertTrue(heavy >= 4_000 && heavy <= 6_000, "heavy estimate " + heavy);
            assertEquals(HEAVY, hk.topK(1).get(0).keyAsLong());
            ShardIntegrity.checkAll(Internals.keyShardSets(hk));
        }
    }
}
