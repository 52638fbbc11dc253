package io.hotkeeper.engine.core;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Comparator;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/** The candidate heap of the several-table top-k: the m best indices, highest estimate first, ties by index. */
class TableSetRankingTest {
    @Test
    void theHeapGivesTheSameOrderAsAFullSortTiesIncluded() {
        SplittableRandom random = new SplittableRandom(11);
        for (int round = 0; round < 500; round++) {
            int u = random.nextInt(0, 200);
            long[] estimates = new long[u];
            for (int i = 0; i < u; i++) {
                estimates[i] = random.nextInt(0, 1 + random.nextInt(1, 40)); // many ties
            }
            int m = random.nextInt(0, u + 1);
            int[] expected = IntStream.range(0, u).boxed()
                    .sorted(Comparator.<Integer>comparingLong(i -> -estimates[i]).thenComparingInt(i -> i))
                    .limit(m).mapToInt(Integer::intValue).toArray();
            assertArrayEquals(expected, TableSet.best(estimates, m),
                    "u=" + u + " m=" + m + " estimates=" + Arrays.toString(estimates));
        }
    }
}
