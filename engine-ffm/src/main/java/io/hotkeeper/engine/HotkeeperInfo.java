package io.hotkeeper.engine;

import java.util.Collections;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The shape of one {@link Hotkeeper} (RedisBloom's {@code TOPK.INFO}, and more), from {@link Hotkeeper#info()}.
 *
 * <p>A value: immutable, equal to another info of the same figures ({@link #equals}, {@link #hashCode}), and
 * printed like a record, {@code HotkeeperInfo[k=100, tableBytes=65536, ...]}, every figure named. It is a final
 * class rather than a record so that it can grow: a record's canonical constructor is public and changes with
 * every new component, which would break every caller of it; this class has no public constructor (only the
 * engine makes one), so a figure added later is one more accessor and breaks nobody. Accessors keep the record's
 * names ({@code info.k()}, {@code info.nativeBytes()}).
 *
 * <p>Threads: any, for every method. Progress: wait-free.
 */
public final class HotkeeperInfo {
    private final int k;
    private final long tableBytes;
    private final long buckets;
    private final double decayBase;
    private final SaltMode saltMode;
    private final int saltShards;
    private final boolean keepsKeys;
    private final int shards;
    private final int shardCapacity;
    private final int maxKeyBytes;
    private final long promotionFloor;
    private final long shardBytes;
    private final int tables;
    private final CombiningMode combining;
    private final boolean combiningEngaged;
    private final int combinerEntries;
    private final int flushThreshold;
    private final int combiners;
    private final SortedMap<String, Long> nativeBytesByPart;
    private final long memoryBudget;
    private final int shardLimit;
    private final int candidateBuckets;
    private final Partitioning partitioning;

    /** The engine's: {@link Hotkeeper#info()}. The parts map is copied. */
    HotkeeperInfo(int k, long tableBytes, long buckets, double decayBase, SaltMode saltMode, int saltShards,
                  boolean keepsKeys, int shards, int shardCapacity, int maxKeyBytes, long promotionFloor,
                  long shardBytes, int tables, CombiningMode combining, boolean combiningEngaged, int combinerEntries,
                  int flushThreshold, int combiners, SortedMap<String, Long> nativeBytesByPart, long memoryBudget,
                  int shardLimit, int candidateBuckets, Partitioning partitioning) {
        this.k = k;
        this.tableBytes = tableBytes;
        this.buckets = buckets;
        this.decayBase = decayBase;
        this.saltMode = Objects.requireNonNull(saltMode, "saltMode");
        this.saltShards = saltShards;
        this.keepsKeys = keepsKeys;
        this.shards = shards;
        this.shardCapacity = shardCapacity;
        this.maxKeyBytes = maxKeyBytes;
        this.promotionFloor = promotionFloor;
        this.shardBytes = shardBytes;
        this.tables = tables;
        this.combining = Objects.requireNonNull(combining, "combining");
        this.combiningEngaged = combiningEngaged;
        this.combinerEntries = combinerEntries;
        this.flushThreshold = flushThreshold;
        this.combiners = combiners;
        this.nativeBytesByPart = Collections.unmodifiableSortedMap(new TreeMap<>(nativeBytesByPart));
        this.memoryBudget = memoryBudget;
        this.shardLimit = shardLimit;
        this.candidateBuckets = candidateBuckets;
        this.partitioning = Objects.requireNonNull(partitioning, "partitioning");
    }

    /** Heavy hitters reported by {@code topK()} and tested by {@code contains}. */
    public int k() {
        return k;
    }

    /** Bytes of the bucket table. */
    public long tableBytes() {
        return tableBytes;
    }

    /** Buckets (8 slots each). */
    public long buckets() {
        return buckets;
    }

    /** The lottery base b (an occupant with count c loses a draw with probability b^-c). */
    public double decayBase() {
        return decayBase;
    }

    /** The eviction salt: shared, sharded, per worker or per table. */
    public SaltMode saltMode() {
        return saltMode;
    }

    /**
     * Salt counters: the shards (sharded), the per-worker counters (per worker: one per expected writer, rounded up
     * to a power of two, or as many as a total budget grants) or one per table (per table); else 1.
     */
    public int saltShards() {
        return saltShards;
    }

    /** Whether real keys are tracked. */
    public boolean keepsKeys() {
        return keepsKeys;
    }

    /**
     * Key shards created so far (one per worker that promoted a key; under a memory budget at most
     * {@link #shardLimit()} per table, shared by the workers in turn).
     */
    public int shards() {
        return shards;
    }

    /**
     * Most entries in use per key shard (entries follow their keys' lengths: this many {@code long} keys
     * or, without a memory budget, this many keys of any length fit).
     */
    public int shardCapacity() {
        return shardCapacity;
    }

    /** The longest key stored whole. */
    public int maxKeyBytes() {
        return maxKeyBytes;
    }

    /**
     * The promotion floor now: the count at which a key is recorded in its observer's shard. It starts at
     * {@link HotkeeperBuilder#minCount}, rises when full shards turn candidates away and falls back towards it.
     */
    public long promotionFloor() {
        return promotionFloor;
    }

    /** Bytes of the link segments and all key shards created so far. */
    public long shardBytes() {
        return shardBytes;
    }

    /** Bucket tables: 1, one per NUMA node with per-node tables, or one per worker table. */
    public int tables() {
        return tables;
    }

    /** When hot keys are combined per worker (OFF, AUTO, ON). */
    public CombiningMode combining() {
        return combining;
    }

    /** Whether observations are being combined now (AUTO: once a second worker saw a hot key). */
    public boolean combiningEngaged() {
        return combiningEngaged;
    }

    /** Entries of each worker's hot-key combiner (0: combining off). */
    public int combinerEntries() {
        return combinerEntries;
    }

    /** Observations of a combined key per flush to the table (0: combining off). */
    public int flushThreshold() {
        return flushThreshold;
    }

    /** Workers that have a combiner block so far. */
    public int combiners() {
        return combiners;
    }

    /**
     * Native bytes the instance has allocated so far, by part: {@code table}, {@code control} (the promotion floor's
     * line), {@code links}, {@code shard} (all workers' key shards), {@code combiner}, {@code salt} and {@code stats}
     * (only with {@link HotkeeperBuilder#recordStats()} or approximate counting); a part the instance has none of is
     * absent. Key shards and combiner blocks are allocated by each worker's first use, so the figures grow with the
     * workers until every one has its own. Unmodifiable.
     */
    public SortedMap<String, Long> nativeBytesByPart() {
        return nativeBytesByPart;
    }

    /**
     * The total budget given to {@link HotkeeperBuilder#memory(long)} ({@link #nativeBytes()} never exceeds it), or 0
     * when the table size was given instead.
     */
    public long memoryBudget() {
        return memoryBudget;
    }

    /** Most key shards per table under a budget (workers share them in turn), or 0: one per worker. */
    public int shardLimit() {
        return shardLimit;
    }

    /** Candidate buckets per key: 2 (the default) or 1 ({@link HotkeeperBuilder#candidateBuckets(int)}). */
    public int candidateBuckets() {
        return candidateBuckets;
    }

    /**
     * The partitioning asked for ({@link HotkeeperBuilder#partitioning(Partitioning)}); {@link #tables()} is what it
     * gave.
     */
    public Partitioning partitioning() {
        return partitioning;
    }

    /**
     * Every native byte the instance has allocated so far: the sum of {@link #nativeBytesByPart()}.
     *
     * <p>Threads: any. Progress: wait-free.
     */
    public long nativeBytes() {
        long total = 0;
        for (long bytes : nativeBytesByPart.values()) {
            total += bytes;
        }
        return total;
    }

    /**
     * Equal if every figure is equal (a record's equality: {@code decayBase} by {@link Double#compare}).
     *
     * <p>Threads: any. Progress: wait-free.
     */
    @Override
    public boolean equals(Object o) {
        return o instanceof HotkeeperInfo i
                && i.k == k && i.tableBytes == tableBytes && i.buckets == buckets
                && Double.compare(i.decayBase, decayBase) == 0 && i.saltMode == saltMode && i.saltShards == saltShards
                && i.keepsKeys == keepsKeys && i.shards == shards && i.shardCapacity == shardCapacity
                && i.maxKeyBytes == maxKeyBytes && i.promotionFloor == promotionFloor && i.shardBytes == shardBytes
                && i.tables == tables && i.combining == combining && i.combiningEngaged == combiningEngaged
                && i.combinerEntries == combinerEntries && i.flushThreshold == flushThreshold
                && i.combiners == combiners && i.nativeBytesByPart.equals(nativeBytesByPart)
                && i.memoryBudget == memoryBudget && i.shardLimit == shardLimit
                && i.candidateBuckets == candidateBuckets && i.partitioning.equals(partitioning);
    }

    /**
     * A hash of every figure.
     *
     * <p>Threads: any. Progress: wait-free.
     */
    @Override
    public int hashCode() {
        return Objects.hash(k, tableBytes, buckets, decayBase, saltMode, saltShards, keepsKeys, shards, shardCapacity,
                maxKeyBytes, promotionFloor, shardBytes, tables, combining, combiningEngaged, combinerEntries,
                flushThreshold, combiners, nativeBytesByPart, memoryBudget, shardLimit, candidateBuckets, partitioning);
    }

    /**
     * Every figure, named, in a record's form: {@code HotkeeperInfo[k=100, tableBytes=65536, ..., partitioning=...]}.
     *
     * <p>Threads: any. Progress: wait-free.
     */
    @Override
    public String toString() {
        return "HotkeeperInfo[k=" + k + ", tableBytes=" + tableBytes + ", buckets=" + buckets
                + ", decayBase=" + decayBase + ", saltMode=" + saltMode + ", saltShards=" + saltShards
                + ", keepsKeys=" + keepsKeys + ", shards=" + shards + ", shardCapacity=" + shardCapacity
                + ", maxKeyBytes=" + maxKeyBytes + ", promotionFloor=" + promotionFloor + ", shardBytes=" + shardBytes
                + ", tables=" + tables + ", combining=" + combining + ", combiningEngaged=" + combiningEngaged
                + ", combinerEntries=" + combinerEntries + ", flushThreshold=" + flushThreshold
                + ", combiners=" + combiners + ", nativeBytesByPart=" + nativeBytesByPart
                + ", memoryBudget=" + memoryBudget + ", shardLimit=" + shardLimit
                + ", candidateBuckets=" + candidateBuckets + ", partitioning=" + partitioning + "]";
    }
}
