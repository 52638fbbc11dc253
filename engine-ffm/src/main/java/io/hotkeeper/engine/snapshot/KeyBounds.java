package io.hotkeeper.engine.snapshot;

/**
 * Lower and upper bounds on a key's true count, holding together with probability at least {@code confidence}
 * (docs/theory.md, "Per-key bounds", derives them and states the assumption behind the upper bound).
 *
 * @param estimate   the sketch's estimate of the key
 * @param lower      a lower bound: the estimate itself, unless a fingerprint collision is too likely to rule out
 *                   at this confidence (then 0)
 * @param upper      an upper bound: the estimate plus {@code c * N / (B * delta)}, where N is the total weight, B
 *                   the bucket count, c the candidate buckets per key and delta the failure probability left to
 *                   this side ({@link Long#MAX_VALUE} if none is left)
 * @param confidence the probability with which both bounds hold
 */
public record KeyBounds(long estimate, long lower, long upper, double confidence) {

    /**
     * The bounds of a key with {@code estimate} in a sketch whose table has {@code buckets} buckets,
     * {@code candidates} (1 or 2) candidate buckets per key and fingerprints of {@code fingerprintBits} bits, and
     * that has seen {@code totalWeight} units, at {@code confidence} in (0, 1). Threads: any. Progress: wait-free.
     *
     * @throws IllegalArgumentException if {@code confidence} is not in (0, 1), {@code candidates} is not 1 or 2, or
     *                                  a count is negative
     */
    public static KeyBounds of(long estimate, long totalWeight, long buckets, int candidates, int fingerprintBits,
                               double confidence) {
        if (!(confidence > 0 && confidence < 1)) {
            throw new IllegalArgumentException("confidence=" + confidence + ": must be in (0, 1)");
        }
        if (estimate < 0 || totalWeight < 0) {
            throw new IllegalArgumentException("estimate=" + estimate + ", totalWeight=" + totalWeight
                    + ": must be >= 0");
        }
        if (candidates != 1 && candidates != 2) {
            throw new IllegalArgumentException("candidates=" + candidates + ": must be 1 or 2");
        }
        double delta = 1 - confidence;
        // A key shares its place with the keys of its candidate buckets: B / c places of n / (B / c) units each.
        double places = (double) buckets / candidates;
        double n = Math.max(totalWeight, estimate);
        // Lower side: a slot counts only its own key's units unless another key shares a candidate bucket and the
        // fingerprint; at most n other distinct keys, each with probability c / (B * 2^F) (union bound).
        double collision = Math.min(1, n / (places * Math.scalb(1.0, fingerprintBits)));
        long lower = 0;
        double upperDelta = delta;
        if (collision <= delta / 2) {
            lower = estimate;
            upperDelta = delta - collision;
        }
        // Upper side: the units a key misses are at most the other units of its candidate buckets (the assumption),
        // whose mean is at most c * n / B under a uniform hash; Markov's inequality at upperDelta.
        double slack = Math.ceil(n / (places * upperDelta));
        long upper = slack >= Long.MAX_VALUE - (double) estimate ? Long.MAX_VALUE : estimate + (long) slack;
        return new KeyBounds(estimate, lower, upper, confidence);
    }

    /** Whether {@code trueCount} lies within the bounds. Threads: any. Progress: wait-free. */
    public boolean contains(long trueCount) {
        return trueCount >= lower && trueCount <= upper;
    }
}
