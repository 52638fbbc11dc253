package io.hotkeeper.engine;

import io.hotkeeper.engine.SaltMode;
import io.hotkeeper.engine.worker.Workers;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The hot path pays only for what it needs: with stats off, the shared salt and exact counting, an observation
 * that neither promotes nor combines never looks up its worker (no id is taken for the thread); the per-worker
 * salt looks it up on a lottery draw only.
 */
class WorkerLookupTest {

    /** 1 if a fresh platform thread that ran {@code work} took a worker id (looked its worker up), else 0. */
    private static int idsHeldBy(Consumer<Hotkeeper> work, Hotkeeper hk) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        CountDownLatch exit = new CountDownLatch(1);
        Thread t = Thread.ofPlatform().start(() -> {
            work.accept(hk);
            done.countDown();
            try {
                exit.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertTrue(done.await(30, TimeUnit.SECONDS));
        int held = Workers.holdsId(t) ? 1 : 0; // asked about this thread alone: other threads cannot disturb it
        exit.countDown();
        t.join();
        return held;
    }

    private static final long COLD_FLOOR = 1_000;

    private static void coldKeys(Hotkeeper hk) {
        for (long k = 0; k < 1000; k++) {
            hk.observe(k);          // each below the promotion floor: refresh, claim or lottery only
            hk.observe("text-" + k);
            hk.estimate(k);
        }
    }

    @Test
    void observationsThatNeitherPromoteNorCombineLookNoWorkerUp() throws Exception {
        // A floor the cold keys never reach: none of their observations promotes (the default floor, 1, would
        // promote every first observation, and a promotion looks its worker up).
        try (Hotkeeper hk = Hotkeeper.builder().memoryBytes(4096).seed(1).minCount(COLD_FLOOR)
                .saltMode(SaltMode.SHARED).build()) {
            assertEquals(0, idsHeldBy(WorkerLookupTest::coldKeys, hk));
        }
        // The per-worker salt (the default on a machine of several processors) looks the worker up on a draw
        // only: refreshes and claims of a few keys that never fill a bucket take no id.
        try (Hotkeeper hk = Hotkeeper.builder().memoryBytes(4096).seed(1).minCount(COLD_FLOOR)
                .saltMode(SaltMode.PER_WORKER).build()) {
            assertEquals(0, idsHeldBy(h -> {
                for (int i = 0; i < 1000; i++) {
                    h.observe(i & 3);
                }
            }, hk));
            assertEquals(0, hk.info().nativeBytesByPart().get("salt") % 128);
        }
        try (Hotkeeper hk = Hotkeeper.builder().memoryBytes(4096).seed(1).minCount(COLD_FLOOR).shardedSalt()
                .build()) {
            assertEquals(0, idsHeldBy(WorkerLookupTest::coldKeys, hk));
        }
        // Approximate counting flips a coin, with its worker's state, only for a count past its threshold: cold
        // keys below it look no worker up.
        try (Hotkeeper hk = Hotkeeper.builder().memoryBytes(4096).seed(1).minCount(COLD_FLOOR)
                .saltMode(SaltMode.SHARED).approximateCountsAbove(1 << 12).build()) {
            assertEquals(0, idsHeldBy(WorkerLookupTest::coldKeys, hk));
        }
    }

    @Test
    void anApproximateCountsCoinLooksItsWorkerUp() throws Exception {
        try (Hotkeeper hk = Hotkeeper.builder().memoryBytes(4096).seed(1).minCount(COLD_FLOOR)
                .saltMode(SaltMode.SHARED).approximateCountsAbove(16).build()) {
            assertEquals(1, idsHeldBy(h -> {
                for (int i = 0; i < 100; i++) {
                    h.observe(7L); // past 16 each refresh flips a coin from the worker's stripe
                }
            }, hk));
            long estimate = hk.estimate(7L);
            assertTrue(estimate >= 16 && estimate <= 400, "an approximate count of 100: " + estimate);
        }
    }

    @Test
    void whatIsPerWorkerLooksItsWorkerUp() throws Exception {
        try (Hotkeeper hk = Hotkeeper.builder().memoryBytes(4096).seed(1).recordStats().build()) {
            assertEquals(1, idsHeldBy(WorkerLookupTest::coldKeys, hk), "stats count per worker");
        }
        try (Hotkeeper hk = Hotkeeper.builder().memoryBytes(4096).seed(1).saltMode(SaltMode.PER_WORKER).build()) {
            assertEquals(1, idsHeldBy(WorkerLookupTest::coldKeys, hk), "the per-worker salt");
        }
        try (Hotkeeper hk = Hotkeeper.builder().memoryBytes(4096).seed(1).build()) {
            assertEquals(1, idsHeldBy(h -> h.observe(7L, 100), hk), "a promotion records into the worker's shard");
        }
    }
}
