package io.hotkeeper.engine.snapshot;

import io.hotkeeper.engine.table.TableGeometry;
import io.hotkeeper.engine.table.TableLayout;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The table words of format versions 1 and 2, rewritten in place into the slot word of version 3 (docs/format.md).
 * An old word has its count in the low 39 bits and does not record which candidate bucket it sits in; version 3
 * gives bit 38 to {@link TableLayout#SECOND} and the count 38 bits.
 *
 * <ul>
 *   <li>Count: clamped to {@link TableLayout#MAX_COUNT} (2^38 - 1). Fingerprint and bits 39-40 are kept, so the
 *       reader's checks see the same malformed words as before.</li>
 *   <li>SECOND, with two candidates per key: decided where the old table tells, by the observe path's rule that a
 *       key enters its second bucket only while its first is full and without its fingerprint (slots empty only in
 *       a reset). A word in bucket b with fingerprint f is set SECOND only if the other bucket a of its pair is
 *       full and holds no word of f, and a tracked key's location names a (and f) as its first bucket while none
 *       names b. Every other word, including the undecidable ones (no key says), is taken to be in its first
 *       bucket, where most words are; a replay of such a word that was in its second bucket lands in the bucket
 *       the word sat in, as version-2 readers replayed it.</li>
 * </ul>
 * Threads: any (pure function of its arguments). Progress: wait-free.
 */
final class LegacyWords {
    /** Bits of the count in a version-1 or version-2 word. */
    static final int LEGACY_COUNT_BITS = 39;
    private static final long LEGACY_COUNT_MASK = (1L << LEGACY_COUNT_BITS) - 1;
    private static final int SLOTS = TableLayout.SLOTS_PER_BUCKET;

    private LegacyWords() {
    }

    /** Rewrites {@code table}, read from a version-1 or version-2 snapshot with these keys, as version-3 words. */
    static void convert(long[] table, TableGeometry geometry, List<SnapshotKey> keys) {
        for (int i = 0; i < table.length; i++) {
            long word = table[i];
            if (word != 0) {
                long count = word & LEGACY_COUNT_MASK;
                table[i] = (word & ~LEGACY_COUNT_MASK) | Math.min(count, TableLayout.MAX_COUNT);
            }
        }
        if (geometry.candidates() == 1) {
            return;
        }
        // The first buckets tracked keys name, as (bucket, fingerprint) pairs.
        Set<Long> named = new HashSet<>();
        for (SnapshotKey key : keys) {
            if (key.located()) {
                named.add(pair(geometry.bucket(key.location()), geometry.fingerprint(key.location())));
            }
        }
        if (named.isEmpty()) {
            return;
        }
        for (int i = 0; i < table.length; i++) {
            long word = table[i];
            if (word == 0) {
                continue;
            }
            long bucket = i / SLOTS;
            long fp = TableLayout.fingerprint(word);
            long other = geometry.alternate(bucket, fp);
            if (other != bucket && table[(int) other * SLOTS + SLOTS - 1] != 0 && !holds(table, other, fp)
                    && named.contains(pair(other, fp)) && !named.contains(pair(bucket, fp))) {
                table[i] = word | TableLayout.SECOND;
            }
        }
    }

    private static long pair(long bucket, long fp) {
        return bucket << TableLayout.MAX_FINGERPRINT_BITS | fp;
    }

    /** Whether bucket {@code bucket} holds a word of fingerprint {@code fp}. */
    private static boolean holds(long[] table, long bucket, long fp) {
        for (int s = (int) bucket * SLOTS; s < (int) bucket * SLOTS + SLOTS; s++) {
            if (table[s] != 0 && TableLayout.fingerprint(table[s]) == fp) {
                return true;
            }
        }
        return false;
    }
}
