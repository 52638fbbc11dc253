package io.hotkeeper.engine.stats;

import io.hotkeeper.engine.hash.KeyHasher;
import io.hotkeeper.engine.worker.WorkerHandle;
import io.hotkeeper.engine.worker.WorkerSpace;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Per-worker operation counters in native memory, summed on read. No counter is shared by all writers.
 *
 * <p>One stripe per stripe of the sketch's {@link WorkerSpace}; each call names its stripe by the caller's
 * {@code worker} ({@link WorkerHandle}): the stripe's byte offset, flagged when the stripe may have several
 * writers. Exclusive stripes are updated with a plain load and an opaque store (one writer; the opaque store is
 * never torn and becomes visible to readers without a fence). Shared stripes use {@code getAndAdd}. Readers use
 * opaque loads: counts are exact once writers are quiescent and never torn, but a read concurrent with updates is
 * a sum of per-stripe values taken at slightly different moments.
 *
 * <p>A stripe also holds its worker's coin state for approximate counting ({@link #random}, word
 * {@link StatsLayout#RANDOM}): a coin flip is always followed by a {@link StatsLayout#REFRESHES} count of the
 * same worker, so with stats recorded the flip and the count touch one stripe. Instances: recording (stats on),
 * coins only ({@code recording} false: approximate counting with stats off; {@link #add} writes nothing), or
 * {@link #off()} (neither: no native memory at all).
 *
 * <p>Threads: any. Progress: wait-free.
 */
public final class StatsStripes {
    /** Coordinates (MemorySegment, long byteOffset). */
    private static final VarHandle COUNTER = ValueLayout.JAVA_LONG.varHandle();
    /** Neither counters nor coins: see {@link #off()}. */
    private static final StatsStripes OFF = new StatsStripes();

    /** Null only in {@link #OFF}. */
    private final MemorySegment region;
    /** Whether {@link #add} counts; off, the region holds only approximate counting's coins. */
    private final boolean recording;
    /** The geometry, and the lookup {@link #random} makes for a caller without a worker; null only in OFF. */
    private final WorkerSpace workers;

    /** Recording stripes for the workers of {@code workers}, allocated in {@code arena}. */
    public StatsStripes(Arena arena, WorkerSpace workers) {
        this(arena.allocate(segmentBytes(workers), StatsLayout.ALIGNMENT), workers, true);
    }

    /**
     * Stripes for the workers of {@code workers} over an existing zeroed, 128-byte aligned segment of
     * {@link #segmentBytes} bytes; with {@code recording} false, {@link #add} writes nothing (the counters stay 0)
     * and the region serves approximate counting's coins only.
     */
    public StatsStripes(MemorySegment region, WorkerSpace workers, boolean recording) {
        if (region.byteSize() < segmentBytes(workers)) {
            throw new IllegalArgumentException("stats segment: size=" + region.byteSize() + ": must be >= "
                    + segmentBytes(workers));
        }
        this.region = region;
        this.recording = recording;
        this.workers = workers;
        for (int s = 0; s < workers.stripes(); s++) {
            // Plain stores before publication (the owning instance's final field publishes the region).
            COUNTER.set(region, StatsLayout.stripeOffset(s) + StatsLayout.RANDOM, KeyHasher.splitMix(s + 1L) | 1L);
        }
    }

    private StatsStripes() {
        this.region = null;
        this.recording = false;
        this.workers = null;
    }

    /**
     * Stripes that are not there: for a sketch that records no stats and counts exactly, so that it allocates
     * nothing for them. {@link #add} and {@link #addWeight} write nothing, {@link #sum} is 0, {@link #random}
     * throws. Threads: any. Progress: wait-free.
     */
    public static StatsStripes off() {
        return OFF;
    }

    /** Whether the stripes have a native region (counters or coins). Threads: any. Progress: wait-free. */
    public boolean hasRegion() {
        return region != null;
    }

    /**
     * The next pseudo-random word of {@code worker}'s stripe (xorshift64*); {@link WorkerHandle#NO_HANDLE} looks
     * the calling thread's worker up here, so that approximate counting makes only the observations that flip a
     * coin look their worker up (with stats off, the others carry none). A racing pair of writers on a shared
     * stripe may both return the same word: harmless, it only feeds unbiased coin flips.
     *
     * <p>Threads: any. Progress: wait-free (after the calling thread's first lookup; see {@link WorkerSpace}).
     */
    public long random(long worker) {
        if (region == null) {
            throw new IllegalStateException("no coins: stats are off and counting is exact (StatsStripes.off)");
        }
        if (worker == WorkerHandle.NO_HANDLE) {
            worker = workers.current(); // the worker lookup: the coin state is per worker
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

    /** Bytes of the stripes of {@code workers}' geometry. Threads: any. Progress: wait-free. */
    public static long segmentBytes(WorkerSpace workers) {
        return workers.regionBytes();
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
