package io.hotkeeper.engine.table;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The simulation behind docs/theory.md section 6: {@code n} distinct keys placed by the observe path's rule (the
 * first bucket while it has room, else the second; buckets of 8 slots, independent uniform buckets) against the
 * same keys with one bucket each. A key "fails" when it finds every candidate full, which is when exactness is lost.
 */
class TwoCandidatePlacementTest {

    /** Whether all {@code n} keys found room, with {@code candidates} buckets each. */
    private static boolean allPlaced(SplittableRandom random, int buckets, int n, int candidates) {
        int[] load = new int[buckets];
        for (int key = 0; key < n; key++) {
            int first = random.nextInt(buckets);
            int second = random.nextInt(buckets);
            if (load[first] < TableLayout.SLOTS_PER_BUCKET) {
                load[first]++;
            } else if (candidates == 2 && load[second] < TableLayout.SLOTS_PER_BUCKET) {
                load[second]++;
            } else {
                return false;
            }
        }
        return true;
    }

    private static int failures(int buckets, int n, int candidates, int trials, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        int failed = 0;
        for (int t = 0; t < trials; t++) {
            failed += allPlaced(random, buckets, n, candidates) ? 0 : 1;
        }
        return failed;
    }

    @Test
    void twoCandidatesPlaceTheBucketCountAndRarelyFailAtTwice() {
        // n = B, the stated bound: no failure with two candidates, in any trial.
        assertEquals(0, failures(512, 512, 2, 200, 1));
        assertEquals(0, failures(8192, 8192, 2, 40, 2));
        // n = 2B: rare with two candidates, while one bucket per key overflows in most trials.
        assertTrue(failures(8192, 2 * 8192, 2, 40, 2) <= 4);
        assertTrue(failures(8192, 2 * 8192, 1, 40, 2) >= 20);
        // At half the slots (n = 4B) two candidates fail too: "fewer keys than slots" is not the condition.
        assertTrue(failures(8192, 4 * 8192, 2, 10, 3) >= 5);
    }
}
