package io.hotkeeper.engine.shard;

import io.hotkeeper.engine.ExpelledKeyListener;
import io.hotkeeper.engine.HeavyHitter;
import io.hotkeeper.engine.stats.StatsLayout;
import io.hotkeeper.engine.stats.StatsStripes;
import io.hotkeeper.engine.table.BucketTable;
import io.hotkeeper.engine.table.SlotLinks;
import io.hotkeeper.engine.table.TableLayout;
import io.hotkeeper.engine.table.TrackedSlots;
import io.hotkeeper.engine.worker.WorkerAssignment;
import io.hotkeeper.engine.worker.WorkerHandle;
import io.hotkeeper.engine.worker.WorkerSpace;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.LongConsumer;
import java.util.function.LongFunction;

/**
 * The key shards of one sketch: one {@link KeyShard} per worker (platform thread or carrier), the link segment that
 * ties each table slot to the entry holding its key, and the table's side of the protocols between them: which shard a
 * worker promotes into ({@link #shardFor}; the promotion step itself is {@link KeyShard#promote}), foreign deletion (a
 * tracked slot is replaced), the SIEVE visit, and the top-k read.
 *
 * <p>The slot-link protocol (the link lock, the Dekker pair between a promoter and a replacer, every change of a
 * slot's tracked and promoting bits) is {@link SlotLinks}'; this class and KeyShard decide when each step runs and
 * keep the shards' side (entries, hand-offs, the expelled-key listener). A replaced key's entry is deleted once: by
 * the replacer through the hand-off, or by the promoter itself, both through the shard's membership gate.
 *
 * <p>Threads: any. Progress: deletion is lock-free (a CAS loop on one state word) plus a wait-free push;
 * {@link #topK} is wait-free; promotion is as {@link KeyShard#promote} says (lock-free).
 *
 * <p>Size: the shards of one table and the table's side of the link protocol (untrack, replace, visit, the
 * evictions the shards ask for), which must be read together against docs/shards.md "The rules"; the per-shard
 * owner logic and the promotion step live in KeyShard.
 */
public final class KeyShards implements TrackedSlots, KeyShard.Evictions {
    private final BucketTable table;
    private final SlotLinks slotLinks;
    /** The sketch's workers: the caller's worker when it was not handed one (see {@link #shardFor}). */
    private final WorkerSpace workers;
    private final StatsStripes stats;
    private final int capacity;
    /** Bytes of each shard segment. */
    private final long shardBytes;
    /** Bytes of each shard's inbox cells (0: none, each worker has its own shard or drops what finds it busy). */
    private final long inboxBytes;
    /** Most shards (a memory budget), or 0: one per worker. */
    private final int shardLimit;
    /** Which of the {@link #shardLimit} shards each worker uses; null when each worker has its own. */
    private final WorkerAssignment assignment;
    private final int maxKeyBytes;
    /** Null when no listener was given. */
    private final ExpelledKeys expelledKeys;
    private final AtomicReferenceArray<KeyShard> shards;
    private final LongFunction<MemorySegment> shardAllocator;
    private final PendingCounts pendingCounts;

    /**
     * Key shards for {@code table}: links in {@code links} (owned by the caller's arena), shards of at most
     * {@code capacity} entries with room for that many keys of any length up to {@code maxKeyBytes}
     * ({@link ShardLayout#shardBytes}), each allocated by {@code shardAllocator} (bytes -> zeroed segment, 128-byte
     * aligned) when its worker first promotes a key; workers of {@code workers}, counted in {@code stats}.
     */
    public KeyShards(BucketTable table, MemorySegment links, WorkerSpace workers, StatsStripes stats, int capacity,
                     int maxKeyBytes, ExpelledKeyListener listener, LongFunction<MemorySegment> shardAllocator) {
        this(table, links, workers, stats, capacity, ShardLayout.shardBytes(capacity, maxKeyBytes), 0, 0, maxKeyBytes,
                listener == null ? null : new ExpelledKeys(listener), shardAllocator, PendingCounts.NONE);
    }

    /**
     * As above; {@link #topK} adds {@code pendingCounts.pending(hash)} to each tracked key's table count (the
     * hot-key combiners' counts not yet in the table) and ranks by the sum. {@code shardLimit > 0} bounds the
     * shards (a memory budget): each worker is given one of them when it first promotes, the one with the fewest
     * workers in use ({@link WorkerAssignment}), shared with the other workers given it one at a time through the
     * shard's busy gate, exactly as workers whose id is past the last regular shard share the overflow shards;
     * {@code 0} gives each worker its own. Each shard is a segment of {@code shardBytes} (pages of size-classed
     * entries, {@link ShardLayout}) with at most {@code capacity} entries in use. {@code inboxBytes > 0} gives each
     * shard a second segment of that many bytes for inbox cells ({@link PromotionInbox}: promotions that find the
     * shard busy wait there for its next owner), for shards that several workers share; 0 gives none.
     */
    public KeyShards(BucketTable table, MemorySegment links, WorkerSpace workers, StatsStripes stats, int capacity,
                     long shardBytes, int shardLimit, long inboxBytes,
                     int maxKeyBytes, ExpelledKeys expelledKeys, LongFunction<MemorySegment> shardAllocator,
                     PendingCounts pendingCounts) {
        // The assignment's bound (a byte per stripe); the plan gives at most 8, far below the regular shards.
        if (shardLimit < 0 || shardLimit > WorkerAssignment.MAX_CHOICES) {
            throw new IllegalArgumentException("shardLimit=" + shardLimit + ": must be in 0.."
                    + WorkerAssignment.MAX_CHOICES);
        }
        this.table = table;
        this.slotLinks = new SlotLinks(table, links);
        this.workers = workers;
        this.stats = stats;
        if (ShardLayout.pagesIn(shardBytes, maxKeyBytes) < 1) {
            throw new IllegalArgumentException("shardBytes=" + shardBytes + ": must hold one page, "
                    + ShardLayout.shardBytesForPages(1, maxKeyBytes) + " bytes");
        }
        if (inboxBytes < 0 || inboxBytes > 0 && (inboxBytes < ShardLayout.inboxCellBytes(maxKeyBytes)
                || inboxBytes > ShardLayout.MAX_INBOX_CELLS * ShardLayout.inboxCellBytes(maxKeyBytes))) {
            throw new IllegalArgumentException("inboxBytes=" + inboxBytes + ": must be 0 or hold 1.."
                    + ShardLayout.MAX_INBOX_CELLS + " cells of " + ShardLayout.inboxCellBytes(maxKeyBytes));
        }
        this.capacity = capacity;
        this.shardBytes = shardBytes;
        this.inboxBytes = inboxBytes;
        this.shardLimit = shardLimit;
        this.assignment = shardLimit > 0 ? new WorkerAssignment(shardLimit, workers) : null;
        this.maxKeyBytes = maxKeyBytes;
        this.expelledKeys = expelledKeys;
        this.shards = new AtomicReferenceArray<>(ShardLayout.MAX_SHARDS);
        this.shardAllocator = shardAllocator;
        this.pendingCounts = pendingCounts;
    }

    // ------------------------------------------------------------------ which shard

    /**
     * The key shard of {@code worker} ({@link WorkerHandle}), created if it does not exist yet: the shard whose
     * {@link KeyShard#promote} records that worker's keys. {@link WorkerHandle#NO_HANDLE} is the calling thread's
     * worker, looked up here (the caller's observation needed no worker until now). The facade passes the caller's
     * own worker; a test may name another (a jcstress actor owns a shard that a fixture filled before it ran).
     * Threads: any. Progress: blocking the first time for a worker (creation takes a lock), wait-free after.
     */
    public KeyShard shardFor(long worker) {
        int id = shardOf(worker != WorkerHandle.NO_HANDLE ? worker : workers.current());
        KeyShard shard = shards.get(id);
        return shard != null ? shard : create(id);
    }

    /** The index of the calling thread's shard (see {@link #shardOf}), or -1 if it was given none yet. */
    private int currentShard() {
        long worker = workers.current();
        return assignment != null ? assignment.assigned(worker) : shardOf(worker);
    }

    /** Shards shared, through the busy gate, by workers without a shard of their own (see {@link #shardOf}). */
    private static final int OVERFLOW_SHARDS = 64;
    /** Shards indexed by a worker id: ids below this have one of their own. */
    private static final int REGULAR_SHARDS = ShardLayout.MAX_SHARDS - OVERFLOW_SHARDS;

    /**
     * The index of the shard of {@code worker}: under a shard limit, the one {@link WorkerAssignment} gives it;
     * otherwise its id ({@link WorkerHandle#id(long)}), or, for an id past the last regular shard (more than 4,032
     * live platform threads, or a virtual thread whose carrier is not visible because {@code jdk.internal.misc} is
     * not exported), one of the last 64 shards, hashed. Such a shard has several owners in turn; the busy word still
     * admits one at a time, so the owner-only rules hold per operation.
     */
    private int shardOf(long worker) {
        if (assignment != null) {
            return assignment.of(worker);
        }
        int id = WorkerHandle.id(worker);
        return id < REGULAR_SHARDS ? id : REGULAR_SHARDS + Math.floorMod(id * 0x9E3779B9, OVERFLOW_SHARDS);
    }

    private synchronized KeyShard create(int id) {
        KeyShard shard = shards.get(id);
        if (shard == null) {
            MemorySegment segment = shardAllocator.apply(shardBytes);
            MemorySegment cells = inboxBytes > 0 ? shardAllocator.apply(inboxBytes) : null;
            shard = new KeyShard(id, segment, capacity, maxKeyBytes, this, slotLinks, stats, cells);
            shards.set(id, shard); // volatile store publishes the initialised shard
        }
        return shard;
    }

    @Override
    public long trackedCount(KeyShard shard, int entry, long link) {
        long slot = shard.recordedSlot(entry);
        long word = table.lvSlot(slot);
        if (!TableLayout.tracked(word) || TableLayout.fingerprint(word) != table.fingerprint(shard.recordedHash(entry))
                || slotLinks.linkVolatile(slot) != link) {
            return 0; // a stale entry: its slot moved on; evicting it costs nothing
        }
        return TableLayout.count(word);
    }

    /** Raises the floor above {@code count}, as decided from counts read now. */
    @Override
    public void rejected(long count) {
        table.raisePromotionFloor(count + 1);
    }

    @Override
    public long rescales() {
        return table.rescales();
    }

    /** Raises the floor above {@code count}, unless the table was rescaled since {@code rescales} was read. */
    @Override
    public void rejected(long count, long rescales) {
        table.raisePromotionFloor(count + 1, rescales);
    }

    @Override
    public void roomMade() {
        table.lowerPromotionFloor();
    }

    @Override
    public void evicting(KeyShard shard, int entry, long link) {
        slotLinks.untrack(shard.recordedSlot(entry), shard.recordedHash(entry), link);
    }

    // ------------------------------------------------------------------ deletion

    @Override
    public boolean replaced(long slotOffset, long oldWord, boolean lockHeld) {
        // SlotLinks: the victim's link, read volatile; with the lock held, cleared and the lock given back.
        long link = slotLinks.takeVictimLink(slotOffset, lockHeld);
        if (link == 0) {
            return false;
        }
        KeyShard shard = shards.get(ShardLayout.linkShard(link));
        if (shard == null) {
            return false;
        }
        int entry = ShardLayout.linkEntry(link);
        if (!shard.markDead(entry, ShardLayout.linkGeneration(link))) {
            return false; // gate closed: another deleter got it, or the owner unlinked it, or a stale link
        }
        // We hold a reference now: the entry cannot be freed or reused until the owner pops our hand-off.
        HeavyHitter expelled = expelledKeys == null ? null : shard.readHeldKey(entry, TableLayout.count(oldWord));
        shard.push(entry);
        if (stats.recording()) {
            stats.add(workers.current(), StatsLayout.HAND_OFFS, 1); // the worker lookup only when counting
        }
        if (expelled == null) {
            return false;
        }
        // Not the listener itself: we may be inside a combiner's block (see ExpelledKeys).
        expelledKeys.queue(expelled);
        return true;
    }

    /**
     * Hands the keys this thread expelled to the listener (see {@link ExpelledKeys}); the facade calls it when an
     * observation's result carries {@link BucketTable#EXPELLED}. Threads: any. Progress: as the listener.
     */
    public void deliverExpelled() {
        if (expelledKeys != null) {
            expelledKeys.deliver();
        }
    }

    /** Marks the entry of the tracked key of {@code hash} visited (SIEVE). Threads: any. Progress: wait-free. */
    public void visit(long hash) {
        long slot = table.findSlot(hash);
        if (slot < 0) {
            return;
        }
        long link = slotLinks.linkOpaque(slot);
        KeyShard shard = link == 0 ? null : shards.get(ShardLayout.linkShard(link));
        if (shard != null) {
            shard.visit(ShardLayout.linkEntry(link), ShardLayout.linkGeneration(link));
        }
    }

    /**
     * Lets the calling worker reap what was handed to its shard, and carry out the promotions other workers
     * left in its inbox while it was busy, for an owner that promotes nothing for a while (an idle thread calls it
     * from its own loop, an ingest thread at its end). Threads: the caller acts on its own shard only. Progress:
     * wait-free (skips a busy shard).
     */
    public void drainCurrent() {
        int index = currentShard();
        KeyShard shard = index < 0 ? null : shards.get(index);
        if (shard != null && shard.tryEnter()) {
            try {
                shard.drain();
                shard.takeInbox(workers.current());
            } finally {
                shard.exit();
            }
        }
    }

    // ------------------------------------------------------------------ queries

    /**
     * The {@code n} tracked keys with the highest estimates, highest first (ties by the lower hash of the whole
     * key, as across several tables). Consistency: each returned key held
     * a tracked slot when it was read and its estimate is that slot's count at that moment; the scan is not one
     * atomic snapshot, so a key promoted or replaced during the call may be missing or included.
     *
     * <p>Threads: any; never stops observers, never reads another shard's links. Progress: wait-free.
     */
    public List<HeavyHitter> topK(int n) {
        List<HeavyHitter> out = new ArrayList<>();
        for (Row row : ranked(n)) {
            out.add(row.hitter());
        }
        return out;
    }

    /**
     * Whether the key of {@code hash} is one of the keys {@link #topK topK(n)} lists: the same ranking (estimate,
     * then the lower hash on a tie), so that {@code contains} agrees with {@code topK} even where keys tie at the
     * {@code n}-th estimate or pending combined counts lift a key past another. Threads: any. Progress: wait-free.
     */
    public boolean ranks(long hash, int n) {
        for (Row row : ranked(n)) {
            if (row.hash() == hash) {
                return true;
            }
        }
        return false;
    }

    /** A resolved key of {@link #ranked}: its row and its whole key's hash. */
    private record Row(HeavyHitter hitter, long hash) {
    }

    /** The {@code n} heaviest tracked keys, highest estimate first, ties by the lower hash. */
    private List<Row> ranked(int n) {
        long slots = table.bucketCount() * TableLayout.SLOTS_PER_BUCKET;
        int want = (int) Math.min(Math.max(n, 0), slots);
        if (want == 0) {
            return new ArrayList<>();
        }
        int candidates = (int) Math.min(want + 16L, slots);
        for (; ; candidates = (int) Math.min(2L * candidates, slots)) {
            TopCounts top = new TopCounts(candidates);
            long tracked = scanTracked(top);
            List<Row> out = new ArrayList<>();
            boolean settled = resolve(top, want, out);
            if (settled || tracked <= candidates || candidates == slots) {
                out.sort((a, b) -> a.hitter().estimate() != b.hitter().estimate()
                        ? Long.compare(b.hitter().estimate(), a.hitter().estimate()) : Long.compare(a.hash(), b.hash()));
                return out.size() > want ? new ArrayList<>(out.subList(0, want)) : out;
            }
        }
    }

    /**
     * Resolves the candidates in descending order of table count into {@code out} (estimate = table count +
     * pending count). Returns true once {@code want} keys are resolved and no further candidate, nor any key
     * outside the candidates, can reach the {@code want}-th estimate: its table count is at most the next
     * candidate's, and its pending count at most {@link PendingCounts#bound()}.
     */
    private boolean resolve(TopCounts top, int want, List<Row> out) {
        long slack = pendingCounts.bound();
        // The want highest estimates so far (a min-heap): its head is the estimate a latecomer must beat.
        PriorityQueue<Long> best = new PriorityQueue<>();
        Set<Long> hashes = new HashSet<>();
        for (long packed : top.descending()) {
            if (best.size() >= want && TopCounts.count(packed) + slack < best.peek()) {
                return true;
            }
            long slot = TopCounts.index(packed) * TableLayout.SLOT_BYTES;
            // Acquire: pairs with the promoter's volatile store of the link.
            long link = slotLinks.linkAcquire(slot);
            KeyShard shard = link == 0 ? null : shards.get(ShardLayout.linkShard(link));
            if (shard == null) {
                continue;
            }
            KeyShard.Key key = shard.readKey(ShardLayout.linkEntry(link), ShardLayout.linkGeneration(link));
            if (key == null || !table.candidate(key.hash(), slot & ~(TableLayout.BUCKET_BYTES - 1L))) {
                continue;
            }
            long word = table.lvSlot(slot);
            if (!TableLayout.tracked(word) || TableLayout.fingerprint(word) != table.fingerprint(key.hash())
                    || !hashes.add(key.hash())) {
                continue;
            }
            // The table's count (read with the volatile load above) first, then the combiners' pending counts.
            long estimate = TableLayout.count(word) + pendingCounts.pending(key.hash());
            out.add(new Row(new HeavyHitter(key.bytes(), estimate, key.truncated(), key.kind()), key.hash()));
            best.add(estimate);
            if (best.size() > want) {
                best.poll();
            }
        }
        return false;
    }

    /**
     * Offers every tracked slot to {@code top}; returns how many slots are tracked. It walks the shards' entries
     * rather than the table: a tracked slot is linked from exactly one live entry, and the entries in use are far
     * fewer than the table's slots (a 1 MiB table has 131,072 slots; its shards typically a few thousand
     * entries). Each live entry's recorded slot is read from the table and counted only if it is tracked, holds
     * the entry's fingerprint and links back to this very entry. No link pointer of any shard is read.
     */
    private long scanTracked(TopCounts top) {
        long tracked = 0;
        long floor = top.admissionFloor();
        for (int id = 0; id < shards.length(); id++) {
            KeyShard shard = shards.get(id);
            if (shard == null) {
                continue;
            }
            for (int entry = shard.firstEntry(); entry != ShardLayout.NONE; entry = shard.nextEntry(entry)) {
                long state = shard.state(entry);
                if ((state & (ShardLayout.MEMBER | ShardLayout.DEAD)) != ShardLayout.MEMBER) {
                    continue;
                }
                long slot = shard.recordedSlot(entry);
                long word = table.loSlot(slot);
                if (!TableLayout.tracked(word)
                        || TableLayout.fingerprint(word) != table.fingerprint(shard.recordedHash(entry))
                        || slotLinks.linkOpaque(slot)
                        != ShardLayout.link(id, entry, ShardLayout.generation(state))) {
                    continue;
                }
                tracked++;
                long count = TableLayout.count(word);
                if (count >= floor) {
                    top.offer(count, slot / TableLayout.SLOT_BYTES);
                    floor = top.admissionFloor();
                }
            }
        }
        return tracked;
    }

    /**
     * Hands {@code sink} the hash recorded in every member entry of every shard: each key these shards hold, plus
     * at most the entries a concurrent replacement or reset is about to delete (a caller that needs a tracked key
     * validates it with {@link #trackedKey}). No table word and no link is read: a walk over the entries only,
     * for the merged top-k of several tables. Threads: any. Progress: wait-free (bounded by the entries).
     */
    public void memberHashes(LongConsumer sink) {
        for (int id = 0; id < shards.length(); id++) {
            KeyShard shard = shards.get(id);
            if (shard == null) {
                continue;
            }
            for (int entry = shard.firstEntry(); entry != ShardLayout.NONE; entry = shard.nextEntry(entry)) {
                if ((shard.state(entry) & (ShardLayout.MEMBER | ShardLayout.DEAD)) == ShardLayout.MEMBER) {
                    sink.accept(shard.recordedHash(entry));
                }
            }
        }
    }

    /**
     * The key of {@code hash} if it holds a tracked slot of this table now, else null: the slot of its fingerprint
     * (volatile loads), its link (acquire: pairs with the promoter's volatile store of the link), the linked
     * entry's key copied out (KeyShard.readKey checks the generation), kept only if the entry's hash is
     * {@code hash} and the slot, re-read (volatile), is still tracked. Threads: any. Progress: wait-free.
     */
    public KeyShard.Key trackedKey(long hash) {
        long slot = table.findSlot(hash);
        if (slot < 0) {
            return null;
        }
        long link = slotLinks.linkAcquire(slot);
        KeyShard shard = link == 0 ? null : shards.get(ShardLayout.linkShard(link));
        if (shard == null) {
            return null;
        }
        KeyShard.Key key = shard.readKey(ShardLayout.linkEntry(link), ShardLayout.linkGeneration(link));
        if (key == null || key.hash() != hash) {
            return null;
        }
        long word = table.lvSlot(slot);
        return TableLayout.tracked(word) && TableLayout.fingerprint(word) == table.fingerprint(hash) ? key : null;
    }

    /** The table slot word at byte offset {@code slot} (tests, diagnostics). Threads: any. Progress: wait-free. */
    public long slotWord(long slot) {
        return table.lvSlot(slot);
    }

    /** The link segment and every shard segment (tests: all must die with the arena). Threads: any. */
    public List<MemorySegment> regions() {
        List<MemorySegment> out = new ArrayList<>();
        out.add(slotLinks.segment());
        for (KeyShard s : shards()) {
            out.add(s.segment());
        }
        return out;
    }

    /** Shards created so far. Threads: any. Progress: wait-free. */
    public int shardCount() {
        int n = 0;
        for (int i = 0; i < shards.length(); i++) {
            if (shards.get(i) != null) {
                n++;
            }
        }
        return n;
    }

    /** All shards created so far (diagnostics, tests). Threads: any. Progress: wait-free. */
    public List<KeyShard> shards() {
        List<KeyShard> out = new ArrayList<>();
        for (int i = 0; i < shards.length(); i++) {
            KeyShard s = shards.get(i);
            if (s != null) {
                out.add(s);
            }
        }
        return out;
    }

    /** Native bytes of the link segment and all shards. Threads: any. Progress: wait-free. */
    public long byteSize() {
        long total = slotLinks.segment().byteSize();
        for (KeyShard s : shards()) {
            total += s.byteSize();
        }
        return total;
    }

    /** Most entries in use per shard. Threads: any. Progress: wait-free. */
    public int capacity() {
        return capacity;
    }

    /** Bytes of each shard segment. Threads: any. Progress: wait-free. */
    public long shardBytes() {
        return shardBytes;
    }

    /** Longest key stored whole. Threads: any. Progress: wait-free. */
    public int maxKeyBytes() {
        return maxKeyBytes;
    }

    // ------------------------------------------------------------------ integrity (ShardIntegrity)

    /** The table these shards track (integrity checks, tests). Threads: any. Progress: wait-free. */
    public BucketTable table() {
        return table;
    }

    /**
     * The link word of the slot at byte offset {@code slot} (0 = none; integrity checks, tests). Threads: any.
     * Progress: wait-free.
     */
    public long linkWord(long slot) {
        return slotLinks.linkVolatile(slot);
    }

    /** The slot-link protocol of this table's slots (a reset's clear uses it). Threads: any. Progress: wait-free. */
    public SlotLinks slotLinks() {
        return slotLinks;
    }
}
