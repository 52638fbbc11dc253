package io.hotkeeper.engine.snapshot;

import io.hotkeeper.engine.table.TableLayout;

import java.util.List;

/**
 * The slot-by-slot merge of tables of one size under one hash function: in every bucket, counts of equal
 * fingerprints are summed (saturating at {@link TableLayout#MAX_COUNT}) and the 8 largest sums are kept, ordered by
 * count (descending), then fingerprint (ascending), so the result does not depend on the order of the inputs. What
 * does not fit is dropped and counted. Threads: any (pure function). Progress: wait-free.
 */
final class TableMerge {
    /** A candidate's rank key: count above the fingerprint's complement, so larger is better and ties favour the
     * smaller fingerprint. Counts take 39 bits and fingerprints at most 23: 62 bits, always positive. */
    private static final int FP_BITS = TableLayout.MAX_FINGERPRINT_BITS;
    private static final long FP_MASK = (1L << FP_BITS) - 1;

    private TableMerge() {
    }

    /** The merged table; {@code dropped[0]} receives the weight of the fingerprints that did not fit. */
    static long[] merge(List<long[]> inputs, long[] dropped) {
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
            // Insertion sort, descending: at most 8 x inputs entries.
            for (int i = 1; i < used; i++) {
                long r = ranks[i];
                int j = i - 1;
                while (j >= 0 && ranks[j] < r) {
                    ranks[j + 1] = ranks[j];
                    j--;
                }
                ranks[j + 1] = r;
            }
            int keep = Math.min(used, TableLayout.SLOTS_PER_BUCKET);
            for (int s = 0; s < keep; s++) {
                out[base + s] = TableLayout.word(FP_MASK - (ranks[s] & FP_MASK), ranks[s] >>> FP_BITS);
            }
            for (int s = keep; s < used; s++) {
                lost += ranks[s] >>> FP_BITS;
            }
        }
        dropped[0] += lost;
        return out;
    }
}
