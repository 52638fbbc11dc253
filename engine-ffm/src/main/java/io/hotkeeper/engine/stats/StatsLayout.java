package io.hotkeeper.engine.stats;

import io.hotkeeper.engine.worker.WorkerHandle;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The off-heap layout of the per-worker stats stripes.
 *
 * <pre>
 *  stats segment, 128-byte aligned, stripes * 128 bytes
 *  stripe j at j * 128:
 *  0           8        16                 24             32             40            48
 *  +-----------+--------+------------------+--------------+--------------+-------------+
 *  | refreshes | claims | evictionAttempts | evictionWins | replacements | saturations |
 *  +-----------+--------+------------------+--------------+--------------+-------------+
 *  48           56                 64         72          80         88       96       128
 *  +------------+------------------+----------+-----------+----------+--------+--------+
 *  | promotions | promotionsMissed | handOffs | rng state | combined | weight | padding|
 *  +------------+------------------+----------+-----------+----------+--------+--------+
 *  rng state: the worker's xorshift64* state for approximate counting (not a counter; never summed).
 *  one stripe per stripe of the sketch's WorkerSpace, at the worker's WorkerHandle.stripeOffset:
 *  stripes 0 .. exclusive-1: one per worker id (exclusive: plain load + opaque store; a carrier's: getAndAdd).
 *  stripes exclusive .. end: shared by the workers past them; atomic getAndAdd.
 * </pre>
 */
public final class StatsLayout {
    /** Bytes of one stripe: a worker stripe ({@link WorkerHandle#STRIPE_BYTES}), two cache lines. */
    public static final int STRIPE_BYTES = WorkerHandle.STRIPE_BYTES;
    /** Alignment of the stats segment. */
    public static final int ALIGNMENT = 128;
    /** Offset of the refresh counter (phase 1). */
    public static final int REFRESHES = 0;
    /** Offset of the claim counter (phase 2). */
    public static final int CLAIMS = 8;
    /** Offset of the eviction-draw counter (phase 3 draws). */
    public static final int EVICTION_ATTEMPTS = 16;
    /** Offset of the won-draw counter (the occupant was chipped down). */
    public static final int EVICTION_WINS = 24;
    /** Offset of the replacement counter (the occupant reached zero and the challenger took the slot). */
    public static final int REPLACEMENTS = 32;
    /** Offset of the saturation counter (an increment stopped at the maximum count). */
    public static final int SATURATIONS = 40;
    /** Offset of the promotion counter (a key recorded in a shard). */
    public static final int PROMOTIONS = 48;
    /** Offset of the missed-promotion counter (shard busy, full of unevictable entries, or too many workers). */
    public static final int PROMOTIONS_MISSED = 56;
    /** Offset of the hand-off counter (a tracked entry marked dead and handed to its owner). */
    public static final int HAND_OFFS = 64;
    /** Offset of the worker's random state (approximate counting). */
    public static final int RANDOM = 72;
    /** Offset of the combined counter (observations absorbed by a hot-key combiner, counted when flushed). */
    public static final int COMBINED = 80;

    /** Offset of the observed-weight counter (the stream length, summed by {@code Hotkeeper.totalWeight()}). */
    public static final int OBSERVED_WEIGHT = 88;

    private StatsLayout() {
    }

    /** Byte offset of stripe {@code stripe}. */
    public static long stripeOffset(int stripe) {
        return (long) stripe * STRIPE_BYTES;
    }

    /** The counters of a stripe, in offset order, with their names (for {@link #describe}). */
    private static final String[] NAMES = {"refreshes", "claims", "evictionAttempts", "evictionWins",
            "replacements", "saturations", "promotions", "promotionsMissed", "handOffs", "rngState", "combined",
            "weight"};

    /**
     * Stripe {@code stripe} of a stats segment, for debugging: every counter by name on one line. Plain loads.
     * Threads: any. Progress: wait-free.
     */
    public static String describe(MemorySegment stats, int stripe) {
        StringBuilder out = new StringBuilder("stripe ").append(stripe).append(':');
        for (int i = 0; i < NAMES.length; i++) {
            out.append(' ').append(NAMES[i]).append('=')
                    .append(stats.get(ValueLayout.JAVA_LONG, stripeOffset(stripe) + (long) i * Long.BYTES));
        }
        return out.append('\n').toString();
    }
}
