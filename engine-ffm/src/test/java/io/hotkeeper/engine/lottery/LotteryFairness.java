package io.hotkeeper.engine.lottery;

import io.hotkeeper.engine.hash.KeyHasher;
import io.hotkeeper.engine.salt.EvictionSalt;

/**
 * Measures the lottery's fairness: over {@code draws} draws by 64 recurring challengers (so that only the salt
 * keeps their draws fresh), the wins against each count k = 1..10 divided by the promised {@code draws * 2^-k}.
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
     * The ratios, indexed by count (index 0 unused, 1.0), with base-2 draws from {@code lottery} and salt values
     * from {@code salt}; challengers' spare bits come from hashing 0..63 with {@code hasher}.
     */
    public static double[] ratios(DecayLottery lottery, EvictionSalt salt, KeyHasher hasher, int draws) {
        long[] wins = new long[MAX_COUNT + 1];
        for (int i = 0; i < draws; i++) {
            long spare = hasher.hash((long) (i & 63)) >>> 32;
            int tz = Long.numberOfTrailingZeros(lottery.draw(spare, salt.next(spare)));
            for (int k = 1; k <= Math.min(MAX_COUNT, tz); k++) {
                wins[k]++;
            }
        }
        double[] ratio = new double[MAX_COUNT + 1];
        ratio[0] = 1.0;
        for (int k = 1; k <= MAX_COUNT; k++) {
            ratio[k] = wins[k] / (draws * Math.scalb(1.0, -k));
        }
        return ratio;
    }
}
