package io.hotkeeper.engine.salt;

import io.hotkeeper.engine.worker.WorkerHandle;
import io.hotkeeper.engine.worker.Workers;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The never-repeating eviction salt: every phase-3 draw takes a fresh value.
 *
 * <p>Shard {@code i} of {@code n} emits {@code i, i + n, i + 2n, ...}; the residue classes mod n are disjoint, so
 * no two shards ever emit the same value, and each shard's own sequence strictly increases. With one shard this
 * is the plain counter 0, 1, 2, ... A value could only repeat after 2^64 / n draws from one shard (over 500
 * years at 10^9 draws per second). A per-table salt ({@link #perTable}) is one such shard of an instance whose n
 * tables each have their own.
 *
 * <p>Happens-before: none is promised between draws; only atomicity of each getAndAdd matters, which is what
 * makes values unique. Threads: any. Progress: wait-free ({@code lock xadd} on x86; a CAS loop on LL/SC
 * machines is lock-free).
 */
public final class EvictionSalt {
    /** Coordinates (MemorySegment, long byteOffset); aligned JAVA_LONG, so every access mode is available. */
    private static final VarHandle COUNTER = ValueLayout.JAVA_LONG.varHandle();

    private final MemorySegment region;
    private final int shards;
    private final int shardMask;
    /** PER_WORKER mode: the counter is picked by the caller's worker id, not by the spare bits. */
    private final boolean perWorker;
    /** What each draw adds to its counter: the number of residue classes the instance's counters use. */
    private final long stride;

    /**
     * A salt with {@code shards} counters (a power of two in 1..32) in a segment from {@code arena}, which owns
     * and frees it.
     *
     * @throws IllegalArgumentException if {@code shards} is not a power of two in 1..32
     */
    public EvictionSalt(Arena arena, int shards) {
        this(arena.allocate(SaltLayout.segmentBytes(checkShards(shards)), SaltLayout.ALIGNMENT), shards);
    }

    /** A salt over an existing 128-byte aligned segment of {@link SaltLayout#segmentBytes} bytes. */
    public EvictionSalt(MemorySegment region, int shards) {
        this(region, checkShards(shards), false);
    }

    /**
     * A per-worker salt over {@code region} with {@code counters} counters (a power of two, at most
     * {@link SaltLayout#MAX_WORKER_COUNTERS}; {@link SaltLayout#workerCountersFor} sizes it for the writers an
     * instance expects): a draw takes the counter of its worker's id modulo {@code counters}, counter i at
     * {@code i * 128}. Workers whose ids share a counter share its line, as all do under the shared salt; values
     * stay unique either way. Threads: one, before publication.
     *
     * @throws IllegalArgumentException if {@code counters} is not a power of two in range
     */
    public static EvictionSalt perWorker(MemorySegment region, int counters) {
        if (counters < 1 || counters > SaltLayout.MAX_WORKER_COUNTERS || Integer.bitCount(counters) != 1) {
            throw new IllegalArgumentException("counters=" + counters + ": must be a power of two in 1.."
                    + SaltLayout.MAX_WORKER_COUNTERS);
        }
        return new EvictionSalt(region, counters, true);
    }

    /**
     * The salt of table {@code table} of {@code tables} (PER_TABLE mode): one counter over {@code region}, which
     * holds {@link SaltLayout#segmentBytes segmentBytes(1)}, emitting {@code table, table + tables, ...}; the
     * tables' values are disjoint, as sharded counters' are. Threads: one, before publication.
     *
     * @throws IllegalArgumentException if {@code table} is not in {@code 0..tables-1} or {@code tables < 1}
     */
    public static EvictionSalt perTable(MemorySegment region, int table, int tables) {
        if (tables < 1 || table < 0 || table >= tables) {
            throw new IllegalArgumentException("table=" + table + ", tables=" + tables
                    + ": must be 0 <= table < tables");
        }
        return new EvictionSalt(region, 1, false, table, tables);
    }

    private EvictionSalt(MemorySegment region, int shards, boolean perWorker) {
        this(region, shards, perWorker, 0, shards);
    }

    /** Counter i starts at {@code first + i} and every draw adds {@code stride}. */
    private EvictionSalt(MemorySegment region, int shards, boolean perWorker, long first, long stride) {
        if (region.byteSize() < SaltLayout.segmentBytes(shards)) {
            throw new IllegalArgumentException("salt segment: size=" + region.byteSize() + ": must be >= "
                    + SaltLayout.segmentBytes(shards));
        }
        this.shards = shards;
        this.shardMask = shards - 1;
        this.region = region;
        this.perWorker = perWorker;
        this.stride = stride;
        for (int i = 0; i < shards; i++) {
            // Plain stores: the segment is published to other threads by the final field of the owning instance.
            COUNTER.set(region, SaltLayout.counterOffset(i), first + i);
        }
    }

    private static int checkShards(int shards) {
        if (shards < 1 || shards > SaltLayout.MAX_SHARDS || Integer.bitCount(shards) != 1) {
            throw new IllegalArgumentException("saltShards=" + shards + ": must be a power of two in 1.."
                    + SaltLayout.MAX_SHARDS);
        }
        return shards;
    }

    /** Number of counters. Threads: any. Progress: wait-free. */
    public int shards() {
        return shards;
    }

    /**
     * A fresh salt value, from the shard picked by the low bits of {@code spare}.
     *
     * <p>Threads: any. Progress: wait-free.
     */
    public long next(long spare) {
        if (perWorker) {
            throw new IllegalStateException("a per-worker salt needs the caller's worker: next(spare, worker)");
        }
        long offset = SaltLayout.counterOffset((int) spare & shardMask);
        // Volatile getAndAdd: atomicity is the whole contract; on x86 every RMW mode is the same lock xadd.
        return (long) COUNTER.getAndAdd(region, offset, stride);
    }

    /**
     * A fresh salt value for the caller {@code worker} ({@link WorkerHandle}, or {@link WorkerHandle#NO_HANDLE}
     * when the observation did not look its worker up): from the counter of the worker's id in per-worker mode
     * (looked up here, on the draw, when the caller has none: hits never pay for it), else as {@link #next(long)}.
     *
     * <p>Threads: any. Progress: wait-free after the calling thread's first lookup ({@link Workers#current()}).
     */
    public long next(long spare, long worker) {
        if (!perWorker) {
            return next(spare);
        }
        int id = worker == WorkerHandle.NO_HANDLE ? WorkerHandle.id(Workers.current()) : WorkerHandle.id(worker);
        // Atomic even when the worker is exclusive: uniqueness must not depend on how a dead thread's id was handed
        // on, nor on two workers whose ids share a counter. Volatile getAndAdd; on x86 every RMW mode is lock xadd.
        return (long) COUNTER.getAndAdd(region, SaltLayout.counterOffset(id & shardMask), stride);
    }

    /** Whether counters are picked per worker. Threads: any. Progress: wait-free. */
    public boolean perWorker() {
        return perWorker;
    }

    /** Shard {@code shard}'s next value, without taking it (tests and diagnostics). Threads: any. Progress: wait-free. */
    public long peek(int shard) {
        return (long) COUNTER.getOpaque(region, SaltLayout.counterOffset(shard));
    }
}
