package io.hotkeeper.engine.snapshot;

import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.Partitioning;
import io.hotkeeper.engine.hash.KeyHasher;
import io.hotkeeper.engine.table.TableGeometry;
import io.hotkeeper.engine.table.TableLayout;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue #26, items 3 and 4: with two candidate buckets, a merge replays every slot word as the key that wrote it.
 * Two keys with one fingerprint whose first buckets are each other's second are two slots of the live table and
 * stay two slots through every merge; and a merged word lands where its key's next observation looks for it.
 */
class MergePlacementTest {
    private static final long SEED = 1;
    /** 4 KiB: 64 buckets, 23-bit fingerprints. */
    private static final long TABLE_BYTES = 4096;
    private static final TableGeometry GEOMETRY = TableGeometry.of(TABLE_BYTES / TableLayout.BUCKET_BYTES, 2);
    private static final KeyHasher HASHER = KeyHasher.seeded(SEED);

    /**
     * Two keys K and J with one fingerprint f, K's first bucket b, J's first bucket {@code alternate(b, f) != b}:
     * the first such pair of the seeded hash, found by search.
     */
    static long[] pairWithOneFingerprint() {
        Map<Long, List<Long>> byFingerprint = new HashMap<>();
        for (long key = 0; ; key++) {
            long h = HASHER.hash(key);
            long fp = GEOMETRY.fingerprint(h);
            long bucket = GEOMETRY.bucket(h);
            List<Long> same = byFingerprint.computeIfAbsent(fp, f -> new ArrayList<>(1));
            for (long other : same) {
                long b = GEOMETRY.bucket(HASHER.hash(other));
                if (b != bucket && GEOMETRY.alternate(b, fp) == bucket) {
                    return new long[] {other, key};
                }
            }
            same.add(key);
        }
    }

    private static io.hotkeeper.engine.HotkeeperBuilder sketch() {
        return Hotkeeper.builder().memoryBytes(TABLE_BYTES).seed(SEED).minCount(8);
    }

    /** The same table without its keys: every slot is replayed untracked. */
    private static HotkeeperSnapshot withoutKeys(HotkeeperSnapshot s, long[] table) {
        return HotkeeperSnapshot.of(s.bucketCount(), s.candidates(), s.k(), s.maxKeyBytes(), s.decayBase(),
                s.seedFingerprint(), s.seeded(), s.totalWeight(), List.of(table), List.of());
    }

    private static long[] table(HotkeeperSnapshot s) {
        long[] words = new long[s.slotCount()];
        for (int i = 0; i < words.length; i++) {
            words[i] = s.slotWord(i);
        }
        return words;
    }

    @Test
    void twoKeysOfOneFingerprintInEachOthersSecondBucketStayApartThroughEveryMerge() {
        long[] pair = pairWithOneFingerprint();
        long k = pair[0];
        long j = pair[1];
        HotkeeperSnapshot s;
        try (Hotkeeper hk = sketch().build()) {
            assertEquals(GEOMETRY.bucketCount(), hk.snapshot().bucketCount());
            hk.observe(k, 100);
            hk.observe(j, 50);
            assertEquals(100, hk.estimate(k), "two slots in the live table");
            assertEquals(50, hk.estimate(j));
            s = hk.snapshot();
        }
        assertEquals(100, s.estimate(k));
        assertEquals(50, s.estimate(j));
        assertEquals(2, s.keys().stream().filter(SnapshotKey::located).count());
        for (HotkeeperSnapshot in : List.of(s, HotkeeperSnapshot.read(s.toBytes()))) {
            HotkeeperSnapshot one = HotkeeperSnapshot.mergeAll(List.of(in)).snapshot();
            assertEquals(100, one.estimate(k), "mergeAll of one snapshot");
            assertEquals(50, one.estimate(j), "mergeAll of one snapshot");
            HotkeeperSnapshot two = HotkeeperSnapshot.mergeAll(List.of(in, in)).snapshot();
            assertEquals(200, two.estimate(k), "mergeAll of two: doubled");
            assertEquals(100, two.estimate(j), "mergeAll of two: doubled");
            assertEquals(0, HotkeeperSnapshot.mergeAll(List.of(in, in)).report().droppedWeight());
        }
        // Into a live instance: through the keys (tracked), and through the slot words alone (untracked).
        for (HotkeeperSnapshot in : List.of(s, withoutKeys(s, table(s)))) {
            try (Hotkeeper fresh = sketch().build()) {
                fresh.merge(in);
                assertEquals(100, fresh.estimate(k), "fresh.merge(s), " + in.keys().size() + " keys");
                assertEquals(50, fresh.estimate(j), "fresh.merge(s), " + in.keys().size() + " keys");
            }
        }
        // snapshot() of an instance of several tables folds them with the same merge.
        try (Hotkeeper several = sketch().partitioning(Partitioning.perWorker(2)).build()) {
            several.observe(k, 100);
            several.observe(j, 50);
            HotkeeperSnapshot folded = several.snapshot();
            assertEquals(100, folded.estimate(k), "snapshot() of several tables");
            assertEquals(50, folded.estimate(j), "snapshot() of several tables");
            // The estimates above read the keys' entries; the folded words themselves must keep K and J apart too
            // (a fold that summed them into one word still answered 100 and 50 here, and wrong counts once merged).
            try (Hotkeeper fresh = sketch().build()) {
                fresh.merge(withoutKeys(folded, table(folded)));
                assertEquals(100, fresh.estimate(k), "the folded words of several tables, merged");
                assertEquals(50, fresh.estimate(j), "the folded words of several tables, merged");
            }
        }
    }

    /**
     * A word merged untracked where its key's first bucket has room goes to that first bucket: there the key's
     * next observation finds it (and not a fresh claim that hides it), and its estimate includes it.
     */
    @Test
    void aMergedWordLandsWhereItsKeysNextObservationLooks() {
        // Eight keys fill one first bucket; a ninth key of that bucket goes to its second.
        long bucket = GEOMETRY.bucket(HASHER.hash(0L));
        List<Long> keys = new ArrayList<>();
        java.util.Set<Long> fps = new java.util.HashSet<>();
        for (long key = 0; keys.size() < 9; key++) {
            long h = HASHER.hash(key);
            long fp = GEOMETRY.fingerprint(h);
            if (GEOMETRY.bucket(h) == bucket && GEOMETRY.alternate(bucket, fp) != bucket && fps.add(fp)) {
                keys.add(key);
            }
        }
        long ninth = keys.get(8);
        long[] table;
        HotkeeperSnapshot s;
        try (Hotkeeper hk = sketch().build()) {
            for (int i = 0; i < 8; i++) {
                hk.observe(keys.get(i), 1_000);
            }
            hk.observe(ninth, 30);
            assertEquals(30, hk.estimate(ninth));
            s = hk.snapshot();
            table = table(s);
        }
        // The ninth key's word, claimed in its second bucket, says so (SECOND); the first eight's do not.
        long ninthFp = GEOMETRY.fingerprint(HASHER.hash(ninth));
        long secondOfNinth = GEOMETRY.alternate(bucket, ninthFp);
        for (int i = 0; i < table.length; i++) {
            long b = i / TableLayout.SLOTS_PER_BUCKET;
            if (table[i] != 0 && (b == bucket || TableLayout.fingerprint(table[i]) == ninthFp)) {
                assertEquals(b == secondOfNinth, TableLayout.second(table[i]), TableLayout.describeWord(table[i]));
            }
        }
        // The same table with the first bucket emptied: a target whose first bucket has room.
        java.util.Arrays.fill(table, (int) bucket * TableLayout.SLOTS_PER_BUCKET,
                (int) (bucket + 1) * TableLayout.SLOTS_PER_BUCKET, 0L);
        HotkeeperSnapshot lone = withoutKeys(s, table);
        assertEquals(30, lone.tableWeight());
        try (Hotkeeper fresh = sketch().build()) {
            fresh.merge(lone);
            assertEquals(30, fresh.estimate(ninth), "the merged count is visible");
            assertEquals(31, fresh.observe(ninth), "the next observation refreshes the merged word");
            for (int i = 0; i < 8; i++) {
                fresh.observe(keys.get(i), 1_000);
            }
            assertEquals(31, fresh.estimate(ninth), "and keeps it when the first bucket fills");
        }
        // Into a live instance whose first bucket holds a few keys already.
        try (Hotkeeper live = sketch().build()) {
            for (int i = 0; i < 3; i++) {
                live.observe(keys.get(i), 5);
            }
            live.merge(lone);
            assertEquals(30, live.estimate(ninth));
            assertEquals(31, live.observe(ninth));
        }
        // A merge of snapshots moves it to its first bucket too: replayed from there, it is found.
        HotkeeperSnapshot merged = HotkeeperSnapshot.mergeAll(List.of(lone)).snapshot();
        try (Hotkeeper fresh = sketch().build()) {
            fresh.merge(merged);
            assertEquals(30, fresh.estimate(ninth));
            assertEquals(31, fresh.observe(ninth));
        }
        assertTrue(merged.tableWeight() == 30);
    }

    /**
     * The observe path's rule in a table: a bucket holds one word of a fingerprint, and a word sits in its key's
     * second bucket only while the first is full and without that fingerprint. Returns the first violation, or null.
     */
    static String ruleViolation(HotkeeperSnapshot s) {
        int slots = TableLayout.SLOTS_PER_BUCKET;
        for (int i = 0; i < s.slotCount(); i++) {
            long word = s.slotWord(i);
            if (word == 0) {
                continue;
            }
            int bucket = i / slots;
            long fp = TableLayout.fingerprint(word);
            for (int j = bucket * slots; j < bucket * slots + slots; j++) {
                if (j != i && s.slotWord(j) != 0 && TableLayout.fingerprint(s.slotWord(j)) == fp) {
                    return "bucket " + bucket + ": two words of fingerprint " + fp;
                }
            }
            if (TableLayout.second(word)) {
                int first = (int) GEOMETRY.alternate(bucket, fp);
                if (s.slotWord(first * slots + slots - 1) == 0) {
                    return "word " + i + " in its second bucket while its first, " + first + ", has room";
                }
                for (int j = first * slots; j < first * slots + slots; j++) {
                    if (TableLayout.fingerprint(s.slotWord(j)) == fp) {
                        return "word " + i + " in its second bucket behind a word of its fingerprint in " + first;
                    }
                }
            }
        }
        return null;
    }

    /** Each bucket's words, sorted: a table up to the order within buckets. */
    private static List<List<Long>> buckets(HotkeeperSnapshot s) {
        List<List<Long>> out = new ArrayList<>();
        for (int b = 0; b < s.slotCount() / TableLayout.SLOTS_PER_BUCKET; b++) {
            List<Long> words = new ArrayList<>();
            for (int i = 0; i < TableLayout.SLOTS_PER_BUCKET; i++) {
                long word = s.slotWord(b * TableLayout.SLOTS_PER_BUCKET + i);
                if (word != 0) {
                    words.add(word);
                }
            }
            words.sort(null);
            out.add(words);
        }
        return out;
    }

    /**
     * Full tables (4 KiB after thousands of keys, so many words sit in their second bucket): a snapshot merged
     * alone keeps every word in its bucket; merged into an empty sketch it loses no unit and every tracked key keeps
     * its estimate (words that sat in each other's first buckets may each go to their first); merges of several
     * keep the rule, and account for every unit (kept or reported dropped).
     */
    @Test
    void fullTablesMergeByTheRuleAndAloneUnchanged() {
        List<HotkeeperSnapshot> parts = new ArrayList<>();
        java.util.SplittableRandom random = new java.util.SplittableRandom(26);
        for (int part = 0; part < 3; part++) {
            try (Hotkeeper hk = sketch().build()) {
                for (int i = 0; i < 30_000; i++) {
                    // Skewed: key ~ 3000 * u^3, so a head of heavy keys and a long tail of light ones.
                    double u = random.nextDouble();
                    hk.observe((long) (3_000 * u * u * u) + 1_000L * part);
                }
                parts.add(hk.snapshot());
            }
        }
        long seconds = 0;
        for (HotkeeperSnapshot s : parts) {
            assertEquals(null, ruleViolation(s), "the live table");
            for (int i = 0; i < s.slotCount(); i++) {
                seconds += TableLayout.second(s.slotWord(i)) ? 1 : 0;
            }
            HotkeeperSnapshot alone = HotkeeperSnapshot.mergeAll(List.of(s)).snapshot();
            assertEquals(buckets(s), buckets(alone), "merged alone: every word in its bucket");
            assertEquals(s.keys(), alone.keys());
            try (Hotkeeper fresh = sketch().build()) {
                fresh.merge(s);
                HotkeeperSnapshot replayed = fresh.snapshot();
                assertEquals(null, ruleViolation(replayed), "merged into an empty sketch");
                assertEquals(s.tableWeight(), replayed.tableWeight(), "merged into an empty sketch: no unit lost");
                for (SnapshotKey key : s.keys()) {
                    if (!key.truncated()) {
                        assertEquals(key.estimate(), fresh.estimate(key.key()), key.toString());
                    }
                }
            }
        }
        assertTrue(seconds > 50, "words in second buckets: " + seconds);
        for (List<HotkeeperSnapshot> inputs
                : List.of(parts, parts.subList(0, 2), List.of(parts.get(2), parts.get(0)))) {
            HotkeeperSnapshot.Merged merged = HotkeeperSnapshot.mergeAll(inputs);
            assertEquals(null, ruleViolation(merged.snapshot()));
            long in = inputs.stream().mapToLong(HotkeeperSnapshot::tableWeight).sum();
            assertEquals(in, merged.snapshot().tableWeight() + merged.report().droppedWeight());
        }
    }

    /** Keys (up to {@code n}) whose first bucket is {@code bucket}, distinct fingerprints, skipping {@code skip}. */
    private static List<Long> keysOfBucket(long bucket, int n, java.util.Set<Long> fps) {
        List<Long> keys = new ArrayList<>();
        for (long key = 0; keys.size() < n; key++) {
            long h = HASHER.hash(key);
            long fp = GEOMETRY.fingerprint(h);
            if (GEOMETRY.bucket(h) == bucket && GEOMETRY.alternate(bucket, fp) != bucket && fps.add(fp)) {
                keys.add(key);
            }
        }
        return keys;
    }

    /**
     * A key that takes a slot of its second bucket by the lottery (both its buckets full) marks its word SECOND, as
     * a claim there does: a merge then replays it as that key, into a fresh sketch and through a merge alone.
     */
    @Test
    void aLotteryTakeoverInTheSecondBucketMarksTheWord() {
        java.util.Set<Long> fps = new java.util.HashSet<>();
        long first = GEOMETRY.bucket(HASHER.hash(0L));
        List<Long> heavy = keysOfBucket(first, 8, fps);
        long x = -1;
        for (long key = 1_000_000; x < 0; key++) {
            long h = HASHER.hash(key);
            long fp = GEOMETRY.fingerprint(h);
            if (GEOMETRY.bucket(h) == first && GEOMETRY.alternate(first, fp) != first && !fps.contains(fp)) {
                x = key;
                fps.add(fp);
            }
        }
        long xh = HASHER.hash(x);
        long second = GEOMETRY.alternate(first, GEOMETRY.fingerprint(xh));
        List<Long> light = keysOfBucket(second, 8, fps);
        HotkeeperSnapshot s;
        long estimate;
        try (Hotkeeper hk = sketch().build()) {
            for (long key : heavy) {
                hk.observe(key, 1_000);
            }
            for (long key : light) {
                hk.observe(key, 1);
            }
            estimate = hk.observe(x, 1_000);
            assertTrue(estimate > 0, "x took a light key's slot, some units to the draws");
            s = hk.snapshot();
        }
        int at = -1;
        int from = (int) second * TableLayout.SLOTS_PER_BUCKET;
        for (int i = from; i < from + TableLayout.SLOTS_PER_BUCKET; i++) {
            if (TableLayout.fingerprint(s.slotWord(i)) == GEOMETRY.fingerprint(xh)) {
                at = i;
            }
        }
        assertTrue(at >= 0, "x's word is in its second bucket");
        assertTrue(TableLayout.second(s.slotWord(at)), TableLayout.describeWord(s.slotWord(at)));
        HotkeeperSnapshot untracked = withoutKeys(s, table(s));
        try (Hotkeeper fresh = sketch().build()) {
            fresh.merge(HotkeeperSnapshot.mergeAll(List.of(untracked)).snapshot());
            assertEquals(estimate, fresh.estimate(x));
        }
    }
}
