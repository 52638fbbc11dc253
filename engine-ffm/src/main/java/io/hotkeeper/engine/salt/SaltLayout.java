package io.hotkeeper.engine.salt;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The off-heap layout of the eviction salt: one or more 64-bit counters, each alone in a 128-byte region.
 *
 * <pre>
 *  salt segment, 128-byte aligned, shards * 128 bytes
 *  0         8                                          128        136                   256
 *  +---------+------------------------------------------+----------+---------------------+---
 *  | counter | padding (120 bytes, never written)       | counter  | padding             | ...
 *  | shard 0 |                                          | shard 1  |                     |
 *  +---------+------------------------------------------+----------+---------------------+---
 *  shard i starts at i and advances by shards: it emits i, i + shards, i + 2*shards, ... (residue class i).
 * </pre>
 *
 * <p>128 bytes, not 64: the adjacent-line prefetcher fetches lines in pairs, so a neighbour one line away still
 * shares traffic with the counter.
 */
public final class SaltLayout {
    /** Bytes of one shard's region. */
    public static final int REGION_BYTES = 128;
    /** Offset of the counter inside its region. */
    public static final int COUNTER_OFFSET = 0;
    /** Alignment of the salt segment. */
    public static final int ALIGNMENT = 128;
    /** Most shards in sharded mode. */
    public static final int MAX_SHARDS = 32;
    /** Most counters of a per-worker salt (8 KiB). */
    public static final int MAX_WORKER_COUNTERS = 64;

    private SaltLayout() {
    }

    /** Byte offset of shard {@code shard}'s counter. */
    public static long counterOffset(int shard) {
        return (long) shard * REGION_BYTES + COUNTER_OFFSET;
    }

    /** Bytes for {@code shards} shards. */
    public static long segmentBytes(int shards) {
        return (long) shards * REGION_BYTES;
    }

    /**
     * The sharded mode's shard count for {@code processors}: rounded up to a power of two, capped at
     * {@link #MAX_SHARDS}.
     */
    public static int shardsFor(int processors) {
        return ceilPowerOfTwo(Math.min(MAX_SHARDS, Math.max(1, processors)));
    }

    /**
     * The per-worker mode's counter count for {@code writers} expected writer threads: rounded up to a power of
     * two, at least 2, at most {@link #MAX_WORKER_COUNTERS}. Worker ids are handed out lowest-free-first, so
     * writers that start together have consecutive ids, which fall on distinct counters; two writers: 2 counters,
     * 256 bytes.
     */
    public static int workerCountersFor(int writers) {
        return ceilPowerOfTwo(Math.min(MAX_WORKER_COUNTERS, Math.max(2, writers)));
    }

    /** The least power of two at least {@code n} (1..2^30). */
    private static int ceilPowerOfTwo(int n) {
        return Integer.highestOneBit(n) == n ? n : Integer.highestOneBit(n) << 1;
    }

    /**
     * A salt segment, for debugging: each shard's counter (its next value) on one line. Plain loads. Threads: any.
     * Progress: wait-free.
     */
    public static String describe(MemorySegment salt) {
        StringBuilder out = new StringBuilder();
        for (int shard = 0; shard < salt.byteSize() / REGION_BYTES; shard++) {
            out.append("salt shard ").append(shard).append(": counter=")
                    .append(salt.get(ValueLayout.JAVA_LONG, counterOffset(shard))).append('\n');
        }
        return out.toString();
    }
}
