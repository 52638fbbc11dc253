package io.hotkeeper.engine;

import io.hotkeeper.engine.core.Internals;
import io.hotkeeper.engine.SaltMode;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code Builder.memory(total)} bounds every native byte the instance allocates (docs/design.md, "One memory
 * budget"): across k, budgets, observing threads (1 to 64), key lengths (8 to 256 bytes, stored whole) and
 * options that add parts (stats, per-worker salt, worker tables), with key churn that fills and evicts every
 * shard, {@code info().nativeBytes()} stays within the budget; a budget too small for k keys is refused with
 * the minimum named.
 */
class MemoryBudgetTest {
    private static final long[] BUDGETS = {16 * 1024, 24 * 1024, 44 * 1024, 64 * 1024, 1024 * 1024};
    private static final int[] KS = {1, 100, 1000};
    private static final int[] THREADS = {1, 2, 8, 64};
    private static final int[] KEY_BYTES = {8, 64, 256};

    @Test
    void everyNativeByteStaysWithinTheBudget() throws Exception {
        int built = 0;
        int refused = 0;
        for (long budget : BUDGETS) {
            for (int k : KS) {
                for (int keyBytes : KEY_BYTES) {
                    for (int threads : THREADS) {
                        HotkeeperBuilder b = Hotkeeper.builder().memory(budget).k(k).maxKeyBytes(keyBytes)
                                .expectedThreads(Math.min(threads, 8)).seed(threads * 31L + k);
                        // Options that add parts, in turn.
                        switch ((built + refused) % 4) {
                            case 1 -> b.recordStats();
                            case 2 -> b.saltMode(SaltMode.PER_WORKER);
                            case 3 -> b.partitioning(Partitioning.perWorker(2));
                            default -> { }
                        }
                        if ((built + refused) % 3 == 0) {
                            b.expectedKeyLengths(keyBytes, 12, 2 * keyBytes); // a shard sized for a sampled mix
                        }
                        Hotkeeper hk;
                        try {
                            hk = b.build();
                        } catch (IllegalArgumentException e) {
                            assertTrue(e.getMessage().contains("the minimum is"), e.getMessage());
                            refused++;
                            continue;
                        }
                        try (hk) {
                            churn(hk, threads, keyBytes);
                            HotkeeperInfo info = hk.info();
                            String where = "budget " + budget + ", k " + k + ", keys of " + keyBytes + " B, "
                                    + threads + " threads: " + info.nativeBytesByPart();
                            assertEquals(budget, info.memoryBudget());
                            assertTrue(info.nativeBytes() <= budget, where);
                            assertTrue(info.shards() >= 1 && info.shards() <= 8 * info.tables(), where);
                            assertFalse(hk.topK(k).isEmpty(), where);
                        }
                        built++;
                    }
                }
            }
        }
        assertTrue(built >= 50 && refused >= 4, "built " + built + ", refused " + refused);
    }

    @Test
    void workersSharingShardsKeepEveryTrackedSlotLinked() throws Exception {
        // 64 KiB gives eight expected writers two shards (a third would leave the table below 250 buckets):
        // eight threads promote, evict and hand off through them, four to a shard, in turn.
        for (int round = 0; round < 4; round++) {
            try (Hotkeeper hk = Hotkeeper.builder().memory(64 * 1024).seed(round).expectedThreads(8)
                    .decayBase(1.08).build()) {
                assertEquals(2, hk.info().shardLimit(), hk.info().toString());
                assertTrue(hk.info().buckets() >= 250, hk.info().toString());
                churn(hk, 8, 16);
                assertTrue(hk.info().shards() <= 2, "eight workers, two shards: " + hk.info());
                assertEquals(List.of(), io.hotkeeper.engine.shard.ShardIntegrity.violations(Internals.keyShards(hk)),
                        "round " + round);
                assertTrue(hk.info().nativeBytes() <= 64 * 1024);
            }
        }
    }

    @Test
    void aBudgetTooSmallForKKeysIsRefusedNamingTheMinimum() {
        var e = assertThrows(IllegalArgumentException.class,
                () -> Hotkeeper.builder().memory(16 * 1024).k(1000).build());
        assertTrue(e.getMessage().startsWith("memory=16384: too small for k=1000 keys of up to 64 bytes; the minimum is "),
                e.getMessage());
        long minimum = Long.parseLong(e.getMessage().replaceAll(".*the minimum is (\\d+) bytes.*", "$1"));
        try (Hotkeeper hk = Hotkeeper.builder().memory(minimum).k(1000).build()) {
            assertTrue(hk.info().nativeBytes() <= minimum);
        }
        assertThrows(IllegalArgumentException.class, () -> Hotkeeper.builder().memory(minimum - 1).k(1000).build());
    }

    @Test
    void sixteenKiBHoldsAHundredLongKeysInOneSharedShard() throws Exception {
        // The minimum shard: 108 long keys (9 pages of 12 and a spare) beside a table of 80 buckets, 16,384 B in
        // all; 77 for several writers, whose per-worker salt takes a second counter (128 B, a 64th of the budget at
        // most) from the room above the minimum, and whose shared shard takes 4 inbox cells of 64 B from the
        // table (2 buckets with their links).
        for (int threads : new int[] {1, 2, 8}) {
            try (Hotkeeper hk = Hotkeeper.builder().memory(16 * 1024).k(100).maxKeyBytes(8).expectedThreads(threads)
                    .seed(threads).build()) {
                HotkeeperInfo info = hk.info();
                assertEquals(threads == 1 ? 80 : 77, info.buckets(), info.toString());
                assertEquals(threads == 1 ? 128L : 256L, info.nativeBytesByPart().get("salt"), info.toString());
                assertEquals(1, info.shardLimit(), "the workers share one shard: " + info);
                assertEquals(108, info.shardCapacity(), info.toString());
                churn(hk, threads, 8);
                assertEquals(1, hk.info().shards(), hk.info().toString());
                assertTrue(hk.info().nativeBytes() <= 16 * 1024, hk.info().nativeBytesByPart().toString());
                assertEquals(List.of(), io.hotkeeper.engine.shard.ShardIntegrity.violations(
                        Internals.keyShards(hk)), "threads " + threads);
            }
        }
        // Keys of up to 64 or 256 bytes (the command line's) fit too: 108 keys of up to 16 bytes take 11 pages of
        // 10 and 3 spare pages (the two classes such keys take and page 0), beside the smallest table.
        for (int maxKeyBytes : new int[] {64, 256}) {
            try (Hotkeeper hk = Hotkeeper.builder().memory(16 * 1024).k(100).maxKeyBytes(maxKeyBytes)
                    .expectedThreads(1).build()) {
                assertEquals(64, hk.info().buckets(), hk.info().toString());
                churn(hk, 1, 12);
                assertTrue(hk.info().nativeBytes() <= 16 * 1024, hk.info().nativeBytesByPart().toString());
            }
        }
        var e = assertThrows(IllegalArgumentException.class,
                () -> Hotkeeper.builder().memory(16 * 1024).k(200).maxKeyBytes(64).build());
        assertTrue(e.getMessage().contains("the minimum is 22016 bytes") && e.getMessage().contains("a shard of 212 keys"),
                e.getMessage());
    }

    @Test
    void aSharedTableGivesEachWriterAShardWhereTheTableKeepsTwoAndAHalfKBuckets() {
        // k = 100, keys of up to 64 bytes, two expected writers of one table: at 64 KiB a shard each beside 280
        // buckets, and no inbox cells (no writer shares a shard); at 48 KiB a second shard would leave the table
        // below 250 buckets, so the writers share one, which gets its 4 cells; one writer gets one shard either way.
        int[][] expected = {{48, 1, 1}, {48, 2, 1}, {64, 1, 1}, {64, 2, 2}};
        for (int[] e : expected) {
            try (Hotkeeper hk = Hotkeeper.builder().memory(e[0] * 1024L).k(100).maxKeyBytes(64).expectedThreads(e[1])
                    .build()) {
                HotkeeperInfo info = hk.info();
                String where = e[0] + " KiB, " + e[1] + " writers: " + info;
                assertEquals(e[2], info.shardLimit(), where);
                assertTrue(info.shardLimit() == 1 || info.buckets() >= 250, where);
                assertTrue(info.nativeBytes() <= e[0] * 1024L, where);
            }
        }
        long[] shard = new long[2];
        for (int writers = 1; writers <= 2; writers++) {
            try (Hotkeeper hk = Hotkeeper.builder().memory(48 * 1024).k(100).maxKeyBytes(64).expectedThreads(writers)
                    .build()) {
                hk.observe("a key");
                shard[writers - 1] = hk.info().nativeBytesByPart().get("shard");
            }
        }
        assertEquals(4 * 128, shard[1] - shard[0], "48 KiB: the shared shard's 4 cells, beside a shard of the same size");
    }

    @Test
    void everyTableOfAWindowGetsAShardPerWriterThatTwoThreadsAndAResetLeaveConsistent() throws Exception {
        // Two slices of 64 KiB for two expected writers: each slice's table gets a shard per writer. Two threads
        // (ids equal modulo 2) on different shards observe keys of their own into the current slice; every key is listed with its count,
        // the shards of every table keep their invariants, and a reset leaves nothing listed and them intact.
        try (Hotkeeper hk = Hotkeeper.builder().memory(128 * 1024).k(100).maxKeyBytes(64).expectedThreads(2)
                .combining(CombiningMode.OFF).partitioning(Partitioning.window(Duration.ofSeconds(2), 2))
                .clock(() -> 1_000_000_000_000L).build()) {
            assertEquals(2, hk.info().shardLimit(), hk.info().toString());
            var current = Internals.keyShards(hk);
            var mine = current.shardFor(io.hotkeeper.engine.worker.WorkerHandle.NO_HANDLE);
            var theirs = new java.util.concurrent.CompletableFuture<Object>();
            Thread other = io.hotkeeper.engine.shard.ShardThreads.startColliding(2, () -> {
                theirs.complete(current.shardFor(io.hotkeeper.engine.worker.WorkerHandle.NO_HANDLE));
                observeKeysOf(hk, "thread-1-key-");
            });
            observeKeysOf(hk, "thread-0-key-");
            other.join();
            assertTrue(theirs.get() != mine, "ids equal modulo 2, shards given in arrival order: one each");
            List<HeavyHitter> top = hk.topK(100);
            assertEquals(80, top.size(), top.toString());
            for (HeavyHitter h : top) {
                String key = h.keyAsString();
                assertEquals(Integer.parseInt(key.substring(key.lastIndexOf('-') + 1)) + 1, h.estimate(), key);
            }
            for (var shards : Internals.keyShardSets(hk)) {
                assertEquals(List.of(), io.hotkeeper.engine.shard.ShardIntegrity.violations(shards));
            }
            hk.reset();
            assertEquals(List.of(), hk.topK(100));
            for (var shards : Internals.keyShardSets(hk)) {
                assertEquals(List.of(), io.hotkeeper.engine.shard.ShardIntegrity.violations(shards));
            }
        }
    }

    /** Observes the keys {@code prefix + i}, i in 0..39, each {@code i + 1} times. */
    private static void observeKeysOf(Hotkeeper hk, String prefix) {
        for (int i = 0; i < 40; i++) {
            for (int n = 0; n <= i; n++) {
                hk.observe(prefix + i);
            }
        }
    }

    @Test
    void aSharedShardGetsInboxCellsFromTheTableOnly() {
        // 32 KiB, keys of up to 64 bytes: one shard. Two expected writers share it, so it gets 4 inbox cells of
        // 128 B (24 header bytes and 64 key bytes, in 64-byte lines), taken from the table's buckets (and links),
        // not from the shard; one writer gets none.
        long[] shard = new long[2];
        long[] buckets = new long[2];
        for (int threads = 1; threads <= 2; threads++) {
            try (Hotkeeper hk = Hotkeeper.builder().memory(32 * 1024).k(100).maxKeyBytes(64).expectedThreads(threads)
                    .saltMode(SaltMode.SHARED).build()) {
                hk.observe("a key");
                shard[threads - 1] = hk.info().nativeBytesByPart().get("shard");
                buckets[threads - 1] = hk.info().buckets();
                assertEquals(1, hk.info().shardLimit(), hk.info().toString());
                assertTrue(hk.info().nativeBytes() <= 32 * 1024, hk.info().toString());
            }
        }
        assertEquals(4 * 128, shard[1] - shard[0], "the cells, beside a shard of the same size");
        assertEquals(4, buckets[0] - buckets[1], "512 B of table and links: 4 buckets");
        // A table at its smallest gives none: the 16 KiB minimum for k = 100 still holds with two writers.
        for (int threads = 1; threads <= 2; threads++) {
            try (Hotkeeper hk = Hotkeeper.builder().memory(16 * 1024).k(100).maxKeyBytes(256)
                    .expectedThreads(threads).build()) {
                hk.observe("a key");
                assertEquals(64, hk.info().buckets());
                shard[threads - 1] = hk.info().nativeBytesByPart().get("shard");
            }
        }
        assertEquals(shard[0], shard[1], "no cells beside the smallest table");
    }

    @Test
    void thePerWorkerSaltTakesItsCountersPastTheFirstFromTheRoomAboveTheMinimum() {
        // At the minimum: one counter, so the default salt is the shared one; an explicit per-worker salt keeps its
        // mode with that one counter.
        var e = assertThrows(IllegalArgumentException.class,
                () -> Hotkeeper.builder().memory(16 * 1024).k(1000).expectedThreads(4).build());
        long minimum = Long.parseLong(e.getMessage().replaceAll(".*the minimum is (\\d+) bytes.*", "$1"));
        try (Hotkeeper hk = Hotkeeper.builder().memory(minimum).k(1000).expectedThreads(4).build()) {
            assertEquals(SaltMode.SHARED, hk.info().saltMode());
            assertEquals(1, hk.info().saltShards());
            assertEquals(128L, hk.info().nativeBytesByPart().get("salt"));
            assertTrue(hk.info().nativeBytes() <= minimum);
        }
        try (Hotkeeper hk = Hotkeeper.builder().memory(minimum).k(1000).expectedThreads(4)
                .saltMode(SaltMode.PER_WORKER).build()) {
            assertEquals(SaltMode.PER_WORKER, hk.info().saltMode());
            assertEquals(1, hk.info().saltShards());
            assertTrue(hk.info().nativeBytes() <= minimum);
        }
        // 1 MiB: one counter per expected writer, rounded up to a power of two (5 -> 8), within a 64th of it.
        try (Hotkeeper hk = Hotkeeper.builder().memory(1 << 20).expectedThreads(5).build()) {
            assertEquals(SaltMode.PER_WORKER, hk.info().saltMode());
            assertEquals(8, hk.info().saltShards());
            assertEquals(1024L, hk.info().nativeBytesByPart().get("salt"));
            assertTrue(hk.info().nativeBytes() <= 1 << 20);
        }
        // 32 KiB for 64 writers: a 64th of the budget (512 B) holds 4 counters, not 64.
        try (Hotkeeper hk = Hotkeeper.builder().memory(32 * 1024).maxKeyBytes(8).expectedThreads(64).build()) {
            assertEquals(4, hk.info().saltShards(), hk.info().toString());
            assertTrue(hk.info().nativeBytes() <= 32 * 1024);
        }
        // The table size given instead: every counter asked for, on top.
        try (Hotkeeper hk = Hotkeeper.builder().memoryBytes(4096).expectedThreads(3).build()) {
            assertEquals(4, hk.info().saltShards());
            assertEquals(512L, hk.info().nativeBytesByPart().get("salt"));
        }
    }

    @Test
    void theShardsGetTwoKEntriesOnceTheTableKeepsTwoAndAHalfKBuckets() {
        // 64 KiB (k = 100, long keys): 2k entries (17 pages of 12: room for 204) beside 432 buckets; 32 KiB: the
        // minimum shard (room for 108), the table takes the rest.
        try (Hotkeeper hk = Hotkeeper.builder().memory(64 * 1024).k(100).maxKeyBytes(8).expectedThreads(1).build()) {
            assertEquals(432, hk.info().buckets(), hk.info().toString());
            assertEquals(204, hk.info().shardCapacity(), hk.info().toString());
        }
        try (Hotkeeper hk = Hotkeeper.builder().memory(64 * 1024).k(100).expectedThreads(2).build()) {
            // Two writers: a per-worker salt of two counters (256 B; 128 above the minimum's one), and a shard for
            // each (no inbox cells), since the table keeps 316 buckets beside them. Only the first shard's share may
            // grow toward 2k entries; the share is split evenly, so each shard's cap is 180.
            assertEquals(SaltMode.PER_WORKER, hk.info().saltMode(), hk.info().toString());
            assertEquals(256L, hk.info().nativeBytesByPart().get("salt"), hk.info().toString());
            assertEquals(2, hk.info().shardLimit(), hk.info().toString());
            assertEquals(316, hk.info().buckets(), hk.info().toString());
            assertEquals(180, hk.info().shardCapacity(), hk.info().toString());
        }
        try (Hotkeeper hk = Hotkeeper.builder().memory(32 * 1024).k(100).maxKeyBytes(8).expectedThreads(1).build()) {
            assertEquals(208, hk.info().buckets(), hk.info().toString());
            assertEquals(108, hk.info().shardCapacity(), hk.info().toString());
        }
        // Between the two the shards grow in whole pages while the table keeps 250 buckets.
        long previous = 0;
        for (long budget = 32 * 1024; budget <= 64 * 1024; budget += 1024) {
            try (Hotkeeper hk = Hotkeeper.builder().memory(budget).k(100).maxKeyBytes(8).expectedThreads(1).build()) {
                HotkeeperInfo info = hk.info();
                assertTrue(info.shardCapacity() >= previous && info.shardCapacity() <= 204, info.toString());
                assertTrue(info.buckets() >= Math.min(250, (budget - 256 - 5888) / 128), info.toString());
                previous = info.shardCapacity();
            }
        }
        assertEquals(204, previous);
    }

    @Test
    void theBudgetExcludesTheOptionsThatWouldSizeItsParts() {
        var twice = assertThrows(IllegalStateException.class,
                () -> Hotkeeper.builder().memory(1 << 20).memoryBytes(1 << 16));
        assertTrue(twice.getMessage().contains("memoryBytes(65536)"), twice.getMessage());
        var e = assertThrows(IllegalArgumentException.class,
                () -> Hotkeeper.builder().memory(1 << 20).shardCapacity(64).build());
        assertTrue(e.getMessage().contains("shardCapacity=64"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Hotkeeper.builder().memory(0));
    }

    @Test
    void theSplitGivesTheTableMostOfALargeBudget() {
        try (Hotkeeper hk = Hotkeeper.builder().memory(1 << 20).k(100).expectedThreads(2).build()) {
            HotkeeperInfo info = hk.info();
            // 1 MiB: two shards sharing an eighth (more than 2k entries each); table and links take the rest (any
            // bucket count), over 85% with the combiner blocks' reserve.
            assertTrue(2 * info.tableBytes() >= 0.85 * (1 << 20), info.toString());
            assertEquals(info.tableBytes(), info.buckets() * 64);
            assertEquals(2, info.shardLimit());
            assertTrue(info.shardCapacity() >= 200, info.toString());
        }
    }

    @Test
    void expectedKeyLengthsGiveATopOfLongKeysRoomInTheShards() {
        // 300 distinct 70-byte keys (a log line, a path) with distinct counts 301..2: at 32 KiB the plan's 16-byte
        // keys leave the shard room for fewer than 100 such keys (160-byte entries), so keys of the true top 100
        // are counted but never listed; told the lengths, the shard holds the top 100.
        int[] lengths = new int[100];
        java.util.Arrays.fill(lengths, 70);
        for (boolean told : new boolean[] {false, true}) {
            HotkeeperBuilder b = Hotkeeper.builder().memory(32 * 1024).k(100).maxKeyBytes(256).expectedThreads(1)
                    .seed(5);
            if (told) {
                b.expectedKeyLengths(lengths);
            }
            try (Hotkeeper hk = b.build()) {
                // Interleaved rounds, so the heavy keys are not simply the first ones seen.
                for (int round = 0; round < 301; round++) {
                    for (int id = 0; id < 300; id++) {
                        if (round < 301 - id) {
                            hk.observe(longKey(id));
                        }
                    }
                }
                java.util.Set<String> listed = new java.util.HashSet<>();
                hk.topK(100).forEach(h -> listed.add(h.keyAsString()));
                long correct = java.util.stream.IntStream.range(0, 100).filter(id -> listed.contains(longKey(id)))
                        .count();
                String where = "told " + told + ": " + hk.info().nativeBytesByPart() + ", listed " + listed.size();
                if (told) {
                    assertEquals(100, correct, where);
                } else {
                    assertTrue(correct < 100, "the plan's 16-byte keys should not hold this top: " + where);
                }
                assertTrue(hk.info().nativeBytes() <= 32 * 1024, where);
            }
        }
    }

    @Test
    void expectedKeyLengthsAreCheckedAndNeedABudgetAndKeys() {
        assertThrows(IllegalArgumentException.class, () -> Hotkeeper.builder().expectedKeyLengths());
        assertThrows(IllegalArgumentException.class, () -> Hotkeeper.builder().expectedKeyLengths(12, 0));
        assertThrows(IllegalArgumentException.class, () -> Hotkeeper.builder().expectedKeyLengths((1 << 20) + 1));
        var twice = assertThrows(IllegalStateException.class,
                () -> Hotkeeper.builder().expectedKeyLengths(12).expectedKeyLengths(40));
        assertTrue(twice.getMessage().contains("expectedKeyLengths"), twice.getMessage());
        var noBudget = assertThrows(IllegalArgumentException.class,
                () -> Hotkeeper.builder().expectedKeyLengths(12).build());
        assertTrue(noBudget.getMessage().contains("without memory(total)"), noBudget.getMessage());
        var noKeys = assertThrows(IllegalArgumentException.class,
                () -> Hotkeeper.builder().memory(1 << 16).keepKeys(false).expectedKeyLengths(12).build());
        assertTrue(noKeys.getMessage().contains("keepKeys(false)"), noKeys.getMessage());
        // The minimum does not move: the lengths only shape the split above it.
        var e = assertThrows(IllegalArgumentException.class,
                () -> Hotkeeper.builder().memory(16 * 1024).k(200).maxKeyBytes(64).expectedKeyLengths(60).build());
        assertTrue(e.getMessage().contains("the minimum is 22016 bytes"), e.getMessage());
    }

    private static String longKey(int id) {
        StringBuilder key = new StringBuilder(70).append("/var/log/service-").append(id).append('/');
        while (key.length() < 70) {
            key.append('x');
        }
        return key.toString();
    }

    private static void churn(Hotkeeper hk, int threads, int keyBytes) throws Exception {
        int perThread = Math.max(500, 40_000 / threads);
        Concurrently.run(threads, t -> {
            SplittableRandom random = new SplittableRandom(t);
            for (int i = 0; i < perThread; i++) {
                // A few heavy keys and a churning tail of distinct ones, as text of the given length.
                int id = random.nextInt(4) == 0 ? random.nextInt(16) : random.nextInt(1_000_000);
                StringBuilder key = new StringBuilder(keyBytes).append(id).append('-');
                while (key.length() < keyBytes) {
                    key.append('k');
                }
                hk.observe(key);
            }
        });
    }
}
