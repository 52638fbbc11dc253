package io.hotkeeper.engine;

import io.hotkeeper.engine.core.Internals;
import io.hotkeeper.engine.hash.KeyHasher;
import io.hotkeeper.engine.table.TableGeometry;
import io.hotkeeper.engine.SaltMode;
import io.hotkeeper.engine.shard.ShardIntegrity;
import io.hotkeeper.engine.shard.ShardThreads;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Worker tables: each worker writes its own table; estimates, topK and contains combine them from any thread. */
class WorkerTablesTest {
    private static final long SEED = 5;
    private static final long MEMORY = 16384;

    @Test
    void aWorkerNeverMeetsAnotherWorkersKeysInItsBucket() throws Exception {
        // Worker A's sixteen heavy keys fill both candidate buckets of worker B's key: in one shared table B's key
        // faces the lottery against them, in a table of its own it claims an empty slot.
        KeyHasher hasher = KeyHasher.seeded(SEED);
        TableGeometry geometry = TableGeometry.of(MEMORY / 64, 2);
        long probe = hasher.hash(0L);
        long first = geometry.bucket(probe);
        long second = geometry.alternate(first, geometry.fingerprint(probe));
        List<Long> heavy = new ArrayList<>();
        for (long bucket : new long[] {first, second}) {
            int found = 0;
            for (long key = 1; found < 8; key++) {
                if (geometry.bucket(hasher.hash(key)) == bucket && !heavy.contains(key)) {
                    heavy.add(key);
                    found++;
                }
            }
        }
        List<Long> keys = new ArrayList<>(heavy);
        keys.add(0L);
        // 64 tables: two live threads with distinct worker ids get distinct tables unless the ids are 64 apart.
        for (int tables : new int[] {1, 64}) {
            try (Hotkeeper hk = Hotkeeper.builder().recordStats().memoryBytes(MEMORY).seed(SEED)
                    .partitioning(Partitioning.perWorker(tables)).build()) {
                // B observes after A is done (its phase runs after the barrier), while A is still alive.
                inTwoLiveThreads(() -> {
                    for (long key : heavy) {
                        hk.observe(key, 1000);
                    }
                }, () -> { }, () -> { }, () -> hk.observe(0L));
                ShardIntegrity.checkAll(Internals.keyShardSets(hk));
                assertEquals(tables, hk.info().tables());
                assertEquals(tables * MEMORY, hk.tableBytes());
                if (tables == 1) {
                    assertEquals(1, hk.stats().evictionAttempts(), "one table: B's key draws against A's");
                    assertEquals(0, hk.estimate(0L));
                    // One table written by several threads: the per-worker salt wherever more than one is expected.
                    assertEquals(Runtime.getRuntime().availableProcessors() > 1 ? SaltMode.PER_WORKER
                            : SaltMode.SHARED, hk.saltMode());
                } else {
                    assertEquals(0, hk.stats().evictionAttempts(), "worker tables: B's bucket is its own");
                    assertEquals(1, hk.estimate(0L));
                    assertEquals(SaltMode.PER_TABLE, hk.saltMode(), "the default salt of worker tables");
                    assertEquals(tables, hk.saltShards(), "one salt counter per table");
                    assertEquals(128L * tables, hk.info().nativeBytesByPart().get("salt"), "128 bytes per table");
                    assertEquals(CombiningMode.OFF, hk.info().combining(), "AUTO stays off: tables are own");
                }
                for (long key : heavy) {
                    assertEquals(1000, hk.estimate(key));
                }
            }
        }
    }

    @Test
    void twoWritersWhoseIdsAreEqualModuloTheTableCountWriteATableEach() throws Exception {
        // Worker ids are global: a thread whose id equals this one's modulo 2 wrote this thread's table under a
        // fixed id % 2. Tables are given in arrival order instead (WorkerAssignment), so each writes its own.
        KeyHasher hasher = KeyHasher.seeded(SEED);
        try (Hotkeeper hk = Hotkeeper.builder().memoryBytes(MEMORY).seed(SEED)
                .partitioning(Partitioning.perWorker(2)).build()) {
            hk.observe(1L, 10);
            Thread other = ShardThreads.startColliding(2, () -> hk.observe(2L, 20));
            other.join();
            var tables = Internals.tables(hk);
            int mine = -1;
            int theirs = -1;
            for (int i = 0; i < 2; i++) {
                if (tables.table(i).estimate(hasher.hash(1L)) == 10) {
                    mine = i;
                }
                if (tables.table(i).estimate(hasher.hash(2L)) == 20) {
                    theirs = i;
                }
            }
            assertTrue(mine >= 0 && theirs >= 0 && mine != theirs, "tables " + mine + " and " + theirs);
            assertEquals(10, hk.estimate(1L));
            assertEquals(20, hk.estimate(2L));
            // A snapshot merged into another sketch of worker tables keeps both counts; after a reset this thread
            // writes the table it was given before.
            try (Hotkeeper copy = Hotkeeper.builder().memoryBytes(MEMORY).seed(SEED)
                    .partitioning(Partitioning.perWorker(2)).build()) {
                copy.merge(hk.snapshot());
                assertEquals(10, copy.estimate(1L));
                assertEquals(20, copy.estimate(2L));
            }
            hk.reset();
            hk.observe(1L, 3);
            assertEquals(3, tables.table(mine).estimate(hasher.hash(1L)), "the same table after a reset");
            assertEquals(3, hk.estimate(1L));
        }
    }

    @Test
    void aThreadThatTakesOverAnEndedWritersIdChoosesItsTableAfresh() throws Exception {
        // Writer 2 observes first (table 0) and ends. Writer 1, whose thread held an id all along, then observes:
        // writer 2 no longer counts, so it is given table 0 too. Writer 3 takes over writer 2's id while writer 1
        // still lives: with writer 2's choice kept it would write table 0 beside writer 1, table 1 empty. The id
        // changing hands forgets that choice (WorkerAssignment.forget), so writer 3 takes table 1.
        KeyHasher hasher = KeyHasher.seeded(SEED);
        try (Hotkeeper hk = Hotkeeper.builder().memoryBytes(MEMORY).seed(SEED)
                .partitioning(Partitioning.perWorker(2)).build()) {
            ShardThreads.idChangesHands(() -> hk.observe(1L, 10), () -> hk.observe(2L, 20),
                    () -> hk.observe(3L, 30));
            var tables = Internals.tables(hk);
            int[] tableOf = new int[4];
            for (int key = 1; key <= 3; key++) {
                for (int i = 0; i < 2; i++) {
                    if (tables.table(i).estimate(hasher.hash((long) key)) == 10L * key) {
                        tableOf[key] = i;
                    }
                }
                assertEquals(10L * key, hk.estimate((long) key));
            }
            assertEquals(0, tableOf[2], "the first writer's table");
            assertEquals(0, tableOf[1], "writer 2 had ended: its table was free");
            assertEquals(1, tableOf[3], "writer 3 took writer 2's id, not its table");
        }
    }

    @Test
    void aKeyObservedByTwoWorkersIsSummedAndRankedFromAThirdThread() throws Exception {
        try (Hotkeeper hk = Hotkeeper.builder().recordStats().memoryBytes(MEMORY).seed(SEED).minCount(1)
                .partitioning(Partitioning.perWorker(64))
                .build()) {
            inTwoLiveThreads(() -> {
                for (int i = 0; i < 100; i++) {
                    hk.observe("shared-key");
                }
                hk.observe("a-only", 20);
            }, () -> {
                for (int i = 0; i < 50; i++) {
                    hk.observe("shared-key");
                }
                hk.observe("b-only", 30);
            }, () -> { }, () -> { });
            ShardIntegrity.checkAll(Internals.keyShardSets(hk));
            assertEquals(150, hk.estimate("shared-key"), "the estimate sums the worker tables");
            List<HeavyHitter> top = hk.topK(10);
            assertEquals(List.of("shared-key", "b-only", "a-only"), top.stream().map(HeavyHitter::keyAsString).toList());
            assertEquals(150, top.get(0).estimate());
            assertTrue(hk.contains("shared-key"));
            assertFalse(hk.contains("absent"));
            assertTrue(hk.placement().format().contains("table[worker 1]"));
        }
    }

    @Test
    void twoWorkersOnAZipfStreamFindTheTrueTopHundred() throws Exception {
        long[] stream = Streams.zipf(1.0);
        Map<Long, Long> exact = Streams.exact(stream);
        try (Hotkeeper hk = Hotkeeper.builder().recordStats().memoryBytes(MEMORY).seed(SEED)
                .partitioning(Partitioning.perWorker(2)).build()) {
            Thread[] workers = new Thread[2];
            for (int t = 0; t < workers.length; t++) {
                int id = t;
                workers[t] = Thread.ofPlatform().start(() -> {
                    for (int i = id; i < stream.length; i += workers.length) {
                        hk.observe(stream[i]);
                    }
                });
            }
            for (Thread w : workers) {
                w.join();
            }
            ShardIntegrity.checkAll(Internals.keyShardSets(hk));
            long[] top = hk.topK(100).stream().mapToLong(HeavyHitter::keyAsLong).toArray();
            double precision = Streams.precision(top, exact, 100);
            System.out.printf("worker tables (2 x 16 KiB), 2 threads, Zipf 1.0: precision@100=%.3f%n", precision);
            assertTrue(precision >= 0.95, "precision=" + precision);
        }
    }

    @Test
    void virtualThreadsObserveThroughTheirCarriersTables() throws Exception {
        try (Hotkeeper hk = Hotkeeper.builder().recordStats().memoryBytes(MEMORY).seed(SEED)
                .partitioning(Partitioning.perWorker(4)).build()) {
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 1000; t++) {
                threads.add(Thread.ofVirtual().start(() -> {
                    for (int i = 0; i < 10; i++) {
                        hk.observe(7L);
                    }
                }));
            }
            for (Thread t : threads) {
                t.join();
            }
            ShardIntegrity.checkAll(Internals.keyShardSets(hk));
            assertEquals(10_000, hk.estimate(7L));
            assertEquals(10_000, hk.topK(1).get(0).estimate());
        }
    }

    @Test
    void badConfigurationsAreRejectedByName() {
        for (int bad : new int[] {0, 3, 128, -2}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> Hotkeeper.builder().recordStats().partitioning(Partitioning.perWorker(bad)));
            assertTrue(e.getMessage().startsWith("perWorker(" + bad + "): the table count must be a power of two in "
                    + "1..64"), e.getMessage());
        }
        // One partitioning: a second choice is refused, naming both (per-worker and per-node tables cannot combine).
        IllegalStateException twice = assertThrows(IllegalStateException.class, () -> Hotkeeper.builder()
                .partitioning(Partitioning.perWorker(2)).partitioning(Partitioning.perNode()));
        assertTrue(twice.getMessage().contains("perWorker(2)") && twice.getMessage().contains("perNode"),
                twice.getMessage());
        try (Hotkeeper hk = Hotkeeper.builder().recordStats().partitioning(Partitioning.perWorker(2))
                .saltMode(SaltMode.SHARED).combining(CombiningMode.ON).build()) {
            assertEquals(Partitioning.perWorker(2), hk.info().partitioning());
            assertEquals(2, hk.info().tables());
            assertEquals(SaltMode.SHARED, hk.saltMode(), "an explicit salt mode is kept");
            assertEquals(CombiningMode.ON, hk.info().combining());
        }
    }

    /**
     * Two platform threads A and B, alive together throughout (so they hold distinct worker ids): both run their
     * first step, meet, run their second step, meet again, and end.
     */
    private static void inTwoLiveThreads(Runnable a1, Runnable b1, Runnable a2, Runnable b2)
            throws InterruptedException {
        CyclicBarrier barrier = new CyclicBarrier(2);
        Thread a = Thread.ofPlatform().start(() -> steps(barrier, a1, a2));
        Thread b = Thread.ofPlatform().start(() -> steps(barrier, b1, b2));
        a.join();
        b.join();
    }

    private static void steps(CyclicBarrier barrier, Runnable first, Runnable second) {
        await(barrier);
        first.run();
        await(barrier);
        second.run();
        await(barrier);
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
