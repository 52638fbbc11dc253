package io.hotkeeper.engine.shard;

import io.hotkeeper.engine.worker.Workers;

import java.util.Arrays;
import java.util.function.IntPredicate;

/**
 * Which of a bounded number of key shards each worker promotes into, for a table whose memory budget gives it fewer
 * shards than there may be workers ({@code shardLimit > 0} in {@link KeyShards}).
 *
 * <p>A worker is given a shard the first time it asks, in the order workers arrive: the shard with the fewest
 * workers in use (its id still held by a live thread or carrier, {@link Workers#inUse}), the lowest on a tie. So
 * {@code n} writers of a table planned with {@code n} shards get one each whatever their ids, where a fixed
 * {@code id % shards} put two writers whose ids differ by a multiple of {@code shards} on one shard (ids are global
 * and handed out lowest-free-first, so a thread pool's ids have holes wherever other threads hold or held ids). The
 * choice stays with the id: a thread that takes over the id of an ended one keeps its shard. Ids past
 * {@link #MAPPED_IDS} (more than 4,032 live writers, or virtual threads whose carrier is not visible) use
 * {@code id % shards}.
 *
 * <p>Nothing depends on the choice for correctness: a shard admits one owner at a time through its busy word
 * ({@link KeyShard#tryEnter()}), however many workers use it; the choice only decides how often a promotion finds
 * its shard busy.
 *
 * <p>Threads: any. Progress: {@link #shardOf} is wait-free for a worker that has its shard (one volatile read of an
 * array that is never written after it is published); the first call for a worker takes this object's lock
 * (blocking) and copies the array.
 */
final class ShardAssignment {
    /** Ids below this are assigned in arrival order: the ids that index a regular shard, see {@link KeyShards}. */
    static final int MAPPED_IDS = KeyShards.REGULAR_SHARDS;

    private final int shards;
    private final IntPredicate inUse;
    /**
     * Entry {@code id}: 1 + the shard of worker {@code id}, or 0 if it has none yet. Copy on write: an array is never
     * written after the volatile store that publishes it, so readers need no other ordering.
     */
    private volatile int[] shardPlusOne = new int[0];

    /** Assignment over {@code shards} shards, ids in use as {@link Workers#inUse} says. */
    ShardAssignment(int shards) {
        this(shards, Workers::inUse);
    }

    /** As above, with {@code inUse} telling which ids are held (a test's own workers). */
    ShardAssignment(int shards, IntPredicate inUse) {
        if (shards < 1) {
            throw new IllegalArgumentException("shards=" + shards + ": must be >= 1");
        }
        this.shards = shards;
        this.inUse = inUse;
    }

    /**
     * The shard, in {@code 0..shards-1}, of the worker whose id is {@code id}, given now if it has none. Threads:
     * any. Progress: wait-free once the id has its shard, blocking the first time.
     */
    int shardOf(int id) {
        int[] map = shardPlusOne; // volatile read: the published array and everything written into it before
        if (id < map.length && map[id] != 0) {
            return map[id] - 1;
        }
        return id < MAPPED_IDS ? assign(id) : id % shards;
    }

    /**
     * The shard already given to {@code id}, or -1 (an id that has not promoted into this table does not need one
     * yet). Threads: any. Progress: wait-free.
     */
    int assigned(int id) {
        int[] map = shardPlusOne;
        if (id < map.length && map[id] != 0) {
            return map[id] - 1;
        }
        return id < MAPPED_IDS ? -1 : id % shards;
    }

    private synchronized int assign(int id) {
        int[] map = shardPlusOne;
        if (id < map.length && map[id] != 0) {
            return map[id] - 1; // given by another caller for the same id meanwhile (a carrier's virtual threads)
        }
        int[] load = new int[shards];
        for (int other = 0; other < map.length; other++) {
            if (map[other] != 0 && inUse.test(other)) {
                load[map[other] - 1]++;
            }
        }
        int best = 0;
        for (int s = 1; s < shards; s++) {
            if (load[s] < load[best]) {
                best = s;
            }
        }
        int[] next = Arrays.copyOf(map, Math.max(map.length, id + 1));
        next[id] = best + 1;
        shardPlusOne = next; // volatile store publishes the filled copy
        return best;
    }
}
