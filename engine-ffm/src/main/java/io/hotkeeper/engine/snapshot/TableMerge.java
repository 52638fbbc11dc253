package io.hotkeeper.engine.snapshot;

import io.hotkeeper.engine.table.TableGeometry;
import io.hotkeeper.engine.table.TableLayout;

import java.util.Arrays;
import java.util.List;

/**
 * The slot-by-slot merge of tables of one geometry under one hash function. Counts of the same key are summed
 * (saturating at {@link TableLayout#MAX_COUNT}) and each bucket keeps its 8 largest sums, ordered by count
 * (descending), then fingerprint (ascending), so the result does not depend on the order of the inputs. What does
 * not fit is dropped and counted.
 *
 * <p>"The same key" is the same fingerprint in the same bucket with one candidate per key. With two
 * ({@link TableGeometry#alternate}), a key's word may sit in either of its buckets, in each input differently; the
 * word's {@link TableLayout#SECOND} bit says which, so its key is its first bucket and its fingerprint. Two keys of
 * one fingerprint whose first buckets are each other's second are two keys (two slots of the live table), never
 * summed. The merged table keeps the observe path's rule, so that a replay or a lookup of each key finds its own
 * word: a bucket holds one word of a fingerprint, and a word sits in its key's second bucket only while the first
 * is full without that fingerprint (docs/design.md, "Two candidate buckets"):
 * <ol>
 *   <li>each key is summed, and homed in its first bucket if any input held it there, else in its second (so a
 *       table merged alone keeps every word where it was);</li>
 *   <li>each bucket keeps its 8 heaviest homed keys; of two keys of one fingerprint, the one whose first bucket it
 *       is;</li>
 *   <li>the rest, heaviest first (ties by bucket), go to the other bucket of their pair: an empty slot there or the
 *       place of a lighter word, which is dropped; not where a word of their fingerprint in either bucket would be
 *       found in their place;</li>
 *   <li>every word left in its key's second bucket while the first has room, or where another word of its
 *       fingerprint would be found first, moves to its first bucket or is dropped, until none is left.</li>
 * </ol>
 * Threads: any (pure function). Progress: wait-free.
 */
final class TableMerge {
    /** A candidate's rank key: count above the fingerprint's complement, so larger is better and ties favour the
     * smaller fingerprint. Counts take 38 bits and fingerprints at most 23 (and one more bit with two
     * candidates): at most 62 bits, always positive. */
    private static final int FP_BITS = TableLayout.MAX_FINGERPRINT_BITS;
    private static final long FP_MASK = (1L << FP_BITS) - 1;
    private static final int SLOTS = TableLayout.SLOTS_PER_BUCKET;
    /** Shift of the fingerprint above the SECOND bit and the count, in step 1 of the two-candidate merge. */
    private static final int KEY_FP_SHIFT = TableLayout.COUNT_BITS + 1;

    private TableMerge() {
    }

    /** The merged table; {@code dropped[0]} receives the weight of the fingerprints that did not fit. */
    static long[] merge(List<long[]> inputs, TableGeometry geometry, long[] dropped) {
        return geometry.candidates() == 2 ? mergePairs(inputs, geometry, dropped) : mergeBuckets(inputs, dropped);
    }

    /** One candidate per key: bucket by bucket. */
    private static long[] mergeBuckets(List<long[]> inputs, long[] dropped) {
        long[][] tables = inputs.toArray(new long[0][]);
        int slots = tables[0].length;
        long[] out = new long[slots];
        long[] ranks = new long[TableLayout.SLOTS_PER_BUCKET * tables.length];
        long lost = 0;
        for (int base = 0; base < slots; base += TableLayout.SLOTS_PER_BUCKET) {
            int used = 0;
            for (long[] table : tables) {
                for (int s = base; s < base + TableLayout.SLOTS_PER_BUCKET; s++) {
                    long word = table[s];
                    if (word == 0) {
                        break; // occupied slots are a prefix
                    }
                    long fp = TableLayout.fingerprint(word);
                    long count = TableLayout.count(word);
                    long tag = FP_MASK - fp;
                    int at = 0;
                    while (at < used && (ranks[at] & FP_MASK) != tag) {
                        at++;
                    }
                    if (at < used) {
                        long sum = (ranks[at] >>> FP_BITS) + count;
                        lost += Math.max(0, sum - TableLayout.MAX_COUNT);
                        ranks[at] = Math.min(sum, TableLayout.MAX_COUNT) << FP_BITS | tag;
                    } else {
                        ranks[used++] = count << FP_BITS | tag;
                    }
                }
            }
            lost += keepHeaviest(ranks, used, out, base);
        }
        dropped[0] += lost;
        return out;
    }

    /**
     * Sorts {@code ranks[0..used)} descending and writes the 8 heaviest into the bucket at word {@code base} of
     * {@code out}; the rest are dropped. Returns the weight dropped.
     */
    private static long keepHeaviest(long[] ranks, int used, long[] out, int base) {
        Arrays.sort(ranks, 0, used);
        long lost = 0;
        for (int i = 0; i < used; i++) {
            long r = ranks[used - 1 - i];
            if (i < SLOTS) {
                out[base + i] = TableLayout.word(FP_MASK - (r & FP_MASK), r >>> FP_BITS);
            } else {
                lost += r >>> FP_BITS;
            }
        }
        return lost;
    }

    /** Two candidates per key: key by key (see the class comment). */
    private static long[] mergePairs(List<long[]> inputs, TableGeometry geometry, long[] dropped) {
        int slots = inputs.getFirst().length;
        int buckets = slots / SLOTS;
        long lost = 0;
        // 1. Every occupied word as the key that claimed it, by first bucket (counting sort): fingerprint above the
        //    SECOND bit and the count, 23 + 1 + 38 bits.
        int[] start = new int[buckets + 1];
        for (long[] table : inputs) {
            for (int i = 0; i < slots; i++) {
                if (table[i] != 0) {
                    start[(int) firstBucket(geometry, i, table[i]) + 1]++;
                }
            }
        }
        for (int b = 0; b < buckets; b++) {
            start[b + 1] += start[b];
        }
        long[] words = new long[start[buckets]];
        int[] fill = Arrays.copyOf(start, buckets);
        for (long[] table : inputs) {
            for (int i = 0; i < slots; i++) {
                long word = table[i];
                if (word != 0) {
                    long first = firstBucket(geometry, i, word);
                    long placed = first == i / SLOTS ? 0 : TableLayout.SECOND;
                    words[fill[(int) first]++] = TableLayout.fingerprint(word) << KEY_FP_SHIFT | placed
                            | TableLayout.count(word);
                }
            }
        }
        // 2. Each key's counts summed; its home is its first bucket if an input held it there, else its second.
        //    The keys as ranks, counting-sorted by home bucket.
        long[] ranks = new long[words.length];
        int[] homes = new int[words.length];
        int keys = 0;
        int[] homeStart = new int[buckets + 1];
        for (int b = 0; b < buckets; b++) {
            int to = start[b + 1];
            Arrays.sort(words, start[b], to);
            for (int i = start[b]; i < to; ) {
                long fp = words[i] >>> KEY_FP_SHIFT;
                long sum = 0;
                boolean inFirst = false;
                for (; i < to && words[i] >>> KEY_FP_SHIFT == fp; i++) {
                    sum += words[i] & TableLayout.COUNT_MASK;
                    inFirst |= (words[i] & TableLayout.SECOND) == 0;
                }
                lost += Math.max(0, sum - TableLayout.MAX_COUNT);
                int home = inFirst ? b : (int) geometry.alternate(b, fp);
                ranks[keys] = rank(Math.min(sum, TableLayout.MAX_COUNT), fp, !inFirst);
                homes[keys++] = home;
                homeStart[home + 1]++;
            }
        }
        for (int b = 0; b < buckets; b++) {
            homeStart[b + 1] += homeStart[b];
        }
        long[] byHome = new long[keys];
        fill = Arrays.copyOf(homeStart, buckets);
        for (int k = 0; k < keys; k++) {
            byHome[fill[homes[k]]++] = ranks[k];
        }
        // 3. Each home bucket keeps its 8 heaviest keys; of two keys of one fingerprint there, the one whose first
        //    bucket it is. The rest spill.
        long[] out = new long[slots];
        Spill spill = new Spill();
        for (int h = 0; h < buckets; h++) {
            int from = homeStart[h];
            int to = homeStart[h + 1];
            if (from == to) {
                continue;
            }
            Arrays.sort(byHome, from, to);
            int base = h * SLOTS;
            int used = 0;
            for (int i = to - 1; i >= from; i--) {
                long r = byHome[i];
                int same = find(out, h, rankFingerprint(r));
                if (same >= 0) {
                    if (rankSecond(r)) {
                        spill.add(r, h);
                    } else {
                        spill.add(rank(TableLayout.count(out[same]), rankFingerprint(r), true), h);
                        out[same] = wordOf(r);
                    }
                } else if (used < SLOTS) {
                    out[base + used++] = wordOf(r);
                } else {
                    spill.add(r, h);
                }
            }
        }
        // 4. The spilled keys, heaviest first (ties: bucket), to the other bucket of their pair: an empty slot or the
        //    place of a lighter word, unless a word of their fingerprint in either bucket would be found instead.
        for (int i : spill.order()) {
            long r = spill.ranks[i];
            int h = (int) spill.buckets[i];
            long fp = rankFingerprint(r);
            long count = rankCount(r);
            int other = (int) geometry.alternate(h, fp);
            boolean toSecond = !rankSecond(r); // spilled from its first bucket
            if (other == h || find(out, other, fp) >= 0 || toSecond && find(out, h, fp) >= 0) {
                lost += count;
                continue;
            }
            int base = other * SLOTS;
            int weakest = base;
            for (int s = base; s < base + SLOTS; s++) {
                if (out[s] == 0 || TableLayout.count(out[s]) < TableLayout.count(out[weakest])) {
                    weakest = s;
                }
                if (out[s] == 0) {
                    break;
                }
            }
            if (out[weakest] != 0 && TableLayout.count(out[weakest]) >= count) {
                lost += count;
                continue;
            }
            lost += TableLayout.count(out[weakest]);
            out[weakest] = TableLayout.word(fp, count) | (toSecond ? TableLayout.SECOND : 0);
        }
        lost += settleSeconds(out, geometry);
        for (int b = 0; b < buckets; b++) {
            sortBucket(out, b * SLOTS);
        }
        dropped[0] += lost;
        return out;
    }

    /**
     * Step 5: every word in its key's second bucket is checked against the observe path's rule (its first bucket
     * full and without a word of its fingerprint, its own bucket without another one) and moved to its first
     * bucket, or dropped, until all pass. A bucket that loses a word has its keys' second-bucket words checked
     * again (a worklist of first buckets); every step removes a second-bucket word, so it ends. Returns the weight
     * dropped.
     */
    private static long settleSeconds(long[] out, TableGeometry geometry) {
        int buckets = out.length / SLOTS;
        // The second-bucket words by their first bucket (counting sort of their fingerprints).
        int[] start = new int[buckets + 1];
        for (int i = 0; i < out.length; i++) {
            if (TableLayout.second(out[i])) {
                start[(int) TableLayout.firstBucket(geometry, i / SLOTS, out[i]) + 1]++;
            }
        }
        for (int b = 0; b < buckets; b++) {
            start[b + 1] += start[b];
        }
        if (start[buckets] == 0) {
            return 0;
        }
        long[] fps = new long[start[buckets]];
        int[] fill = Arrays.copyOf(start, buckets);
        for (int i = 0; i < out.length; i++) {
            if (TableLayout.second(out[i])) {
                int first = (int) TableLayout.firstBucket(geometry, i / SLOTS, out[i]);
                fps[fill[first]++] = TableLayout.fingerprint(out[i]);
            }
        }
        int[] queue = new int[buckets];
        boolean[] queued = new boolean[buckets];
        int head = 0;
        int size = 0;
        for (int b = 0; b < buckets; b++) {
            if (start[b] < start[b + 1]) {
                queue[size++] = b;
                queued[b] = true;
            }
        }
        long lost = 0;
        while (size > 0) {
            int first = queue[head];
            head = (head + 1) % buckets;
            size--;
            queued[first] = false;
            for (int k = start[first]; k < start[first + 1]; k++) {
                long fp = fps[k];
                int second = (int) geometry.alternate(first, fp);
                int x = findSecond(out, second, fp);
                if (x < 0) {
                    continue; // moved or dropped already
                }
                long word = out[x];
                boolean stays = true;
                if (findOther(out, second, fp, x) >= 0) {
                    // Its bucket holds the key whose first bucket it is, of the same fingerprint: that one is found.
                    stays = false;
                } else {
                    int y = find(out, first, fp); // the key of `second` and fp, in its own second bucket
                    if (y >= 0) {
                        if (TableLayout.count(word) <= TableLayout.count(out[y])) {
                            lost += TableLayout.count(word);
                            remove(out, x);
                            word = 0;
                        } else {
                            lost += TableLayout.count(out[y]);
                            remove(out, y);
                        }
                        stays = false;
                    } else if (out[first * SLOTS + SLOTS - 1] == 0) {
                        stays = false; // its first bucket has room: observe would never look here
                    }
                }
                if (stays) {
                    continue;
                }
                if (word != 0) {
                    remove(out, x);
                    if (out[first * SLOTS + SLOTS - 1] == 0 && find(out, first, fp) < 0) {
                        append(out, first, word & ~TableLayout.SECOND);
                    } else {
                        lost += TableLayout.count(word);
                    }
                }
                if (!queued[second]) {
                    queue[(head + size++) % buckets] = second;
                    queued[second] = true;
                }
            }
        }
        return lost;
    }

    /** The first bucket of the key that claimed the word at slot index {@code slot} (TableLayout#SECOND). */
    private static long firstBucket(TableGeometry geometry, int slot, long word) {
        return TableLayout.firstBucket(geometry, slot / SLOTS, word);
    }

    /** A key's rank: count, then smaller fingerprint, then first bucket before second; larger is better. */
    private static long rank(long count, long fp, boolean second) {
        return count << (FP_BITS + 1) | (FP_MASK - fp) << 1 | (second ? 0 : 1);
    }

    private static long rankCount(long rank) {
        return rank >>> (FP_BITS + 1);
    }

    private static long rankFingerprint(long rank) {
        return FP_MASK - ((rank >>> 1) & FP_MASK);
    }

    /** Whether the ranked key's home is its second bucket. */
    private static boolean rankSecond(long rank) {
        return (rank & 1) == 0;
    }

    /** The word of a ranked key in its home bucket. */
    private static long wordOf(long rank) {
        return TableLayout.word(rankFingerprint(rank), rankCount(rank)) | (rankSecond(rank) ? TableLayout.SECOND : 0);
    }

    /** The slot index of a word of fingerprint {@code fp} in bucket {@code bucket}, or -1. */
    private static int find(long[] out, int bucket, long fp) {
        for (int s = bucket * SLOTS; s < bucket * SLOTS + SLOTS && out[s] != 0; s++) {
            if (TableLayout.fingerprint(out[s]) == fp) {
                return s;
            }
        }
        return -1;
    }

    /** As {@link #find}, for a word with {@link TableLayout#SECOND} set. */
    private static int findSecond(long[] out, int bucket, long fp) {
        for (int s = bucket * SLOTS; s < bucket * SLOTS + SLOTS && out[s] != 0; s++) {
            if (TableLayout.fingerprint(out[s]) == fp && TableLayout.second(out[s])) {
                return s;
            }
        }
        return -1;
    }

    /** As {@link #find}, skipping slot index {@code skip}. */
    private static int findOther(long[] out, int bucket, long fp, int skip) {
        for (int s = bucket * SLOTS; s < bucket * SLOTS + SLOTS && out[s] != 0; s++) {
            if (s != skip && TableLayout.fingerprint(out[s]) == fp) {
                return s;
            }
        }
        return -1;
    }

    /** Removes the word at slot index {@code slot}, moving the words above it down (a prefix stays a prefix). */
    private static void remove(long[] out, int slot) {
        int end = (slot / SLOTS + 1) * SLOTS;
        System.arraycopy(out, slot + 1, out, slot, end - slot - 1);
        out[end - 1] = 0;
    }

    /** Puts {@code word} into the lowest empty slot of {@code bucket}, which has one. */
    private static void append(long[] out, int bucket, long word) {
        int s = bucket * SLOTS;
        while (out[s] != 0) {
            s++;
        }
        out[s] = word;
    }

    /** Orders the bucket at word {@code base}: count descending, then fingerprint ascending (insertion sort). */
    private static void sortBucket(long[] out, int base) {
        for (int i = base + 1; i < base + SLOTS && out[i] != 0; i++) {
            long w = out[i];
            int j = i - 1;
            while (j >= base && before(w, out[j])) {
                out[j + 1] = out[j];
                j--;
            }
            out[j + 1] = w;
        }
    }

    private static boolean before(long a, long b) {
        long ca = TableLayout.count(a);
        long cb = TableLayout.count(b);
        return ca != cb ? ca > cb : TableLayout.fingerprint(a) < TableLayout.fingerprint(b);
    }

    /** The keys that did not fit their home bucket: rank and home bucket of each. */
    private static final class Spill {
        long[] ranks = new long[16];
        long[] buckets = new long[16];
        int size;

        void add(long rank, long bucket) {
            if (size == ranks.length) {
                ranks = Arrays.copyOf(ranks, 2 * size);
                buckets = Arrays.copyOf(buckets, 2 * size);
            }
            ranks[size] = rank;
            buckets[size++] = bucket;
        }

        /** Indexes by rank descending, then home bucket ascending. */
        int[] order() {
            return java.util.stream.IntStream.range(0, size).boxed()
                    .sorted((a, b) -> ranks[a] != ranks[b] ? Long.compare(ranks[b], ranks[a])
                            : Long.compare(buckets[a], buckets[b]))
                    .mapToInt(Integer::intValue).toArray();
        }
    }
}
