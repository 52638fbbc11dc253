package io.hotkeeper.engine.stats;

/**
 * Arithmetic on stream lengths (sums of observation weights): every total of the engine saturates at
 * {@link Long#MAX_VALUE} instead of wrapping, so a stream longer than a {@code long} counts reads as the largest
 * length, never as a negative or small one (a weight may be any positive {@code long}). Threads: any. Progress:
 * wait-free.
 */
public final class Weights {
    private Weights() {
    }

    /** {@code a + b}, or {@link Long#MAX_VALUE} / {@link Long#MIN_VALUE} where the exact sum lies beyond them. */
    public static long saturatedAdd(long a, long b) {
        long sum = a + b;
        if (((a ^ sum) & (b ^ sum)) < 0) {
            return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return sum;
    }
}
