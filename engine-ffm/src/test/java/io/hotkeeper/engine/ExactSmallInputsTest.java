package io.hotkeeper.engine;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Small inputs are exact (docs/theory.md, "When counts are exact"): with the defaults (promotion floor 1), a
 * stream of at most {@code min(buckets, shard capacity)} distinct keys gives {@code topK} equal to the exact
 * counts and every {@code estimate} exact, at 1 and 2 observing threads, for long and text keys. Each case is a
 * random stream (random distinct keys, random counts from 1 to 500, shuffled), on tables of 4 KiB and 64 KiB.
 */
class ExactSmallInputsTest {
    private static final int CASES = 12;

    @Test
    void theSmallestInputsAreExact() {
        try (Hotkeeper hk = Hotkeeper.builder().build()) {
            hk.observe("a");
            hk.observe("b");
            hk.observe("a");
            List<HeavyHitter> top = hk.topK(10);
            assertEquals(2, top.size(), top.toString());
            assertEquals("a", new String(top.get(0).key(), StandardCharsets.UTF_8));
            assertEquals(2, top.get(0).estimate());
            assertEquals("b", new String(top.get(1).key(), StandardCharsets.UTF_8));
            assertEquals(1, top.get(1).estimate());
        }
    }

    @Test
    void longKeysAtOneAndTwoThreads() throws Exception {
        for (int c = 0; c < CASES; c++) {
            for (int threads = 1; threads <= 2; threads++) {
                check(c, threads, false);
            }
        }
    }

    @Test
    void textKeysAtOneAndTwoThreads() throws Exception {
        for (int c = 0; c < CASES; c++) {
            for (int threads = 1; threads <= 2; threads++) {
                check(c, threads, true);
            }
        }
    }

    private static void check(int c, int threads, boolean text) throws Exception {
        SplittableRandom random = new SplittableRandom(1000L * c + threads + (text ? 500 : 0));
        long memory = c % 2 == 0 ? 4096 : 65536;
        try (Hotkeeper hk = Hotkeeper.builder().memoryBytes(memory).build()) {
            HotkeeperInfo info = hk.info();
            long buckets = info.buckets();
            int distinct = (int) Math.min(buckets, info.shardCapacity());
            Map<String, Long> exact = new HashMap<>();
            List<String> stream = new ArrayList<>();
            for (int i = 0; i < distinct; i++) {
                long id = random.nextLong();
                String key = text ? "user-" + Long.toHexString(id) + "/" + "x".repeat(random.nextInt(40))
                        : Long.toString(id);
                int count = 1 + random.nextInt(500);
                exact.put(key, (long) count);
                for (int j = 0; j < count; j++) {
                    stream.add(key);
                }
            }
            Collections.shuffle(stream, new java.util.Random(random.nextLong()));
            observe(hk, stream, threads, text);
            String where = (text ? "text" : "long") + " case " + c + ", " + threads + " thread(s), " + memory
                    + " B, " + distinct + " distinct keys";
            for (Map.Entry<String, Long> e : exact.entrySet()) {
                long estimate = text ? hk.estimate(e.getKey()) : hk.estimate(Long.parseLong(e.getKey()));
                assertEquals(e.getValue(), estimate, where + ": estimate of " + e.getKey());
            }
            List<HeavyHitter> top = hk.topK(distinct);
            assertEquals(distinct, top.size(), where + ": every key is tracked");
            Map<String, Long> reported = new HashMap<>();
            long previous = Long.MAX_VALUE;
            for (HeavyHitter h : top) {
                assertFalse(h.truncated(), where);
                assertTrue(h.estimate() <= previous, where + ": sorted by estimate");
                previous = h.estimate();
                String key = text ? new String(h.key(), StandardCharsets.UTF_8)
                        : Long.toString(ByteBuffer.wrap(h.key()).order(ByteOrder.LITTLE_ENDIAN).getLong());
                reported.put(key, h.estimate());
            }
            assertEquals(exact, reported, where + ": topK equals the exact counts");
        }
    }

    private static void observe(Hotkeeper hk, List<String> stream, int threads, boolean text) throws Exception {
        if (threads == 1) {
            for (String key : stream) {
                observeOne(hk, key, text);
            }
            return;
        }
        Concurrently.run(threads, first -> {
            for (int i = first; i < stream.size(); i += threads) {
                observeOne(hk, stream.get(i), text);
            }
        });
    }

    private static void observeOne(Hotkeeper hk, String key, boolean text) {
        if (text) {
            hk.observe(key);
        } else {
            hk.observe(Long.parseLong(key));
        }
    }
}
