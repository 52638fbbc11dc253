package io.hotkeeper.engine.table;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The slot-link protocol in one place: the link segment (one word per table slot, naming the key-shard entry that
 * holds the slot's key) and every transition of a slot word's tracked ({@link TableLayout#TRACKED}, T) and
 * link-lock ({@link TableLayout#PROMOTING}, P) bits. The bits themselves are defined by {@link TableLayout}; the
 * reads of them ({@link TableLayout#tracked}, {@link TableLayout#settled}) stay there. Everything that sets or
 * clears them, and every access to a link word, is a method of this class; the key shards (promotion, SIEVE
 * eviction, hand-off), the table's challenge, a reset's clear and a snapshot's copy call it.
 *
 * <pre>
 *  table segment (BucketTable)               link segment (this class, the same size as the table)
 *  +--------+--------+-----+--------+        +--------+--------+-----+--------+
 *  | slot 0 | slot 1 | ... | slot n |        | link 0 | link 1 | ... | link n |   link i belongs to slot i
 *  +--------+--------+-----+--------+        +--------+--------+-----+--------+   (same byte offset)
 *     slot word: fingerprint | P | T | SECOND | count      link word: ShardLayout.link(shard, entry, generation), 0 = none
 *
 *  T P   the slot's key ...
 *  0 0   is not tracked; a promotion may claim it              claim:    0 0 -> 1 1  (promoter holds the lock)
 *  1 1   is being promoted; its link is still to come          settle:   1 1 -> 1 0  (link stored and checked)
 *  1 0   is tracked; its link can be trusted                   unclaim:  1 1 -> 0 0  (the shard turned it away)
 *  0 1   was replaced or untracked; the lock is still held     untrack:  1 0 -> 1 1 -> 0 0 (SIEVE victim)
 *                                                              replace:  1 0 -> 0 1 (challenger's CAS) -> 0 0
 *                                                              clear:    1 0 -> 0 1 (reset)               -> 0 0
 * </pre>
 *
 * <p>The link lock. A slot's link word is written only by the thread that holds the slot's P bit: a promotion
 * takes it with T in its claim CAS ({@link #claim}), an untrack takes it before touching the link
 * ({@link #untrack}), and a replacement of a tracked slot takes it in the replacing CAS itself
 * ({@link #replacementLock}; then reads and clears the victim's link, {@link #takeVictimLink}); each gives it back
 * when done. Refreshes keep the bit and a replacement carries over a lock held by another thread, so while it is
 * set no claim can start: a T bit seen with P set is the holder's own claim; a promoter whose claim was lost to a
 * replacement meanwhile can never overwrite a newer promotion's link (it finds its slot untracked, takes its link
 * back, {@link #settle}); and a replacer always reads the link of the key it expelled, never that of a promotion
 * that started after its CAS.
 *
 * <p>Happens-before: the promoter stores the link (volatile) and then re-reads the slot (volatile); the replacing
 * thread CASes the slot (volatile) and then reads the link (volatile). By sequential consistency of volatile
 * accesses at least one of them sees the other, so the entry of a replaced key is always deleted: by the replacer
 * through the hand-off, or by the promoter itself. Readers load a link with acquire ({@link #linkAcquire}), pairing
 * with the promoter's volatile store, so the entry it names is initialised when they read it.
 *
 * <p>Threads: any. Progress: each method says; every CAS loop here is lock-free (a failed CAS is another
 * thread's successful refresh, replacement or unlock).
 */
public final class SlotLinks {
    /** Coordinates (MemorySegment, long byteOffset); aligned JAVA_LONG, so every access mode is available. */
    private static final VarHandle LINK = ValueLayout.JAVA_LONG.varHandle();
    /** Both protocol bits. */
    private static final long LINK_BITS = TableLayout.TRACKED | TableLayout.PROMOTING;

    private final BucketTable table;
    private final MemorySegment links;

    /**
     * The links of {@code table} in {@code links} (zeroed, owned by the caller's arena, exactly the table's size).
     *
     * @throws IllegalArgumentException if the sizes differ
     */
    public SlotLinks(BucketTable table, MemorySegment links) {
        if (links.byteSize() != table.byteSize()) {
            throw new IllegalArgumentException("links: size=" + links.byteSize() + ": must equal the table's "
                    + table.byteSize());
        }
        this.table = table;
        this.links = links;
    }

    // ------------------------------------------------------------------ pure word transitions

    /** Whether neither protocol bit is set: no key shard links the slot and no claim is in flight. */
    public static boolean unlinked(long word) {
        return (word & LINK_BITS) == 0;
    }

    /** {@code word} without the protocol bits: the count and the key as a snapshot or a merge keeps them. */
    public static long withoutLinkBits(long word) {
        return word & ~LINK_BITS;
    }

    /**
     * The P bit a challenger's replacing CAS writes over {@code victim}: with {@code handsOff} (the victim is
     * tracked and key shards are kept, so the challenger will hand its entry off) the lock is taken for the
     * challenger, so that no claim can store a link before it has read the victim's ({@link #takeVictimLink}
     * gives it back); otherwise a lock held by another thread is carried over (only its holder may clear it). If
     * a tracked victim's P is already set (a claim or an untrack in flight) the bit written is the same, and the
     * challenger does not hold it: it calls {@link #takeVictimLink} with {@code lockHeld} false, and the holder
     * gives it back. The challenger's word itself is untracked.
     */
    public static long replacementLock(long victim, boolean handsOff) {
        return handsOff ? TableLayout.PROMOTING : victim & TableLayout.PROMOTING;
    }

    // ------------------------------------------------------------------ transitions on the table

    /**
     * Claims the slot of {@code hash} for a promotion (T P: 0 0 -> 1 1, one volatile CAS that takes the link
     * lock): only if it holds the key's fingerprint, neither bit is set, and it counts at least the promotion
     * floor. Returns its offset, or -1 (the key's next observation at the floor tries again). Progress: lock-free,
     * at most {@code attempts} CASes.
     */
    public long claim(long hash, int attempts) {
        for (int attempt = 0; attempt < attempts; attempt++) {
            long slot = table.findSlot(hash);
            if (slot < 0) {
                return -1;
            }
            long word = table.lvSlot(slot);
            if (!unlinked(word) || TableLayout.count(word) < table.promotionFloor()
                    || TableLayout.fingerprint(word) != table.fingerprint(hash)) {
                return -1;
            }
            if (table.casSlot(slot, word, word | LINK_BITS)) {
                return slot;
            }
        }
        return -1;
    }

    /**
     * Ends a promotion whose claim on {@code slot} holds the lock, with the entry's {@code link}: stores the link
     * (volatile), then re-reads the slot (volatile; the Dekker pair with a replacer). Returns true if the claim
     * was intact (T P: 1 1 -> 1 0); false if the slot was replaced meanwhile, and then the link is taken back if
     * it is still ours and the lock given back (0 1 -> 0 0): the caller deletes its entry, through the same gate
     * as a replacer that read the link already. The store cannot overwrite a newer promotion's link: the caller
     * holds the lock, so no other claim has started on this slot. Threads: the lock holder. Progress: lock-free.
     */
    public boolean settle(long slot, long link) {
        LINK.setVolatile(links, slot, link);
        while (true) {
            long word = table.lvSlot(slot);
            if (TableLayout.tracked(word)) {
                // Our claim is intact (with P still set, no one else can have set T).
                if (table.casSlot(slot, word, word & ~TableLayout.PROMOTING)) {
                    return true;
                }
            } else {
                LINK.compareAndSet(links, slot, link, 0L);
                if (table.casSlot(slot, word, word & ~TableLayout.PROMOTING)) {
                    return false;
                }
            }
            // The CAS lost to a refresh or a replacement (another thread's progress): read again.
        }
    }

    /**
     * The count in the word of the slot at {@code slot} (volatile load): a claimed slot's count, which the key
     * shard weighs its SIEVE victim against. Threads: any. Progress: wait-free.
     */
    public long count(long slot) {
        return TableLayout.count(table.lvSlot(slot));
    }

    /**
     * Gives back a claim whose link was never stored: clears T with P if the claim is intact (1 1 -> 0 0), else
     * only P (a replacement cleared T and carried the lock over: 0 1 -> 0 0). Threads: the lock holder.
     * Progress: lock-free.
     */
    public void unclaim(long slot) {
        while (true) {
            long word = table.lvSlot(slot);
            long bits = TableLayout.tracked(word) ? LINK_BITS : TableLayout.PROMOTING;
            if (table.casSlot(slot, word, word & ~bits)) {
                return;
            }
        }
    }

    /**
     * Untracks {@code slot} if it still links {@code link} and holds {@code hash}'s fingerprint (a SIEVE
     * victim's slot): takes the lock (1 0 -> 1 1), checks the link under it, clears the link and T, and gives the
     * lock back (-> 0 0; only P if the link was another's, or a replacement cleared T meanwhile). Returns without
     * a change if the slot is not settled (untracked, or a claim in flight whose T is that claim's).
     * Threads: any. Progress: lock-free.
     */
    public void untrack(long slot, long hash, long link) {
        while (true) {
            long word = table.lvSlot(slot);
            if (!TableLayout.settled(word) || TableLayout.fingerprint(word) != table.fingerprint(hash)) {
                return;
            }
            if (table.casSlot(slot, word, word | TableLayout.PROMOTING)) {
                break;
            }
        }
        // Under the lock the link cannot change, so this read decides whether T is this entry's.
        boolean ours = (long) LINK.getVolatile(links, slot) == link;
        if (ours) {
            LINK.setVolatile(links, slot, 0L);
        }
        while (true) {
            long word = table.lvSlot(slot);
            long bits = ours && TableLayout.tracked(word) ? LINK_BITS : TableLayout.PROMOTING;
            if (table.casSlot(slot, word, word & ~bits)) {
                return;
            }
        }
    }

    /**
     * Untracks a tracked, unlocked {@code word} at {@code slot} for a reset (1 0 -> 0 1, one volatile CAS that
     * takes the lock); the caller then hands the entry off with {@link #takeVictimLink}, which gives it back.
     * Returns whether the CAS succeeded. Threads: any. Progress: wait-free.
     */
    public boolean lockForClear(long slot, long word) {
        return table.casSlot(slot, word, (word & ~TableLayout.TRACKED) | TableLayout.PROMOTING);
    }

    /**
     * The link of the key just expelled from {@code slot} by a replacing CAS (or a reset's {@link #lockForClear}),
     * read volatile (the other half of the Dekker pair with {@link #settle}); 0 if none. With {@code lockHeld}
     * (the CAS took the lock for the caller) no claim can start on the slot, so the link read is the victim's
     * own: it is cleared and the lock given back (0 1 -> 0 0). Without it the holder is a promotion or an untrack
     * in flight, which ends the protocol itself. Threads: the replacer. Progress: lock-free.
     */
    public long takeVictimLink(long slot, boolean lockHeld) {
        long link = (long) LINK.getVolatile(links, slot);
        if (lockHeld) {
            if (link != 0) {
                LINK.compareAndSet(links, slot, link, 0L);
            }
            unlock(slot);
        }
        return link;
    }

    /**
     * Clears P of {@code slot}, whatever else the word holds by then (refreshes and replacements change it
     * meanwhile). Threads: only the lock's holder. Progress: lock-free.
     */
    public void unlock(long slot) {
        while (true) {
            long word = table.lvSlot(slot);
            if (table.casSlot(slot, word, word & ~TableLayout.PROMOTING)) {
                return;
            }
        }
    }

    // ------------------------------------------------------------------ link reads

    /**
     * The link of {@code slot}, acquire: pairs with the promoter's volatile store, so the named entry's key is
     * initialised (readers: top-k, tracked-key lookups). Threads: any. Progress: wait-free.
     */
    public long linkAcquire(long slot) {
        return (long) LINK.getAcquire(links, slot);
    }

    /**
     * The link of {@code slot}, opaque: the freshest value without ordering, for hints (a visit, a scan that
     * validates against the entry's own state). Threads: any. Progress: wait-free.
     */
    public long linkOpaque(long slot) {
        return (long) LINK.getOpaque(links, slot);
    }

    /**
     * The link of {@code slot}, volatile (0 = none): for checks that must be ordered with slot loads (a SIEVE
     * candidate's count, integrity checks, tests). Threads: any. Progress: wait-free.
     */
    public long linkVolatile(long slot) {
        return (long) LINK.getVolatile(links, slot);
    }

    /** The link segment (footprint, and tests that check it dies with its arena). Threads: any. */
    public MemorySegment segment() {
        return links;
    }
}
