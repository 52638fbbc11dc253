package io.hotkeeper.engine;

import io.hotkeeper.engine.core.Internals;
import io.hotkeeper.engine.shard.ShardIntegrity;
import org.junit.jupiter.api.Test;

import java.util.concurrent.Executors;
import java.util.concurrent.CyclicBarrier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Real threads racing on the same slots: no increment is lost, no slot is duplicated, stats add up. */
class ConcurrencyTest {

    @Test
    void concurrentRefreshesAndClaimsOfTheSameKeysLoseNothing() throws Exception {
        int threads = 4;
        int keys = 8; // fits in one bucket of a big table only by chance; use a table with room for all
        int perThread = 500_000;
        // Combining off: every observation must reach the table, so the phase counters add up exactly.
        try (Hotkeeper hk = Hotkeeper.builder().recordStats().memoryBytes(1 << 20).seed(3).combining(CombiningMode.OFF).build()) {
            observeTogether(hk, threads, perThread, keys);
            ShardIntegrity.checkAll(Internals.keyShardSets(hk));
            long total = 0;
            for (long k = 0; k < keys; k++) {
                long e = hk.estimate(k);
                assertEquals((long) threads * perThread / keys, e, "key " + k);
                total += e;
            }
            HotkeeperStats s = hk.stats();
            assertEquals(keys, s.claims(), "each key claimed exactly once despite racing claimants");
            assertEquals(total - keys, s.refreshes());
            assertEquals(0, s.evictionAttempts());
        }
    }

    @Test
    void virtualThreadsShareCarrierStripesAndCountExactly() throws Exception {
        int tasks = 20_000;
        try (Hotkeeper hk = Hotkeeper.builder().recordStats().memoryBytes(1 << 20).combining(CombiningMode.OFF).build();
             var executor = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < tasks; i++) {
                executor.submit(() -> {
                    for (int j = 0; j < 50; j++) {
                        hk.observe("hot");
                    }
                    Thread.yield();
                    hk.observe("hot");
                });
            }
            executor.shutdown();
            assertTrue(executor.awaitTermination(60, java.util.concurrent.TimeUnit.SECONDS));
            ShardIntegrity.checkAll(Internals.keyShardSets(hk));
            assertEquals(tasks * 51L, hk.estimate("hot"));
            HotkeeperStats s = hk.stats();
            assertEquals(tasks * 51L, s.claims() + s.refreshes());
        }
    }

    @Test
    void virtualThreadsCombineThroughTheirCarriersBlocksAndCountExactly() throws Exception {
        int tasks = 20_000;
        int threshold = 16;
        try (Hotkeeper hk = Hotkeeper.builder().recordStats().memoryBytes(1 << 20).combining(CombiningMode.ON).combiner(64, threshold)
                .build();
             var executor = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < tasks; i++) {
                executor.submit(() -> {
                    for (int j = 0; j < 50; j++) {
                        hk.observe("hot");
                    }
                    Thread.yield();
                    hk.observe("hot");
                });
            }
            executor.shutdown();
            assertTrue(executor.awaitTermination(60, java.util.concurrent.TimeUnit.SECONDS));
            ShardIntegrity.checkAll(Internals.keyShardSets(hk));
            assertEquals(tasks * 51L, hk.estimate("hot"));
            assertEquals(tasks * 51L, hk.topK(1).get(0).estimate());
            int blocks = hk.info().combiners();
            assertTrue(blocks <= Runtime.getRuntime().availableProcessors() + 1,
                    "one block per carrier, not per virtual thread: " + hk.info());
            // ON combines from the start, whatever the scheduling. Through the table go only: the observations
            // before the key's count reached the admission count (2 x threshold, from all carriers together), each
            // block's admitting observation, and (the carrier gate never being busy: nothing inside it blocks)
            // nothing else; at most threshold - 1 per block are still pending, not yet counted as combined.
            long bound = tasks * 51L - 2L * threshold - blocks * (long) threshold;
            assertTrue(hk.stats().combined() >= bound, "combined " + hk.stats().combined() + " < " + bound
                    + ": " + hk.stats());
        }
    }

    @Test
    void platformThreadsCombiningHotKeysLoseNothing() throws Exception {
        int threads = 4;
        int keys = 8;
        int perThread = 500_000;
        int warmUp = 1_024; // two halves of 512: a multiple of the 8 keys
        int threshold = 8;
        // 256 entries (128 sets): with this seed no three of the 8 keys share a set, so each worker can hold them all.
        try (Hotkeeper hk = Hotkeeper.builder().recordStats().memoryBytes(1 << 20).seed(3).combining(CombiningMode.AUTO)
                .combiner(256, threshold).build()) {
            // Warm-up: AUTO engages when a second thread observes a hot key; the second half then creates every
            // worker's block. The workers of both halves stay alive until all are done, so they hold distinct ids,
            // and the next round's threads take the same ids over (lowest free first), blocks included.
            observeTogether(hk, threads, warmUp / 2, keys);
            assertTrue(hk.info().combiningEngaged());
            observeTogether(hk, threads, warmUp / 2, keys);
            assertEquals(threads, hk.info().combiners());
            assertTrue(hk.info().combiningEngaged());
            long combinedBefore = hk.stats().combined();
            observeTogether(hk, threads, perThread, keys);
            ShardIntegrity.checkAll(Internals.keyShardSets(hk));
            for (long k = 0; k < keys; k++) {
                assertEquals((long) threads * (perThread + warmUp) / keys, hk.estimate(k), "key " + k);
            }
            HotkeeperStats s = hk.stats();
            assertEquals(keys, s.claims(), "each key claimed exactly once despite racing claimants");
            // Engaged and every block existing before the second round, so in it a worker sends to the table only
            // one miss per key (its admission) and leaves at most threshold - 1 per key pending: deterministic.
            long bound = (long) threads * perThread - (long) threads * keys * threshold;
            assertTrue(s.combined() - combinedBefore >= bound, "combined in round two "
                    + (s.combined() - combinedBefore) + " < " + bound + ": " + s);
        }
    }

    /** {@code threads} platform threads, released together, each observing keys {@code i % keys} for i < perThread. */
    private static void observeTogether(Hotkeeper hk, int threads, int perThread, int keys) throws InterruptedException {
        CyclicBarrier start = new CyclicBarrier(threads);
        CyclicBarrier end = new CyclicBarrier(threads);
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            workers[t] = Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                for (int i = 0; i < perThread; i++) {
                    hk.observe((long) (i % keys));
                }
                try {
                    end.await(); // alive until all are done: no worker inherits another's id mid-round
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
        }
        for (Thread w : workers) {
            w.join();
        }
    }
}
