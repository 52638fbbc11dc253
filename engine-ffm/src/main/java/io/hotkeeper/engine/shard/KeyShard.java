package io.hotkeeper.engine.shard;

import io.hotkeeper.engine.stats.StatsLayout;
import io.hotkeeper.engine.stats.StatsStripes;
import io.hotkeeper.engine.table.SlotLinks;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

import static io.hotkeeper.engine.shard.ShardLayout.DEAD;
import static io.hotkeeper.engine.shard.ShardLayout.MEMBER;
import static io.hotkeeper.engine.shard.ShardLayout.NONE;
import static io.hotkeeper.engine.shard.ShardLayout.NOT_YET;
import static io.hotkeeper.engine.shard.ShardLayout.REF;
import static io.hotkeeper.engine.shard.ShardLayout.REF_MASK;
import static io.hotkeeper.engine.shard.ShardLayout.VISITED;

/**
 * One key shard: the real keys of tracked entries, owned by one worker (a platform thread, or a carrier for
 * virtual threads), in one native segment.
 *
 * <p>Ownership rules (docs/shards.md): only the owner inserts, walks and unlinks, between {@link #tryEnter()}
 * and {@link #exit()}; the owner path takes no lock (the busy word is a CAS on a line only the owner's
 * threads touch, and it exists so that virtual threads taking turns on one carrier can never interleave inside
 * the shard, even if one were unmounted mid-call). Foreign threads never read or write the SIEVE or free-list
 * links: they only CAS the state word ({@link #markDead}, {@link #visit}), push on the hand-off stack
 * ({@link #push}), and read an entry's immutable fields under a generation check ({@link #readKey}).
 *
 * <p>Happens-before: the owner writes an entry's hash, slot and key, then publishes the state word with a
 * release store; a reader's acquire load of the state word that sees the new generation and MEMBER sees the
 * key. The key's length and kind are in that state word itself (ShardLayout), so a reader takes them from the
 * very load it validates, and every later CAS on the word (visit, markDead, unlink, release) keeps them. A pusher's release store of the stack link pairs with the owner's acquire load in {@link #drain()}.
 * {@code exit()}'s release store of the busy word pairs with the next owner's CAS in {@code tryEnter()}, so a
 * new owner (the next virtual thread on the carrier, or a thread adopting a dead thread's id) sees every
 * owner-only field the previous owner wrote.
 */
/*
 * Design (per-loop affinity; SIEVE, Zhang et al., NSDI 2024):
 *  1. Foreign deletion is mark + hand-off: the deleter CASes the state word from (gen, MEMBER, !DEAD) to
 *     (gen, MEMBER | DEAD, refs + 1) -- the membership gate, the mark and its own reference in one CAS, so a
 *     second deleter, or a deleter after the owner unlinked, fails the gate and pushes nothing -- then pushes
 *     the exact entry on the MPSC stack with one getAndSet (wait-free; the link is written right after, the
 *     window JCTools' MpscLinkedQueue documents). Nobody scans for dead entries.
 *  2. The owner drains the whole stack with one getAndSet at its next operation. A chain whose next link is
 *     still NOT_YET is parked in PENDING and resumed later: the owner never spins on a producer.
 *  3. Every insert also advances a reap cursor over two entries, unlinking any marked entry it meets, so a
 *     zombie's lifetime is bounded by the owner's operations even when its hand-off is parked.
 *  4. References: the shard holds one while MEMBER, each push holds one until the owner pops it; an entry is
 *     freed (generation + 1) only when both are gone, so a popped entry was never reused under the pusher.
 *  5. When full, the shard evicts one of its own entries with SIEVE: the hand walks from the oldest entry
 *     towards the newest, clearing VISITED bits, and evicts the first unvisited entry whose slot counts less
 *     than the candidate's. It moves past up to EVICTION_EXAMINE_LIMIT heavier unvisited entries (so it never
 *     parks on a heavy key that is no longer observed); after that the candidate is turned away and the
 *     promotion floor rises above it. An entry reaped because its key left the table lowers the floor again;
 *     reset, decay and a window's rotation scale it with the counts (BucketTable.rescalePromotionFloor).
 *     Shards never evict for each other, so a busy worker owns a proportionally larger share.
 *  6. Entries follow their keys: a key takes the smallest size class that holds it (8, 16, 24, 32, 48, ... key bytes),
 *     in pages that each serve one class for good (ShardLayout). An entry never moves or changes size, so a
 *     stale link always names a state word, never the middle of another entry's key bytes; a freed entry is
 *     reused by its class, or by a smaller key when that class has no room, at the same position and size.
 *     Eviction for room (not for the entry count) takes only a victim of the needed class or larger.
 *  7. A shard that several workers share (a memory budget) has inbox cells: a promotion that finds it busy
 *     waits in one for the next owner instead of being dropped (PromotionInbox), so a key whose whole run comes
 *     while another worker holds the shard is still tracked.
 *
 * <p>Size: one class on purpose. Every method but the few foreign entry points touches the owner-only state (the
 * SIEVE list, the per-class free lists and pages, the reap cursor), and the ownership rules of docs/shards.md are
 * checked by reading this one file; the layout arithmetic lives in ShardLayout. The promotion step is here too
 * (enter, claim, insert, settle), so that an observation is followed from the facade through the table to the
 * key in three files; the slot word's bits and the link word it calls on are SlotLinks'.
 */
public final class KeyShard {
    /** Coordinates (MemorySegment, long byteOffset). */
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();

    /** What the shard asks of the table side when it is full. Called by the owner. */
    public interface Evictions {
        /** The current count of the table slot an entry tracks, or 0 if the slot no longer links it. */
        long trackedCount(KeyShard shard, int entry, long link);

        /** A candidate with {@code count} was turned away: a heavier entry would have been evicted for it. */
        void rejected(long count);

        /**
         * The table's rescale count ({@code BucketTable.rescales}), read before the counts a rejection is decided
         * from. Default: 0, for shards with no table behind them.
         */
        default long rescales() {
            return 0;
        }

        /**
         * As {@link #rejected(long)}, decided from counts read after {@link #rescales()} returned {@code rescales}:
         * if the table's counts were rescaled since (reset, decay, a window's rotation), the raise does not stand.
         * Default: {@link #rejected(long)}.
         */
        default void rejected(long count, long rescales) {
            rejected(count);
        }

        /** Untracks the table slot of an entry that is about to be deleted. */
        void evicting(KeyShard shard, int entry, long link);

        /** An entry whose key left the table was reaped: the shard has room again, so the floor may fall. */
        void roomMade();
    }

    /**
     * How many unvisited entries heavier than a candidate the SIEVE hand passes before the candidate is turned
     * away. The hand moves on past each of them, so it never parks on one heavy entry that is no longer observed
     * (which would turn away every lighter candidate while lighter entries sit elsewhere in the shard).
     */
    static final int EVICTION_EXAMINE_LIMIT = 8;

    private final int id;
    private final MemorySegment segment;
    private final int capacity;
    private final int maxKeyBytes;
    private final Evictions evictions;
    /** The table side of a promotion (the slot-link protocol); null for a shard with no table behind it. */
    private final SlotLinks slotLinks;
    /** Where promotions and missed promotions are counted; null when slotLinks is. */
    private final StatsStripes stats;
    /** Promotions that found this shard busy, for its next owner; null unless several workers share it. */
    private final PromotionInbox inbox;
    /** Size classes; the largest is {@code classes - 1}. */
    private final int classes;
    private final int pageBytes;
    private final int pages;
    private final long pagesOffset;
    /** Per class: key bytes, entry bytes, entries per page. */
    private final int[] classKeyBytes;
    private final int[] classEntryBytes;
    private final int[] classPerPage;

    /**
     * A shard over a zeroed segment: as many pages as the segment holds ({@link ShardLayout#pagesIn}), and at most
     * {@code capacity} entries in use at once (members and zombies; at most one per table slot, or what a test
     * wants). The largest class gets page 0 now. Threads: the creator, before publishing the shard.
     *
     * @throws IllegalArgumentException if the segment holds no page, or {@code capacity} or {@code maxKeyBytes} is
     *                                  out of range
     */
    public KeyShard(int id, MemorySegment segment, int capacity, int maxKeyBytes, Evictions evictions) {
        this(id, segment, capacity, maxKeyBytes, evictions, null, null);
    }

    /**
     * As above, for the table behind {@code slotLinks}: the shard can also {@link #promote} keys, and counts its
     * promotions in {@code stats}. Threads: the creator, before publishing the shard.
     *
     * @throws IllegalArgumentException as above, or if only one of {@code slotLinks} and {@code stats} is given
     */
    public KeyShard(int id, MemorySegment segment, int capacity, int maxKeyBytes, Evictions evictions,
                    SlotLinks slotLinks, StatsStripes stats) {
        this(id, segment, capacity, maxKeyBytes, evictions, slotLinks, stats, null);
    }

    /**
     * As above, for a shard that several workers share: {@code inbox} (a zeroed segment of 1 to
     * {@link ShardLayout#MAX_INBOX_CELLS} inbox cells, {@link PromotionInbox}) keeps the promotions that find
     * the shard busy for its next owner; null drops them, as a shard of one worker does. Threads: the creator,
     * before publishing the shard.
     *
     * @throws IllegalArgumentException as above, or if {@code inbox} is given without a table or holds no cell
     */
    public KeyShard(int id, MemorySegment segment, int capacity, int maxKeyBytes, Evictions evictions,
                    SlotLinks slotLinks, StatsStripes stats, MemorySegment inbox) {
        if ((slotLinks == null) != (stats == null)) {
            throw new IllegalArgumentException("slotLinks=" + slotLinks + ", stats=" + stats
                    + ": a shard with a table behind it needs both, one without neither");
        }
        if (inbox != null && slotLinks == null) {
            throw new IllegalArgumentException("inbox cells need a table behind the shard");
        }
        this.id = id;
        this.slotLinks = slotLinks;
        this.stats = stats;
        this.inbox = inbox == null ? null : new PromotionInbox(inbox, maxKeyBytes);
        this.segment = segment;
        this.capacity = capacity;
        this.maxKeyBytes = maxKeyBytes;
        this.evictions = evictions;
        this.classes = ShardLayout.classes(maxKeyBytes);
        this.pageBytes = ShardLayout.pageBytes(maxKeyBytes);
        this.pages = ShardLayout.pagesIn(segment.byteSize(), maxKeyBytes);
        this.pagesOffset = ShardLayout.pagesOffset(pages);
        if (pages < 1) {
            throw new IllegalArgumentException("shard segment: size=" + segment.byteSize() + ": must be >= "
                    + ShardLayout.shardBytesForPages(1, maxKeyBytes) + " (one page)");
        }
        if (capacity < 1 || capacity > ShardLayout.MAX_ENTRIES) {
            throw new IllegalArgumentException("capacity=" + capacity + ": must be in 1.." + ShardLayout.MAX_ENTRIES);
        }
        this.classKeyBytes = new int[classes];
        this.classEntryBytes = new int[classes];
        this.classPerPage = new int[classes];
        for (int c = 0; c < classes; c++) {
            classKeyBytes[c] = ShardLayout.classKeyBytes(c, maxKeyBytes);
            classEntryBytes[c] = ShardLayout.entryBytes(c, maxKeyBytes);
            classPerPage[c] = ShardLayout.entriesPerPage(c, maxKeyBytes);
        }
        for (long field : new long[] {ShardLayout.SIEVE_HEAD, ShardLayout.SIEVE_TAIL, ShardLayout.SIEVE_HAND,
                ShardLayout.PENDING, ShardLayout.REAP_CURSOR}) {
            LONG.set(segment, field, (long) NONE);
        }
        for (int c = 0; c < ShardLayout.MAX_CLASSES; c++) {
            INT.set(segment, ShardLayout.freeHead(c), NONE);
            INT.set(segment, ShardLayout.bump(c), NONE);
        }
        LONG.set(segment, ShardLayout.STACK_HEAD, (long) NONE);
        // The largest class always has a page, so a key of any length has entries it may take or evict.
        assignPage(classes - 1);
        // Publication of these plain stores: the shard reaches other threads through a volatile array slot.
    }

    /** The shard's index among its key shards (for a regular shard, its worker's id). Threads: any. Progress: wait-free. */
    public int id() {
        return id;
    }

    /** Most entries in use at once. Threads: any. Progress: wait-free. */
    public int capacity() {
        return capacity;
    }

    /** Pages of the shard. Threads: any. Progress: wait-free. */
    public int pages() {
        return pages;
    }

    /** Size classes of the shard. Threads: any. Progress: wait-free. */
    public int classes() {
        return classes;
    }

    /** The shard's segment (diagnostics). Threads: any. Progress: wait-free. */
    public MemorySegment segment() {
        return segment;
    }

    /** Bytes of native memory. Threads: any. Progress: wait-free. */
    public long byteSize() {
        return segment.byteSize();
    }

    // ------------------------------------------------------------------ promotion

    /**
     * Whether a promotion of a key stored in at least {@code keyBytes} bytes, whose slot counts {@code count}, would
     * be turned away by its class's own floor (the class has no room and its last walk met only heavier entries
     * large enough for it: {@link #sieveEvict}); the caller then skips {@link #promote}, as the table skips a count
     * below its floor. A class's floor stands for every larger class too (their entries are a subset of the
     * ones that walk could take), so a lower bound on the key's stored length is enough. Threads: any. Progress:
     * wait-free.
     */
    public boolean belowClassFloor(long keyBytes, long count) {
        return turnedAwayAtOnce(ShardLayout.classFor((int) Math.min(keyBytes, maxKeyBytes), maxKeyBytes), count);
    }

    /** How many times a promotion's claim re-reads a slot word that a concurrent refresh changed. */
    private static final int CLAIM_ATTEMPTS = 4;

    /** {@link #carryOut}, made once: the owner passes it to {@link PromotionInbox#takeAll} without allocating. */
    private final PromotionInbox.Taker carryOut = this::carryOut;

    /**
     * Promotes the key of {@code hash}, whose table slot just reached the promotion floor: claims the slot
     * ({@link SlotLinks#claim}: tracked and promoting bits, the slot's link lock), copies the key into this shard,
     * stores the link and settles (gives the lock back). The key is {@code longKey} when {@code bytes} and
     * {@code chars} are both null, else {@code bytes[offset, offset + length)}, else the UTF-8 bytes of
     * {@code chars}; a key longer than the shard's maxKeyBytes is kept truncated. {@code worker} is the caller's
     * ({@link io.hotkeeper.engine.worker.WorkerHandle}), counted in its stats stripe; {@code NO_HANDLE} only when
     * stats are off.
     *
     * <p>When the shard is busy (another worker sharing it is inside, or a nested call from a key's
     * {@code charAt}), left in its inbox for its next owner if it has one and a cell is free
     * ({@link PromotionInbox}), else skipped and counted as missed. Skipped and counted as missed too when the
     * shard is full of heavier keys; nothing is done when the slot cannot be claimed (already tracked, replaced,
     * below the floor). Either way the key's next observation tries again. An owner carries out the promotions
     * left in its inbox when it enters and again before it leaves. The order and the Dekker pair with a replacer
     * are docs/shards.md's "The rules" and SlotLinks'.
     *
     * <p>Failure: if copying the key throws (a {@code CharSequence} whose {@code charAt} throws, a key segment
     * whose arena closed), the insert returns the entry to its free list and the claim is undone here before the
     * exception propagates, so no slot stays tracked without an entry. Re-entry: a {@code charAt} that calls back
     * into the sketch runs while this shard is busy, so a nested promotion finds it busy (and waits in the inbox or is
     * skipped), and a nested observation of a key in this slot's bucket cannot claim the slot (the promoting bit)
     * but may replace it, which the settle step detects.
     *
     * <p>Threads: any; the facade calls it for the caller's own shard ({@code KeyShards.shardFor}), and the busy
     * word admits one thread at a time. Progress: lock-free.
     *
     * @throws IllegalStateException if the shard has no table behind it
     */
    public void promote(long hash, long longKey, MemorySegment bytes, long offset, long length, CharSequence chars,
                        long worker) {
        if (slotLinks == null) {
            throw new IllegalStateException("key shard " + id + " has no table behind it: it cannot promote");
        }
        if (!tryEnter()) {
            if (inbox == null || !inbox.offer(hash, longKey, bytes, offset, length, chars)) {
                stats.add(worker, StatsLayout.PROMOTIONS_MISSED, 1);
            }
            return;
        }
        long slot = -1;
        try {
            takeInbox(worker);
            slot = slotLinks.claim(hash, CLAIM_ATTEMPTS);
            if (slot >= 0) {
                long count = slotLinks.count(slot);
                long link = bytes != null ? insertBytes(hash, slot, bytes, offset, length, count)
                        : chars != null ? insertChars(hash, slot, chars, count)
                        : insertLong(hash, slot, longKey, count);
                long claimed = slot;
                slot = -1; // from here on settle() owns the claim
                settle(claimed, link, worker);
            }
            // What was left in the inbox while this promotion ran (a promoter that found the shard busy meanwhile).
            takeInbox(worker);
        } finally {
            if (slot >= 0) {
                // The key could not be copied (the exception propagates): give the claim back.
                slotLinks.unclaim(slot);
            }
            exit();
        }
    }

    /**
     * Ends a promotion whose claim on {@code slot} holds the link lock: stores the link and clears the promoting
     * bit if the claim is intact, else takes the link back, clears the bit and deletes the stale entry. Owner only.
     */
    private void settle(long slot, long link, long worker) {
        if (link == 0) {
            // The shard turned the key away (full of heavier keys).
            slotLinks.unclaim(slot);
            stats.add(worker, StatsLayout.PROMOTIONS_MISSED, 1);
            return;
        }
        if (slotLinks.settle(slot, link)) {
            stats.add(worker, StatsLayout.PROMOTIONS, 1);
        } else {
            // Replaced meanwhile: our entry named a slot that holds another key. The replacer may have read our
            // link and handed the entry over already; deleteOwn goes through the same gate, so once either way.
            deleteOwn(ShardLayout.linkEntry(link), ShardLayout.linkGeneration(link));
        }
    }

    /**
     * Carries out the promotions other workers left in this shard's inbox while it was busy ({@link PromotionInbox}).
     * Threads: the owner. Progress: wait-free (one pass over the cells, each promotion bounded as an insert is).
     */
    public void takeInbox(long worker) {
        if (inbox != null) {
            inbox.takeAll(carryOut, worker);
        }
    }

    /** One promotion from the inbox: claim, insert the key from its cell, settle. Owner only. */
    private void carryOut(long hash, MemorySegment cells, long keyOffset, int length, boolean truncated, int kind,
                          long worker) {
        long slot = slotLinks.claim(hash, CLAIM_ATTEMPTS);
        if (slot < 0) {
            return;
        }
        // No user code below: the copy is from our own cell, so nothing can throw between claim and settle.
        long link = insertCopy(hash, slot, cells, keyOffset, length, truncated, kind, slotLinks.count(slot));
        settle(slot, link, worker);
    }

    // ------------------------------------------------------------------ owner section

    /**
     * Tries to become the owner for one operation. Threads: the worker's threads (a platform thread, or the
     * virtual threads of one carrier). Progress: wait-free (one CAS; false if another of them is inside).
     */
    public boolean tryEnter() {
        // Volatile CAS: pairs with exit()'s release store, so this owner sees the previous owner's writes.
        return LONG.compareAndSet(segment, ShardLayout.BUSY, 0L, 1L);
    }

    /** Ends an owner operation. Threads: the owner. Progress: wait-free. */
    public void exit() {
        LONG.setRelease(segment, ShardLayout.BUSY, 0L);
    }

    /**
     * Inserts the key {@code key} (8 little-endian bytes) for the table slot at {@code slotOffset}, whose count is
     * {@code count}; returns the link naming the new entry, or 0 if the shard could not make room (full, and its
     * SIEVE victim's slot counts at least {@code count}). Threads: the owner. Progress: wait-free
     * (bounded by the capacity).
     */
    public long insertLong(long hash, long slotOffset, long key, long count) {
        int length = Math.min(Long.BYTES, maxKeyBytes);
        int entry = allocate(ShardLayout.classFor(length, maxKeyBytes), count);
        if (entry == NONE) {
            return 0;
        }
        ShardLayout.putLongKey(segment, ShardLayout.entryOffset(entry) + ShardLayout.KEY, key, length);
        return publish(entry, hash, slotOffset, length, length < Long.BYTES, ShardLayout.KIND_LONG);
    }

    /**
     * Inserts the key {@code key[offset, offset + length)}, truncated to maxKeyBytes; returns the link or 0.
     * Threads: the owner. Progress: wait-free.
     */
    public long insertBytes(long hash, long slotOffset, MemorySegment key, long offset, long length, long count) {
        int stored = (int) Math.min(length, maxKeyBytes);
        return insertCopy(hash, slotOffset, key, offset, stored, stored < length, ShardLayout.KIND_BYTES, count);
    }

    /** Inserts {@code stored} bytes of {@code key} from {@code offset} as a key of {@code kind}; the link or 0. */
    private long insertCopy(long hash, long slotOffset, MemorySegment key, long offset, int stored,
                            boolean truncated, int kind, long count) {
        int entry = allocate(ShardLayout.classFor(stored, maxKeyBytes), count);
        if (entry == NONE) {
            return 0;
        }
        long base = ShardLayout.entryOffset(entry);
        try {
            // The caller's segment: its arena may close under us (IllegalStateException), a range may be bad.
            MemorySegment.copy(key, offset, segment, base + ShardLayout.KEY, stored);
        } catch (RuntimeException | Error e) {
            abandon(entry);
            throw e;
        }
        return publish(entry, hash, slotOffset, stored, truncated, kind);
    }

    /**
     * Inserts the UTF-8 bytes of {@code key}, truncated to maxKeyBytes; returns the link or 0. Threads: the
     * owner. Progress: wait-free.
     */
    public long insertChars(long hash, long slotOffset, CharSequence key, long count) {
        // User code: charAt may throw, block, or call back into the sketch (docs/shards.md, re-entry). A throw here
        // comes before anything was allocated.
        int stored = (int) Utf8Writer.length(key, maxKeyBytes);
        int cls = ShardLayout.classFor(stored, maxKeyBytes);
        int entry = allocate(cls, count);
        if (entry == NONE) {
            return 0;
        }
        long base = ShardLayout.entryOffset(entry) + ShardLayout.KEY;
        long written;
        try {
            // The entry's own key bytes bound the copy (a CharSequence that grew since it was measured is cut).
            written = Utf8Writer.write(segment, base, Math.min(keyBytesOf(entry), maxKeyBytes), key);
        } catch (RuntimeException | Error e) {
            abandon(entry);
            throw e;
        }
        return publish(entry, hash, slotOffset, (int) written, (written & Utf8Writer.TRUNCATED) != 0,
                ShardLayout.KIND_TEXT);
    }

    private long publish(int entry, long hash, long slotOffset, int length, boolean truncated, int kind) {
        long base = ShardLayout.entryOffset(entry);
        LONG.set(segment, base + ShardLayout.HASH, hash);
        // A table is at most TableLayout.MAX_TABLE_BYTES (64 MiB): its slot offsets fit an int.
        INT.set(segment, base + ShardLayout.SLOT, Math.toIntExact(slotOffset));
        long state = (long) LONG.get(segment, base + ShardLayout.STATE);
        int generation = ShardLayout.generation(state);
        long flags = MEMBER | (truncated ? ShardLayout.TRUNCATED : 0);
        // Release: everything above is visible to a reader whose acquire load sees MEMBER in this generation; the
        // key's length and kind travel in the same word.
        LONG.setRelease(segment, base + ShardLayout.STATE, ((long) generation << ShardLayout.GENERATION_SHIFT)
                | ShardLayout.keyBits(length, kind) | REF | flags);
        sieveInsert(entry);
        addOwner(ShardLayout.LIVE, 1);
        return ShardLayout.link(id, entry, generation);
    }

    /**
     * Returns an entry that {@link #allocate} handed out but that was never published (its key could not be
     * copied): back on the free list, generation unchanged (no link ever named this generation). Owner only.
     */
    private void abandon(int entry) {
        pushFree(entry);
    }

    /**
     * Whether a candidate of class {@code cls} counting {@code candidateCount} is turned away without a walk: no
     * entry of its class or larger is free, and a walk for that class turned away a candidate at least as heavy
     * since the last entry of its class or larger was freed, under the table's current rescale count. This is the
     * class's own promotion floor: a class with no room whose entries are heavier raises the table-wide floor only
     * as far as the lighter entries of the smaller classes ({@link #sieveEvict}), since a floor at its own count
     * would keep the keys of those classes out of entries they could take from lighter keys (docs/shards.md, "A
     * class with no room keeps its floor to itself"). Threads: any (exact for the owner, in {@link #allocate}).
     */
    private boolean turnedAwayAtOnce(int cls, long candidateCount) {
        // Opaque loads of fields the owner stores opaque: on another thread a stale value only delays or repeats a
        // promotion attempt, as a stale table floor does; the owner reads its own latest stores.
        return candidateCount < (long) LONG.getOpaque(segment, ShardLayout.starved(cls))
                && (long) LONG.getOpaque(segment, ShardLayout.STARVED_RESCALES) == evictions.rescales();
    }

    /**
     * Records that the walk for a candidate of class {@code cls} counting {@code candidateCount} met only heavier
     * entries large enough for it, decided from counts read after the table's rescale count read {@code rescales}:
     * until an entry of class {@code cls} or larger is freed, or the counts are rescaled, candidates of the class
     * counting no more are turned away at once. Owner only.
     */
    private void starve(int cls, long candidateCount, long rescales) {
        if (ownerGet(ShardLayout.STARVED_RESCALES) != rescales) {
            for (int c = 0; c < classes; c++) {
                ownerSet(ShardLayout.starved(c), 0);
            }
            ownerSet(ShardLayout.STARVED_RESCALES, rescales);
        }
        ownerSet(ShardLayout.starved(cls), Math.max(ownerGet(ShardLayout.starved(cls)), candidateCount + 1));
    }

    /** Puts a freed entry on its class's free list; it is no longer in use. Owner only. */
    private void pushFree(int entry) {
        int freed = classOf(entry);
        for (int c = 0; c <= freed; c++) {
            // A free entry of this class is room for every class up to it.
            ownerSet(ShardLayout.starved(c), 0);
        }
        long head = ShardLayout.freeHead(freed);
        INT.set(segment, ShardLayout.entryOffset(entry) + ShardLayout.SIEVE_NEXT, ownerGetInt(head));
        ownerSetInt(head, entry);
        addOwner(ShardLayout.IN_USE, -1);
    }

    /**
     * An entry of class {@code cls} or larger for a candidate whose slot counts {@code candidateCount}, or NONE.
     * In order: while fewer than {@code capacity} entries are in use, the class's free list, the rest of its
     * newest page, a new page for the class, then a free or never-used entry of a larger class; otherwise (the
     * shard is at its entry count, or no entry of class {@code cls} or larger is free) a SIEVE eviction, of any
     * class when the count is the limit and of class {@code cls} or larger when room is. Owner only.
     */
    private int allocate(int cls, long candidateCount) {
        drain();
        advanceReapCursor();
        for (int attempt = 0; attempt <= capacity; attempt++) {
            int minClass = 0;
            if (ownerGet(ShardLayout.IN_USE) < capacity) {
                int entry = take(cls);
                if (entry != NONE) {
                    addOwner(ShardLayout.IN_USE, 1);
                    return entry;
                }
                minClass = cls;
                if (turnedAwayAtOnce(cls, candidateCount)) {
                    return NONE;
                }
            }
            if (!sieveEvict(candidateCount, minClass)) {
                return NONE;
            }
            // A victim that a foreign deleter marked meanwhile stays off the free list until its hand-off is
            // popped: take what has been handed over since, so that it is freed now rather than evicting again.
            drain();
        }
        return NONE;
    }

    /** A free or never-used entry of class {@code cls} or larger (a new page for {@code cls} if need be). */
    private int take(int cls) {
        for (int c = cls; c < classes; c++) {
            long head = ShardLayout.freeHead(c);
            int free = ownerGetInt(head);
            if (free != NONE) {
                ownerSetInt(head, (int) INT.get(segment, ShardLayout.entryOffset(free) + ShardLayout.SIEVE_NEXT));
                return free;
            }
            int fresh = bumpEntry(c);
            if (fresh != NONE) {
                return fresh;
            }
            if (c == cls && assignPage(cls)) {
                return bumpEntry(cls);
            }
        }
        return NONE;
    }

    /** The next never-used entry of class {@code c}'s newest page, or NONE. Owner only. */
    private int bumpEntry(int c) {
        long field = ShardLayout.bump(c);
        int entry = ownerGetInt(field);
        if (entry == NONE) {
            return NONE;
        }
        int next = entry + classEntryBytes[c] / 8;
        long pageStart = pageStart(pageOf(entry));
        boolean fits = ShardLayout.entryOffset(next) + classEntryBytes[c] <= pageStart + pageBytes;
        ownerSetInt(field, fits ? next : NONE);
        // First generation is 1, so that a link word is never 0. Release: a reader that finds this page's class
        // reads the state word of each of its entries; 0 (never used) and 1 without MEMBER both mean "skip".
        LONG.setRelease(segment, ShardLayout.entryOffset(entry) + ShardLayout.STATE, 1L << ShardLayout.GENERATION_SHIFT);
        return entry;
    }

    /** Assigns the next unassigned page to class {@code c} for good; false if none is left. Owner only. */
    private boolean assignPage(int c) {
        long page = ownerGet(ShardLayout.NEXT_PAGE);
        if (page >= pages) {
            return false;
        }
        // Opaque: readers (topK's scan, integrity) read the class byte, then NEXT_PAGE's bound is only a hint.
        BYTE.setOpaque(segment, ShardLayout.HEADER_BYTES + page, (byte) (c + 1));
        ownerSet(ShardLayout.NEXT_PAGE, page + 1);
        ownerSetInt(ShardLayout.bump(c), ShardLayout.entryId(pageStart((int) page)));
        return true;
    }

    private long pageStart(int page) {
        return pagesOffset + (long) page * pageBytes;
    }

    private int pageOf(int entry) {
        return (int) ((ShardLayout.entryOffset(entry) - pagesOffset) / pageBytes);
    }

    /**
     * The class of the page holding byte offset of entry id {@code id}, or -1 if it is outside the pages or its page
     * is unassigned. Threads: any (the class byte is written once, opaque). Progress: wait-free.
     */
    public int pageClassOf(int id) {
        long offset = ShardLayout.entryOffset(id);
        if (id < 0 || offset < pagesOffset || offset >= pageStart(pages)) {
            return -1;
        }
        return pageClass(pageOf(id));
    }

    /** The class of page {@code page}, or -1 if unassigned. Threads: any. Progress: wait-free. */
    public int pageClass(int page) {
        // Opaque: written once by the owner (0 to class + 1) before any entry of the page is handed out.
        return (byte) BYTE.getOpaque(segment, ShardLayout.HEADER_BYTES + page) - 1;
    }

    /** Class of an entry the caller knows to be one. */
    private int classOf(int entry) {
        return pageClass(pageOf(entry));
    }

    /** Key bytes an entry holds (0 if its page has no class: never for an id a link or list names). */
    private int keyBytesOf(int entry) {
        int c = classOf(entry);
        return c < 0 ? 0 : classKeyBytes[c];
    }

    /**
     * Whether {@code id} names an entry: the start of an entry of its page's class, in an assigned page.
     * Threads: any. Progress: wait-free.
     */
    public boolean isEntry(int id) {
        int c = pageClassOf(id);
        if (c < 0) {
            return false;
        }
        long within = ShardLayout.entryOffset(id) - pageStart(pageOf(id));
        return within % classEntryBytes[c] == 0 && within / classEntryBytes[c] < classPerPage[c];
    }

    /**
     * The first entry of the shard in page order (page 0 is always assigned). Threads: any. Progress: wait-free.
     */
    public int firstEntry() {
        return ShardLayout.entryId(pageStart(0));
    }

    /**
     * The entry after {@code entry} in page order, or NONE after the last entry of the last assigned page. Entries
     * never used yet are included (their state word is 0). Threads: any (a reader may miss a page assigned
     * meanwhile). Progress: wait-free (bounded by the pages).
     */
    public int nextEntry(int entry) {
        int page = pageOf(entry);
        int c = pageClass(page);
        int next = entry + classEntryBytes[c] / 8;
        if (ShardLayout.entryOffset(next) + classEntryBytes[c] <= pageStart(page) + pageBytes) {
            return next;
        }
        long assigned = (long) LONG.getOpaque(segment, ShardLayout.NEXT_PAGE);
        for (int p = page + 1; p < assigned && p < pages; p++) {
            if (pageClass(p) >= 0) {
                return ShardLayout.entryId(pageStart(p));
            }
        }
        return NONE;
    }

    /**
     * Deletes the owner's own entry {@code entry} of generation {@code generation} (a lost promotion, a SIEVE
     * victim): marks it dead through the same gate as foreign deleters, then unlinks it at once. If a foreign
     * deleter marked it first, the entry is unlinked now and its hand-off only drops a reference later.
     * Threads: the owner. Progress: lock-free.
     */
    public void deleteOwn(int entry, int generation) {
        long stateOffset = ShardLayout.entryOffset(entry) + ShardLayout.STATE;
        while (true) {
            long state = (long) LONG.getVolatile(segment, stateOffset);
            if (ShardLayout.generation(state) != generation || (state & MEMBER) == 0) {
                return;
            }
            if ((state & DEAD) != 0 || LONG.compareAndSet(segment, stateOffset, state, state | DEAD)) {
                unlink(entry);
                return;
            }
        }
    }

    /**
     * Drains the hand-off stack: every entry pushed since the last drain is unlinked (if still linked) and loses
     * the pusher's reference. Threads: the owner. Progress: wait-free (a chain whose link is not written yet is
     * parked, not waited for).
     */
    public void drain() {
        // Two rounds: a parked chain from an earlier drain first, then whatever was pushed since.
        for (int round = 0; round < 2; round++) {
            long chain = ownerGet(ShardLayout.PENDING);
            if (chain == NONE) {
                if ((long) LONG.getOpaque(segment, ShardLayout.STACK_HEAD) == NONE) {
                    return; // nothing handed over: a read of a line we would otherwise write
                }
                // Volatile getAndSet: takes the whole stack; pairs with the pushers' getAndSet.
                chain = (long) LONG.getAndSet(segment, ShardLayout.STACK_HEAD, (long) NONE);
            }
            if (!reapChain(chain)) {
                return;
            }
        }
    }

    /** Reaps a popped chain; false if it met a link not yet written and parked the rest in PENDING. */
    private boolean reapChain(long chain) {
        long waiting = 0;
        for (long c = chain; c != NONE; waiting++) {
            long next = (int) INT.getAcquire(segment, ShardLayout.entryOffset((int) c) + ShardLayout.NEXT);
            if (next == NOT_YET) {
                waiting++;
                break;
            }
            c = next;
        }
        if (waiting > ownerGet(ShardLayout.MAX_ZOMBIES)) {
            ownerSet(ShardLayout.MAX_ZOMBIES, waiting);
        }
        while (chain != NONE) {
            long nextOffset = ShardLayout.entryOffset((int) chain) + ShardLayout.NEXT;
            // Acquire: pairs with the pusher's release store of the link.
            long next = (int) INT.getAcquire(segment, nextOffset);
            if (next == NOT_YET) {
                ownerSet(ShardLayout.PENDING, chain);
                return false;
            }
            reapHandedOver((int) chain);
            chain = next;
        }
        ownerSet(ShardLayout.PENDING, NONE);
        return true;
    }

    private void reapHandedOver(int entry) {
        long state = (long) LONG.getVolatile(segment, ShardLayout.entryOffset(entry) + ShardLayout.STATE);
        if ((state & MEMBER) != 0) {
            unlink(entry);
            evictions.roomMade();
        }
        release(entry);
    }

    /**
     * Advances the reap cursor over two used entries (never-used ones are skipped: in each class's newest page
     * they start at the class's bump), unlinking any marked entry it meets. Owner only.
     */
    private void advanceReapCursor() {
        int cursor = (int) ownerGet(ShardLayout.REAP_CURSOR);
        for (int step = 0; step < 2; step++) {
            int next = nextUsed(cursor);
            if (next == NONE) {
                next = nextUsed(NONE); // wrap to the first used entry
            }
            if (next == NONE) {
                break; // nothing used yet
            }
            cursor = next;
            long state = (long) LONG.getVolatile(segment, ShardLayout.entryOffset(cursor) + ShardLayout.STATE);
            if ((state & (MEMBER | DEAD)) == (MEMBER | DEAD)) {
                // Handed over but not popped yet: unlink now; the pop will only drop the pusher's reference.
                unlink(cursor);
                evictions.roomMade();
            }
        }
        ownerSet(ShardLayout.REAP_CURSOR, cursor);
    }

    /**
     * The used entry after {@code entry} in page order (from the start for NONE), or NONE. Entries are handed out
     * in page order within a class, so a class's bump entry and the rest of its page were never used: the walk
     * jumps to the next page there. Owner only. Progress: bounded by the pages.
     */
    private int nextUsed(int entry) {
        int e = entry == NONE ? firstEntry() : nextEntry(entry);
        while (e != NONE && e == ownerGetInt(ShardLayout.bump(classOf(e)))) {
            int page = pageOf(e) + 1;
            e = page < ownerGet(ShardLayout.NEXT_PAGE) ? ShardLayout.entryId(pageStart(page)) : NONE;
        }
        return e;
    }

    /** Unlinks a member: off the SIEVE list, MEMBER cleared, the shard's reference dropped. Owner only. */
    private void unlink(int entry) {
        sieveRemove(entry);
        addOwner(ShardLayout.LIVE, -1);
        long stateOffset = ShardLayout.entryOffset(entry) + ShardLayout.STATE;
        while (true) {
            long state = (long) LONG.getVolatile(segment, stateOffset);
            long next = (state & ~MEMBER & ~VISITED) - REF;
            if (LONG.compareAndSet(segment, stateOffset, state, next)) {
                if ((next & REF_MASK) == 0) {
                    free(entry, next);
                }
                return;
            }
        }
    }

    /** Drops a pusher's reference. Owner only. */
    private void release(int entry) {
        long stateOffset = ShardLayout.entryOffset(entry) + ShardLayout.STATE;
        while (true) {
            long state = (long) LONG.getVolatile(segment, stateOffset);
            long next = state - REF;
            if (LONG.compareAndSet(segment, stateOffset, state, next)) {
                if ((next & REF_MASK) == 0 && (next & MEMBER) == 0) {
                    free(entry, next);
                }
                return;
            }
        }
    }

    private void free(int entry, long state) {
        int generation = ShardLayout.generation(state) + 1;
        if (generation == 0) {
            generation = 1;
        }
        long base = ShardLayout.entryOffset(entry);
        // The seqlock writer's side (readKey is the reader's). Release orders what came before (the unlink);
        // it does not keep LATER stores above it: the next owner's key bytes for the reused entry could become
        // visible before the new generation on a weakly ordered CPU (aarch64, POWER), and a reader that copied
        // them and then re-read the old generation would accept another key's bytes. The store-store fence
        // orders the generation store before every later store of this thread, the key bytes included (x86
        // keeps stores in order anyway; there the fence costs nothing).
        LONG.setRelease(segment, base + ShardLayout.STATE, (long) generation << ShardLayout.GENERATION_SHIFT);
        VarHandle.storeStoreFence();
        pushFree(entry);
    }

    // ------------------------------------------------------------------ SIEVE (owner only)

    private int older(int e) {
        return (int) INT.get(segment, ShardLayout.entryOffset(e) + ShardLayout.SIEVE_PREV);
    }

    private int newer(int e) {
        return (int) INT.get(segment, ShardLayout.entryOffset(e) + ShardLayout.SIEVE_NEXT);
    }

    private void setOlder(int e, int v) {
        INT.set(segment, ShardLayout.entryOffset(e) + ShardLayout.SIEVE_PREV, v);
    }

    private void setNewer(int e, int v) {
        INT.set(segment, ShardLayout.entryOffset(e) + ShardLayout.SIEVE_NEXT, v);
    }

    private void sieveInsert(int e) {
        int head = (int) ownerGet(ShardLayout.SIEVE_HEAD);
        setOlder(e, head);
        setNewer(e, NONE);
        if (head != NONE) {
            setNewer(head, e);
        } else {
            ownerSet(ShardLayout.SIEVE_TAIL, e);
        }
        ownerSet(ShardLayout.SIEVE_HEAD, e);
    }

    private void sieveRemove(int e) {
        int o = older(e);
        int n = newer(e);
        if (o != NONE) {
            setNewer(o, n);
        } else {
            ownerSet(ShardLayout.SIEVE_TAIL, n);
        }
        if (n != NONE) {
            setOlder(n, o);
        } else {
            ownerSet(ShardLayout.SIEVE_HEAD, o);
        }
        if (ownerGet(ShardLayout.SIEVE_HAND) == e) {
            ownerSet(ShardLayout.SIEVE_HAND, n);
        }
    }

    /**
     * Evicts a SIEVE victim for a candidate whose slot counts {@code candidateCount}: the hand walks from where it
     * stopped towards the newest entry (wrapping to the oldest), clearing VISITED bits, and evicts the first
     * unvisited entry whose slot counts less than the candidate's. An unvisited entry at least as heavy is passed
     * (the hand moves on, so a heavy entry that is no longer observed cannot hold it); after
     * {@link #EVICTION_EXAMINE_LIMIT} of them, or a whole lap and a half, the candidate is turned away and the
     * table told, so the floor can rise. False if nothing was evicted. With {@code minClass > 0} (room is short,
     * not the entry count) only entries of that class or larger can be victims; smaller ones are passed without
     * touching their bit. The walk is bounded by {@code 2 x live + 1} steps either way.
     */
    private boolean sieveEvict(long candidateCount, int minClass) {
        // Before any entry's count is read: a rejection from counts that a rescale has since replaced is given back.
        long rescales = evictions.rescales();
        long live = ownerGet(ShardLayout.LIVE);
        int hand = (int) ownerGet(ShardLayout.SIEVE_HAND);
        if (hand == NONE) {
            hand = (int) ownerGet(ShardLayout.SIEVE_TAIL);
        }
        int heavier = 0;
        // The lightest of the first EVICTION_EXAMINE_LIMIT entries passed as too small for the candidate: a key of
        // its class could still take it.
        long lightestSmaller = Long.MAX_VALUE;
        int smallerRead = 0;
        for (long step = 0; hand != NONE && step <= 2 * live + 1; step++) {
            long stateOffset = ShardLayout.entryOffset(hand) + ShardLayout.STATE;
            long state = (long) LONG.getVolatile(segment, stateOffset);
            int n = newer(hand);
            int next = n != NONE ? n : (int) ownerGet(ShardLayout.SIEVE_TAIL);
            if (minClass > 0 && classOf(hand) < minClass) {
                // Too small to free room for the candidate's class: passed untouched (its bit is not its turn).
                if (smallerRead++ < EVICTION_EXAMINE_LIMIT) {
                    lightestSmaller = Math.min(lightestSmaller, evictions.trackedCount(this, hand,
                            ShardLayout.link(id, hand, ShardLayout.generation(state))));
                }
                hand = next;
                continue;
            }
            if ((state & VISITED) != 0) {
                // Volatile CAS: a foreign visit may set the bit again meanwhile; losing this CAS only keeps it.
                LONG.compareAndSet(segment, stateOffset, state, state & ~VISITED);
                hand = next;
                continue;
            }
            int victim = hand;
            int generation = ShardLayout.generation(state);
            long link = ShardLayout.link(id, victim, generation);
            if (evictions.trackedCount(this, victim, link) >= candidateCount) {
                hand = next;
                if (++heavier >= EVICTION_EXAMINE_LIMIT) {
                    break;
                }
                continue;
            }
            ownerSet(ShardLayout.SIEVE_HAND, next == victim ? NONE : next);
            evictions.evicting(this, victim, link);
            deleteOwn(victim, generation);
            return true;
        }
        ownerSet(ShardLayout.SIEVE_HAND, hand);
        if (heavier > 0 && minClass > 0) {
            // Turned away by heavier entries of the classes large enough for it, while the entry count leaves room:
            // the candidate's class keeps its own floor, and the table-wide floor rises no higher than the lightest
            // of the smaller entries the walk read, which a key of their class could take.
            starve(minClass, candidateCount, rescales);
            long smallerFloor = Math.min(candidateCount, lightestSmaller);
            if (smallerFloor > 0) {
                evictions.rejected(smallerFloor, rescales);
            }
        } else if (heavier > 0) {
            // Turned away by heavier entries (not by an empty list: every entry may be awaiting its reaping).
            evictions.rejected(candidateCount, rescales);
        }
        return false;
    }

    // ------------------------------------------------------------------ any thread

    /**
     * The foreign deleter's gate: marks entry {@code entry} of generation {@code generation} dead and takes a
     * reference for the hand-off, in one CAS. True iff this call did it; then the caller must {@link #push} it.
     * False if the generation is gone, the entry is not a member, or it is already marked.
     *
     * <p>Threads: any. Progress: lock-free.
     */
    public boolean markDead(int entry, int generation) {
        long stateOffset = ShardLayout.entryOffset(entry) + ShardLayout.STATE;
        while (true) {
            long state = (long) LONG.getVolatile(segment, stateOffset);
            if (ShardLayout.generation(state) != generation || (state & MEMBER) == 0 || (state & DEAD) != 0) {
                return false;
            }
            if (LONG.compareAndSet(segment, stateOffset, state, (state | DEAD) + REF)) {
                return true;
            }
        }
    }

    /**
     * Hands entry {@code entry} (marked by this thread's {@link #markDead}) to the owner: one getAndSet on the
     * stack head, then the link. Threads: any. Progress: wait-free.
     */
    public void push(int entry) {
        long nextOffset = ShardLayout.entryOffset(entry) + ShardLayout.NEXT;
        // Opaque store of the "not yet" marker, ordered before the publishing getAndSet (volatile).
        INT.setOpaque(segment, nextOffset, (int) NOT_YET);
        long previous = (long) LONG.getAndSet(segment, ShardLayout.STACK_HEAD, (long) entry);
        // Release: pairs with the owner's acquire load in drain() (an entry id, or NONE: both fit an int).
        INT.setRelease(segment, nextOffset, (int) previous);
    }

    /**
     * Sets the SIEVE visited bit of entry {@code entry} if it is still a live member of generation
     * {@code generation}; writes nothing if the bit is already set. Threads: any. Progress: wait-free (one CAS,
     * losing it is harmless).
     */
    public void visit(int entry, int generation) {
        long stateOffset = ShardLayout.entryOffset(entry) + ShardLayout.STATE;
        long state = (long) LONG.getOpaque(segment, stateOffset);
        if (ShardLayout.generation(state) == generation && (state & (MEMBER | DEAD | VISITED)) == MEMBER) {
            LONG.compareAndSet(segment, stateOffset, state, state | VISITED);
        }
    }

    /**
     * A copy of the key (and hash) of entry {@code entry} if it is a live member of generation
     * {@code generation}, else null. The copy is validated: the generation is re-read after the bytes, so a key
     * overwritten by reuse is never returned. Threads: any. Progress: wait-free.
     */
    public Key readKey(int entry, int generation) {
        long base = ShardLayout.entryOffset(entry);
        // Acquire: pairs with publish()'s release store; a MEMBER state of this generation means the fields below
        // were written before it.
        long state = (long) LONG.getAcquire(segment, base + ShardLayout.STATE);
        if (ShardLayout.generation(state) != generation || (state & MEMBER) == 0 || (state & DEAD) != 0) {
            return null;
        }
        long hash = (long) LONG.getOpaque(segment, base + ShardLayout.HASH);
        int length = ShardLayout.keyLength(state);
        int kind = ShardLayout.keyKind(state);
        if (length > Math.min(keyBytesOf(entry), maxKeyBytes)) {
            return null;
        }
        byte[] bytes = new byte[length];
        MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, base + ShardLayout.KEY, bytes, 0, length);
        // The copy must not float below the re-check: acquire fence, then the generation again.
        VarHandle.acquireFence();
        long again = (long) LONG.getOpaque(segment, base + ShardLayout.STATE);
        if (ShardLayout.generation(again) != generation) {
            return null;
        }
        return new Key(bytes, (state & ShardLayout.TRUNCATED) != 0, hash, ShardLayout.kind(kind));
    }

    /**
     * The key of an entry the caller holds a reference to (after its own {@link #markDead}), as a heavy hitter
     * with estimate {@code estimate}. Threads: the holder of the reference. Progress: wait-free.
     */
    public io.hotkeeper.engine.HeavyHitter readHeldKey(int entry, long estimate) {
        long base = ShardLayout.entryOffset(entry);
        long state = (long) LONG.getAcquire(segment, base + ShardLayout.STATE);
        int length = ShardLayout.keyLength(state);
        int kind = ShardLayout.keyKind(state);
        byte[] bytes = new byte[length];
        MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, base + ShardLayout.KEY, bytes, 0, length);
        return new io.hotkeeper.engine.HeavyHitter(bytes, estimate, (state & ShardLayout.TRUNCATED) != 0,
                ShardLayout.kind(kind));
    }

    /**
     * The state word of entry {@code entry} (tests and diagnostics). Threads: any. Progress: wait-free.
     */
    public long state(int entry) {
        return (long) LONG.getVolatile(segment, ShardLayout.entryOffset(entry) + ShardLayout.STATE);
    }

    /**
     * Pages assigned so far (pages at or above it are unassigned). Threads: any (an opaque read of an
     * owner-written count; a reader may see a slightly older value). Progress: wait-free.
     */
    public int pagesUsed() {
        return (int) (long) LONG.getOpaque(segment, ShardLayout.NEXT_PAGE);
    }

    /** Entries in use: members and handed-over entries not freed yet (owner's count). Threads: any. */
    public long inUse() {
        return (long) LONG.getOpaque(segment, ShardLayout.IN_USE);
    }

    /**
     * The key length recorded in an entry's state word (0 while it is not published). Threads: any. Progress:
     * wait-free.
     */
    public int keyLength(int entry) {
        return ShardLayout.keyLength((long) LONG.getOpaque(segment, ShardLayout.entryOffset(entry) + ShardLayout.STATE));
    }

    /** Key bytes entry {@code entry} holds (its class's). Threads: any. Progress: wait-free. */
    public int keyCapacity(int entry) {
        return keyBytesOf(entry);
    }

    /**
     * The table slot offset recorded in an entry: immutable while the entry's generation lasts, so a reader that
     * saw a MEMBER state reads it, then validates against the table and the link. Threads: any. Progress:
     * wait-free.
     */
    public long recordedSlot(int entry) {
        return (int) INT.getOpaque(segment, ShardLayout.entryOffset(entry) + ShardLayout.SLOT);
    }

    /** The hash recorded in an entry (see {@link #recordedSlot}). Threads: any. Progress: wait-free. */
    public long recordedHash(int entry) {
        return (long) LONG.getOpaque(segment, ShardLayout.entryOffset(entry) + ShardLayout.HASH);
    }

    /** Entries linked in the shard (owner's count; exact when the owner is quiescent). Threads: any. */
    public long live() {
        return (long) LONG.getOpaque(segment, ShardLayout.LIVE);
    }

    /** The largest number of handed-over entries seen waiting at a drain. Threads: any. Progress: wait-free. */
    public long maxZombies() {
        return (long) LONG.getOpaque(segment, ShardLayout.MAX_ZOMBIES);
    }

    private long ownerGet(long field) {
        return (long) LONG.get(segment, field);
    }

    private void ownerSet(long field, long value) {
        // Opaque so that diagnostics on other threads read whole values; ordering comes from exit()'s release.
        LONG.setOpaque(segment, field, value);
    }

    /** An int field of the class region (a free list head, a bump entry). Owner only. */
    private int ownerGetInt(long field) {
        return (int) INT.get(segment, field);
    }

    private void ownerSetInt(long field, int value) {
        // Opaque, as ownerSet.
        INT.setOpaque(segment, field, value);
    }

    private void addOwner(long field, long delta) {
        ownerSet(field, ownerGet(field) + delta);
    }

    // ------------------------------------------------------------------ integrity (ShardIntegrity)

    /**
     * A word of the shard's header (a {@link ShardLayout} owner-region field such as {@link ShardLayout#LIVE},
     * or {@link ShardLayout#STACK_HEAD}); exact only while the shard is quiescent (integrity checks, tests).
     * Threads: any. Progress: wait-free.
     */
    public long headerWord(long field) {
        return (long) LONG.getVolatile(segment, field);
    }

    /**
     * An int field of the shard's class region ({@link ShardLayout#freeHead}, {@link ShardLayout#bump}: an entry id
     * or NONE); exact only while the shard is quiescent, as {@link #headerWord}. Threads: any. Progress: wait-free.
     */
    public int headerInt(long field) {
        return (int) INT.getVolatile(segment, field);
    }

    /** The SIEVE previous (older) link of an entry, or the free list's link while free. See {@link #headerWord}. */
    public int olderOf(int entry) {
        return (int) INT.getVolatile(segment, ShardLayout.entryOffset(entry) + ShardLayout.SIEVE_PREV);
    }

    /** The SIEVE next (newer) link of an entry, or the free list's link while free. See {@link #headerWord}. */
    public int newerOf(int entry) {
        return (int) INT.getVolatile(segment, ShardLayout.entryOffset(entry) + ShardLayout.SIEVE_NEXT);
    }

    /** The hand-off stack link of an entry (an index, NONE, or NOT_YET). See {@link #headerWord}. */
    public long handOffNext(int entry) {
        return (int) INT.getVolatile(segment, ShardLayout.entryOffset(entry) + ShardLayout.NEXT);
    }

    /** A key copied out of a shard, with the hash and the kind recorded beside it. */
    public record Key(byte[] bytes, boolean truncated, long hash, io.hotkeeper.engine.HeavyHitter.Kind kind) {
    }
}
