package io.hotkeeper.engine;

import io.hotkeeper.engine.hash.KeyHasher;
import io.hotkeeper.engine.snapshot.HotkeeperSnapshot;
import io.hotkeeper.engine.table.TableGeometry;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code Builder.candidateBuckets}: two by default, one on request, and what each does with a full bucket. */
class CandidateBucketsTest {
    private static final long SEED = 21;

    /** Nine keys whose first bucket (of 64) is the same, distinct fingerprints, the ninth with another second bucket. */
    private static List<Long> nineKeysOfOneBucket() {
        KeyHasher hasher = KeyHasher.seeded(SEED);
        TableGeometry geometry = TableGeometry.of(64, 2);
        long bucket = geometry.bucket(hasher.hash(0L));
        List<Long> keys = new ArrayList<>();
        java.util.Set<Long> fps = new java.util.HashSet<>();
        for (long k = 0; keys.size() < 9; k++) {
            long h = hasher.hash(k);
            long fp = geometry.fingerprint(h);
            if (geometry.bucket(h) == bucket && (keys.size() < 8 || geometry.alternate(bucket, fp) != bucket)
                    && fps.add(fp)) {
                keys.add(k);
            }
        }
        return keys;
    }

    @Test
    void twoByDefaultOneOnRequestAndNothingElse() {
        try (Hotkeeper hk = Hotkeeper.builder().build()) {
            assertEquals(2, hk.info().candidateBuckets());
        }
        try (Hotkeeper hk = Hotkeeper.builder().candidateBuckets(1).build()) {
            assertEquals(1, hk.info().candidateBuckets());
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Hotkeeper.builder().candidateBuckets(3));
        assertEquals("candidateBuckets=3: must be 1 or 2", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Hotkeeper.builder().candidateBuckets(0));
    }

    @Test
    void aNinthKeyClaimsItsSecondBucketWithTwoAndFacesTheLotteryWithOne() {
        List<Long> keys = nineKeysOfOneBucket();
        for (int candidates : new int[] {1, 2}) {
            try (Hotkeeper hk = Hotkeeper.builder().memoryBytes(4096).seed(SEED).recordStats()
                    .candidateBuckets(candidates).build()) {
                for (int i = 0; i < 8; i++) {
                    hk.observe(keys.get(i), 1_000);
                }
                long result = hk.observe(keys.get(8));
                if (candidates == 2) {
                    assertEquals(1, result, "claimed in its second bucket");
                    assertEquals(0, hk.stats().evictionAttempts());
                } else {
                    assertEquals(0, result, "a draw against count 1,000 loses");
                    assertEquals(1, hk.stats().evictionAttempts());
                }
            }
        }
    }

    @Test
    void snapshotsRecordTheChoiceAndMergeByTableOnlyWithTheSame() {
        HotkeeperSnapshot one;
        HotkeeperSnapshot two;
        try (Hotkeeper a = Hotkeeper.builder().memoryBytes(4096).seed(SEED).candidateBuckets(1).build();
             Hotkeeper b = Hotkeeper.builder().memoryBytes(4096).seed(SEED).build()) {
            for (long k = 0; k < 2_000; k++) {
                a.observe(k % 50, 1 + k % 3);
                b.observe(k % 50, 1 + k % 3);
            }
            one = HotkeeperSnapshot.read(a.snapshot().toBytes());
            two = HotkeeperSnapshot.read(b.snapshot().toBytes());
            assertEquals(1, one.candidates());
            assertEquals(2, two.candidates());
            assertEquals(0, one.toBytes()[10] & 4, "no TWO_CANDIDATES flag");
            assertEquals(4, two.toBytes()[10] & 4, "the TWO_CANDIDATES flag");
            assertTrue(HotkeeperSnapshot.mergeAll(List.of(two, two)).report().byTable());
            assertFalse(HotkeeperSnapshot.mergeAll(List.of(one, two)).report().byTable(), "by keys");
            assertFalse(b.merge(one).byTable(), "into a two-candidate sketch: by keys");
            for (long k = 0; k < 50; k++) {
                assertEquals(2 * a.estimate(k), b.estimate(k), "key " + k + ": its count, merged by keys");
            }
        }
    }
}
