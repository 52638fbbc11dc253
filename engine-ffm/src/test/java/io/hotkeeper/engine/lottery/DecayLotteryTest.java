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
        KeyHasher hasher = KeyHasher.seeded(5);
        int draws = 1 << 25;
        long[] wins = new long[11];
        try (Arena arena = Arena.ofConfined()) {
            EvictionSalt salt = new EvictionSalt(arena, shards);
            for (int i = 0; i < draws; i++) {
                // Few distinct challengers, each drawing many times: the salt alone must keep draws fresh.
                long spare = hasher.hash((long) (i & 63)) >>> 32;
                int tz = Long.numberOfTrailingZeros(lottery.draw(spare, salt.next(spare)));
                for (int k = 1; k <= Math.min(10, tz); k++) {
                    wins[k]++;
                }
            }
        }
        for (int k = 1; k <= 10; k++) {
            double ratio = wins[k] / (draws * Math.scalb(1.0, -k));
            assertTrue(Math.abs(ratio - 1.0) <= 0.02, "k=" + k + " ratio=" + ratio);
            assertEquals(wins[k] > 0, lottery.wins(0L, k));
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
