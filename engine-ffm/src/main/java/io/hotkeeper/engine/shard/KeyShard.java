package io.hotkeeper.engine.shard;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

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
 * key. A pusher's release store of the stack link pairs with the owner's acquire load in {@link #drain()}.
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
 *     promotion floor rises above it. An entry reaped because its key left the table lowers the floor again.
 *     Shards never evict for each other, so a busy worker owns a proportionally larger share.
 */
public final class KeyShard {
    /** Coordinates (MemorySegment, long byteOffset). */
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final ValueLayout.OfLong KEY_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** What the shard asks of the table side when it is full. Called by the owner. */
    public interface Evictions {
        /** The current count of the table slot an entry tracks, or 0 if the slot no longer links it. */
        long trackedCount(KeyShard shard, int entry, long link);

        /** A candidate with {@code count} was turned away: a heavier entry would have been evicted for it. */
        void rejected(long count);

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
    private final long entryBytes;
    private final int maxKeyBytes;
    private final Evictions evictions;

    /** A shard of {@code capacity} entries over a zeroed segment of {@link ShardLayout#shardBytes} bytes. */
    public KeyShard(int id, MemorySegment segment, int capacity, int maxKeyBytes, Evictions evictions) {
        this.id = id;
        this.segment = segment;
        this.capacity = capacity;
        this.maxKeyBytes = maxKeyBytes;
        this.entryBytes = ShardLayout.entryBytes(maxKeyBytes);
        this.evictions = evictions;
        if (segment.byteSize() < ShardLayout.shardBytes(capacity, maxKeyBytes)) {
            throw new IllegalArgumentException("shard segment: size=" + segment.byteSize() + ": must be >= "
                    + ShardLayout.shardBytes(capacity, maxKeyBytes));
        }
        for (long field : new long[] {ShardLayout.FREE_HEAD, ShardLayout.SIEVE_HEAD, ShardLayout.SIEVE_TAIL,
                ShardLayout.SIEVE_HAND, ShardLayout.PENDING}) {
            LONG.set(segment, field, (long) NONE);
        }
        LONG.set(segment, ShardLayout.STACK_HEAD, (long) NONE);
        // Publication of these plain stores: the shard reaches other threads through a volatile array slot.
    }

    /** Shard id (its worker id). Threads: any. Progress: wait-free. */
    public int id() {
        return id;
    }

    /** Entries this shard can hold. Threads: any. Progress: wait-free. */
    public int capacity() {
        return capacity;
    }

    /** The shard's segment (diagnostics). Threads: any. Progress: wait-free. */
    public MemorySegment segment() {
        return segment;
    }

    /** Bytes of native memory. Threads: any. Progress: wait-free. */
    public long byteSize() {
        return segment.byteSize();
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
        int entry = allocate(count);
        if (entry == NONE) {
            return 0;
        }
        long base = ShardLayout.entryOffset(entry, entryBytes);
        int length = Math.min(Long.BYTES, maxKeyBytes);
        if (length == Long.BYTES) {
            segment.set(KEY_LONG, base + ShardLayout.KEY, key);
        } else {
            for (int i = 0; i < length; i++) {
                segment.set(ValueLayout.JAVA_BYTE, base + ShardLayout.KEY + i, (byte) (key >>> (8 * i)));
            }
        }
        return publish(entry, hash, slotOffset, length, length < Long.BYTES, ShardLayout.KIND_LONG);
    }

    /**
     * Inserts the key {@code key[offset, offset + length)}, truncated to maxKeyBytes; returns the link or 0.
     * Threads: the owner. Progress: wait-free.
     */
    public long insertBytes(long hash, long slotOffset, MemorySegment key, long offset, long length, long count) {
        int entry = allocate(count);
        if (entry == NONE) {
            return 0;
        }
        long base = ShardLayout.entryOffset(entry, entryBytes);
        int stored = (int) Math.min(length, maxKeyBytes);
        try {
            // The caller's segment: its arena may close under us (IllegalStateException), a range may be bad.
            MemorySegment.copy(key, offset, segment, base + ShardLayout.KEY, stored);
        } catch (RuntimeException | Error e) {
            abandon(entry);
            throw e;
        }
        return publish(entry, hash, slotOffset, stored, stored < length, ShardLayout.KIND_BYTES);
    }

    /**
     * Inserts the UTF-8 bytes of {@code key}, truncated to maxKeyBytes; returns the link or 0. Threads: the
     * owner. Progress: wait-free.
     */
    public long insertChars(long hash, long slotOffset, CharSequence key, long count) {
        int entry = allocate(count);
        if (entry == NONE) {
            return 0;
        }
        long base = ShardLayout.entryOffset(entry, entryBytes) + ShardLayout.KEY;
        long written;
        try {
            // User code: charAt may throw, block, or call back into the sketch (docs/shards.md, re-entry).
            written = Utf8Writer.write(segment, base, maxKeyBytes, key);
        } catch (RuntimeException | Error e) {
            abandon(entry);
            throw e;
        }
        return publish(entry, hash, slotOffset, (int) written, (written & Utf8Writer.TRUNCATED) != 0,
                ShardLayout.KIND_TEXT);
    }

    private long publish(int entry, long hash, long slotOffset, int length, boolean truncated, int kind) {
        long base = ShardLayout.entryOffset(entry, entryBytes);
        LONG.set(segment, base + ShardLayout.HASH, hash);
        LONG.set(segment, base + ShardLayout.SLOT, slotOffset);
        INT.set(segment, base + ShardLayout.KEY_LENGTH, length);
        INT.set(segment, base + ShardLayout.KEY_KIND, kind);
        long state = (long) LONG.get(segment, base + ShardLayout.STATE);
        int generation = ShardLayout.generation(state);
        long flags = MEMBER | (truncated ? ShardLayout.TRUNCATED : 0);
        // Release: everything above is visible to a reader whose acquire load sees MEMBER in this generation.
        LONG.setRelease(segment, base + ShardLayout.STATE,
                ((long) generation << ShardLayout.GENERATION_SHIFT) | REF | flags);
        sieveInsert(entry);
        addOwner(ShardLayout.LIVE, 1);
        return ShardLayout.link(id, entry, generation);
    }

    /**
     * Returns an entry that {@link #allocate} handed out but that was never published (its key could not be
     * copied): back on the free list, generation unchanged (no link ever named this generation). Owner only.
     */
    private void abandon(int entry) {
        INT.set(segment, ShardLayout.entryOffset(entry, entryBytes) + ShardLayout.SIEVE_NEXT,
                (int) ownerGet(ShardLayout.FREE_HEAD));
        ownerSet(ShardLayout.FREE_HEAD, entry);
    }

    private int allocate(long candidateCount) {
        drain();
        advanceReapCursor();
        for (int attempt = 0; attempt <= capacity; attempt++) {
            int free = (int) ownerGet(ShardLayout.FREE_HEAD);
            if (free != NONE) {
                ownerSet(ShardLayout.FREE_HEAD, (int) INT.get(segment, ShardLayout.entryOffset(free, entryBytes)
                        + ShardLayout.SIEVE_NEXT));
                return free;
            }
            long unused = ownerGet(ShardLayout.NEXT_UNUSED);
            if (unused < capacity) {
                ownerSet(ShardLayout.NEXT_UNUSED, unused + 1);
                int entry = (int) unused;
                // First generation is 1, so that a link word is never 0.
                LONG.setRelease(segment, ShardLayout.entryOffset(entry, entryBytes) + ShardLayout.STATE,
                        1L << ShardLayout.GENERATION_SHIFT);
                return entry;
            }
            if (!sieveEvict(candidateCount)) {
                return NONE;
            }
            // A victim that a foreign deleter marked meanwhile stays off the free list until its hand-off is
            // popped: take what has been handed over since, so that it is freed now rather than evicting again.
            drain();
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
        long stateOffset = ShardLayout.entryOffset(entry, entryBytes) + ShardLayout.STATE;
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
            long next = (long) LONG.getAcquire(segment, ShardLayout.entryOffset((int) c, entryBytes) + ShardLayout.NEXT);
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
            long nextOffset = ShardLayout.entryOffset((int) chain, entryBytes) + ShardLayout.NEXT;
            // Acquire: pairs with the pusher's release store of the link.
            long next = (long) LONG.getAcquire(segment, nextOffset);
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
        long state = (long) LONG.getVolatile(segment, ShardLayout.entryOffset(entry, entryBytes) + ShardLayout.STATE);
        if ((state & MEMBER) != 0) {
            unlink(entry);
            evictions.roomMade();
        }
        release(entry);
    }

    private void advanceReapCursor() {
        long limit = ownerGet(ShardLayout.NEXT_UNUSED);
        if (limit == 0) {
            return;
        }
        long cursor = ownerGet(ShardLayout.REAP_CURSOR);
        for (int step = 0; step < 2; step++) {
            cursor = cursor + 1 >= limit ? 0 : cursor + 1;
            long state = (long) LONG.getVolatile(segment,
                    ShardLayout.entryOffset((int) cursor, entryBytes) + ShardLayout.STATE);
            if ((state & (MEMBER | DEAD)) == (MEMBER | DEAD)) {
                // Handed over but not popped yet: unlink now; the pop will only drop the pusher's reference.
                unlink((int) cursor);
                evictions.roomMade();
            }
        }
        ownerSet(ShardLayout.REAP_CURSOR, cursor);
    }

    /** Unlinks a member: off the SIEVE list, MEMBER cleared, the shard's reference dropped. Owner only. */
    private void unlink(int entry) {
        sieveRemove(entry);
        addOwner(ShardLayout.LIVE, -1);
        long stateOffset = ShardLayout.entryOffset(entry, entryBytes) + ShardLayout.STATE;
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
        long stateOffset = ShardLayout.entryOffset(entry, entryBytes) + ShardLayout.STATE;
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
        long base = ShardLayout.entryOffset(entry, entryBytes);
        // The seqlock writer's side (readKey is the reader's). Release orders what came before (the unlink);
        // it does not keep LATER stores above it: the next owner's key bytes for the reused entry could become
        // visible before the new generation on a weakly ordered CPU (aarch64, POWER), and a reader that copied
        // them and then re-read the old generation would accept another key's bytes. The store-store fence
        // orders the generation store before every later store of this thread, the key bytes included (x86
        // keeps stores in order anyway; there the fence costs nothing).
        LONG.setRelease(segment, base + ShardLayout.STATE, (long) generation << ShardLayout.GENERATION_SHIFT);
        VarHandle.storeStoreFence();
        INT.set(segment, base + ShardLayout.SIEVE_NEXT, (int) ownerGet(ShardLayout.FREE_HEAD));
        ownerSet(ShardLayout.FREE_HEAD, entry);
    }

    // ------------------------------------------------------------------ SIEVE (owner only)

    private int older(int e) {
        return (int) INT.get(segment, ShardLayout.entryOffset(e, entryBytes) + ShardLayout.SIEVE_PREV);
    }

    private int newer(int e) {
        return (int) INT.get(segment, ShardLayout.entryOffset(e, entryBytes) + ShardLayout.SIEVE_NEXT);
    }

    private void setOlder(int e, int v) {
        INT.set(segment, ShardLayout.entryOffset(e, entryBytes) + ShardLayout.SIEVE_PREV, v);
    }

    private void setNewer(int e, int v) {
        INT.set(segment, ShardLayout.entryOffset(e, entryBytes) + ShardLayout.SIEVE_NEXT, v);
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
     * table told, so the floor can rise. False if nothing was evicted.
     */
    private boolean sieveEvict(long candidateCount) {
        long live = ownerGet(ShardLayout.LIVE);
        int hand = (int) ownerGet(ShardLayout.SIEVE_HAND);
        if (hand == NONE) {
            hand = (int) ownerGet(ShardLayout.SIEVE_TAIL);
        }
        int heavier = 0;
        for (long step = 0; hand != NONE && step <= 2 * live + 1; step++) {
            long stateOffset = ShardLayout.entryOffset(hand, entryBytes) + ShardLayout.STATE;
            long state = (long) LONG.getVolatile(segment, stateOffset);
            int n = newer(hand);
            int next = n != NONE ? n : (int) ownerGet(ShardLayout.SIEVE_TAIL);
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
        if (heavier > 0) {
            // Turned away by heavier entries (not by an empty list: every entry may be awaiting its reaping).
            evictions.rejected(candidateCount);
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
        long stateOffset = ShardLayout.entryOffset(entry, entryBytes) + ShardLayout.STATE;
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
        long nextOffset = ShardLayout.entryOffset(entry, entryBytes) + ShardLayout.NEXT;
        // Opaque store of the "not yet" marker, ordered before the publishing getAndSet (volatile).
        LONG.setOpaque(segment, nextOffset, NOT_YET);
        long previous = (long) LONG.getAndSet(segment, ShardLayout.STACK_HEAD, (long) entry);
        // Release: pairs with the owner's acquire load in drain().
        LONG.setRelease(segment, nextOffset, previous);
    }

    /**
     * Sets the SIEVE visited bit of entry {@code entry} if it is still a live member of generation
     * {@code generation}; writes nothing if the bit is already set. Threads: any. Progress: wait-free (one CAS,
     * losing it is harmless).
     */
    public void visit(int entry, int generation) {
        long stateOffset = ShardLayout.entryOffset(entry, entryBytes) + ShardLayout.STATE;
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
        long base = ShardLayout.entryOffset(entry, entryBytes);
        // Acquire: pairs with publish()'s release store; a MEMBER state of this generation means the fields below
        // were written before it.
        long state = (long) LONG.getAcquire(segment, base + ShardLayout.STATE);
        if (ShardLayout.generation(state) != generation || (state & MEMBER) == 0 || (state & DEAD) != 0) {
            return null;
        }
        long hash = (long) LONG.getOpaque(segment, base + ShardLayout.HASH);
        int length = (int) INT.getOpaque(segment, base + ShardLayout.KEY_LENGTH);
        int kind = (int) INT.getOpaque(segment, base + ShardLayout.KEY_KIND);
        if (length < 0 || length > maxKeyBytes) {
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
        long base = ShardLayout.entryOffset(entry, entryBytes);
        long state = (long) LONG.getAcquire(segment, base + ShardLayout.STATE);
        int length = (int) INT.getOpaque(segment, base + ShardLayout.KEY_LENGTH);
        int kind = (int) INT.getOpaque(segment, base + ShardLayout.KEY_KIND);
        byte[] bytes = new byte[length];
        MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, base + ShardLayout.KEY, bytes, 0, length);
        return new io.hotkeeper.engine.HeavyHitter(bytes, estimate, (state & ShardLayout.TRUNCATED) != 0,
                ShardLayout.kind(kind));
    }

    /**
     * The state word of entry {@code entry} (tests and diagnostics). Threads: any. Progress: wait-free.
     */
    public long state(int entry) {
        return (long) LONG.getVolatile(segment, ShardLayout.entryOffset(entry, entryBytes) + ShardLayout.STATE);
    }

    /**
     * Entries handed out so far (entries at or above this index were never used). Threads: any (an opaque read of
     * an owner-written count; a reader may see a slightly older value). Progress: wait-free.
     */
    public int entriesUsed() {
        return (int) (long) LONG.getOpaque(segment, ShardLayout.NEXT_UNUSED);
    }

    /**
     * The table slot offset recorded in an entry: immutable while the entry's generation lasts, so a reader that
     * saw a MEMBER state reads it, then validates against the table and the link. Threads: any. Progress:
     * wait-free.
     */
    public long recordedSlot(int entry) {
        return (long) LONG.getOpaque(segment, ShardLayout.entryOffset(entry, entryBytes) + ShardLayout.SLOT);
    }

    /** The hash recorded in an entry (see {@link #recordedSlot}). Threads: any. Progress: wait-free. */
    public long recordedHash(int entry) {
        return (long) LONG.getOpaque(segment, ShardLayout.entryOffset(entry, entryBytes) + ShardLayout.HASH);
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

    /** The SIEVE previous (older) link of an entry, or the free list's link while free. See {@link #headerWord}. */
    public int olderOf(int entry) {
        return (int) INT.getVolatile(segment, ShardLayout.entryOffset(entry, entryBytes) + ShardLayout.SIEVE_PREV);
    }

    /** The SIEVE next (newer) link of an entry, or the free list's link while free. See {@link #headerWord}. */
    public int newerOf(int entry) {
        return (int) INT.getVolatile(segment, ShardLayout.entryOffset(entry, entryBytes) + ShardLayout.SIEVE_NEXT);
    }

    /** The hand-off stack link of an entry (an index, NONE, or NOT_YET). See {@link #headerWord}. */
    public long handOffNext(int entry) {
        return (long) LONG.getVolatile(segment, ShardLayout.entryOffset(entry, entryBytes) + ShardLayout.NEXT);
    }

    /** A key copied out of a shard, with the hash and the kind recorded beside it. */
    public record Key(byte[] bytes, boolean truncated, long hash, io.hotkeeper.engine.HeavyHitter.Kind kind) {
    }
}
