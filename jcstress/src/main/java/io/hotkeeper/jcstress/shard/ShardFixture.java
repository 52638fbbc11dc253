package io.hotkeeper.jcstress.shard;

import io.hotkeeper.engine.shard.KeyShard;
import io.hotkeeper.engine.shard.ShardLayout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A small key shard for one jcstress state: 4 entries of 16-byte keys in memory from an automatic arena (jcstress
 * creates states by the million and never closes them; the garbage collector frees them).
 */
final class ShardFixture {
    static final int CAPACITY = 4;
    static final int MAX_KEY_BYTES = 16;

    /** Evictions that do nothing: the fixtures' shards have no table behind them. */
    static final KeyShard.Evictions NO_EVICTIONS = new KeyShard.Evictions() {
        @Override
        public long trackedCount(KeyShard s, int entry, long link) {
            return 0;
        }

        @Override
        public void rejected(long count) {
        }

        @Override
        public void evicting(KeyShard s, int entry, long link) {
        }

        @Override
        public void roomMade() {
        }
    };

    final KeyShard shard;

    ShardFixture() {
        MemorySegment segment = Arena.ofAuto().allocate(ShardLayout.shardBytes(CAPACITY, MAX_KEY_BYTES),
                ShardLayout.ALIGNMENT);
        shard = new KeyShard(0, segment, CAPACITY, MAX_KEY_BYTES, NO_EVICTIONS);
    }

    /** Inserts the 16-byte key {@code fill} x 16 as the owner; returns its link. */
    long insert(byte fill, long hash) {
        MemorySegment key = MemorySegment.ofArray(new byte[MAX_KEY_BYTES]).fill(fill);
        if (!shard.tryEnter()) {
            throw new IllegalStateException("fixture shard busy");
        }
        try {
            long link = shard.insertBytes(hash, 0, key, 0, MAX_KEY_BYTES, 1);
            if (link == 0) {
                throw new IllegalStateException("fixture shard full");
            }
            return link;
        } finally {
            shard.exit();
        }
    }

    /**
     * As the owner: deletes the entry of {@code link} and inserts a new 16-byte key {@code fill} x 16, which reuses
     * the freed entry. 1 if it did reuse that entry, 0 otherwise (or if the owner section was busy).
     */
    long replaceWithNewKey(long link, byte fill) {
        if (!shard.tryEnter()) {
            return 0;
        }
        try {
            shard.deleteOwn(ShardLayout.linkEntry(link), ShardLayout.linkGeneration(link));
            long fresh = shard.insertBytes(fill, 0, MemorySegment.ofArray(new byte[MAX_KEY_BYTES]).fill(fill), 0,
                    MAX_KEY_BYTES, 1);
            return ShardLayout.linkEntry(fresh) == ShardLayout.linkEntry(link) ? 1 : 0;
        } finally {
            shard.exit();
        }
    }

    /**
     * As the owner: deletes the entry of {@code link} and inserts the same key again ({@code fill} x 16, the same
     * {@code hash}, the same slot 0), as a key that was evicted and promoted back into its slot would be. Returns
     * the new link (the freed entry is reused if the owner could free it), or 0 if the owner section was busy.
     */
    long reinsertSameKey(long link, byte fill, long hash) {
        if (!shard.tryEnter()) {
            return 0;
        }
        try {
            shard.deleteOwn(ShardLayout.linkEntry(link), ShardLayout.linkGeneration(link));
            return shard.insertBytes(hash, 0, MemorySegment.ofArray(new byte[MAX_KEY_BYTES]).fill(fill), 0,
                    MAX_KEY_BYTES, 1);
        } finally {
            shard.exit();
        }
    }

    /** 1 if the entry of {@code link} is a live member of that link's generation (not marked dead), else 0. */
    long live(long link) {
        long state = stateOf(link);
        return link != 0 && ShardLayout.generation(state) == ShardLayout.linkGeneration(link)
                && (state & (ShardLayout.MEMBER | ShardLayout.DEAD)) == ShardLayout.MEMBER ? 1 : 0;
    }

    /** Runs the owner's drain inside an owner section; false if the section was busy. */
    boolean drain() {
        if (!shard.tryEnter()) {
            return false;
        }
        try {
            shard.drain();
            return true;
        } finally {
            shard.exit();
        }
    }

    /** The foreign deleter: gate, then hand-off. 1 if this call pushed the entry, else 0. */
    long delete(long link) {
        int entry = ShardLayout.linkEntry(link);
        if (!shard.markDead(entry, ShardLayout.linkGeneration(link))) {
            return 0;
        }
        shard.push(entry);
        return 1;
    }

    /** Entry state summary: 1 if freed exactly once (generation + 1, no flags, no references), 0 if still held. */
    long freedOnce(long link) {
        long state = shard.state(ShardLayout.linkEntry(link));
        int gen = ShardLayout.generation(state);
        if (gen == ShardLayout.linkGeneration(link) + 1 && (state & 0xFFFF_FFFFL) == 0) {
            return 1;
        }
        if (gen == ShardLayout.linkGeneration(link)) {
            return 0;
        }
        return 100 + gen - ShardLayout.linkGeneration(link); // freed more than once, or corrupt
    }

    /** The state word of the entry of {@code link} (volatile load). */
    long stateOf(long link) {
        return shard.state(ShardLayout.linkEntry(link));
    }

    /** References held on the entry now. */
    long references(long link) {
        return ShardLayout.references(shard.state(ShardLayout.linkEntry(link)));
    }
}
