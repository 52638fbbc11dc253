package io.hotkeeper.bench;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The exact count of every key of a stream, and the accuracy of a reported top k against them. */
final class ExactCounts {
    private final Map<Long, long[]> counts = new HashMap<>();
    /** Counts, highest first. */
    private final long[] sorted;
    ExactCounts(long[] stream) {
        for (long key : stream) {
            counts.computeIfAbsent(key, k -> new long[1])[0]++;
        }
        long[][] entries = new long[counts.size()][];
        int i = 0;
        for (Map.Entry<Long, long[]> e : counts.entrySet()) {
            entries[i++] = new long[] {e.getKey(), e.getValue()[0]};
        }
        Arrays.sort(entries, (a, b) -> Long.compare(b[1], a[1]));
        sorted = new long[entries.length];
        for (i = 0; i < entries.length; i++) {
            sorted[i] = entries[i][1];
        }
    }

    /** Distinct keys. */
    int distinct() {
        return sorted.length;
    }

    /** The true count of {@code key} (0 if never seen). */
    long count(long key) {
        long[] c = counts.get(key);
        return c == null ? 0 : c[0];
    }

    /** The true count at rank {@code rank} (1-based; 0 past the last key). */
    long countAtRank(int rank) {
        return rank <= sorted.length ? sorted[rank - 1] : 0;
    }

    /** Accuracy of {@code reported} (highest first) at {@code k}. */
    Accuracy accuracy(List<Contender.Hit> reported, int k, int orderDepth) {
        long threshold = countAtRank(k);
        int hits = 0;
        double relErr = 0;
        double relErrReported = 0;
        int n = Math.min(k, reported.size());
        for (int i = 0; i < n; i++) {
            Contender.Hit h = reported.get(i);
            long truth = count(h.key());
            double err = Math.abs(h.estimate() - truth) / (double) Math.max(1, truth);
            relErrReported += err;
            if (truth > 0 && truth >= threshold) {
                hits++;
                relErr += err;
            }
        }
        int orderMatches = 0;
        for (int i = 0; i < orderDepth; i++) {
            if (i < reported.size() && count(reported.get(i).key()) == countAtRank(i + 1)) {
                orderMatches++;
            }
        }
        return new Accuracy(hits / (double) k, n == 0 ? Double.NaN : relErrReported / n,
                hits == 0 ? Double.NaN : relErr / hits, orderMatches, orderDepth, reported.size());
    }

    /**
     * precision@k (tie-aware: a reported key counts if its true count >= the true count at rank k; reporting
     * fewer than k keys counts the missing ones as misses); ARE, the mean of |estimate - true| / true over the
     * reported top k (all of them, hits or not); the same over the hits only; and how many of the first
     * {@code orderDepth} positions hold a key with the true count of that rank (tie-aware order).
     */
    record Accuracy(double precision, double are, double areHits, int orderMatches, int orderDepth, int reported) {
    }
}
