package io.hotkeeper.engine;

import io.hotkeeper.engine.hash.KeyHasher;
import io.hotkeeper.engine.table.TableGeometry;
import io.hotkeeper.engine.table.TableLayout;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Each phase, driven deterministically with a fixed seed and keys crafted to share one bucket. */
class PhasesTest {
    private static final long SEED = 1234;
    private static final int INDEX_BITS = 6; // 4 KiB: 64 buckets

    /** The sketches' geometry: two candidate buckets per key. */
    private static final TableGeometry GEOMETRY = TableGeometry.of(1L << INDEX_BITS, 2);

    /**
     * Keys whose hash lands in bucket 0, with distinct fingerprints: eight, then {@code count - 8} whose second
     * candidate is bucket 0 too (a key with one bucket, about one in 64 here), so that they face bucket 0's lottery.
     */
    private static List<Long> keysInBucketZero(int count) {
        KeyHasher hasher = KeyHasher.seeded(SEED);
        List<Long> keys = new ArrayList<>();
        java.util.Set<Long> fps = new java.util.HashSet<>();
        for (long k = 1; keys.size() < count; k++) {
            long h = hasher.hash(k);
            long fp = GEOMETRY.fingerprint(h);
            if (GEOMETRY.bucket(h) == 0 && (keys.size() < 8 || GEOMETRY.alternate(0, fp) == 0) && fps.add(fp)) {
                keys.add(k);
            }
        }
        return keys;
    }

    /** A key whose first bucket is 0 and whose second is another one, with a fingerprint not among {@code keys}'. */
    private static long keyWithASecondBucket(List<Long> keys) {
        KeyHasher hasher = KeyHasher.seeded(SEED);
        java.util.Set<Long> fps = new java.util.HashSet<>();
        for (long k : keys) {
            fps.add(GEOMETRY.fingerprint(hasher.hash(k)));
        }
        for (long k = 1; ; k++) {
            long h = hasher.hash(k);
            long fp = GEOMETRY.fingerprint(h);
            if (GEOMETRY.bucket(h) == 0 && GEOMETRY.alternate(0, fp) != 0 && !fps.contains(fp)) {
                return k;
            }
        }
    }

    private static Hotkeeper small() {
        // Base 2: the expected numbers of draws below are powers of two.
        return Hotkeeper.builder().recordStats().memoryBytes(4096).seed(SEED).decayBase(2.0).build();
    }

    @Test
    void claimThenRefresh() {
        List<Long> keys = keysInBucketZero(8);
        try (Hotkeeper hk = small()) {
            for (long k : keys) {
                assertEquals(1, hk.observe(k), "phase 2 claims an empty slot with count 1");
            }
            assertEquals(2, hk.observe(keys.get(3)), "phase 1 increments");
            assertEquals(7, hk.observe(keys.get(3), 5), "weighted refresh adds the weight in one step");
            HotkeeperStats s = hk.stats();
            assertEquals(8, s.claims());
            assertEquals(2, s.refreshes());
            assertEquals(0, s.evictionAttempts());
            assertEquals(7, hk.estimate(keys.get(3)));
            assertEquals(1, hk.estimate(keys.get(0)));
        }
    }

    @Test
    void aFullBucketRunsTheLotteryAgainstTheWeakestAndTheChallengerTakesItsSlotAtZero() {
        List<Long> keys = keysInBucketZero(9);
        try (Hotkeeper hk = small()) {
            for (int i = 0; i < 8; i++) {
                hk.observe(keys.get(i), 10 + i); // slot 0 holds the weakest: count 10
            }
            long challenger = keys.get(8);
            long draws = 0;
            while (hk.estimate(challenger) == 0) {
                long before = hk.estimate(keys.get(0));
                long result = hk.observe(challenger);
                draws++;
                long after = hk.estimate(keys.get(0));
                // Only the weakest occupant is ever chipped, by at most one per draw.
                assertTrue(after == before || after == before - 1 || (after == 0 && result == 1));
                for (int i = 1; i < 8; i++) {
                    assertEquals(10 + i, hk.estimate(keys.get(i)));
                }
                assertTrue(draws < 10_000_000, "the challenger should win eventually");
            }
            assertEquals(1, hk.estimate(challenger));
            assertEquals(0, hk.estimate(keys.get(0)), "the weakest was replaced");
            HotkeeperStats s = hk.stats();
            assertEquals(draws, s.evictionAttempts());
            assertEquals(10, s.evictionWins(), "ten won draws chip a count of 10 to zero");
            assertEquals(1, s.replacements());
            // 2^-10 + ... + 2^-1: expected about 2046 draws.
            assertTrue(draws > 100, "draws=" + draws);
        }
    }

    @Test
    void aKeyWhoseFirstBucketIsFullClaimsItsSecondAndIsFoundThere() {
        List<Long> keys = keysInBucketZero(8);
        long second = keyWithASecondBucket(keys);
        try (Hotkeeper hk = small()) {
            for (long k : keys) {
                hk.observe(k, 10);
            }
            assertEquals(1, hk.observe(second), "phase 2 in the second bucket: no lottery");
            assertEquals(3, hk.observe(second, 2), "phase 1 finds it there");
            assertEquals(3, hk.estimate(second));
            HotkeeperStats s = hk.stats();
            assertEquals(9, s.claims());
            assertEquals(0, s.evictionAttempts());
            for (long k : keys) {
                assertEquals(10, hk.estimate(k), "the first bucket is untouched");
            }
        }
    }

    @Test
    void aHeavyWeightedChallengerTakesTheSlotInLogarithmicDraws() {
        List<Long> keys = keysInBucketZero(9);
        try (Hotkeeper hk = small()) {
            for (int i = 0; i < 8; i++) {
                hk.observe(keys.get(i), 5);
            }
            long estimate = hk.observe(keys.get(8), 1_000_000);
            assertTrue(estimate > 1_000_000 - 200 && estimate <= 1_000_000, "estimate=" + estimate);
            HotkeeperStats s = hk.stats();
            assertEquals(5, s.evictionWins());
            assertTrue(s.evictionAttempts() <= 6, "one draw per decrement plus the last: " + s.evictionAttempts());
        }
    }

    @Test
    void countsSaturateInsteadOfWrapping() {
        try (Hotkeeper hk = small()) {
            long key = 77;
            assertEquals(TableLayout.MAX_COUNT - 1, hk.observe(key, TableLayout.MAX_COUNT - 1));
            assertEquals(TableLayout.MAX_COUNT, hk.observe(key, Long.MAX_VALUE));
            assertEquals(TableLayout.MAX_COUNT, hk.observe(key));
            assertEquals(TableLayout.MAX_COUNT, hk.estimate(key));
            assertEquals(2, hk.stats().saturations());
        }
    }

    @Test
    void allKeyTypesAddressTheSameByteStrings() {
        try (Hotkeeper hk = small()) {
            hk.observe("user-42");
            hk.observe("user-42".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            hk.observe(java.lang.foreign.MemorySegment.ofArray("xuser-42".getBytes()), 1, 7);
            byte[] padded = "..user-42..".getBytes();
            hk.observe(padded, 2, 7);
            assertEquals(4, hk.estimate("user-42"));
            hk.observe(new StringBuilder("user-42"), 6);
            assertEquals(10, hk.estimate("user-42".getBytes()));
        }
    }
}
