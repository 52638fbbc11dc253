package io.hotkeeper.engine.combine;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The off-heap layout of one worker's hot-key combiner, and of an entry's state word. No other class does offset
 * or bit arithmetic on combiners.
 *
 * <h2>Combiner block (one per worker, {@code HEADER_BYTES + entries * ENTRY_BYTES}, 128-byte aligned)</h2>
 * <pre>
 *  0        8                              128       136       144       152       160
 *  +--------+------------------------------+---------+---------+---------+---------+----
 *  | gate   | padding                      | hash 0  | state 0 | hash 1  | state 1 | ...
 *  +--------+------------------------------+---------+---------+---------+---------+----
 *  gate:  0 free, 1 held; taken (CAS) only by the virtual threads of one carrier, which share the block.
 *  hash:  the 64-bit key hash of the entry, 0 when the entry is empty (a key whose hash is 0 is never combined).
 *         Written by the owner only (release); read by the owner (plain) and by estimators (acquire).
 *  state: see below. Written by the owner only (release); read by the owner (plain) and by estimators (acquire).
 *  Entries come in sets of WAYS (2): a key may sit in either entry of set s = (hash >>> 32) &amp; (entries / 2 - 1)
 *  (the hash's high bits, disjoint from the bucket index in its low bits), at HEADER_BYTES + s * SET_BYTES and
 *  HEADER_BYTES + s * SET_BYTES + ENTRY_BYTES; a set is 32 bytes, so both ways share one cache line.
 * </pre>
 *
 * <h2>State word</h2>
 * <pre>
 *  63                                                 16 15               0
 *  +----------------------------------------------------+------------------+
 *  | base (48): the table's count after the last flush  | pending (16)     |
 *  +----------------------------------------------------+------------------+
 *  pending: observations absorbed since the last flush, always below the flush threshold (&lt;= 2^15).
 * </pre>
 */
public final class CombinerLayout {
    /** Bytes before the first entry: the gate word alone in two cache lines. */
    public static final int HEADER_BYTES = 128;
    /** Offset of the gate word. */
    public static final long GATE = 0;
    /** Bytes of one entry. */
    public static final int ENTRY_BYTES = 16;
    /** Entries per set (the key's two candidate entries). */
    public static final int WAYS = 2;
    /** Bytes of one set. */
    public static final int SET_BYTES = WAYS * 16;
    /** Offset of the hash word in an entry. */
    public static final long HASH = 0;
    /** Offset of the state word in an entry. */
    public static final long STATE = 8;
    /** Alignment of a block. */
    public static final int ALIGNMENT = 128;
    /** Bits of the pending count in a state word. */
    public static final int PENDING_BITS = 16;
    /** Mask of the pending count. */
    public static final long PENDING_MASK = (1L << PENDING_BITS) - 1;
    /** Largest base a state word holds; larger table counts are recorded as this. */
    public static final long MAX_BASE = (1L << (Long.SIZE - PENDING_BITS)) - 1;
    /** Largest flush threshold (pending stays below it, so it fits its 16 bits with room to spare). */
    public static final int MAX_FLUSH_THRESHOLD = 1 << 15;
    /** Fewest entries per block. */
    public static final int MIN_ENTRIES = 16;
    /** Most entries per block. */
    public static final int MAX_ENTRIES = 1 << 16;
    /** Shift from a hash to its entry index (before masking). */
    public static final int INDEX_SHIFT = 32;

    private CombinerLayout() {
    }

    /** Bytes of a block of {@code entries} entries. */
    public static long blockBytes(int entries) {
        return HEADER_BYTES + (long) entries * ENTRY_BYTES;
    }

    /** Byte offset of the set (its first entry) of {@code hash} in a block whose set mask is {@code setMask}. */
    public static long setOffset(long hash, int setMask) {
        return HEADER_BYTES + (((hash >>> INDEX_SHIFT) & setMask) << 5);
    }

    /** A state word. */
    public static long state(long base, long pending) {
        return (Math.min(base, MAX_BASE) << PENDING_BITS) | pending;
    }

    /** The base of a state word. */
    public static long base(long state) {
        return state >>> PENDING_BITS;
    }

    /** The pending count of a state word. */
    public static long pending(long state) {
        return state & PENDING_MASK;
    }

    /**
     * A combiner block, for debugging: the gate, then every non-empty entry with its hash, base and pending
     * count, one line each. Plain loads. Threads: any. Progress: wait-free.
     */
    public static String describe(MemorySegment block) {
        StringBuilder out = new StringBuilder("gate=").append(block.get(ValueLayout.JAVA_LONG, GATE)).append('\n');
        long entries = (block.byteSize() - HEADER_BYTES) / ENTRY_BYTES;
        for (long e = 0; e < entries; e++) {
            long at = HEADER_BYTES + e * ENTRY_BYTES;
            long hash = block.get(ValueLayout.JAVA_LONG, at + HASH);
            if (hash != 0) {
                long state = block.get(ValueLayout.JAVA_LONG, at + STATE);
                out.append("entry ").append(e).append(": hash=0x").append(Long.toHexString(hash)).append(" base=")
                        .append(base(state)).append(" pending=").append(pending(state)).append('\n');
            }
        }
        return out.toString();
    }
}
