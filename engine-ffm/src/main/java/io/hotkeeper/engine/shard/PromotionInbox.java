package io.hotkeeper.engine.shard;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * A key shard's inbox: the promotions that found the shard busy wait here for its next owner instead of being
 * dropped. A few cells (ShardLayout, "Inbox cells"), only for a shard that several workers share (a memory budget with fewer
 * shards than writers). Without them a promoter that meets the busy gate skips its promotion and relies on the
 * key's next observation; a key that arrives in one run while another worker holds the shard (a long eviction
 * walk, a preempted owner, code not compiled yet) would be counted in the table but never listed.
 *
 * <p>Protocol, per cell: a promoter takes an empty cell with one CAS (EMPTY to FILLING), copies the hash and the
 * key in, and publishes it with a release store of FULL. The shard's owner (one at a time, through the shard's
 * busy gate) takes every FULL cell it sees with an acquire load, carries the promotion out, and frees the cell
 * with a release store of EMPTY. Only a promoter's CAS leaves EMPTY, and only the owner leaves FULL, so a cell
 * has one writer at a time. A request carries no link and no slot: the owner claims the slot by the key's hash,
 * as a promotion does, so a request that has gone stale (the key tracked meanwhile, its slot replaced, its count
 * below the floor after a reset) claims nothing.
 */
public final class PromotionInbox {
    /** Coordinates (MemorySegment, long byteOffset). */
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    /** What the shard's owner does with one promotion from the inbox. */
    @FunctionalInterface
    public interface Taker {
        /**
         * Carries out the promotion of the key of {@code hash}, whose stored bytes are
         * {@code cells[keyOffset, keyOffset + length)}, of kind {@code kind} (ShardLayout's KIND_*), truncated
         * if {@code truncated}; {@code worker} is the one passed to {@link #takeAll}. The bytes are valid only
         * during the call.
         */
        void take(long hash, MemorySegment cells, long keyOffset, int length, boolean truncated, int kind,
                  long worker);
    }

    private final MemorySegment segment;
    private final int cells;
    private final int maxKeyBytes;
    private final long cellBytes;

    /**
     * Cells for keys of up to {@code maxKeyBytes} in {@code segment} (zeroed: every cell empty), as many as fit.
     * Threads: the creator, before publishing the shard.
     *
     * @throws IllegalArgumentException if the segment holds no cell or more than
     *                                  {@link ShardLayout#MAX_INBOX_CELLS}
     */
    public PromotionInbox(MemorySegment segment, int maxKeyBytes) {
        this.cellBytes = ShardLayout.inboxCellBytes(maxKeyBytes);
        long count = segment.byteSize() / cellBytes;
        if (count < 1 || count > ShardLayout.MAX_INBOX_CELLS) {
            throw new IllegalArgumentException("inbox segment: size=" + segment.byteSize() + ": must hold 1.."
                    + ShardLayout.MAX_INBOX_CELLS + " cells of " + cellBytes + " bytes");
        }
        this.segment = segment;
        this.cells = (int) count;
        this.maxKeyBytes = maxKeyBytes;
    }

    /** The number of cells. Threads: any. Progress: wait-free. */
    public int cells() {
        return cells;
    }

    /**
     * Leaves the promotion of the key of {@code hash} in the inbox: {@code longKey} when {@code bytes} and
     * {@code chars} are both null, else {@code bytes[offset, offset + length)}, else the UTF-8 bytes of
     * {@code chars} (as {@code KeyShard.promote} takes it), truncated to maxKeyBytes. True if a cell now holds it,
     * or already held it (the key's earlier observation, waiting: one cell per key is enough); false if every
     * cell is taken.
     *
     * <p>Failure: if copying the key throws (a {@code charAt} that throws, a key segment whose arena closed), the
     * cell is freed and the exception propagates. Re-entry: a {@code charAt} that calls back into the sketch and
     * promotes meanwhile finds this cell FILLING and takes another, or none.
     *
     * <p>Threads: any (a promoter that found the shard busy). Progress: lock-free (at most one CAS per cell; the
     * copy is bounded by maxKeyBytes, apart from the key's own {@code charAt}).
     */
    public boolean offer(long hash, long longKey, MemorySegment bytes, long offset, long length, CharSequence chars) {
        for (int i = 0; i < cells; i++) {
            long cell = i * cellBytes;
            // Acquire: a FULL cell's hash is the one its promoter published. A cell taken and refilled between
            // the two loads gives a stale answer at worst, as a dropped promotion would: the key's next
            // observation tries again.
            if ((long) LONG.getAcquire(segment, cell + ShardLayout.INBOX_STATE) == ShardLayout.INBOX_FULL
                    && (long) LONG.get(segment, cell + ShardLayout.INBOX_HASH) == hash) {
                return true;
            }
        }
        for (int i = 0; i < cells; i++) {
            long cell = i * cellBytes;
            // Volatile CAS: pairs with the owner's release store of EMPTY, so its reads of the cell's previous
            // request come before the writes below.
            if (!LONG.compareAndSet(segment, cell + ShardLayout.INBOX_STATE, ShardLayout.INBOX_EMPTY,
                    ShardLayout.INBOX_FILLING)) {
                continue;
            }
            boolean filled = false;
            try {
                long keyWord = copyKey(cell + ShardLayout.INBOX_KEY, longKey, bytes, offset, length, chars);
                LONG.set(segment, cell + ShardLayout.INBOX_HASH, hash);
                LONG.set(segment, cell + ShardLayout.INBOX_KEY_WORD, keyWord);
                filled = true;
            } finally {
                // Release: the hash, key word and key bytes are visible to an owner whose acquire load sees FULL.
                LONG.setRelease(segment, cell + ShardLayout.INBOX_STATE,
                        filled ? ShardLayout.INBOX_FULL : ShardLayout.INBOX_EMPTY);
            }
            return true;
        }
        return false;
    }

    /** Copies the key to {@code at}, truncated to maxKeyBytes; returns its key word. */
    private long copyKey(long at, long longKey, MemorySegment bytes, long offset, long length, CharSequence chars) {
        if (bytes == null && chars == null) {
            int stored = Math.min(Long.BYTES, maxKeyBytes);
            ShardLayout.putLongKey(segment, at, longKey, stored);
            return ShardLayout.keyBits(stored, ShardLayout.KIND_LONG)
                    | (stored < Long.BYTES ? ShardLayout.TRUNCATED : 0);
        }
        if (bytes != null) {
            int stored = (int) Math.min(length, maxKeyBytes);
            MemorySegment.copy(bytes, offset, segment, at, stored);
            return ShardLayout.keyBits(stored, ShardLayout.KIND_BYTES) | (stored < length ? ShardLayout.TRUNCATED : 0);
        }
        long written = Utf8Writer.write(segment, at, maxKeyBytes, chars);
        return ShardLayout.keyBits((int) written, ShardLayout.KIND_TEXT)
                | ((written & Utf8Writer.TRUNCATED) != 0 ? ShardLayout.TRUNCATED : 0);
    }

    /**
     * Carries out every promotion in the inbox through {@code taker} and frees its cell; returns how many there
     * were. A cell is freed even if the taker throws (the promotion is then dropped, as a skipped one would be).
     *
     * <p>Threads: the shard's owner only (inside its busy gate). Progress: wait-free (one pass over the cells;
     * the taker's own work aside).
     */
    public int takeAll(Taker taker, long worker) {
        int taken = 0;
        for (int i = 0; i < cells; i++) {
            long cell = i * cellBytes;
            // Acquire: pairs with the promoter's release store of FULL.
            if ((long) LONG.getAcquire(segment, cell + ShardLayout.INBOX_STATE) != ShardLayout.INBOX_FULL) {
                continue;
            }
            long word = (long) LONG.get(segment, cell + ShardLayout.INBOX_KEY_WORD);
            try {
                taker.take((long) LONG.get(segment, cell + ShardLayout.INBOX_HASH), segment,
                        cell + ShardLayout.INBOX_KEY, ShardLayout.keyLength(word),
                        (word & ShardLayout.TRUNCATED) != 0, ShardLayout.keyKind(word), worker);
            } finally {
                // Release: the reads above come before the next promoter's writes (its CAS pairs with this store).
                LONG.setRelease(segment, cell + ShardLayout.INBOX_STATE, ShardLayout.INBOX_EMPTY);
            }
            taken++;
        }
        return taken;
    }

    /** Cells holding a promotion not carried out yet. Threads: any. Progress: wait-free. */
    public int waiting() {
        int full = 0;
        for (int i = 0; i < cells; i++) {
            // Opaque: a count for tests and integrity checks, no ordering needed.
            if ((long) LONG.getOpaque(segment, i * cellBytes + ShardLayout.INBOX_STATE)
                    == ShardLayout.INBOX_FULL) {
                full++;
            }
        }
        return full;
    }
}
