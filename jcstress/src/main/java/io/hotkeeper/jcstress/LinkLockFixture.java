package io.hotkeeper.jcstress;

import io.hotkeeper.engine.salt.EvictionSalt;
import io.hotkeeper.engine.shard.KeyShard;
import io.hotkeeper.engine.shard.KeyShards;
import io.hotkeeper.engine.shard.ShardLayout;
import io.hotkeeper.engine.stats.StatsStripes;
import io.hotkeeper.engine.table.BucketTable;
import io.hotkeeper.engine.table.TableLayout;
import io.hotkeeper.engine.worker.WorkerSpace;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One sketch's table and key shards, wired as the facade wires them, for the link-lock tests: a 4 KiB table (64
 * buckets) with promotion floor 1, no combining, a link segment, and key shards of {@link #CAPACITY} entries of
 * 16-byte keys. Actors promote through {@link KeyShards#shardFor} of a worker the test names and
 * {@link KeyShard#promote}: the production protocol, with the shard named by the test (worker 1 = actor 1,
 * worker 2 = actor 2, worker 3 = the arbiter).
 *
 * <p>Cost: one automatic arena per state; shards are cut from one pre-allocated, zeroed block (4 shards), so
 * creating an actor's shard inside the actor is a slice, not a native allocation.
 */
final class LinkLockFixture {
    static final int CAPACITY = 16;
    static final int MAX_KEY_BYTES = 16;
    static final int POOLED_SHARDS = 4;
    /** A weight that surely takes a slot of count 1 or 2 (its geometric trials run far below it). */
    static final long HEAVY = 1L << 20;

    final BucketTable table;
    final KeyShards shards;
    final MemorySegment links;
    final WorkerSpace workers;
    final StatsStripes stats;
    /** Exclusive stats stripes of actor 1, actor 2, the arbiter (the fixture's own, stripe 0, is for set-up). */
    final long worker0;
    final long worker1;
    final long worker2;
    final long worker3;

    private final Arena arena;
    private final MemorySegment pool;
    private int pooled;

    LinkLockFixture() {
        arena = Arena.ofAuto();
        long shardBytes = ShardLayout.shardBytes(CAPACITY, MAX_KEY_BYTES);
        long stride = (shardBytes + ShardLayout.ALIGNMENT - 1) / ShardLayout.ALIGNMENT * ShardLayout.ALIGNMENT;
        pool = arena.allocate(stride * POOLED_SHARDS, ShardLayout.ALIGNMENT);
        workers = new WorkerSpace(4, 1);
        stats = new StatsStripes(arena, workers);
        EvictionSalt salt = new EvictionSalt(arena, 1);
        long tableBytes = (long) TableLayout.BUCKET_BYTES << Fixtures.INDEX_BITS;
        MemorySegment tableSegment = arena.allocate(tableBytes, TableLayout.TABLE_ALIGNMENT);
        links = arena.allocate(tableBytes, TableLayout.TABLE_ALIGNMENT);
        KeyShards[] built = new KeyShards[1];
        table = Fixtures.table(tableSegment, Fixtures.INDEX_BITS, Fixtures.LOTTERY, salt, stats, 1, t -> {
            built[0] = new KeyShards(t, links, workers, stats, CAPACITY, MAX_KEY_BYTES, null, bytes -> {
                // Called under KeyShards' creation lock: one caller at a time.
                if (pooled < POOLED_SHARDS && bytes <= stride) {
                    return pool.asSlice(stride * pooled++, bytes);
                }
                return arena.allocate(bytes, ShardLayout.ALIGNMENT);
            });
            return built[0];
        }, 0);
        shards = built[0];
        worker0 = workers.handleOf(0);
        worker1 = workers.handleOf(1);
        worker2 = workers.handleOf(2);
        worker3 = workers.handleOf(3);
    }

    /** Byte offset of slot {@code slot} of bucket {@code bucket}. */
    static long slotOffset(long bucket, int slot) {
        return TableLayout.slotOffset(bucket << TableLayout.BUCKET_SHIFT, slot);
    }

    /**
     * The facade's path for one {@code long} key as worker {@code as} (whose handle is {@code worker}): observe
     * with {@code weight}, then promote if the table says so. Returns the observe result (flags included).
     */
    long observe(int as, long hash, long key, long weight, long worker) {
        long result = table.observe(hash, weight, worker);
        if ((result & BucketTable.PROMOTE) != 0) {
            shards.shardFor(workers.handleOf(as)).promote(hash, key, null, 0, 0, null, worker);
        }
        return result;
    }

    /**
     * Who tracks the key of {@code hash}: the id of the shard whose live entry its tracked slot links (the entry
     * recording that slot and hash); 0 if its slot is untracked; -1 if the key is not in the table; -2 if the
     * slot is tracked but its link names no such entry.
     */
    long tracker(long hash) {
        long slot = table.findSlot(hash);
        if (slot < 0) {
            return -1;
        }
        long word = table.lvSlot(slot);
        if (!TableLayout.tracked(word)) {
            return 0;
        }
        long link = shards.linkWord(slot);
        KeyShard shard = shardOf(link);
        if (shard == null) {
            return -2;
        }
        int entry = ShardLayout.linkEntry(link);
        long state = shard.state(entry);
        if (ShardLayout.generation(state) != ShardLayout.linkGeneration(link)
                || (state & (ShardLayout.MEMBER | ShardLayout.DEAD)) != ShardLayout.MEMBER
                || shard.recordedSlot(entry) != slot || shard.recordedHash(entry) != hash) {
            return -2;
        }
        return shard.id();
    }

    private KeyShard shardOf(long link) {
        if (link == 0) {
            return null;
        }
        for (KeyShard s : shards.shards()) {
            if (s.id() == ShardLayout.linkShard(link)) {
                return s;
            }
        }
        return null;
    }

    /** A slot carries the link lock (PROMOTING) at quiescence. */
    static final int LOCK_LEFT = 1;
    /** A tracked slot's link is 0 or names a shard that does not exist. */
    static final int NO_LINK = 2;
    /** A tracked slot's link names an entry that is not a live member of that generation (freed, reused, DEAD). */
    static final int DEAD_LINK = 4;
    /** A tracked slot's linked entry records another slot, or a hash of another bucket or fingerprint. */
    static final int WRONG_KEY = 8;
    /** A live entry (MEMBER, not DEAD) whose recorded slot is untracked or links something else. */
    static final int ORPHAN = 16;

    /**
     * The link-lock invariant at quiescence, as a bit set of the violations above (0: it holds): no slot carries
     * PROMOTING; every tracked slot links a live entry whose recorded slot and hash match it; every live entry is
     * linked from its tracked slot (an entry marked DEAD may wait for its owner's reaping).
     */
    int violations() {
        int bad = 0;
        long slots = table.bucketCount() * TableLayout.SLOTS_PER_BUCKET;
        for (long s = 0; s < slots; s++) {
            long slot = s * TableLayout.SLOT_BYTES;
            long word = table.lvSlot(slot);
            if (TableLayout.promoting(word)) {
                bad |= LOCK_LEFT;
            }
            if (!TableLayout.tracked(word)) {
                continue;
            }
            long link = shards.linkWord(slot);
            KeyShard shard = shardOf(link);
            if (shard == null) {
                bad |= NO_LINK;
                continue;
            }
            int entry = ShardLayout.linkEntry(link);
            long state = shard.state(entry);
            if (ShardLayout.generation(state) != ShardLayout.linkGeneration(link)
                    || (state & (ShardLayout.MEMBER | ShardLayout.DEAD)) != ShardLayout.MEMBER) {
                bad |= DEAD_LINK;
                continue;
            }
            long hash = shard.recordedHash(entry);
            if (shard.recordedSlot(entry) != slot || table.fingerprint(hash) != TableLayout.fingerprint(word)
                    || table.bucketOffset(hash) != (slot & ~(TableLayout.BUCKET_BYTES - 1L))) {
                bad |= WRONG_KEY;
            }
        }
        for (KeyShard shard : shards.shards()) {
            for (int e = shard.firstEntry(); e != ShardLayout.NONE; e = shard.nextEntry(e)) {
                long state = shard.state(e);
                if ((state & (ShardLayout.MEMBER | ShardLayout.DEAD)) != ShardLayout.MEMBER) {
                    continue;
                }
                long slot = shard.recordedSlot(e);
                if (!TableLayout.tracked(table.lvSlot(slot))
                        || shards.linkWord(slot) != ShardLayout.link(shard.id(), e, ShardLayout.generation(state))) {
                    bad |= ORPHAN;
                }
            }
        }
        return bad;
    }

    /**
     * A key whose characters take time to read: {@code charAt} busy-waits about {@code nanosPerChar}. A caller's
     * {@code CharSequence} is user code and may be this slow; here it holds a promoter between its claim and its
     * link store long enough for another actor's whole observe-and-promote to fit in, so that the race the link
     * lock exists for is met often rather than once in millions of samples.
     */
    static final class SlowKey implements CharSequence {
        private final String text;
        private final long nanosPerChar;

        SlowKey(String text, long nanosPerChar) {
            this.text = text;
            this.nanosPerChar = nanosPerChar;
        }

        @Override
        public int length() {
            return text.length();
        }

        @Override
        public char charAt(int index) {
            long until = System.nanoTime() + nanosPerChar;
            while (System.nanoTime() < until) {
                Thread.onSpinWait();
            }
            return text.charAt(index);
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            return text.subSequence(start, end);
        }

        @Override
        public String toString() {
            return text;
        }
    }
}
