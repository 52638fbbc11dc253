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
    private TableMerge() {
    }

    /** The merged table; {@code dropped[0]} receives the weight of the fingerprints that did not fit. */
    static long[] merge(List<long[]> tables, long[] dropped) {
        int slots = tables.getFirst().length;
        long[] out = new long[slots];
        int n = tables.size();
        long[] fps = new long[TableLayout.SLOTS_PER_BUCKET * n];
        long[] counts = new long[fps.length];
        long lost = 0;
        for (int base = 0; base < slots; base += TableLayout.SLOTS_PER_BUCKET) {
            int used = 0;
            for (long[] table : tables) {
                for (int s = 0; s < TableLayout.SLOTS_PER_BUCKET; s++) {
                    long word = table[base + s];
                    if (word == 0) {
                        break; // occupied slots are a prefix
                    }
                    long fp = TableLayout.fingerprint(word);
                    long count = TableLayout.count(word);
                    int at = 0;
                    while (at < used && fps[at] != fp) {
                        at++;
                    }
                    if (at == used) {
                        fps[used] = fp;
                        counts[used++] = count;
                    } else {
                        long sum = counts[at] + count;
                        lost += Math.max(0, sum - TableLayout.MAX_COUNT);
                        counts[at] = Math.min(sum, TableLayout.MAX_COUNT);
                    }
                }
            }
            // Selection of the 8 best by (count desc, fp asc): at most 8 * inputs entries per bucket.
            int keep = Math.min(used, TableLayout.SLOTS_PER_BUCKET);
            for (int s = 0; s < keep; s++) {
                int best = s;
                for (int j = s + 1; j < used; j++) {
                    if (counts[j] > counts[best] || counts[j] == counts[best] && fps[j] < fps[best]) {
                        best = j;
                    }
                }
                long fp = fps[best];
                long count = counts[best];
                fps[best] = fps[s];
                counts[best] = counts[s];
                fps[s] = fp;
                counts[s] = count;
                out[base + s] = TableLayout.word(fp, count);
            }
            for (int s = keep; s < used; s++) {
                lost += counts[s];
            }
        }
        dropped[0] += lost;
        return out;
    }
}
