package io.hotkeeper.engine.table;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The second candidate bucket: in range, an involution, uniform enough, and absent with one candidate. */
class TableGeometryTest {
    private static final long[] BUCKET_COUNTS = {64, 65, 100, 360, 1024, 28_670, 1L << 20};

    @Test
    void theAlternateIsAnInvolutionInRangeAndNamesThePairByItsLowerBucket() {
        SplittableRandom random = new SplittableRandom(3);
        for (long n : BUCKET_COUNTS) {
            TableGeometry g = TableGeometry.of(n, 2);
            long fpLimit = 1L << g.fingerprintBits();
            for (int i = 0; i < 20_000; i++) {
                long bucket = random.nextLong(n);
                long fp = random.nextLong(fpLimit);
                long other = g.alternate(bucket, fp);
                assertTrue(other >= 0 && other < n, n + " buckets: " + other);
                assertEquals(bucket, g.alternate(other, fp), n + " buckets, bucket " + bucket + ", fp " + fp);
                assertEquals(Math.min(bucket, other), g.canonicalBucket(bucket, fp));
                assertEquals(g.canonicalBucket(bucket, fp), g.canonicalBucket(other, fp));
            }
        }
    }

    @Test
    void secondBucketsSpreadOverTheTableAndRarelyCoincideWithTheFirst() {
        long n = 1024;
        TableGeometry g = TableGeometry.of(n, 2);
        SplittableRandom random = new SplittableRandom(5);
        int[] hits = new int[(int) n];
        int same = 0;
        int draws = 1 << 20;
        for (int i = 0; i < draws; i++) {
            long hash = random.nextLong();
            long first = g.bucket(hash);
            long second = g.alternate(first, g.fingerprint(hash));
            hits[(int) second]++;
            same += first == second ? 1 : 0;
        }
        // 1,024 draws per bucket on average: every bucket within +-20% (about 6 standard deviations).
        for (int h : hits) {
            assertTrue(h > 0.8 * draws / n && h < 1.2 * draws / n, "hits " + h);
        }
        // About 2 / 1024 of the keys have one bucket (2b = d mod n has two solutions for an even n).
        assertTrue(same < 4.0 * draws / n, "same " + same);
    }

    @Test
    void oneCandidateMeansTheSameBucket() {
        TableGeometry g = TableGeometry.of(100);
        assertEquals(1, g.candidates());
        assertEquals(37, g.alternate(37, 12345));
        assertEquals(2, g.withTwoCandidates().candidates());
        assertEquals(TableGeometry.of(100, 2), g.withTwoCandidates());
        assertTrue(!g.equals(g.withTwoCandidates()), "the candidates are part of the geometry");
        assertThrows(IllegalArgumentException.class, () -> TableGeometry.of(100, 3));
    }
}
