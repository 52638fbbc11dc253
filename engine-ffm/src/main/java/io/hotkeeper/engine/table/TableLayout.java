package io.hotkeeper.engine.table;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The off-heap layout of the bucket table, and the packing of a slot word. No other class does offset or bit
 * arithmetic on the table.
 *
 * <h2>Regions</h2>
 * <pre>
 *  table segment, 128-byte aligned, bucketCount * 64 bytes (any bucketCount in 64..2^20: TableGeometry)
 *  +------------------+------------------+-----+-----------------------------+
 *  | bucket 0         | bucket 1         | ... | bucket bucketCount-1        |
 *  +------------------+------------------+-----+-----------------------------+
 *
 *  one bucket = one 64-byte cache line = 8 slots
 *  0        8        16       24       32       40       48       56       64
 *  +--------+--------+--------+--------+--------+--------+--------+--------+
 *  | slot 0 | slot 1 | slot 2 | slot 3 | slot 4 | slot 5 | slot 6 | slot 7 |
 *  +--------+--------+--------+--------+--------+--------+--------+--------+
 * </pre>
 *
 * <h2>Slot word (64 bits, read and written only as a whole through VarHandle atomics)</h2>
 * <pre>
 *  63                     41  40  39  38  37                                0
 *  +------------------------+---+---+---+-----------------------------------+
 *  | fingerprint (23 bits)  | P | T | S | count (38 bits, saturates 2^38-1) |
 *  +------------------------+---+---+---+-----------------------------------+
 *  S (second): the word sits in the second candidate bucket of the key that claimed it, so that key's first
 *    bucket is alternate(this bucket, fingerprint); clear in its first bucket (and in every word of a table
 *    with one candidate per key, or where both candidates coincide). Set once, by the claim (a constant OR
 *    chosen by the bucket claimed), kept by every later write of the word. With it a replay of the word (a
 *    merge, a snapshot fold) knows the key's first bucket: two keys of one fingerprint whose first buckets are
 *    each other's second are two slots, and stay two (docs/design.md, "Two candidate buckets").
 *  T (tracked): the slot's key is recorded in a key shard and the link array names the entry.
 *  P (promoting): a promotion's claim is in flight on this slot, from the CAS that set T until its link is
 *    stored and checked. Refreshes keep it, a replacement carries it over to the challenger's word, and no
 *    other claim may start while it is set: while P is set, T can only have been set by that one claim.
 *  A slot is empty iff its count is 0; an empty slot is always the word 0.
 * </pre>
 *
 * <h2>Hash bit budget (64-bit keyed hash h)</h2>
 * <pre>
 *  63                              32 31            indexBits      0
 *  +---------------------------------+----------------+-------------+
 *  | spare (32 bits)                 | fingerprint    | index bits  |
 *  +---------------------------------+----------------+-------------+
 *  indexBits = ceil(log2 bucketCount); the bucket is (rotateRight(low 32 bits, indexBits) * bucketCount) &gt;&gt;&gt; 32
 *  (multiply-high: {@link TableGeometry}, the only code that maps a hash to a bucket); for a power of two that is
 *  the index bits themselves.
 *  fingerprint bits = min(23, 32 - indexBits); indexBits &lt;= 20, so a fingerprint has at least 12 bits.
 *  spare feeds the eviction draw and picks the salt shard; it never overlaps index or fingerprint.
 * </pre>
 */
public final class TableLayout {
    /** Bytes in one slot word. */
    public static final int SLOT_BYTES = Long.BYTES;
    /** Slots in one bucket. */
    public static final int SLOTS_PER_BUCKET = 8;
    /** Bytes in one bucket: exactly one cache line. */
    public static final int BUCKET_BYTES = SLOT_BYTES * SLOTS_PER_BUCKET;
    /** log2 of {@link #BUCKET_BYTES}. */
    public static final int BUCKET_SHIFT = 6;
    /** Alignment of the table segment: two cache lines, so the adjacent-line prefetcher never pairs two tables. */
    public static final int TABLE_ALIGNMENT = 128;

    /** Bits of the count field. */
    public static final int COUNT_BITS = 38;
    /** Mask of the count field; also the saturation value of a count. */
    public static final long COUNT_MASK = (1L << COUNT_BITS) - 1;
    /** Largest count a slot can hold; increments stop here instead of wrapping. */
    public static final long MAX_COUNT = COUNT_MASK;
    /**
     * The second bit: the word sits in the second candidate bucket of the key that claimed it (see the class
     * comment). Written by the claim, never changed while the word lives.
     */
    public static final long SECOND = 1L << COUNT_BITS;
    /** The tracked bit: set while a key shard holds this slot's key (see the link array). */
    public static final long TRACKED = 1L << (COUNT_BITS + 1);
    /**
     * The promoting bit: set with {@link #TRACKED} by a promotion's claim and cleared by the same promotion once
     * its link is stored and checked (or its claim lost); carried over by a replacement, so that no second claim
     * can start on the slot while the first one's link store is still to come.
     */
    public static final long PROMOTING = 1L << (COUNT_BITS + 2);
    /** Shift of the fingerprint field within the slot word. */
    public static final int FINGERPRINT_SHIFT = COUNT_BITS + 3;
    /** Widest fingerprint. */
    public static final int MAX_FINGERPRINT_BITS = 64 - FINGERPRINT_SHIFT;
    /** Narrowest fingerprint; bounds the bucket count. */
    public static final int MIN_FINGERPRINT_BITS = 12;
    /** Bits of the hash shared by bucket index and fingerprint. */
    public static final int INDEX_AND_FINGERPRINT_BITS = 32;
    /** Shift that extracts the spare bits from the hash. */
    public static final int SPARE_SHIFT = 32;
    /** Most index bits ({@code ceil(log2 bucketCount)}): 2^20 buckets, 64 MiB. */
    public static final int MAX_INDEX_BITS = INDEX_AND_FINGERPRINT_BITS - MIN_FINGERPRINT_BITS;
    /** Smallest table: 64 buckets, 4 KiB. */
    public static final int MIN_INDEX_BITS = 6;
    /** Smallest table in bytes. */
    public static final long MIN_TABLE_BYTES = (long) BUCKET_BYTES << MIN_INDEX_BITS;
    /** Largest table in bytes. */
    public static final long MAX_TABLE_BYTES = (long) BUCKET_BYTES << MAX_INDEX_BITS;

    private TableLayout() {
    }

    /** Byte offset of slot {@code slot} (0..7) of the bucket at byte offset {@code bucketOffset}. */
    public static long slotOffset(long bucketOffset, int slot) {
        return bucketOffset + ((long) slot * SLOT_BYTES);
    }

    /** Count field of a slot word. */
    public static long count(long word) {
        return word & COUNT_MASK;
    }

    /** Fingerprint field of a slot word. */
    public static long fingerprint(long word) {
        return word >>> FINGERPRINT_SHIFT;
    }

    /** Whether the tracked bit is set. */
    public static boolean tracked(long word) {
        return (word & TRACKED) != 0;
    }

    /** Whether the second bit is set: the word sits in its claimant's second candidate bucket. */
    public static boolean second(long word) {
        return (word & SECOND) != 0;
    }

    /**
     * The first candidate bucket of the key that claimed a word found in bucket {@code bucket}: the bucket itself,
     * or its alternate when {@link #SECOND} is set.
     */
    public static long firstBucket(TableGeometry geometry, long bucket, long word) {
        return second(word) ? geometry.alternate(bucket, fingerprint(word)) : bucket;
    }

    /** Whether the promoting bit is set (a promotion's claim is in flight). */
    public static boolean promoting(long word) {
        return (word & PROMOTING) != 0;
    }

    /** Whether a tracked slot's link can be trusted: tracked, and no claim in flight. */
    public static boolean settled(long word) {
        return (word & (TRACKED | PROMOTING)) == TRACKED;
    }

    /** Packs a fingerprint (already masked to its width) and a count in 1..{@link #MAX_COUNT}, untracked. */
    public static long word(long fingerprint, long count) {
        return (fingerprint << FINGERPRINT_SHIFT) | count;
    }

    /** Fingerprint bits for a table of up to {@code 2^indexBits} buckets. */
    public static int fingerprintBits(int indexBits) {
        return Math.min(MAX_FINGERPRINT_BITS, INDEX_AND_FINGERPRINT_BITS - indexBits);
    }

    /** The spare bits of a hash, in the low 32 bits of the result. */
    public static long spare(long hash) {
        return hash >>> SPARE_SHIFT;
    }

    /**
     * A slot word in words, for debugging: {@code empty}, or {@code fp=0x.. count=.. [S] [T] [P]}.
     */
    public static String describeWord(long word) {
        if (word == 0) {
            return "empty";
        }
        return "fp=0x" + Long.toHexString(fingerprint(word)) + " count=" + count(word) + (second(word) ? " S" : "")
                + (tracked(word) ? " T" : "") + (promoting(word) ? " P" : "");
    }

    /**
     * Buckets {@code first .. first + buckets - 1} of a table segment, one line each, for debugging: every slot
     * word decoded ({@link #describeWord}). Plain loads: a racing writer may be seen half way through a bucket
     * (each word itself is read whole). Threads: any. Progress: wait-free.
     */
    public static String describe(MemorySegment table, long first, int buckets) {
        StringBuilder out = new StringBuilder();
        long last = Math.min(table.byteSize() / BUCKET_BYTES, first + buckets);
        for (long b = first; b < last; b++) {
            out.append("bucket ").append(b).append(':');
            for (int s = 0; s < SLOTS_PER_BUCKET; s++) {
                out.append(s == 0 ? " " : " | ").append(describeWord(
                        table.get(ValueLayout.JAVA_LONG, slotOffset(b * BUCKET_BYTES, s))));
            }
            out.append('\n');
        }
        return out.toString();
    }
}
