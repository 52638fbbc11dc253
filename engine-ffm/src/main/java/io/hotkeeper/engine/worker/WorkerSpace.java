package io.hotkeeper.engine.worker;

/**
 * The workers of one sketch: the stripe geometry that every per-worker part shares, and the lookup of the calling
 * thread's worker in it. Built once per {@code Hotkeeper}; every part that keeps state per worker (the stats
 * stripes and approximate counting's coins in them, the per-worker eviction salt's counters, the hot-key
 * combiners, worker tables, the key shards) is handed the worker ({@link WorkerHandle}, a {@code long}) and never
 * computes it; a part that meets {@link WorkerHandle#NO_HANDLE} where it needs one looks it up itself.
 *
 * <pre>
 *  a per-worker region (the stats): stripes() stripes of WorkerHandle.STRIPE_BYTES (128) each
 *  +----------+----------+-----+------------------------+----------+-----+-------------------------+
 *  | stripe 0 | stripe 1 | ... | stripe exclusive - 1   | shared 0 | ... | shared sharedStripes - 1 |
 *  +----------+----------+-----+------------------------+----------+-----+-------------------------+
 *  exclusive stripes: worker id i (a platform thread, or a carrier's virtual threads) owns stripe i
 *  shared stripes:    every other id, by its low bits (id &amp; (sharedStripes - 1)); several writers, atomic updates
 * </pre>
 *
 * <p>Immutable, so it is safe to share once built. Threads: any. Progress: wait-free ({@link #current()} after the
 * calling thread's first call; see {@link Workers#current()}).
 */
public final class WorkerSpace {
    /** Fewest exclusive stripes {@link #forProcessors} gives. */
    public static final int MIN_EXCLUSIVE_STRIPES = 64;
    /** Fewest shared stripes {@link #forProcessors} gives. */
    public static final int MIN_SHARED_STRIPES = 8;

    private final int exclusiveStripes;
    private final int sharedMask;

    /**
     * A geometry of {@code exclusiveStripes} exclusive stripes followed by {@code sharedStripes} (a power of two)
     * shared ones, at most {@link WorkerHandle#MAX_STRIPES} in all.
     *
     * @throws IllegalArgumentException if a count is out of range
     */
    public WorkerSpace(int exclusiveStripes, int sharedStripes) {
        if (exclusiveStripes < 0 || sharedStripes < 1 || Integer.bitCount(sharedStripes) != 1
                || (long) exclusiveStripes + sharedStripes > WorkerHandle.MAX_STRIPES) {
            throw new IllegalArgumentException("exclusiveStripes=" + exclusiveStripes + ", sharedStripes="
                    + sharedStripes + ": must be >= 0 and a power of two, at most " + WorkerHandle.MAX_STRIPES
                    + " in all");
        }
        this.exclusiveStripes = exclusiveStripes;
        this.sharedMask = sharedStripes - 1;
    }

    /**
     * The geometry of a sketch on a machine of {@code processors} processors: {@code max(64, 4 x processors)}
     * exclusive stripes (the ids of that many live writers each get their own) and {@code max(8, 2 x processors)}
     * shared ones, rounded up to a power of two. Threads: any. Progress: wait-free.
     */
    public static WorkerSpace forProcessors(int processors) {
        int p = Math.max(1, processors);
        int exclusive = Math.max(MIN_EXCLUSIVE_STRIPES, 4 * p);
        int shared = Integer.highestOneBit(Math.max(MIN_SHARED_STRIPES, 2 * p) * 2 - 1);
        return new WorkerSpace(exclusive, shared);
    }

    /**
     * The calling thread's worker. Threads: any. Progress: wait-free after the thread's first call (which takes a
     * lock in {@link Workers} to hand out its id).
     */
    public long current() {
        return handleOf(Workers.current());
    }

    /**
     * The worker of {@code worker}, an {@code int} as {@link Workers#current()} hands it out (or as a test makes it
     * with {@link WorkerHandle#exclusive} / {@link WorkerHandle#shared}). Threads: any. Progress: wait-free.
     */
    public long handleOf(int worker) {
        return WorkerHandle.handle(worker, exclusiveStripes, sharedMask);
    }

    /** Exclusive stripes: workers with a lower id own one. Threads: any. Progress: wait-free. */
    public int exclusiveStripes() {
        return exclusiveStripes;
    }

    /** Shared overflow stripes, a power of two. Threads: any. Progress: wait-free. */
    public int sharedStripes() {
        return sharedMask + 1;
    }

    /** All stripes, exclusive and shared. Threads: any. Progress: wait-free. */
    public int stripes() {
        return exclusiveStripes + sharedMask + 1;
    }

    /**
     * Bytes of a per-worker region: one stripe of {@link WorkerHandle#STRIPE_BYTES} per stripe. Threads: any.
     * Progress: wait-free.
     */
    public long regionBytes() {
        return (long) stripes() * WorkerHandle.STRIPE_BYTES;
    }

    @Override
    public String toString() {
        return "WorkerSpace[exclusiveStripes=" + exclusiveStripes + ", sharedStripes=" + sharedStripes() + "]";
    }
}
