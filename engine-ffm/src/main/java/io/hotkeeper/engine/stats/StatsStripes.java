package io.hotkeeper.engine.stats;

import io.hotkeeper.engine.worker.WorkerHandle;
import io.hotkeeper.engine.worker.Workers;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Per-worker operation counters in native memory, summed on read. No counter is shared by all writers.
 *
 * <p>Each call names its stripe by the caller's worker, in the long form of a {@link WorkerHandle}: the stripe's
 * byte offset, flagged when the stripe may have several writers. Exclusive stripes are updated with a plain load and an opaque store (one writer; the
 * opaque store is never torn and becomes visible to readers without a fence). Shared stripes use
 * {@code getAndAdd}. Readers use opaque loads: counts are exact once writers are quiescent and never torn, but
 * a read concurrent with updates is a sum of per-stripe values taken at slightly different moments.
 *
 * <p>Threads: any. Progress: wait-free.
 */
public final class StatsStripes {
    /** Coordinates (MemorySegment, long byteOffset). */
    private static final VarHandle COUNTER = ValueLayout.JAVA_LONG.varHandle();

    private final MemorySegment region;
    private final int exclusiveStripes;
    private final int sharedMask;
    /** Whether {@link #add} counts; off, the stripes still name workers (salt, combiners, coins). */
    private final boolean recording;

    /**
     * Stripes for up to {@code exclusiveStripes} exclusive writers plus {@code sharedStripes} shared stripes
     * (a power of two), allocated in {@code arena}.
     */
    public StatsStripes(Arena arena, int exclusiveStripes, int sharedStripes) {
        this(arena.allocate(segmentBytes(exclusiveStripes, sharedStripes), StatsLayout.ALIGNMENT), exclusiveStripes,
                sharedStripes);
    }

    /** Stripes over an existing zeroed, 128-byte aligned segment of {@link #segmentBytes} bytes, recording. */
    public StatsStripes(MemorySegment region, int exclusiveStripes, int sharedStripes) {
        this(region, exclusiveStripes, sharedStripes, true);
    }

    /**
     * As above; with {@code recording} false, {@link #add} writes nothing (the counters stay 0) and the stripes
     * only name workers: for the per-worker salt, the combiners and approximate counting's coins.
     */
    public StatsStripes(MemorySegment region, int exclusiveStripes, int sharedStripes, boolean recording) {
        if (Integer.bitCount(sharedStripes) != 1) {
            throw new IllegalArgumentException("sharedStripes=" + sharedStripes + ": must be a power of two");
        }
        if (region == null) {
            // Names only: no counters and no coins, so nothing native (see namesOnly).
            if (recording) {
                throw new IllegalArgumentException("a recording StatsStripes needs a region");
            }
            this.exclusiveStripes = exclusiveStripes;
            this.sharedMask = sharedStripes - 1;
            this.region = null;
            this.recording = false;
            return;
        }
        if (region.byteSize() < segmentBytes(exclusiveStripes, sharedStripes)) {
            throw new IllegalArgumentException("stats segment: size=" + region.byteSize() + ": must be >= "
                    + segmentBytes(exclusiveStripes, sharedStripes));
        }
        this.exclusiveStripes = exclusiveStripes;
        this.sharedMask = sharedStripes - 1;
        this.region = region;
        this.recording = recording;
        for (int s = 0; s < exclusiveStripes + sharedStripes; s++) {
            // Plain stores before publication (the owning instance's final field publishes the region).
            COUNTER.set(region, StatsLayout.stripeOffset(s) + StatsLayout.RANDOM,
                    io.hotkeeper.engine.hash.KeyHasher.splitMix(s + 1L) | 1L);
        }
    }

    /**
     * Stripes that only name workers (for the per-worker salt and the combiners), with no native region: nothing
     * is counted ({@link #sum} is 0) and there are no coins ({@link #random} throws). For instances that record
     * no stats and count exactly, so that they allocate nothing for stats.
     *
     * <p>Threads: any. Progress: wait-free.
     */
    public static StatsStripes namesOnly(int exclusiveStripes, int sharedStripes) {
        return new StatsStripes(null, exclusiveStripes, sharedStripes, false);
    }

    /** Whether the stripes have a native region (counters and coins). Threads: any. Progress: wait-free. */
    public boolean hasRegion() {
        return region != null;
    }

    /**
     * The next pseudo-random word of {@code worker}'s stripe (xorshift64*). A racing pair of writers
     * on a shared stripe may both return the same word: harmless, it only feeds unbiased coin flips.
     *
     * <p>Threads: any. Progress: wait-free.
     */
    public long random(long worker) {
        if (region == null) {
            throw new IllegalStateException("no coins: these stripes only name workers (StatsStripes.namesOnly)");
        }
        long offset = WorkerHandle.stripeOffset(worker) + StatsLayout.RANDOM;
        long x = (long) COUNTER.get(region, offset);
        x ^= x >>> 12;
        x ^= x << 25;
        x ^= x >>> 27;
        // Opaque: never torn; the state is the stripe owner's, and a race only repeats a coin flip.
        COUNTER.setOpaque(region, offset, x);
        return x * 0x2545F4914F6CDD1DL;
    }

    /** Bytes for the given stripe counts. Threads: any. Progress: wait-free. */
    public static long segmentBytes(int exclusiveStripes, int sharedStripes) {
        return (long) (exclusiveStripes + sharedStripes) * StatsLayout.STRIPE_BYTES;
    }

    /**
     * The handle of {@code worker} (an int from {@link Workers}) in these stripes: the long form the observe path
     * carries. Threads: any. Progress: wait-free.
     */
    public long handleOf(int worker) {
        return WorkerHandle.handle(worker, exclusiveStripes, sharedMask);
    }

    /**
     * The calling thread's worker, as a handle in these stripes. Threads: any. Progress: wait-free after the
     * thread's first call.
     */
    public long currentWorker() {
        return handleOf(Workers.current());
    }

    /**
     * Adds {@code delta} to counter {@code counterOffset} (a {@link StatsLayout} constant) of {@code worker}'s
     * stripe. Threads: the worker's thread for an exclusive worker; any for a shared one. Progress: wait-free.
     */
    public void add(long worker, int counterOffset, long delta) {
        if (!recording) {
            return; // stats are off: the observation path writes no counter
        }
        long offset = WorkerHandle.stripeOffset(worker) + counterOffset;
        if (!WorkerHandle.isShared(worker)) {
            // Single writer: plain load of our own last store; opaque store pairs with the readers' opaque loads.
            COUNTER.setOpaque(region, offset, (long) COUNTER.get(region, offset) + delta);
        } else {
            COUNTER.getAndAdd(region, offset, delta);
        }
    }

    /**
     * Adds a weight to {@code worker}'s {@link StatsLayout#OBSERVED_WEIGHT}, saturating at {@link Long#MAX_VALUE}
     * ({@link Weights}): a weighted observation may carry any positive {@code long}, so this counter, unlike the
     * others, can reach the end of the range. Threads and access modes as {@link #add}; a shared stripe takes a
     * volatile CAS loop instead of one atomic add. Progress: wait-free for an exclusive worker, lock-free for a
     * shared one.
     */
    public void addWeight(long worker, long weight) {
        if (!recording) {
            return;
        }
        long offset = WorkerHandle.stripeOffset(worker) + StatsLayout.OBSERVED_WEIGHT;
        if (!WorkerHandle.isShared(worker)) {
            // Single writer: plain load of our own last store; opaque store pairs with the readers' opaque loads.
            COUNTER.setOpaque(region, offset, Weights.saturatedAdd((long) COUNTER.get(region, offset), weight));
            return;
        }
        long seen = (long) COUNTER.getVolatile(region, offset);
        while (true) {
            long witness = (long) COUNTER.compareAndExchange(region, offset, seen, Weights.saturatedAdd(seen, weight));
            if (witness == seen) {
                return;
            }
            seen = witness;
        }
    }

    /** Whether {@link #add} counts. Threads: any. Progress: wait-free. */
    public boolean recording() {
        return recording;
    }

    /** The sum of counter {@code counterOffset} over all stripes. Threads: any. Progress: wait-free. */
    public long sum(int counterOffset) {
        if (region == null) {
            return 0;
        }
        long total = 0;
        long stripes = region.byteSize() / StatsLayout.STRIPE_BYTES;
        for (int s = 0; s < stripes; s++) {
            // Saturating: every counter is non-negative, and the weight counter can reach Long.MAX_VALUE (addWeight).
            long stripe = (long) COUNTER.getOpaque(region, StatsLayout.stripeOffset(s) + counterOffset);
            total = Weights.saturatedAdd(total, stripe);
        }
        return total;
    }
}
