package io.hotkeeper.engine;

import io.hotkeeper.engine.SaltMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Accuracy against exact counts on 10M-key Zipf streams over 1M distinct keys: {@code topK(100)}, with the real
 * keys from the key shards, must be the true top 100 (tie-aware), with one thread and with two threads sharing
 * the stream.
 */
class AccuracyTest {
    private static final int K = 100;

    @ParameterizedTest(name = "s={0} memory={1} threads={2} salt={3}")
    @CsvSource({
            "1.0, 16384, 1, SHARED", "1.2, 16384, 1, SHARED", "1.0, 65536, 1, SHARED", "1.2, 65536, 1, SHARED",
            "1.0, 16384, 2, SHARED", "1.2, 16384, 2, SHARED", "1.0, 16384, 2, SHARDED", "1.0, 16384, 2, PER_WORKER"})
    void topHundredByEstimateIsTheTrueTopHundred(double s, long memory, int threads, SaltMode salt)
            throws Exception {
        long[] stream = Streams.zipf(s);
        Map<Long, Long> exact = Streams.exact(stream);
        try (Hotkeeper hk = Hotkeeper.builder().memoryBytes(memory).seed(11).saltMode(salt).build()) {
            Thread[] workers = new Thread[threads];
            for (int t = 0; t < threads; t++) {
                int id = t;
                workers[t] = Thread.ofPlatform().start(() -> {
                    for (int i = id; i < stream.length; i += threads) {
                        hk.observe(stream[i]);
                    }
                });
            }
            for (Thread w : workers) {
                w.join();
            }
            List<HeavyHitter> hitters = hk.topK(K);
            assertEquals(K, hitters.size());
            for (int i = 1; i < hitters.size(); i++) {
                assertTrue(hitters.get(i - 1).estimate() >= hitters.get(i).estimate(), "sorted by estimate");
            }
            long[] top = hitters.stream().mapToLong(HeavyHitter::keyAsLong).toArray();
            double precision = Streams.precision(top, exact, K);
            double are = 0;
            for (long key : top) {
                long truth = exact.get(key);
                are += Math.abs(hk.estimate(key) - truth) / (double) truth;
            }
            are /= top.length;
            System.out.printf("s=%.1f memory=%d threads=%d salt=%s precision@%d=%.3f ARE=%.4f%n",
                    s, memory, threads, salt, K, precision, are);
            assertTrue(precision >= 0.95, "precision=" + precision);
            assertTrue(are < 0.05, "ARE=" + are);
        }
    }
}
