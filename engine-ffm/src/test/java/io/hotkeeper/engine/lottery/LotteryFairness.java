package io.hotkeeper.engine.lottery;

import io.hotkeeper.engine.hash.KeyHasher;
import io.hotkeeper.engine.salt.EvictionSalt;

/**
 * Measures the lottery's fairness: over {@code draws} draws by 64 recurring challengers (so that only the salt
 * keeps their draws fresh), the wins against each count divided by the promised {@code draws * b^-count}.
 * Used by the unit test that asserts 1 +- 0.02 and by the tool that reports the ratios (docs/theory.md).
 *
 * <p>Threads: one per call. Progress: wait-free (bounded by {@code draws}).
 */
public final class LotteryFairness {
    /** Largest count measured. */
    public static final int MAX_COUNT = 10;

    private LotteryFairness() {
    }

    /**
     * The ratios, indexed by count (index 0 unused, 1.0), for counts 1..{@value #MAX_COUNT}, with draws from
     * {@code lottery} and salt values from {@code salt}; challengers' spare bits come from hashing 0..63 with
     * {@code hasher}.
     */
    public static double[] ratios(DecayLottery lottery, EvictionSalt salt, KeyHasher hasher, int draws) {
        int[] counts = new int[MAX_COUNT + 1];
        for (int k = 0; k <= MAX_COUNT; k++) {
            counts[k] = k;
        }
        double[] ratio = ratios(lottery, salt, hasher, draws, counts);
        ratio[0] = 1.0;
        return ratio;
    }

    /**
     * The wins against each of {@code counts} divided by the promised {@code draws * lottery.winProbability(c)},
     * in the order given, measured as above. Every draw is tested against every count.
     */
    public static double[] ratios(DecayLottery lottery, EvictionSalt salt, KeyHasher hasher, int draws,
                                  int... counts) {
        long[] wins = new long[counts.length];
        for (int i = 0; i < draws; i++) {
            long spare = hasher.hash((long) (i & 63)) >>> 32;
            long draw = lottery.draw(spare, salt.next(spare));
            for (int j = 0; j < counts.length; j++) {
                if (counts[j] > 0 && lottery.wins(draw, counts[j])) {
                    wins[j]++;
                }
            }
        }
        double[] ratio = new double[counts.length];
        for (int j = 0; j < counts.length; j++) {
            ratio[j] = wins[j] / (draws * lottery.winProbability(counts[j]));
        }
        return ratio;
    }
}
