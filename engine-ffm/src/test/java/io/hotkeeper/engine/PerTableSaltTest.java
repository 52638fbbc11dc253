package io.hotkeeper.engine;

import io.hotkeeper.engine.core.Internals;
import io.hotkeeper.engine.shard.ShardIntegrity;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link SaltMode#PER_TABLE} beside the paths it meets: worker tables written by two threads, then decay, snapshot,
 * merge and reset; and a sliding window, whose slices are its tables and are recycled. Each run is eviction-heavy
 * (a 4 KiB table against thousands of one-off keys), so every table draws from its own counter many times.
 */
class PerTableSaltTest {
    static final long HEAVY = 1L << 40;

    /**
     * One heavy key (every fourth observation) among one-off keys of {@code thread}'s own range (PerWorkerSaltTest
     * uses it too).
     */
    static void churn(KeyObserver into, int thread, int n) {
        SplittableRandom r = new SplittableRandom(thread);
        for (int i = 0; i < n; i++) {
            into.observe(i % 4 == 0 ? HEAVY : (long) thread << 32 | r.nextInt(1 << 20));
        }
    }

    @Test
    void workerTablesOfTwoThreadsThenDecaySnapshotMergeAndReset() throws Exception {
        try (Hotkeeper hk = Hotkeeper.builder().memoryBytes(4096).seed(3).recordStats()
                .partitioning(Partitioning.perWorker(2)).build()) {
            assertEquals(SaltMode.PER_TABLE, hk.saltMode());
            Concurrently.run(2, t -> churn(hk.writer(), t, 40_000));
            ShardIntegrity.checkAll(Internals.keyShardSets(hk));
            assertTrue(hk.stats().evictionAttempts() > 10_000, "the lottery ran: " + hk.stats().evictionAttempts());
            long heavy = hk.estimate(HEAVY);
            assertTrue(heavy >= 18_000 && heavy <= 20_000, "heavy estimate " + heavy);
            assertEquals(HEAVY, hk.topK(1).get(0).keyAsLong());

            hk.decay(0.5);
            assertEquals(heavy / 2, hk.estimate(HEAVY), 2 /* each table rounds its half down */);
            try (Hotkeeper fresh = Hotkeeper.builder().memoryBytes(4096).seed(3)
                    .partitioning(Partitioning.perWorker(2)).build()) {
                fresh.merge(hk.snapshot());
                assertEquals(hk.estimate(HEAVY), fresh.estimate(HEAVY));
                assertEquals(HEAVY, fresh.topK(1).get(0).keyAsLong());
            }
            hk.reset();
            assertEquals(0, hk.estimate(HEAVY));
            Concurrently.run(2, t -> churn(hk.writer(), t, 4_000));
            assertEquals(HEAVY, hk.topK(1).get(0).keyAsLong(), "draws go on after a reset");
        }
    }

    @Test
    void aWindowsSlicesEachDrawFromTheirOwnCounterAcrossRecycling() {
        AtomicLong now = new AtomicLong(1_000_000_000_000L);
        try (Hotkeeper hk = Hotkeeper.builder().memoryBytes(4096).seed(5).saltMode(SaltMode.PER_TABLE)
                .partitioning(Partitioning.window(Duration.ofSeconds(3), 3)).clock(now::get).build()) {
            assertEquals(3, hk.saltShards(), "one counter per slice");
            assertEquals(3 * 128L, hk.info().nativeBytesByPart().get("salt"));
            for (int second = 0; second < 7; second++) { // slices recycled twice over
                churn(hk, second, 8_000);
                now.addAndGet(1_000_000_000L);
            }
            // The window holds the last three seconds: the heavy key's 2,000 per second in each.
            long heavy = hk.estimate(HEAVY);
            assertTrue(heavy >= 4_000 && heavy <= 6_000, "heavy estimate " + heavy);
            assertEquals(HEAVY, hk.topK(1).get(0).keyAsLong());
            ShardIntegrity.checkAll(Internals.keyShardSets(hk));
        }
    }
}
