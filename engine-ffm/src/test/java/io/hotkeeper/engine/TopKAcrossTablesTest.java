package io.hotkeeper.engine;

import io.hotkeeper.engine.core.Internals;
import io.hotkeeper.engine.shard.ShardIntegrity;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Top-k over several tables (time slices, worker tables): a key ranks by its estimate summed over the tables,
 * whatever its rank in each; {@code contains} agrees with {@code topK} (on one table too); two distinct keys
 * never share a row.
 */
class TopKAcrossTablesTest {
    private static final long SECOND = 1_000_000_000L;

    @Test
    void aKeyInTheMiddleOfEverySliceRanksByItsSumOverTheWindow() {
        AtomicLong now = new AtomicLong(1_000 * SECOND);
        try (Hotkeeper hk = Hotkeeper.builder().seed(1).k(10)
                .partitioning(Partitioning.window(Duration.ofSeconds(2), 2)).clock(now::get).build()) {
            for (long key = 1; key <= 10; key++) {
                hk.observe(key, 100);
            }
            hk.observe(999L, 60);
            now.addAndGet(SECOND);
            for (long key = 101; key <= 110; key++) {
                hk.observe(key, 100);
            }
            hk.observe(999L, 60);
            assertEquals(120, hk.estimate(999L));
            List<HeavyHitter> top = hk.topK(10);
            assertEquals(10, top.size());
            assertEquals(999L, top.get(0).keyAsLong(), "the heaviest key over the window: " + top);
            assertEquals(120, top.get(0).estimate());
            assertTrue(hk.contains(999L));
            assertAgrees(hk, List.of(999L, 1L, 5L, 10L, 101L, 110L, 7L));
            ShardIntegrity.checkAll(Internals.keyShardSets(hk));
        }
    }

    @Test
    void aKeyEveryWorkerSeesLightlyRanksByItsSumOverTheWorkerTables() throws Exception {
        try (Hotkeeper hk = Hotkeeper.builder().seed(1).k(10).partitioning(Partitioning.perWorker(4)).build()) {
            int threads = 3;
            CyclicBarrier alive = new CyclicBarrier(threads);
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                long base = 1000L * (t + 1);
                workers.add(Thread.ofPlatform().start(() -> {
                    await(alive); // all three alive at once: three distinct worker ids, three distinct tables
                    for (long key = base; key < base + 10; key++) {
                        hk.observe(key, 100);
                    }
                    hk.observe(999L, 50);
                    await(alive);
                }));
            }
            for (Thread w : workers) {
                w.join();
            }
            assertEquals(150, hk.estimate(999L));
            List<HeavyHitter> top = hk.topK(10);
            assertEquals(10, top.size());
            assertEquals(999L, top.get(0).keyAsLong(), "the heaviest key of all: " + top);
            assertEquals(150, top.get(0).estimate());
            assertTrue(hk.contains(999L));
            assertAgrees(hk, List.of(999L, 1000L, 1005L, 2000L, 3009L, 4L));
            ShardIntegrity.checkAll(Internals.keyShardSets(hk));
        }
    }

    @Test
    void twoTruncatedKeysSharingAPrefixAreNeverSummedIntoOneRow() {
        AtomicLong now = new AtomicLong(1_000 * SECOND);
        String prefix = "a-shared-prefix-longer-than-the-limit/";
        String a = prefix + "first";
        String b = prefix + "second";
        try (Hotkeeper hk = Hotkeeper.builder().seed(1).maxKeyBytes(16)
                .partitioning(Partitioning.window(Duration.ofSeconds(2), 2)).clock(now::get).build()) {
            hk.observe(a, 100);
            hk.observe(b, 30);
            now.addAndGet(SECOND);
            hk.observe(b, 40);
            hk.observe(a, 20);
            hk.observe("short", 50);
            List<HeavyHitter> top = hk.topK(10);
            byte[] truncated = prefix.substring(0, 16).getBytes(StandardCharsets.UTF_8);
            assertEquals(3, top.size(), "one row per key: " + top);
            assertEquals(120, top.get(0).estimate(), "a's row: its own sum over both slices, b's not added");
            assertEquals(70, top.get(1).estimate(), "b's row: its own sum");
            assertEquals(50, top.get(2).estimate());
            for (int i = 0; i < 2; i++) {
                assertTrue(top.get(i).truncated());
                assertEquals(new String(truncated, StandardCharsets.UTF_8), top.get(i).keyAsString());
            }
            assertEquals(120, hk.estimate(a));
            assertEquals(70, hk.estimate(b));
            // contains hashes the whole key: each truncated row answers for its own key only.
            assertTrue(hk.contains(a));
            assertTrue(hk.contains(b));
            assertFalse(hk.contains(prefix + "third"));
        }
    }

    @Test
    void containsAgreesWithTopKAcrossTables() throws Exception {
        // Short keys and keys truncated to a shared 16-byte prefix, observed by two workers with weights that rank
        // them differently in each worker's table.
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            keys.add("key-" + i);
            keys.add("a-long-shared-prefix/" + i);
        }
        try (Hotkeeper hk = Hotkeeper.builder().seed(3).k(20).maxKeyBytes(16)
                .partitioning(Partitioning.perWorker(2)).build()) {
            int threads = 2;
            CyclicBarrier alive = new CyclicBarrier(threads);
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                workers.add(Thread.ofPlatform().start(() -> {
                    await(alive);
                    for (int i = 0; i < keys.size(); i++) {
                        hk.observe(keys.get(i), id == 0 ? 1 + i : 1 + (i * 37L) % keys.size());
                    }
                    await(alive);
                }));
            }
            for (Thread w : workers) {
                w.join();
            }
            List<HeavyHitter> top = hk.topK();
            assertEquals(20, top.size());
            // Each row is one key: its estimate is that key's own sum, and contains says yes for it alone.
            List<String> listed = new ArrayList<>();
            for (HeavyHitter h : top) {
                listed.add(h.keyAsString() + "=" + h.estimate());
            }
            List<String> contained = new ArrayList<>();
            for (String key : keys) {
                if (hk.contains(key)) {
                    contained.add(key.substring(0, Math.min(16, key.length())) + "=" + hk.estimate(key));
                }
            }
            assertFalse(hk.contains("absent"));
            assertEquals(listed.stream().sorted().toList(), contained.stream().sorted().toList());
            assertTrue(top.stream().anyMatch(HeavyHitter::truncated), "the test needs truncated rows: " + top);
        }
    }

    /** contains(key) holds exactly for the keys topK(k) lists. */
    private static void assertAgrees(Hotkeeper hk, List<Long> keys) {
        List<Long> listed = hk.topK().stream().map(HeavyHitter::keyAsLong).toList();
        for (long key : keys) {
            assertEquals(listed.contains(key), hk.contains(key), "key " + key + " vs topK " + listed);
        }
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
    /**
     * One table too: with keys tied at the k-th estimate, {@code contains} holds for exactly the keys
     * {@code topK(k)} lists (before, it held for every tied key, while topK listed only k of them).
     */
    @Test
    void containsAgreesWithTopKOnOneTableWhereKeysTie() {
        try (Hotkeeper hk = Hotkeeper.builder().seed(3).k(3).memoryBytes(16 * 1024)
                .combining(CombiningMode.OFF).build()) {
            hk.observe(1L, 50);
            for (long key = 2; key <= 7; key++) {
                hk.observe(key, 20); // six keys tied for ranks 2 and 3
            }
            List<HeavyHitter> top = hk.topK();
            assertEquals(3, top.size());
            int listed = 0;
            for (long key = 1; key <= 7; key++) {
                long k = key;
                boolean inTop = top.stream().anyMatch(h -> h.keyAsLong() == k);
                assertEquals(inTop, hk.contains(key), "key " + key + ", top " + top);
                listed += inTop ? 1 : 0;
            }
            assertEquals(3, listed);
        }
    }
}
