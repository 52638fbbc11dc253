package io.hotkeeper.engine.salt;

import io.hotkeeper.engine.worker.WorkerHandle;
import io.hotkeeper.engine.worker.WorkerSpace;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.function.IntFunction;
import java.util.function.IntToLongFunction;
import java.util.function.LongUnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EvictionSaltTest {

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 8, 32})
    void valuesNeverRepeatAcrossThreadsAndEachShardKeepsItsResidueClassIncreasing(int shards) throws Exception {
        int threads = 4;
        int perThread = 200_000;
        long[][] drawn = new long[threads][perThread];
        int[][] shardOf = new int[threads][perThread];
        try (Arena arena = Arena.ofShared()) {
            EvictionSalt salt = new EvictionSalt(arena, shards);
            CyclicBarrier start = new CyclicBarrier(threads);
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                workers.add(Thread.ofPlatform().start(() -> {
                    SplittableRandom r = new SplittableRandom(id);
                    await(start);
                    for (int i = 0; i < perThread; i++) {
                        long spare = r.nextLong() >>> 32;
                        shardOf[id][i] = (int) spare & (shards - 1);
                        drawn[id][i] = salt.next(spare);
                    }
                }));
            }
            for (Thread w : workers) {
                w.join();
            }
            long[] all = new long[threads * perThread];
            for (int t = 0; t < threads; t++) {
                long last = -1;
                long[] lastPerShard = new long[shards];
                Arrays.fill(lastPerShard, -1);
                for (int i = 0; i < perThread; i++) {
                    long v = drawn[t][i];
                    int s = shardOf[t][i];
                    assertEquals(s, Math.floorMod(v, shards), "value " + v + " outside residue class " + s);
                    // Within one thread, each shard's values strictly increase (the counter only moves forward).
                    assertTrue(v > lastPerShard[s]);
                    lastPerShard[s] = v;
                    all[t * perThread + i] = v;
                }
            }
            Arrays.sort(all);
            for (int i = 1; i < all.length; i++) {
                assertTrue(all[i] != all[i - 1], "salt value repeated: " + all[i]);
            }
            long total = 0;
            for (int s = 0; s < shards; s++) {
                total += (salt.peek(s) - s) / shards;
            }
            assertEquals((long) threads * perThread, total, "every draw advanced exactly one shard once");
        }
    }

    @Test
    void perWorkerCountersNeverRepeatAcrossThreadsEvenWhenWorkersShareACounter() throws Exception {
        int counters = 4;
        try (Arena arena = Arena.ofShared()) {
            EvictionSalt salt = perWorkerSalt(arena, counters);
            WorkerSpace space = new WorkerSpace(8, 1);
            // Threads 0 and 1 are one shared worker (a carrier's virtual threads, id 1); thread 2 is worker 2; thread
            // 3 is worker 5, whose id shares counter 1 with the carrier's (5 mod 4).
            int[] ids = {1, 1, 2, 5};
            long[][] drawn = drawUnique(4, t -> {
                long worker = space.handleOf(t < 2 ? WorkerHandle.shared(ids[t]) : WorkerHandle.exclusive(ids[t]));
                return i -> salt.next(i, worker);
            });
            assertEachThreadDrawsOneIncreasingClass(drawn, counters, t -> ids[t] % counters);
            assertEquals(0, salt.peek(0), "no worker's id picks counter 0");
            assertEquals(3, salt.peek(3), "no worker's id picks counter 3");
        }
    }

    @Test
    void perWorkerSaltLooksTheWorkerUpOnTheDrawWhenTheCallerHasNone() throws Exception {
        int counters = 8;
        try (Arena arena = Arena.ofShared()) {
            EvictionSalt salt = perWorkerSalt(arena, counters);
            // Each thread's draws without a handle come from the counter of its own worker id, as with one.
            long[][] drawn = drawUnique(3, t -> i -> salt.next(i, WorkerHandle.NO_HANDLE));
            assertEachThreadDrawsOneIncreasingClass(drawn, counters, t -> drawn[t][0] % counters);
            int own = WorkerHandle.id(io.hotkeeper.engine.worker.Workers.current()) & (counters - 1);
            long before = salt.peek(own);
            assertEquals(before, salt.next(0, WorkerHandle.NO_HANDLE), "the caller's own counter");
            assertEquals(before + counters, salt.peek(own));
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 3, 65, 128})
    void perWorkerCounterCountsOutsidePowersOfTwoUpTo64AreRefused(int counters) {
        try (Arena arena = Arena.ofConfined()) {
            var region = arena.allocate(SaltLayout.segmentBytes(Math.max(1, counters)), 128);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> EvictionSalt.perWorker(region, counters));
            assertTrue(e.getMessage().startsWith("counters=" + counters + ": must be a power of two in 1..64"),
                    e.getMessage());
        }
    }

    @Test
    void perTableCountersNeverRepeatAcrossTablesAndKeepTheirTablesResidueClass() throws Exception {
        int tables = 3; // not a power of two: residue classes need none
        try (Arena arena = Arena.ofShared()) {
            var region = arena.allocate(SaltLayout.segmentBytes(tables), SaltLayout.ALIGNMENT);
            EvictionSalt[] salts = new EvictionSalt[tables];
            for (int i = 0; i < tables; i++) {
                salts[i] = EvictionSalt.perTable(region.asSlice(SaltLayout.counterOffset(i), SaltLayout.REGION_BYTES),
                        i, tables);
                assertEquals(i, salts[i].peek(0), "table i starts at i");
            }
            // Threads 0 and 3 share table 0 (more workers than tables); 1 and 2 have tables of their own.
            long[][] drawn = drawUnique(4, t -> i -> salts[t % tables].next(i, WorkerHandle.NO_HANDLE));
            assertEachThreadDrawsOneIncreasingClass(drawn, tables, t -> t % tables);
            long total = 0;
            for (int i = 0; i < tables; i++) {
                total += (salts[i].peek(0) - i) / tables;
            }
            assertEquals(4L * PER_THREAD, total, "every draw advanced its table's counter once");
        }
        try (Arena arena = Arena.ofConfined()) {
            var slice = arena.allocate(SaltLayout.REGION_BYTES, SaltLayout.ALIGNMENT);
            assertThrows(IllegalArgumentException.class, () -> EvictionSalt.perTable(slice, 2, 2));
            assertThrows(IllegalArgumentException.class, () -> EvictionSalt.perTable(slice, -1, 2));
            assertThrows(IllegalArgumentException.class, () -> EvictionSalt.perTable(slice, 0, 0));
        }
    }

    private static final int PER_THREAD = 200_000;

    /** A per-worker salt of {@code counters} counters in {@code arena}. */
    private static EvictionSalt perWorkerSalt(Arena arena, int counters) {
        return EvictionSalt.perWorker(arena.allocate(SaltLayout.segmentBytes(counters), SaltLayout.ALIGNMENT),
                counters);
    }

    /**
     * Each thread's values lie in one residue class modulo {@code counters}, {@code classOf(thread)}, and increase:
     * every draw of that thread took the next value of one counter.
     */
    private static void assertEachThreadDrawsOneIncreasingClass(long[][] drawn, int counters,
                                                                IntToLongFunction classOf) {
        for (int t = 0; t < drawn.length; t++) {
            long last = -1;
            for (long v : drawn[t]) {
                assertEquals(classOf.applyAsLong(t), v % counters, "thread " + t + ": value " + v
                        + " outside its counter's class");
                assertTrue(v > last, "thread " + t + ": a counter's values increase");
                last = v;
            }
        }
    }

    /**
     * {@code threads} platform threads each draw {@link #PER_THREAD} values through the drawer {@code drawerFor}
     * gives it (called with the draw's index); returns them per thread, after checking that no value repeats.
     */
    private static long[][] drawUnique(int threads, IntFunction<LongUnaryOperator> drawerFor) throws Exception {
        long[][] drawn = new long[threads][PER_THREAD];
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            LongUnaryOperator draw = drawerFor.apply(t);
            workers.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; i < PER_THREAD; i++) {
                    drawn[id][i] = draw.applyAsLong(i);
                }
            }));
        }
        for (Thread w : workers) {
            w.join();
        }
        long[] all = Arrays.stream(drawn).flatMapToLong(Arrays::stream).sorted().toArray();
        for (int i = 1; i < all.length; i++) {
            assertTrue(all[i] != all[i - 1], "salt value repeated: " + all[i]);
        }
        return drawn;
    }

    /** Shards follow the processors and per-worker counters the writers, each rounded up and capped. */
    @ParameterizedTest(name = "{0} -> {1} shards, {2} per-worker counters")
    @CsvSource({"1, 1, 2", "2, 2, 2", "3, 4, 4", "12, 16, 16", "32, 32, 32", "33, 32, 64", "200, 32, 64"})
    void counterCountsAreRoundedUpToAPowerOfTwoAndCapped(int threads, int shards, int workerCounters) {
        assertEquals(shards, SaltLayout.shardsFor(threads));
        assertEquals(workerCounters, SaltLayout.workerCountersFor(threads));
    }

    @Test
    void badShardCountsAreRejectedByName() {
        try (Arena arena = Arena.ofConfined()) {
            var e = assertThrows(IllegalArgumentException.class, () -> new EvictionSalt(arena, 3));
            assertEquals("saltShards=3: must be a power of two in 1..32", e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> new EvictionSalt(arena, 64));
            assertThrows(IllegalArgumentException.class, () -> new EvictionSalt(arena, 0));
        }
    }

    private static void await(CyclicBarrier b) {
        try {
            b.await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
