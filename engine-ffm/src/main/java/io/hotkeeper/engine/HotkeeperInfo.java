package io.hotkeeper.engine;

import io.hotkeeper.engine.SaltMode;

/**
 * The shape of one {@link Hotkeeper} (RedisBloom's {@code TOPK.INFO}, and more).
 *
 * @param k              heavy hitters reported by {@code topK()} and tested by {@code contains}
 * @param tableBytes     bytes of the bucket table
 * @param buckets        buckets (8 slots each)
 * @param decayBase      lottery base b (an occupant with count c loses a draw with probability b^-c)
 * @param saltMode       eviction salt: shared, sharded or per-worker
 * @param saltShards     salt counters (sharded mode; 1 otherwise)
 * @param keyShards      whether real keys are tracked
 * @param shards         key shards created so far (one per worker that promoted a key; under a memory budget at
 *                       most {@code shardLimit} per table, shared by the workers in turn)
 * @param shardCapacity  most entries in use per key shard (entries follow their keys' lengths: this many
 *                       {@code long} keys or, without a memory budget, this many keys of any length fit)
 * @param maxKeyBytes    longest key stored whole
 * @param promotionFloor count at which a key is recorded in its observer's shard
 * @param shardBytes     bytes of the link segments and all key shards created so far
 * @param tables         bucket tables: 1, one per NUMA node with per-node tables, or one per worker table
 * @param combining      when hot keys are combined per worker (OFF, AUTO, ON)
 * @param combiningEngaged whether observations are being combined now (AUTO: once a second worker saw a hot key)
 * @param combinerEntries entries of each worker's hot-key combiner (0: combining off)
 * @param flushThreshold observations of a combined key per flush to the table (0: combining off)
 * @param combiners      workers that have a combiner block so far
 * @param nativeBytesByPart native bytes the instance has allocated so far, by part: {@code table},
 *                       {@code control} (the promotion floor's line), {@code links}, {@code shard} (all workers'
 *                       key shards), {@code combiner}, {@code salt} and {@code stats} (only with
 *                       {@code recordStats()} or approximate counting); a part the instance has none of is absent.
 *                       Key shards and combiner blocks are allocated by each worker's first use, so the figures grow
 *                       with the workers until every one has its own
 * @param memoryBudget   the total budget given to {@code Builder.memory(long)} ({@link #nativeBytes()} never
 *                       exceeds it), or 0 when the table size was given instead
 * @param shardLimit     most key shards per table under a budget (workers share them in turn), or 0: one per
 *                       worker
 * @param candidateBuckets candidate buckets per key: 2 (the default) or 1 ({@code Builder.candidateBuckets})
 * @param partitioning   the partitioning asked for ({@code Builder.partitioning}); {@link #tables()} is what it gave
 */
public record HotkeeperInfo(int k, long tableBytes, long buckets, double decayBase, SaltMode saltMode,
                            int saltShards, boolean keyShards, int shards, int shardCapacity, int maxKeyBytes,
                            long promotionFloor, long shardBytes, int tables,
                            CombiningMode combining, boolean combiningEngaged, int combinerEntries,
                            int flushThreshold, int combiners, java.util.SortedMap<String, Long> nativeBytesByPart,
                            long memoryBudget, int shardLimit, int candidateBuckets, Partitioning partitioning) {
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
}
