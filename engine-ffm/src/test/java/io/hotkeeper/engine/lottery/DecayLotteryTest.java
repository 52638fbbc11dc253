package io.hotkeeper.engine.lottery;

import io.hotkeeper.engine.hash.KeyHasher;
import io.hotkeeper.engine.salt.EvictionSalt;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DecayLotteryTest {

    /**
     * The measured win rate against count k, divided by the promised 2^-k, stays within 1 +- 0.02 for k = 1..10,
     * with real salt values and challenger spare bits from hashed keys, in both salt modes.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 8})
    void winRateMatchesTwoToTheMinusCount(int shards) {
        DecayLottery lottery = new DecayLottery(2.0, 99);
        double[] ratios;
        try (Arena arena = Arena.ofConfined()) {
            ratios = LotteryFairness.ratios(lottery, new EvictionSalt(arena, shards), KeyHasher.seeded(5), 1 << 25);
        }
        for (int k = 1; k <= LotteryFairness.MAX_COUNT; k++) {
            assertTrue(Math.abs(ratios[k] - 1.0) <= 0.02, "k=" + k + " ratio=" + ratios[k]);
            assertTrue(lottery.wins(0L, k), "a draw of all zero bits beats every count up to 64");
        }
    }

    @Test
    void aCustomBaseUsesItsThresholdTable() {
        DecayLottery lottery = new DecayLottery(1.08, 3);
        var random = new java.util.SplittableRandom(4);
        int draws = 4_000_000;
        for (int k : new int[] {1, 5, 20, 50}) {
            long wins = 0;
            for (int i = 0; i < draws; i++) {
                if (lottery.wins(random.nextLong(), k)) {
                    wins++;
                }
            }
            double ratio = wins / (draws * Math.pow(1.08, -k));
            assertTrue(Math.abs(ratio - 1.0) < 0.02, "k=" + k + " ratio=" + ratio);
        }
        // Far past the table's end nobody loses a draw.
        assertEquals(false, lottery.wins(0L, 100_000));
    }

    @Test
    void geometricTrialsHaveTheRightMean() {
        DecayLottery lottery = new DecayLottery(2.0, 1);
        var random = new java.util.SplittableRandom(9);
        for (int k : new int[] {1, 3, 10}) {
            double sum = 0;
            int n = 400_000;
            for (int i = 0; i < n; i++) {
                sum += lottery.trialsToFirstWin(random.nextLong(), k);
            }
            double mean = sum / n;
            assertTrue(Math.abs(mean / Math.scalb(1.0, k) - 1.0) < 0.02, "k=" + k + " mean=" + mean);
        }
        assertEquals(Long.MAX_VALUE, lottery.trialsToFirstWin(123, 2000));
    }

    @Test
    void drawsOfOneChallengerNeverRepeatForDistinctSalts() {
        DecayLottery lottery = new DecayLottery(2.0, 77);
        var seen = new java.util.HashSet<Long>();
        for (long salt = 0; salt < 200_000; salt++) {
            assertTrue(seen.add(lottery.draw(0xABCDL, salt)));
        }
    }

    @Test
    void badBasesAreRejectedByName() {
        var e = assertThrows(IllegalArgumentException.class, () -> new DecayLottery(1.0, 0));
        assertEquals("decayBase=1.0: must be > 1.0 and <= 1024.0", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new DecayLottery(Double.NaN, 0));
    }
}
