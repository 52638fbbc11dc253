package io.hotkeeper.engine.snapshot;

import io.hotkeeper.engine.table.TableGeometry;
import io.hotkeeper.engine.table.TableLayout;

import java.util.Arrays;
import java.util.List;

/**
 * The slot-by-slot merge of tables of one geometry under one hash function. Counts of equal fingerprints in the
 * same place are summed (saturating at {@link TableLayout#MAX_COUNT}) and each bucket keeps its 8 largest sums,
 * ordered by count (descending), then fingerprint (ascending), so the result does not depend on the order of the
 * inputs. What does not fit is dropped and counted.
 *
 * <p>"The same place" is the bucket with one candidate per key. With two ({@link TableGeometry#alternate}), a key's
 * word may sit in either of its buckets, in each input differently; its place is then the pair, named by the
 * {@linkplain TableGeometry#canonicalBucket canonical bucket}. Each pair's sums go to their canonical bucket, the
 * 8 largest first; the rest, heaviest first (ties by canonical bucket, then fingerprint), to the other bucket of
 * their pair, taking an empty slot or the place of a lighter word there (which is dropped). Threads: any (pure
 * function). Progress: wait-free.
 */
final class TableMerge {
    /** A candidate's rank key: count above the fingerprint's complement, so larger is better and ties favour the
     * smaller fingerprint. Counts take 39 bits and fingerprints at most 23: 62 bits, always positive. */
    private static final int FP_BITS = TableLayout.MAX_FINGERPRINT_BITS;
    private static final long FP_MASK = (1L << FP_BITS) - 1;

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
            lost += keepHeaviest(ranks, used, out, base, null);
        }
        dropped[0] += lost;
        return out;
    }

    /**
     * Sorts {@code ranks[0..used)} descending and writes the 8 heaviest into the bucket at word {@code base} of
     * {@code out}; the rest go to {@code spill} (when given) or are dropped. Returns the weight dropped.
     */
    private static long keepHeaviest(long[] ranks, int used, long[] out, int base, Spill spill) {
        Arrays.sort(ranks, 0, used);
        long lost = 0;
        for (int i = 0; i < used; i++) {
            long r = ranks[used - 1 - i];
            if (i < TableLayout.SLOTS_PER_BUCKET) {
                out[base + i] = TableLayout.word(FP_MASK - (r & FP_MASK), r >>> FP_BITS);
            } else if (spill != null) {
                spill.add(r, base / TableLayout.SLOTS_PER_BUCKET);
            } else {
                lost += r >>> FP_BITS;
            }
        }
        return lost;
    }

    /** Two candidates per key: pair by pair (see the class comment). */
    private static long[] mergePairs(List<long[]> inputs, TableGeometry geometry, long[] dropped) {
        int slots = inputs.getFirst().length;
        int buckets = slots / TableLayout.SLOTS_PER_BUCKET;
        // Counting sort of every occupied word by its canonical bucket (fingerprint above count: 23 + 39 bits).
        int[] start = new int[buckets + 1];
        for (long[] table : inputs) {
            for (int i = 0; i < slots; i++) {
                if (table[i] != 0) {
                    start[(int) canonical(geometry, i, table[i]) + 1]++;
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
                    words[fill[(int) canonical(geometry, i, word)]++] = TableLayout.fingerprint(word)
                            << TableLayout.COUNT_BITS | TableLayout.count(word);
                }
            }
        }
        long[] out = new long[slots];
        long lost = 0;
        Spill spill = new Spill();
        long[] ranks = new long[16];
        for (int b = 0; b < buckets; b++) {
            int from = start[b];
            int to = start[b + 1];
            if (from == to) {
                continue;
            }
            // Equal fingerprints of the pair are adjacent once sorted: sum them into ranks.
            Arrays.sort(words, from, to);
            if (ranks.length < to - from) {
                ranks = new long[to - from];
            }
            int used = 0;
            for (int i = from; i < to; ) {
                long fp = words[i] >>> TableLayout.COUNT_BITS;
                long sum = 0;
                for (; i < to && words[i] >>> TableLayout.COUNT_BITS == fp; i++) {
                    sum += words[i] & TableLayout.COUNT_MASK;
                }
                lost += Math.max(0, sum - TableLayout.MAX_COUNT);
                ranks[used++] = Math.min(sum, TableLayout.MAX_COUNT) << FP_BITS | (FP_MASK - fp);
            }
            lost += keepHeaviest(ranks, used, out, b * TableLayout.SLOTS_PER_BUCKET, spill);
        }
        // The overflow of each canonical bucket goes to the other bucket of its pair, heaviest first.
        for (int i : spill.order()) {
            long r = spill.ranks[i];
            long fp = FP_MASK - (r & FP_MASK);
            long count = r >>> FP_BITS;
            long other = geometry.alternate(spill.buckets[i], fp);
            if (other == spill.buckets[i]) {
                lost += count;
                continue;
            }
            int base = (int) other * TableLayout.SLOTS_PER_BUCKET;
            int weakest = base;
            for (int s = base; s < base + TableLayout.SLOTS_PER_BUCKET; s++) {
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
            out[weakest] = TableLayout.word(fp, count);
        }
        dropped[0] += lost;
        return out;
    }

    /** The canonical bucket of the word at slot index {@code slot}. */
    private static long canonical(TableGeometry geometry, int slot, long word) {
        return geometry.canonicalBucket(slot / TableLayout.SLOTS_PER_BUCKET, TableLayout.fingerprint(word));
    }

    /** The words that did not fit their canonical bucket: rank and canonical bucket of each. */
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

        /** Indexes by rank descending (count, then smaller fingerprint), then canonical bucket ascending. */
        int[] order() {
            return java.util.stream.IntStream.range(0, size).boxed()
                    .sorted((a, b) -> ranks[a] != ranks[b] ? Long.compare(ranks[b], ranks[a])
                            : Long.compare(buckets[a], buckets[b]))
                    .mapToInt(Integer::intValue).toArray();
        }
    }
}
