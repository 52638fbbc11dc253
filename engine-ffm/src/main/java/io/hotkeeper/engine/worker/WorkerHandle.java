package io.hotkeeper.engine.worker;

/**
 * The encoding of a worker: the identity of a thread (or of a carrier's virtual threads) that writes per-worker
 * state. This class owns every bit of it; no other class masks, shifts or tests a worker. The engine has one name
 * for it, {@code worker}: a parameter or field named so is the {@code long} form below (the handle) unless it is
 * declared {@code int}; the {@code int} form lives where ids are handed out ({@link Workers}) and placed
 * ({@link WorkerSpace#handleOf}), and in the test hooks that pick a worker's shard.
 *
 * <p>A worker has two forms, both primitives passed in registers:
 *
 * <pre>
 *  int worker, as {@link Workers#current()} hands it out
 *   31  30  29                                                      0
 *  +---+---+---------------------------------------------------------+
 *  | 0 | S |                          id                             |
 *  +---+---+---------------------------------------------------------+
 *  S  (bit 30): shared: several threads use the id in turn (a carrier's virtual threads), so state indexed by
 *               it is updated with atomic read-modify-write
 *  id (bits 0..29): dense, below the peak number of live writers; an id hashed from a virtual thread's own id
 *               (carrier not visible) has bit 29 set, so it lies past every exclusive stripe (and past every
 *               regular key shard, unless a memory budget bounds the shards: WorkerAssignment gives them out)
 *
 *  long worker (the handle), what the observe path carries: the worker placed in one sketch's WorkerSpace
 *   63 62 61                     32 31                              7 6           1   0
 *  +-----+------------------------+-----------------------------------+-------------+---+
 *  | 0 0 |           id           |           stripe index            |      0      | S |
 *  +-----+------------------------+-----------------------------------+-------------+---+
 *  bits 32..61: the id of the int worker (so the key shard and the per-worker salt's counter need no second
 *               lookup)
 *  bits 1..31:  byte offset of the worker's stripe, stripe index * STRIPE_BYTES (128); the same offset in every
 *               per-worker region (stats counters and coins)
 *  S  (bit 0):  the stripe may have several writers (atomic updates)
 *  NO_HANDLE = -1 (all bits set): no worker; negative, so it is distinct from every handle, and its stripe
 *               offset (-2) fails any bounds check instead of writing another worker's stripe
 * </pre>
 *
 * <p>A worker with an id below the number of exclusive stripes names its own stripe (the stripe index equals the
 * id, shared only if the worker is); any other worker names one of the shared overflow stripes past them, picked
 * by the low bits of its id ({@link WorkerSpace} holds the geometry). The rest of a worker's state follows: its
 * key shard is picked by the id ({@link #id(long)}, {@code KeyShards}), its combiner block and its worker table
 * by the stripe index ({@link #stripe}).
 *
 * <p>Every method is a static, allocation-free bit operation that the JIT inlines; all are wait-free and may be
 * called from any thread.
 */
public final class WorkerHandle {
    /** Set in an int worker whose id is used by several threads in turn (virtual threads). */
    private static final int SHARED_FLAG = 1 << 30;
    /** Mask of the id in an int worker. */
    private static final int ID_MASK = SHARED_FLAG - 1;
    /** Set in the id of a worker hashed from a virtual thread's id: past every exclusive stripe. */
    private static final int HASHED_ID = 1 << 29;
    /** Set in a handle whose stripe may have several writers. */
    private static final int SHARED_BIT = 1;
    /** Where a handle keeps the id of its int worker. */
    private static final int ID_SHIFT = 32;

    /**
     * Bytes of one worker stripe, the unit of every per-worker region: two cache lines, so that neighbours never
     * share a prefetched pair.
     */
    public static final int STRIPE_BYTES = 128;
    /**
     * Most stripes in one geometry: every stripe offset fits in the 31 bits a handle gives it (and a per-worker
     * region stays below 128 MiB).
     */
    public static final int MAX_STRIPES = 1 << 20;

    /**
     * A handle that names no worker: what an observation carries when nothing it does is per worker (stats off,
     * exact counting, one table). Code that needs a worker anyway (a promotion, engaged combining, a per-worker
     * salt's draw) looks it up itself, once.
     */
    public static final long NO_HANDLE = -1L;

    private WorkerHandle() {
    }

    // ---- the int worker ----

    /** The worker of a thread that alone uses {@code id}. */
    public static int exclusive(int id) {
        return id;
    }

    /** The worker of threads that use {@code id} in turn (a carrier's virtual threads). */
    public static int shared(int id) {
        return id | SHARED_FLAG;
    }

    /** The shared worker of a virtual thread whose carrier is not visible, hashed from its thread id. */
    public static int hashed(long threadId) {
        long h = threadId * 0x9e3779b97f4a7c15L;
        return shared((int) (h >>> 40) & 0xFFFF | HASHED_ID);
    }

    /** The id part of {@code worker}. */
    public static int id(int worker) {
        return worker & ID_MASK;
    }

    /** Whether {@code worker} is used by several threads in turn. */
    public static boolean isShared(int worker) {
        return (worker & SHARED_FLAG) != 0;
    }

    // ---- the long worker (the handle) ----

    /**
     * The handle of {@code worker} in a geometry of {@code exclusiveStripes} exclusive stripes followed by
     * {@code sharedMask + 1} (a power of two) shared ones, at most {@link #MAX_STRIPES} in all
     * ({@link WorkerSpace#handleOf}, which checks the geometry once).
     */
    public static long handle(int worker, int exclusiveStripes, int sharedMask) {
        int id = id(worker);
        long idBits = (long) id << ID_SHIFT;
        if (!isShared(worker) && id < exclusiveStripes) {
            return idBits | stripeOffsetOf(id);
        }
        if (isShared(worker) && id < exclusiveStripes) {
            // A carrier's own stripe, written by its virtual threads in turn: atomic updates.
            return idBits | stripeOffsetOf(id) | SHARED_BIT;
        }
        return idBits | stripeOffsetOf(exclusiveStripes + (id & sharedMask)) | SHARED_BIT;
    }

    /** The byte offset of stripe {@code stripe} in a per-worker region. */
    public static long stripeOffsetOf(int stripe) {
        return (long) stripe * STRIPE_BYTES;
    }

    /**
     * The byte offset of the stripe that {@code worker} names, the same in every per-worker region (stats
     * counters and coins); -2 for {@link #NO_HANDLE}.
     */
    public static long stripeOffset(long worker) {
        return (int) worker & ~SHARED_BIT;
    }

    /** The index of the stripe that {@code worker} names (and of its combiner block, its worker table). */
    public static int stripe(long worker) {
        return (int) (stripeOffset(worker) / STRIPE_BYTES);
    }

    /** The id of the int worker that {@code worker} was made from (its key shard); -1 for {@link #NO_HANDLE}. */
    public static int id(long worker) {
        return (int) (worker >> ID_SHIFT);
    }

    /** Whether the stripe that {@code worker} names may have several writers. */
    public static boolean isShared(long worker) {
        return (worker & SHARED_BIT) != 0;
    }
}
