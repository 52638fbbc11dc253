package io.hotkeeper.bench;

import io.hotkeeper.engine.HeavyHitter;
import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.HotkeeperStats;
import io.hotkeeper.engine.hash.KeyHasher;
import io.hotkeeper.engine.lottery.DecayLottery;
import io.hotkeeper.engine.salt.EvictionSalt;
import io.hotkeeper.engine.workload.ZipfKeys;

import java.lang.foreign.Arena;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The measurements behind docs/theory.md. Counts, not timings, so the machine's load does not matter:
 * <ol>
 *   <li>the fraction of observations that reach phase 3, measured from the stats, against the model
 *       {@code 1 - H(min(slots, n), s) / H(n, s)} (the stream mass outside the {@code slots} heaviest keys),
 *       with precision@100 of {@code topK}, per table size and skew;</li>
 *   <li>the lottery's fairness under base 2 (the trailing-zeros draw): won draws / (draws * 2^-k) for
 *       k = 1..10, shared and sharded salt (the default base's rates are a unit test:
 *       {@code DecayLotteryTest.defaultBaseWinRateMatchesItsPromise}).</li>
 * </ol>
 * Run: {@code java --enable-native-access=ALL-UNNAMED -cp bench/target/benchmarks.jar io.hotkeeper.bench.Sizing}
 */
public final class Sizing {
    private static final int DISTINCT = 1_000_000;
    private static final int LENGTH = 10_000_000;
    private static final int K = 100;

    private Sizing() {
    }

    public static void main(String[] args) {
        System.out.println("| stream | table | slots | phase-3 measured | phase-3 model | precision@100 |");
        System.out.println("|---|---|---|---|---|---|");
        for (double s : new double[] {0.0, 0.8, 1.0, 1.2}) {
            ZipfKeys zipf = new ZipfKeys(DISTINCT, s);
            long[] stream = zipf.keys(LENGTH, 42);
            Map<Long, Long> exact = new HashMap<>();
            for (long key : stream) {
                exact.merge(key, 1L, Long::sum);
            }
            long[] counts = exact.values().stream().mapToLong(Long::longValue).sorted().toArray();
            long kth = counts[counts.length - K];
            for (long memory : new long[] {4096, 16384, 65536, 262144, 1 << 20}) {
                try (Hotkeeper hk = Hotkeeper.builder().recordStats().memoryBytes(memory).seed(7).build()) {
                    for (long key : stream) {
                        hk.observe(key);
                    }
                    HotkeeperStats st = hk.stats();
                    long slots = hk.bucketCount() * 8;
                    double measured = st.evictionAttempts() / (double) LENGTH;
                    double model = 1 - harmonic(Math.min(slots, DISTINCT), s) / harmonic(DISTINCT, s);
                    List<HeavyHitter> top = hk.topK(K);
                    long hits = top.stream().filter(h -> exact.getOrDefault(h.keyAsLong(), 0L) >= kth).count();
                    System.out.printf("| %s | %d KiB | %d | %.3f | %.3f | %.2f |%n",
                            s == 0 ? "uniform" : "zipf " + s, memory / 1024, slots, measured, model,
                            hits / (double) K);
                }
            }
        }
        System.out.println();
        System.out.println("| k | shared salt: wins / expected | sharded salt (8): wins / expected |");
        System.out.println("|---|---|---|");
        double[][] ratios = {fairness(1), fairness(8)};
        for (int k = 1; k <= 10; k++) {
            System.out.printf("| %d | %.4f | %.4f |%n", k, ratios[0][k], ratios[1][k]);
        }
    }

    /** H(m, s) = sum of r^-s for r = 1..m. */
    static double harmonic(long m, double s) {
        double h = 0;
        for (long r = 1; r <= m; r++) {
            h += Math.pow(r, -s);
        }
        return h;
    }

    /** Fairness ratios of base 2's draws (theory.md's table) over 2^26 draws by 64 recurring challengers. */
    static double[] fairness(int shards) {
        try (Arena arena = Arena.ofConfined()) {
            DecayLottery lottery = new DecayLottery(DecayLottery.REFERENCE_BASE, 0x5eed);
            return io.hotkeeper.engine.lottery.LotteryFairness.ratios(lottery, new EvictionSalt(arena, shards),
                    KeyHasher.seeded(3), 1 << 26);
        }
    }
}
