package io.hotkeeper.engine;

import io.hotkeeper.engine.worker.WorkerHandle;
import io.hotkeeper.engine.worker.Workers;
import io.hotkeeper.engine.workload.ZipfKeys;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The engine at one thread against {@link SequentialModel}, a plain sequential model of the same algorithm
 * with the same hasher, lottery and salt sequence: same seed, same decay base, combining off (a combiner
 * delays table writes by design, so the table would no longer see the stream's order).
 *
 * <p>Tolerance: none. At one thread the engine's fast and full paths make the same decisions as the model
 * (first empty slot claims, first fingerprint match refreshes, the first weakest occupant faces one draw with
 * the next salt value), the model draws the salt values of the one writing thread (the default salt: shared, or
 * the counter of the test thread's worker id under the per-worker salt a machine of several processors gets),
 * and shard capacity equals
 * the table's slots, so the key shards never evict nor raise the promotion floor. So every slot, every estimate
 * and the whole top 100 must agree exactly; any difference is a bug in one of the two.
 */
class DifferentialTest {
    private static final long FLOOR = 8;

    /** 16 KiB (256 buckets, a power of two) and 23,040 B (360 buckets: the multiply-high bucket index). */
    @ParameterizedTest(name = "{0} keys, exponent {1}, decay base {2}, table {3} B")
    @CsvSource({
            "100000, 1.0, 2.0, 16384",
            "100000, 0.8, 1.08, 16384",
            "5000, 0.0, 2.0, 16384",
            "200000, 0.0, 1.08, 16384",
            "100000, 1.0, 2.0, 23040",
            "200000, 0.0, 1.08, 23040",
            "100000, 0.8, 1.02, 16384",
            "200000, 0.0, 1.02, 23040",
    })
    void engineAndSequentialModelAgreeExactly(int items, double exponent, double base, long memory) {
        long seed = 41;
        long[] stream = new ZipfKeys(items, exponent).keys(1_000_000, 7);
        try (Hotkeeper hk = Hotkeeper.builder().recordStats().memoryBytes(memory).seed(seed).decayBase(base)
                .combining(CombiningMode.OFF).minCount(FLOOR).shardCapacity((int) (memory / 8)).build()) {
            // The salt sequence this thread draws under the default salt mode.
            int counters = hk.info().saltShards();
            long saltStart = switch (hk.saltMode()) {
                case SHARED -> 0;
                case PER_WORKER -> WorkerHandle.id(Workers.current()) & (counters - 1);
                default -> throw new AssertionError("default salt mode " + hk.saltMode());
            };
            SequentialModel model = new SequentialModel(memory, seed, base, FLOOR, saltStart, counters);
            for (long key : stream) {
                hk.observe(key);
                model.observe(key);
            }
            assertEquals(FLOOR, hk.info().promotionFloor(), "the floor never rose: the shards never filled");

            // Estimates of every distinct key in the stream.
            TreeSet<Long> distinct = new TreeSet<>();
            for (long key : stream) {
                distinct.add(key);
            }
            long mismatches = 0;
            for (long key : distinct) {
                if (hk.estimate(key) != model.estimate(key)) {
                    mismatches++;
                }
            }
            assertEquals(0, mismatches, "estimates that differ, of " + distinct.size() + " keys");

            // The top 100: same estimates in the same order; keys equal up to the order of equal estimates.
            List<HeavyHitter> engineTop = hk.topK(100);
            List<long[]> modelTop = model.topK(100);
            assertEquals(modelTop.size(), engineTop.size());
            Map<Long, Long> modelCounts = new HashMap<>();
            for (long[] e : modelTop) {
                modelCounts.put(e[0], e[1]);
            }
            long lowest = modelTop.getLast()[1];
            for (int i = 0; i < engineTop.size(); i++) {
                HeavyHitter h = engineTop.get(i);
                assertEquals(modelTop.get(i)[1], h.estimate(), "estimate at rank " + (i + 1));
                if (h.estimate() > lowest) {
                    assertEquals(h.estimate(), modelCounts.get(h.keyAsLong()), "key " + h.keyAsLong());
                } else {
                    assertEquals(h.estimate(), model.estimate(h.keyAsLong()), "tied key " + h.keyAsLong());
                }
            }
            assertTrue(hk.stats().replacements() > 0, "the stream exercised the lottery: " + hk.stats());
        }
    }
}
