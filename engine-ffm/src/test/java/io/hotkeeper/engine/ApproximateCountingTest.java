package io.hotkeeper.engine;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Opt-in approximate counting: exact below 2^bits, unbiased above, within the documented error. */
class ApproximateCountingTest {

    @Test
    void countsBelowTheThresholdStayExactAndHotCountsStayUnbiasedWithinTheBound() {
        int bits = 12;
        int keys = 40;
        int perKey = 200_000;
        double bound = 1.63 * Math.pow(2, -bits / 2.0); // documented relative standard error: ~2.5%
        try (Hotkeeper hk = Hotkeeper.builder().memoryBytes(1 << 16).approximateCountsAbove(1L << bits).build()) {
            for (int i = 0; i < perKey; i++) {
                for (long k = 0; k < keys; k++) {
                    hk.observe(k);
                }
                if (i == (1 << bits) - 2) {
                    for (long k = 0; k < keys; k++) {
                        assertEquals(i + 1, hk.estimate(k), "exact below 2^bits");
                    }
                }
            }
            double sum = 0;
            double sumSquares = 0;
            for (long k = 0; k < keys; k++) {
                double relative = hk.estimate(k) / (double) perKey - 1;
                assertTrue(Math.abs(relative) < 5 * bound, "key " + k + " off by " + relative);
                sum += relative;
                sumSquares += relative * relative;
            }
            double bias = sum / keys;
            double rms = Math.sqrt(sumSquares / keys);
            System.out.printf("approximate counting, 2^%d: bias %.4f, rms relative error %.4f (bound %.4f)%n",
                    bits, bias, rms, bound);
            assertTrue(Math.abs(bias) < 2 * bound / Math.sqrt(keys) + 0.002, "bias=" + bias);
            assertTrue(rms < 1.5 * bound, "rms=" + rms);
        }
    }

    @Test
    void topKStaysAccurateOnZipfWithTwoThreads() throws Exception {
        long[] stream = Streams.zipf(1.0);
        Map<Long, Long> exact = Streams.exact(stream);
        try (Hotkeeper hk = Hotkeeper.builder().memoryBytes(16384).seed(5).approximateCountsAbove(1 << 14).build()) {
            Thread[] workers = new Thread[2];
            for (int t = 0; t < 2; t++) {
                int id = t;
                workers[t] = Thread.ofPlatform().start(() -> {
                    for (int i = id; i < stream.length; i += 2) {
                        hk.observe(stream[i]);
                    }
                });
            }
            for (Thread w : workers) {
                w.join();
            }
            List<HeavyHitter> top = hk.topK(100);
            double precision = Streams.precision(top.stream().mapToLong(HeavyHitter::keyAsLong).toArray(), exact, 100);
            assertTrue(precision >= 0.95, "precision=" + precision);
        }
    }

    @Test
    void aCountThatIsNoPowerOfTwoInRangeIsRejected() {
        var e = assertThrows(IllegalArgumentException.class, () -> Hotkeeper.builder().approximateCountsAbove(2));
        assertEquals("approximateCountsAbove=2: must be a power of two in 16..4294967296", e.getMessage());
        // What the option took before (a log2) is refused with the count it meant.
        e = assertThrows(IllegalArgumentException.class, () -> Hotkeeper.builder().approximateCountsAbove(12));
        assertEquals("approximateCountsAbove=12: must be a power of two in 16..4294967296 (a count, not its log2: "
                + "2^12 is 4096)", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Hotkeeper.builder().approximateCountsAbove(0));
        assertThrows(IllegalArgumentException.class, () -> Hotkeeper.builder().approximateCountsAbove(5000));
        assertThrows(IllegalArgumentException.class, () -> Hotkeeper.builder().approximateCountsAbove(1L << 33));
        // Both ends of the range are accepted.
        try (Hotkeeper low = Hotkeeper.builder().approximateCountsAbove(16).build();
             Hotkeeper high = Hotkeeper.builder().approximateCountsAbove(1L << 32).build()) {
            for (int i = 0; i < 16; i++) {
                low.observe(3L);
                high.observe(3L);
            }
            assertEquals(16, low.estimate(3L), "exact up to the count");
            assertEquals(16, high.estimate(3L));
        }
    }
}
