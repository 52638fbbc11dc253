package io.hotkeeper.engine.workload;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Zipf-distributed {@code long} key streams for demos, tests and benchmarks: item of rank r (1-based) among
 * {@code n} has probability proportional to {@code 1 / r^s}. Keys are a fixed scramble of the rank, so hot keys
 * are not small or adjacent numbers. An exponent of 0 gives uniform keys.
 *
 * <p>Threads: any; instances are immutable. Progress: wait-free.
 */
public final class ZipfKeys {
    private final int n;
    private final double exponent;
    private final double[] cdf;

    /**
     * A distribution over {@code n >= 1} items with exponent {@code s >= 0}.
     *
     * @throws IllegalArgumentException on a bad parameter
     */
    public ZipfKeys(int n, double s) {
        if (n < 1) {
            throw new IllegalArgumentException("n=" + n + ": must be >= 1");
        }
        if (!(s >= 0 && s <= 10)) {
            throw new IllegalArgumentException("s=" + s + ": must be in [0, 10]");
        }
        this.n = n;
        this.exponent = s;
        this.cdf = new double[n];
        double total = 0;
        for (int r = 1; r <= n; r++) {
            total += Math.pow(r, -s);
            cdf[r - 1] = total;
        }
        for (int i = 0; i < n; i++) {
            cdf[i] /= total;
        }
    }

    /** Number of distinct items. */
    public int items() {
        return n;
    }

    /** The exponent s. */
    public double exponent() {
        return exponent;
    }

    /** The key of the item of rank {@code rank} (1-based): a bijective scramble, never 0. */
    public static long keyOfRank(long rank) {
        long z = rank * 0x9e3779b97f4a7c15L;
        z = (z ^ (z >>> 32)) * 0xd6e8feb86659fd93L;
        return z ^ (z >>> 32);
    }

    /** The rank (1-based) drawn by a uniform {@code u} in [0, 1). */
    public int rankOf(double u) {
        int i = Arrays.binarySearch(cdf, u);
        int idx = i >= 0 ? i : -i - 1;
        return Math.min(idx, n - 1) + 1;
    }

    /** {@code count} keys drawn with {@code seed}: the same arguments always give the same stream. */
    public long[] keys(int count, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        long[] out = new long[count];
        for (int i = 0; i < count; i++) {
            out[i] = keyOfRank(rankOf(random.nextDouble()));
        }
        return out;
    }
}
