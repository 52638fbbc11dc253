package io.hotkeeper.engine.combine;

import io.hotkeeper.engine.shard.PendingCounts;
import io.hotkeeper.engine.stats.StatsLayout;
import io.hotkeeper.engine.stats.StatsStripes;
import io.hotkeeper.engine.table.BucketTable;
import io.hotkeeper.engine.table.TableLayout;
import io.hotkeeper.engine.worker.WorkerHandle;
import io.hotkeeper.engine.worker.WorkerSpace;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.function.LongFunction;

/**
 * Per-worker combining of hot keys: each worker absorbs the repeat observations of its hottest keys in a small
 * two-way set-associative block of native memory that only it writes, and adds them to the shared table in batches of
 * {@code flushThreshold}. A hot key then costs its observer an owner-local increment instead of a CAS on a table
 * line that every other core also writes.
 *
 * <h2>When</h2>
 * Always, or (auto) once a second thread has observed a hot key: a lone worker's table lines are not written by
 * any other core, so combining would only add the block's line to every miss. Before it engages, an observation
 * goes straight to the table with no worker lookup and no block (the facade tests {@link #engaged()} and calls the
 * table itself); one that leaves its key hot compares the calling thread with the first thread that did so
 * ({@link #unengaged}: an identity check, no lookup). Blocks are created after engagement,
 * at each worker's first admission.
 *
 * <h2>What is combined</h2>
 * A key is admitted to one of the two entries of its set in its worker's block (two-way set-associative, the
 * set picked by the hash's high bits) after an observation that left its table count at or above
 * {@code admitFrom}: into an empty entry, else in place of the entry whose count at its last flush was lower, if
 * the newcomer's count is higher (two hot keys of one set both stay; a third takes turns with the weaker). Later
 * observations of it by the same worker only raise the entry's pending count; the one that brings it to
 * {@code flushThreshold} adds all of them to the table with one weighted observation (whose result, flags
 * included, is that observation's result). A displaced key's pending count is added to the table at once.
 * Observations of weight above 1, keys whose hash is 0, and workers without an exclusive stripe are never combined.
 *
 * <h2>Error bound</h2>
 * Every absorbed unit is either pending in exactly one entry or already in the table. {@link #pending(long)}
 * sums a key's pending counts over every worker's block, so an estimate (table + pending) taken while writers are
 * quiet is exactly what the table would hold had every unit gone to it (a weighted observation adds its weight
 * in one step, as the unit observations would have one by one). While writers are active an estimate can be low
 * by at most {@code flushThreshold} per worker that is flushing that key at that moment (the pending count is
 * zeroed before the table is raised), never high. The table alone (and so the eviction lottery and
 * {@code contains}) lags each combining worker by at most {@code flushThreshold - 1} per key. An observation's
 * own return value for a combined key is the count at this worker's last flush plus its pending count: it does
 * not include other workers' increments since that flush. Nothing is lost when a thread stops: its pending
 * counts stay visible to estimates, and the next thread given its worker id continues the block; a thread that
 * goes idle can call {@link #flushCurrent} to hand its pending counts to the table.
 *
 * <h2>After a table is cleared (reset, a window's new slice)</h2>
 * A combined key must not stay in a block once its table slot is gone: its hits would only raise a pending count,
 * and the table (so {@code topK} and {@code contains}) would miss the key until the next flush. So every clear of
 * any table ({@link #tableCleared}, called by TableSet after the clear) withdraws every worker's block from the hit
 * path (its entry in the per-worker array becomes null; a block feeds whichever table its worker is routed to at
 * each flush, a node's, a slice's or its worker table, so any table's clear concerns every block). The worker's
 * next observation through its combiner (of any key with a nonzero hash) then drops its hot set before going on:
 * each entry leaves the estimators' view and its pending count goes to the table, as a displacement does; the
 * observation itself reaches the table and may admit its key afresh, from its new count. Rule: an observation
 * that begins after the clear returned, and every later one, reaches the table until its key is admitted again
 * from a count read after the clear; pending counts absorbed before the clear are not cleared (owner-only state),
 * they reach the new table with that drop (a worker that never observes again keeps them pending, visible to
 * estimates, until its {@link #flushCurrent}). The hit path pays nothing for this: it already loads and
 * null-checks the block reference.
 *
 * <h2>Memory order</h2>
 * The owner reads its own entries with plain loads (nobody else writes them). A pending increment is an opaque store
 * (atomic, unordered: an estimator may see any recent pending count); every other entry write is a release store (free
 * on x86), and an entry's state is written before the hash that names it, so an estimator that loads the hash with
 * acquire, then the state, then the hash again, gets a state of that key. Removing a key writes hash 0 before its
 * pending count goes to the table, and a flush zeroes the pending count before its release CAS on the table; estimators
 * read the table (acquire) before the blocks, so a unit is never counted both in the table and as pending. A block's
 * reference is published with a release store into the per-worker array of created blocks and by a volatile write of
 * the estimators' list; the hit path's array takes it at creation by a volatile store, and again after a clear by the
 * owner's volatile CAS from null. A clear increments {@code clears} (volatile) after its table CASes, then writes null
 * (volatile) over every published block. The owner publishes (CAS) before the table read its next admission is based
 * on, so, all of these being volatile (one total order with the table's CASes): a clear that empties a slot after that
 * read writes its null after the CAS, and the owner drops again. A first admission reads the table before its block
 * exists, so it reads {@code clears} before that read and after the block's publication, and does not admit if a clear
 * was counted in between.
 *
 * <p>Threads: {@link #observe} and {@link #flushCurrent} act on the caller's own block (virtual threads of one
 * carrier share it through a try-lock gate, and bypass combining when it is held); {@link #pending} from any
 * thread. Progress: {@link #observe} is lock-free (it is the table's observe plus owner-local stores), except the
 * first admission of each worker, which allocates its block under a lock; {@link #pending} is wait-free.
 *
 * <p>Size: the owner path (admit, hit, flush, displace) and the estimators' path read the same entries under one
 * publication protocol, so they stay in one class; the layout lives in CombinerLayout.
 */
public final class HotKeyCombiners implements PendingCounts {
    /** Coordinates (MemorySegment, long byteOffset). */
    private static final VarHandle WORD = ValueLayout.JAVA_LONG.varHandle();
    private static final VarHandle BLOCK = MethodHandles.arrayElementVarHandle(MemorySegment[].class);
    private static final VarHandle ENGAGED;
    private static final VarHandle FIRST_HOT;
    private static final VarHandle CLEARS;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            ENGAGED = lookup.findVarHandle(HotKeyCombiners.class, "engaged", boolean.class);
            FIRST_HOT = lookup.findVarHandle(HotKeyCombiners.class, "firstHot", Thread.class);
            CLEARS = lookup.findVarHandle(HotKeyCombiners.class, "clears", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The sketch's workers: the caller's worker when it was not handed one (see {@link #observe}). */
    private final WorkerSpace workers;
    private final StatsStripes stats;
    private final int setMask;
    private final long flushThreshold;
    private final long admitFrom;
    private final long blockBytes;
    private final LongFunction<MemorySegment> allocator;
    /**
     * The hit path's view: block of each worker with an exclusive stripe, indexed by stripe; null until its
     * first admission, and again from each table clear until the owner has dropped its hot set (class javadoc).
     */
    private final MemorySegment[] blocks;
    /** Block of each worker once created (never cleared again): the owner's slow paths and flushCurrent. */
    private final MemorySegment[] created;
    /** Table clears so far (see tableCleared); read by a worker's first admission only. */
    @SuppressWarnings("unused") // accessed through CLEARS
    private long clears;
    /** The blocks in use, for estimators; replaced whole (copy on write) when a worker's block is created. */
    private volatile MemorySegment[] active = new MemorySegment[0];
    /** Whether observations combine; set once (auto: when a second thread observes a hot key), never cleared. */
    @SuppressWarnings("unused") // accessed through ENGAGED
    private boolean engaged;
    /** Auto mode: the first thread that observed a hot key (compared by identity; no worker lookup). */
    @SuppressWarnings("unused") // accessed through FIRST_HOT
    private Thread firstHot;
    private final boolean auto;

    /**
     * Combiners for the workers of {@code workers} whose stripe is below {@code blockCount} (blocks are indexed by
     * stripe), counting in {@code stats}, each with {@code entries}
     * entries (a power of two in 16..65536), flushing every {@code flushThreshold} (2..32768) observations of a
     * key, admitting keys whose table count reached {@code admitFrom}. Blocks come from {@code allocator}
     * (zeroed, 128-byte aligned, {@link CombinerLayout#blockBytes} bytes), on the worker's first admission.
     * {@code auto}: combine only once two workers have blocks (see the class javadoc); otherwise always.
     */
    public HotKeyCombiners(WorkerSpace workers, StatsStripes stats, int blockCount, int entries, int flushThreshold,
                           long admitFrom, LongFunction<MemorySegment> allocator, boolean auto) {
        checkSize(entries, flushThreshold);
        if (admitFrom < 1) {
            throw new IllegalArgumentException("admitFrom=" + admitFrom + ": must be >= 1");
        }
        this.workers = workers;
        this.stats = stats;
        this.setMask = entries / CombinerLayout.WAYS - 1;
        this.flushThreshold = flushThreshold;
        this.admitFrom = admitFrom;
        this.blockBytes = CombinerLayout.blockBytes(entries);
        this.allocator = allocator;
        this.blocks = new MemorySegment[blockCount];
        this.created = new MemorySegment[blockCount];
        this.auto = auto;
        // Plain would do: the instance reaches other threads through Hotkeeper's final field, whose freeze covers
        // what the constructor wrote; release states the intent.
        ENGAGED.setRelease(this, !auto);
    }

    /**
     * Checks a combiner size: {@code entries} a power of two in 16..65536, {@code flushThreshold} in 2..32768.
     * Threads: any. Progress: wait-free.
     *
     * @throws IllegalArgumentException naming the parameter, its value and the allowed range
     */
    public static void checkSize(int entries, int flushThreshold) {
        if (entries < CombinerLayout.MIN_ENTRIES || entries > CombinerLayout.MAX_ENTRIES
                || Integer.bitCount(entries) != 1) {
            throw new IllegalArgumentException("combinerEntries=" + entries + ": must be a power of two in "
                    + CombinerLayout.MIN_ENTRIES + ".." + CombinerLayout.MAX_ENTRIES);
        }
        if (flushThreshold < 2 || flushThreshold > CombinerLayout.MAX_FLUSH_THRESHOLD) {
            throw new IllegalArgumentException("flushThreshold=" + flushThreshold + ": must be >= 2 and <= "
                    + CombinerLayout.MAX_FLUSH_THRESHOLD);
        }
    }

    /**
     * Records one occurrence of the key with hash {@code hash} for {@code worker} (the caller's, or
     * {@link WorkerHandle#NO_HANDLE}: then looked up here), through its block when the key is combined, else
     * through {@code table}. Returns what {@link BucketTable#observe} returns (flags included) when the table was
     * written, else the worker's view of the key's count (see the class javadoc). The path once combining is
     * {@link #engaged()}: in auto mode before that, the caller observes {@code table} itself and hands the result
     * to {@link #unengaged}. Called before engagement, it combines all the same (counts stay right), but it never
     * engages auto combining: only {@link #unengaged} does.
     *
     * <p>Threads: the worker's. Progress: lock-free (blocking once per worker, at its first admission).
     */
    public long observe(long hash, long worker, BucketTable table) {
        if (worker == WorkerHandle.NO_HANDLE) {
            worker = workers.current(); // the worker lookup: engaged combining is per worker
        }
        // The hit path, kept small so that it inlines into the caller: a platform thread's own block, the key in
        // one of its set's two entries, and a pending count that stays below the threshold.
        int blockIndex = WorkerHandle.stripe(worker);
        // Opaque: written by the owner (or, an inherited worker id, published through the id hand-over) and nulled
        // by table clears; opaque so that the owner sees a clear's null at a later call (a plain load could be
        // hoisted out of the caller's loop), a mov on x86. A stale block only delays the drop (see tableCleared);
        // a null sends the call to the slow path, which re-reads with stronger loads.
        MemorySegment block = blockIndex < blocks.length
                ? (MemorySegment) BLOCK.getOpaque(blocks, blockIndex) : null;
        if (block != null && !WorkerHandle.isShared(worker)) {
            long set = CombinerLayout.setOffset(hash, setMask);
            long offset = set;
            // Branches rather than a select: the way is well predicted, and a select would chain the two loads.
            // A hash of 0 never matches: it is not combined, and an empty entry's 0 must not look like it.
            if ((long) WORD.get(block, set + CombinerLayout.HASH) != hash || hash == 0) {
                offset = set + CombinerLayout.ENTRY_BYTES;
                if ((long) WORD.get(block, offset + CombinerLayout.HASH) != hash || hash == 0) {
                    return observeSlow(hash, worker, table, blockIndex, block);
                }
            }
            long state = (long) WORD.get(block, offset + CombinerLayout.STATE) + 1;
            if (CombinerLayout.pending(state) < flushThreshold) {
                // Opaque store (a plain mov on x86, but never torn): the owner is the only writer, and estimators
                // accept any recent pending count of this key; their acquire re-read of the hash rejects a state
                // written for another key (every hash change is a release store after the state it goes with).
                WORD.setOpaque(block, offset + CombinerLayout.STATE, state);
                return estimateOf(state);
            }
        }
        return observeSlow(hash, worker, table, blockIndex, block);
    }

    /**
     * Auto mode before engagement, after the caller's observation went straight to the table (no worker lookup, no
     * block): if it left its key hot (at {@code admitFrom}), checks whether another thread was first to do so; if
     * one was, two threads write hot table lines, and combining engages. Returns {@code result}, the table's.
     * Threads: any. Progress: wait-free (one CAS, once per sketch).
     */
    public long unengaged(long result) {
        if ((result & TableLayout.COUNT_MASK) >= admitFrom) {
            hotSeen();
        }
        return result;
    }

    /** A key made hot by the calling thread while combining is not engaged: engages it if another thread was first. */
    private void hotSeen() {
        Thread me = Thread.currentThread();
        // Opaque read, CAS to set once: only a thread's identity is compared, nothing is published through it.
        Thread first = (Thread) FIRST_HOT.getOpaque(this);
        if (first != me && !(first == null && FIRST_HOT.compareAndSet(this, null, me))) {
            // Release (opaque would do: the flag only switches paths, and every reader re-checks what it needs).
            ENGAGED.setRelease(this, true);
        }
    }

    /**
     * Everything but a plain hit: a flush, a miss, the worker's first hot key, its first observation after a
     * table clear, a carrier's gated block.
     */
    private long observeSlow(long hash, long worker, BucketTable table, int blockIndex, MemorySegment block) {
        if (blockIndex >= blocks.length || hash == 0) {
            return table.observe(hash, 1, worker);
        }
        if (block == null) {
            // Acquire: the block was published (release) by this worker, or an earlier thread with its id.
            MemorySegment made = (MemorySegment) BLOCK.getAcquire(created, blockIndex);
            return made == null ? observeFirst(hash, worker, table, blockIndex)
                    : rejoin(hash, worker, table, blockIndex, made);
        }
        if (!(boolean) ENGAGED.getOpaque(this)) {
            return table.observe(hash, 1, worker);
        }
        if (!WorkerHandle.isShared(worker)) {
            return combine(block, hash, worker, table);
        }
        // Virtual threads of one carrier share the block: a try-lock, acquire on success; busy means another
        // virtual thread of this carrier is inside (it was unmounted mid-call), so go to the table directly.
        if ((long) WORD.compareAndExchangeAcquire(block, CombinerLayout.GATE, 0L, 1L) != 0L) {
            return table.observe(hash, 1, worker);
        }
        try {
            return combine(block, hash, worker, table);
        } finally {
            WORD.setRelease(block, CombinerLayout.GATE, 0L);
        }
    }

    private long combine(MemorySegment block, long hash, long worker, BucketTable table) {
        long set = CombinerLayout.setOffset(hash, setMask);
        long offset;
        if ((long) WORD.get(block, set + CombinerLayout.HASH) == hash) {
            offset = set;
        } else if ((long) WORD.get(block, set + CombinerLayout.ENTRY_BYTES + CombinerLayout.HASH) == hash) {
            offset = set + CombinerLayout.ENTRY_BYTES;
        } else {
            return miss(block, set, hash, worker, table);
        }
        long state = (long) WORD.get(block, offset + CombinerLayout.STATE) + 1;
        long pending = CombinerLayout.pending(state);
        if (pending < flushThreshold) {
            WORD.setOpaque(block, offset + CombinerLayout.STATE, state);
            return estimateOf(state);
        }
        return flush(block, offset, hash, state, worker, table);
    }

    /**
     * The worker's view of a combined key's count after a hit: the count at its last flush plus its pending
     * units, clamped to {@link TableLayout#MAX_COUNT} (above it the sum would spill into an observe result's flag
     * bits). The one place both hit paths compute it.
     */
    private static long estimateOf(long state) {
        return Math.min(CombinerLayout.base(state) + CombinerLayout.pending(state), TableLayout.MAX_COUNT);
    }

    /** A key not in its set: observe through the table, then admit it if it is hot enough. */
    private long miss(MemorySegment block, long set, long hash, long worker, BucketTable table) {
        long result = table.observe(hash, 1, worker);
        long count = result & TableLayout.COUNT_MASK;
        if (count < admitFrom) {
            return result;
        }
        long way1 = set + CombinerLayout.ENTRY_BYTES;
        long held0 = (long) WORD.get(block, set + CombinerLayout.HASH);
        long held1 = (long) WORD.get(block, way1 + CombinerLayout.HASH);
        if (held0 == 0) {
            admit(block, set, 0, hash, count, worker, table);
        } else if (held1 == 0) {
            admit(block, way1, 0, hash, count, worker, table);
        } else {
            long base0 = CombinerLayout.base((long) WORD.get(block, set + CombinerLayout.STATE));
            long base1 = CombinerLayout.base((long) WORD.get(block, way1 + CombinerLayout.STATE));
            // The displaced key's table update may expel a tracked key: keep that flag for the caller.
            if (base0 <= base1 && count > base0) {
                return result | admit(block, set, held0, hash, count, worker, table);
            } else if (base1 < base0 && count > base1) {
                return result | admit(block, way1, held1, hash, count, worker, table);
            }
        }
        return result;
    }

    /** Adds an entry's pending count (which reached the threshold) to the table; returns the table's result. */
    private long flush(MemorySegment block, long offset, long hash, long state, long worker, BucketTable table) {
        long pending = CombinerLayout.pending(state);
        // Zero the pending count before the table's release CAS: an estimator may miss these units for a moment,
        // never count them twice.
        WORD.setRelease(block, offset + CombinerLayout.STATE, state & ~CombinerLayout.PENDING_MASK);
        long result = table.observe(hash, pending, worker);
        stats.add(worker, StatsLayout.COMBINED, pending);
        long count = result & TableLayout.COUNT_MASK;
        if (count == 0) {
            // The key lost its slot (a weighted challenge it did not win): stop combining it.
            WORD.setRelease(block, offset + CombinerLayout.HASH, 0L);
        } else {
            WORD.setRelease(block, offset + CombinerLayout.STATE, CombinerLayout.state(count, 0));
        }
        return result;
    }

    /** Admits {@code hash} in place of {@code held} (0: an empty way); returns BucketTable.EXPELLED or 0. */
    private long admit(MemorySegment block, long offset, long held, long hash, long count, long worker,
                       BucketTable table) {
        long expelled = held == 0 ? 0 : evict(block, offset, held, worker, table);
        WORD.setRelease(block, offset + CombinerLayout.STATE, CombinerLayout.state(count, 0));
        WORD.setRelease(block, offset + CombinerLayout.HASH, hash);
        return expelled;
    }

    /**
     * Empties the entry at {@code offset}, which holds {@code held}, and adds its pending count to the table;
     * returns BucketTable.EXPELLED or 0.
     */
    private long evict(MemorySegment block, long offset, long held, long worker, BucketTable table) {
        long pending = CombinerLayout.pending((long) WORD.get(block, offset + CombinerLayout.STATE));
        // Out of estimators' view first, then into the table (never counted twice). The evicted key's
        // flags (a promotion or a visit) are dropped: its next observation through the table reports them.
        // An expulsion it caused is not dropped: the key is queued, and the caller must deliver it.
        WORD.setRelease(block, offset + CombinerLayout.HASH, 0L);
        if (pending == 0) {
            return 0;
        }
        long expelled = table.observe(held, pending, worker) & BucketTable.EXPELLED;
        stats.add(worker, StatsLayout.COMBINED, pending);
        return expelled;
    }

    /**
     * The worker's first observation after a table clear withdrew its block: drops its hot set (every entry
     * evicted, its pending count to the table), publishes the block again, then observes as a miss would.
     */
    private long rejoin(long hash, long worker, BucketTable table, int blockIndex, MemorySegment block) {
        boolean gated = WorkerHandle.isShared(worker);
        if (gated && (long) WORD.compareAndExchangeAcquire(block, CombinerLayout.GATE, 0L, 1L) != 0L) {
            return table.observe(hash, 1, worker); // another virtual thread of the carrier: it or a later call drops
        }
        try {
            long expelled = 0;
            for (int e = 0; e < entries(); e++) {
                long offset = CombinerLayout.HEADER_BYTES + (long) e * CombinerLayout.ENTRY_BYTES;
                long held = (long) WORD.get(block, offset + CombinerLayout.HASH);
                if (held != 0) {
                    expelled |= evict(block, offset, held, worker, table);
                }
            }
            // Volatile CAS from null, before any table read an admission of this block is based on: a clear
            // that empties a slot after such a read writes its null after this CAS (class javadoc), and the
            // next call drops again. Fails only if another thread of this worker id published it already.
            BLOCK.compareAndSet(blocks, blockIndex, null, block);
            return combine(block, hash, worker, table) | expelled;
        } finally {
            if (gated) {
                WORD.setRelease(block, CombinerLayout.GATE, 0L);
            }
        }
    }

    /** The first hot key of a worker without a block: observe through the table, create the block, admit. */
    private long observeFirst(long hash, long worker, BucketTable table, int blockIndex) {
        // Volatile, before the table read: a clear counted after it may empty the slot that this admission's
        // count comes from, and this block is published only after that read (see the class javadoc).
        long clearsBefore = (long) CLEARS.getVolatile(this);
        long result = table.observe(hash, 1, worker);
        long count = result & TableLayout.COUNT_MASK;
        if (count >= admitFrom) {
            MemorySegment block = activate(blockIndex);
            // Volatile re-read, after activate published the block (volatile): a clear counted since the first
            // read may have emptied the key's slot, so admit nothing; a clear counted after this read writes its
            // null after the publication. (A block created earlier and withdrawn since is dropped whole at its
            // worker's next observation: an admission into it is harmless.)
            if (!(boolean) ENGAGED.getOpaque(this) || (long) CLEARS.getVolatile(this) != clearsBefore) {
                return result;
            }
            long set = CombinerLayout.setOffset(hash, setMask);
            // A block shared by a carrier's virtual threads: admit only under its gate, and only into an empty way.
            boolean gated = WorkerHandle.isShared(worker);
            if (!gated || (long) WORD.compareAndExchangeAcquire(block, CombinerLayout.GATE, 0L, 1L) == 0L) {
                try {
                    if ((long) WORD.get(block, set + CombinerLayout.HASH) == 0) {
                        admit(block, set, 0, hash, count, worker, table);
                    }
                } finally {
                    if (gated) {
                        WORD.setRelease(block, CombinerLayout.GATE, 0L);
                    }
                }
            }
        }
        return result;
    }

    /** The worker's block: created (zeroed), published and listed for estimators if it has none. */
    private synchronized MemorySegment activate(int blockIndex) {
        if (created[blockIndex] != null) {
            return created[blockIndex];
        }
        MemorySegment block = allocator.apply(blockBytes);
        // Volatile store to the hit path's view (see observeFirst), then a release store to the created blocks:
        // a thread of this worker id that finds the block created finds it published, unless a clear withdrew
        // it since (then rejoin drops it).
        BLOCK.setVolatile(blocks, blockIndex, block);
        BLOCK.setRelease(created, blockIndex, block);
        MemorySegment[] grown = Arrays.copyOf(active, active.length + 1);
        grown[grown.length - 1] = block;
        active = grown;
        return block;
    }

    /**
     * The pending counts of the key with hash {@code hash}, summed over every worker's block. Read the table's
     * count first (with acquire) and add this: the sum is never above the true count (see the class javadoc).
     *
     * <p>Threads: any. Progress: wait-free (one entry per worker that has a block).
     */
    @Override
    public long pending(long hash) {
        if (hash == 0) {
            return 0;
        }
        long sum = 0;
        long set = CombinerLayout.setOffset(hash, setMask);
        for (MemorySegment block : active) {
            for (int way = 0; way < CombinerLayout.WAYS; way++) {
                long offset = set + (long) way * CombinerLayout.ENTRY_BYTES;
                // Acquire, three times: the state read belongs to the hash read before it, and the re-read hash
                // rejects a state that a concurrent replacement wrote for another key. A key is in at most one
                // way of a set (its owner admits it only when neither way holds it).
                if ((long) WORD.getAcquire(block, offset + CombinerLayout.HASH) == hash) {
                    long state = (long) WORD.getAcquire(block, offset + CombinerLayout.STATE);
                    if ((long) WORD.getAcquire(block, offset + CombinerLayout.HASH) == hash) {
                        sum += CombinerLayout.pending(state);
                    }
                }
            }
        }
        return sum;
    }

    /**
     * Adds every pending count of the caller's block to {@code table} (a thread about to go idle). Returns the
     * units flushed.
     *
     * <p>Threads: acts on the caller's own block (virtual threads: skipped while another virtual thread of the
     * carrier holds it). Progress: lock-free.
     */
    public long flushCurrent(long worker, BucketTable table) {
        int blockIndex = WorkerHandle.stripe(worker);
        MemorySegment block = blockIndex < created.length
                ? (MemorySegment) BLOCK.getAcquire(created, blockIndex) : null;
        if (block == null) {
            return 0;
        }
        boolean gated = WorkerHandle.isShared(worker);
        if (gated && (long) WORD.compareAndExchangeAcquire(block, CombinerLayout.GATE, 0L, 1L) != 0L) {
            return 0;
        }
        try {
            long flushed = 0;
            for (int e = 0; e < entries(); e++) {
                long offset = CombinerLayout.HEADER_BYTES + (long) e * CombinerLayout.ENTRY_BYTES;
                long hash = (long) WORD.get(block, offset + CombinerLayout.HASH);
                long state = (long) WORD.get(block, offset + CombinerLayout.STATE);
                if (hash != 0 && CombinerLayout.pending(state) > 0) {
                    flushed += CombinerLayout.pending(state);
                    flush(block, offset, hash, state, worker, table);
                }
            }
            return flushed;
        } finally {
            if (gated) {
                WORD.setRelease(block, CombinerLayout.GATE, 0L);
            }
        }
    }

    /**
     * A table was just cleared (TableSet: reset, or a window's new slice): withdraws every published block from
     * the hit path, so that each worker drops its hot set at its next observation (see the class javadoc). Call
     * after the table's last slot is cleared.
     *
     * <p>Threads: any (the clearing thread). Progress: wait-free (one volatile add, then a volatile load and at
     * most one volatile store per worker).
     */
    public void tableCleared() {
        // Volatile add after the table's CASes: a first admission that reads the table before it and publishes
        // its block after it sees the count change (observeFirst).
        CLEARS.getAndAdd(this, 1L);
        for (int i = 0; i < blocks.length; i++) {
            // Volatile load and store: a null read here comes before the owner's publishing CAS in the one total
            // order of volatile accesses, so the owner's later table reads follow this clear's CASes; a block read
            // here is replaced by null, whenever its owner published it.
            if (BLOCK.getVolatile(blocks, i) != null) {
                BLOCK.setVolatile(blocks, i, null);
            }
        }
    }

    /**
     * Whether observations are being combined (always, or auto after a second hot thread): the facade's switch
     * between {@link #observe} and the table with {@link #unengaged}. Threads: any. Progress: wait-free.
     */
    public boolean engaged() {
        // Opaque: a flag that flips once; a late view only delays combining by a few observations.
        return (boolean) ENGAGED.getOpaque(this);
    }

    /** Whether combining engages by itself (auto) rather than from the start. Threads: any. */
    public boolean auto() {
        return auto;
    }

    /**
     * The most any one key can have pending right now: {@code flushThreshold - 1} in each block in use.
     * Threads: any. Progress: wait-free.
     */
    @Override
    public long bound() {
        return (long) active.length * (flushThreshold - 1);
    }

    /** Workers that have a block. Threads: any. Progress: wait-free. */
    public int activeBlocks() {
        return active.length;
    }

    /** Entries per block. Threads: any. Progress: wait-free. */
    public int entries() {
        return (setMask + 1) * CombinerLayout.WAYS;
    }

    /** The flush threshold. Threads: any. Progress: wait-free. */
    public long flushThreshold() {
        return flushThreshold;
    }

    /** The table count from which keys are admitted. Threads: any. Progress: wait-free. */
    public long admitFrom() {
        return admitFrom;
    }
}
