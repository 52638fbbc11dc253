package io.hotkeeper.engine.lottery;

import io.hotkeeper.engine.hash.KeyHasher;
import io.hotkeeper.engine.salt.EvictionSalt;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import io.hotkeeper.engine.Hotkeeper;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import java.lang.foreign.Arena;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DecayLotteryTest {

    /**
     * The measured win rate against count k, divided by the promised 2^-k, stays within 1 +- 0.02 for k = 1..10,
     * with real salt values and challenger spare bits from hashed keys, in both salt modes.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 8})
    void winRateMatchesTwoToTheMinusCount(int shards) {
        DecayLottery lottery = new DecayLottery(DecayLottery.REFERENCE_BASE, 99);
        double[] ratios;
        try (Arena arena = Arena.ofConfined()) {
            ratios = LotteryFairness.ratios(lottery, new EvictionSalt(arena, shards), KeyHasher.seeded(5), 1 << 25);
        }
        for (int k = 1; k <= LotteryFairness.MAX_COUNT; k++) {
            assertTrue(Math.abs(ratios[k] - 1.0) <= 0.02, "k=" + k + " ratio=" + ratios[k]);
            assertTrue(lottery.wins(0L, k), "a draw of all zero bits beats every count up to 64");
        }
    }

    /**
     * The default base's draws, salted as in the table, against counts where its probabilities span four orders
     * of magnitude (0.93 at 1, 4.5e-4 at 100): within 1 +- 0.03 in both salt modes.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 8})
    void defaultBaseWinRateMatchesItsPromise(int shards) {
        DecayLottery lottery = new DecayLottery(DecayLottery.DEFAULT_BASE, 99);
        int[] counts = {1, 5, 10, 30, 60, 100, 200, 300};
        double[] ratios;
        try (Arena arena = Arena.ofConfined()) {
            ratios = LotteryFairness.ratios(lottery, new EvictionSalt(arena, shards), KeyHasher.seeded(5), 1 << 24,
                    counts);
        }
        for (int j = 0; j < counts.length; j++) {
            assertTrue(Math.abs(ratios[j] - 1.0) <= 0.03, "count=" + counts[j] + " ratio=" + ratios[j]);
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
        var random = new java.util.SplittableRandom(9);
        DecayLottery lottery = new DecayLottery(DecayLottery.REFERENCE_BASE, 1);
        assertMeanTrials(lottery, random, 1, 3, 10);
        assertEquals(Long.MAX_VALUE, lottery.trialsToFirstWin(123, 2000));
        DecayLottery byDefault = new DecayLottery(DecayLottery.DEFAULT_BASE, 1);
        assertMeanTrials(byDefault, random, 1, 30, 60);
        int end = 1; // the first count whose win probability is below 2^-64: 2,241 at 1.02, 577 at 1.08
        while (Math.pow(DecayLottery.DEFAULT_BASE, -end) * 0x1p64 >= 1.0) {
            end++;
        }
        assertEquals(Long.MAX_VALUE, byDefault.trialsToFirstWin(123, end), "past the table's end");
    }

    /** The mean of 400,000 geometric samples against each count k is {@code base^k} within 2%. */
    private static void assertMeanTrials(DecayLottery lottery, java.util.SplittableRandom random, int... counts) {
        for (int k : counts) {
            double sum = 0;
            int n = 400_000;
            for (int i = 0; i < n; i++) {
                sum += lottery.trialsToFirstWin(random.nextLong(), k);
            }
            double mean = sum / n;
            double expected = Math.pow(lottery.base(), k);
            assertTrue(Math.abs(mean / expected - 1.0) < 0.02, "base " + lottery.base() + ", k=" + k + " mean=" + mean);
        }
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
        assertEquals("decayBase=1.0: must be >= 1.01 and <= 1024.0", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new DecayLottery(Double.NaN, 0));
        assertEquals("decayBase=NaN: must be >= 1.01 and <= 1024.0", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new DecayLottery(Math.nextUp(1024.0), 0));
        assertEquals("decayBase=" + Math.nextUp(1024.0) + ": must be >= 1.01 and <= 1024.0", e.getMessage());
    }

    /**
     * Bases just above 1 used to hang (Math.nextUp(1.0): a threshold table of ~2 * 10^17 entries) or allocate
     * hundreds of MB (1.000001: 44 million entries): now they fail at once, in the lottery and in the builder
     * alike (one shared check).
     */
    @Test
    void basesJustAboveOneFailFastWithTheRange() {
        for (double base : new double[] {Math.nextUp(1.0), 1.000001, 1.001, Math.nextDown(DecayLottery.MIN_BASE)}) {
            String expected = "decayBase=" + base + ": must be >= 1.01 and <= 1024.0";
            var e = assertTimeoutPreemptively(Duration.ofSeconds(1),
                    () -> assertThrows(IllegalArgumentException.class, () -> new DecayLottery(base, 0)));
            assertEquals(expected, e.getMessage());
            e = assertTimeoutPreemptively(Duration.ofSeconds(1),
                    () -> assertThrows(IllegalArgumentException.class, () -> Hotkeeper.builder().decayBase(base)));
            assertEquals(expected, e.getMessage());
        }
    }

    /** The boundaries, the paper's 1.08 and the default build quickly with a small table; 1.01 still decays. */
    @Test
    void boundaryBasesBuildQuickly() {
        for (double base : new double[] {DecayLottery.MIN_BASE, 1.08, DecayLottery.DEFAULT_BASE,
                DecayLottery.MAX_BASE}) {
            assertTimeoutPreemptively(Duration.ofSeconds(2), () -> {
                try (Hotkeeper hk = Hotkeeper.builder().memoryBytes(4096).decayBase(base).build()) {
                    assertEquals(base, hk.decayBase());
                    hk.observe(1L);
                    assertEquals(1, hk.estimate(1L));
                }
            }, "base " + base);
        }
        DecayLottery lowest = new DecayLottery(DecayLottery.MIN_BASE, 5);
        // The table's last entry: 1.01^-c * 2^64 >= 1 up to c = 4458; past it a count never loses.
        assertTrue(lowest.winProbability(4458) > 0, "last table entry");
        assertEquals(0.0, lowest.winProbability(4459));
        assertEquals(Math.pow(1.01, -100), lowest.winProbability(100), 1e-15);
    }
}
