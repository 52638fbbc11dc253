package io.hotkeeper.engine.shard;

/**
 * The off-heap layout of a key shard, of its entries, of an entry's state word, and of the link words that
 * tie table slots to entries. No other class does offset or bit arithmetic on shards.
 *
 * <h2>Shard segment</h2>
 * <pre>
 *  0                    128                   256                   384
 *  +--------------------+---------------------+---------------------+-----------+-----------+---
 *  | owner region       | hand-off region     | busy region         | entry 0   | entry 1   | ...
 *  | (owner only)       | (stack head: any    | (owner candidates:  |           |           |
 *  |                    |  thread xchg)       |  CAS)               |           |           |
 *  +--------------------+---------------------+---------------------+-----------+-----------+---
 *  owner region: FREE_HEAD SIEVE_HEAD SIEVE_TAIL SIEVE_HAND NEXT_UNUSED REAP_CURSOR PENDING LIVE MAX_ZOMBIES
 *                (8 bytes each)
 * </pre>
 *
 * <h2>Entry (ENTRY_HEADER_BYTES + maxKeyBytes rounded up to 8)</h2>
 * <pre>
 *  0        8        16       24       32         36          40          44         48
 *  +--------+--------+--------+--------+----------+-----------+-----------+----------+----------------+
 *  | state  | next   | hash   | slot   | key len  | sieve prev| sieve next| key kind | key bytes ...  |
 *  +--------+--------+--------+--------+----------+-----------+-----------+----------+----------------+
 *  state: atomic, any thread (CAS). next: hand-off stack link, written by the pusher.
 *  hash, slot, key len, key kind, key: written by the owner before the entry is published, immutable while
 *  its generation lasts. sieve prev/next: owner only (SIEVE list, then free list).
 *  key kind (int): how the key was observed, KIND_BYTES 0, KIND_LONG 1, KIND_TEXT 2 (was padding, always 0).
 * </pre>
 *
 * <h2>State word</h2>
 * <pre>
 *  63                               32 31               16 15            8 7            0
 *  +----------------------------------+-------------------+---------------+--------------+
 *  | generation (32)                  | unused            | references    | flags        |
 *  +----------------------------------+-------------------+---------------+--------------+
 *  flags: MEMBER 1 (linked in the shard), DEAD 2 (marked for deletion), VISITED 4 (SIEVE), TRUNCATED 8
 *  references: 1 for the shard while MEMBER, +1 for a hand-off push until the owner pops it.
 *  generation: incremented when the entry is freed; a link word names one generation.
 * </pre>
 *
 * <h2>Link word (one per table slot, in the link segment parallel to the table)</h2>
 * <pre>
 *  63           52 51                  32 31                                  0
 *  +--------------+----------------------+-------------------------------------+
 *  | shard (12)   | entry (20)           | generation (32)                     |
 *  +--------------+----------------------+-------------------------------------+
 *  0 = no link (generations start at 1).
 * </pre>
 */
public final class ShardLayout {
    /** Bytes of each header region. */
    public static final int REGION_BYTES = 128;
    /** Owner region: head of the free list (entry index or NONE). */
    public static final long FREE_HEAD = 0;
    /** Owner region: most recently inserted SIEVE entry. */
    public static final long SIEVE_HEAD = 8;
    /** Owner region: oldest SIEVE entry. */
    public static final long SIEVE_TAIL = 16;
    /** Owner region: the SIEVE hand (NONE = start from the tail). */
    public static final long SIEVE_HAND = 24;
    /** Owner region: entries never used yet start here. */
    public static final long NEXT_UNUSED = 32;
    /** Owner region: the reap cursor. */
    public static final long REAP_CURSOR = 40;
    /** Owner region: a popped hand-off chain whose next link was not yet written. */
    public static final long PENDING = 48;
    /** Owner region: entries linked in the shard. */
    public static final long LIVE = 56;
    /** Owner region: most handed-over entries found waiting at one drain (the zombie high-water mark). */
    public static final long MAX_ZOMBIES = 64;
    /** Hand-off region: head of the MPSC stack (entry index or NONE). */
    public static final long STACK_HEAD = REGION_BYTES;
    /** Busy region: 0 free, 1 held by an owner candidate. */
    public static final long BUSY = 2L * REGION_BYTES;
    /** Bytes before entry 0. */
    public static final long HEADER_BYTES = 3L * REGION_BYTES;

    /** Entry: state word. */
    public static final long STATE = 0;
    /** Entry: hand-off stack link. */
    public static final long NEXT = 8;
    /** Entry: full 64-bit key hash. */
    public static final long HASH = 16;
    /** Entry: table slot byte offset the key was promoted from. */
    public static final long SLOT = 24;
    /** Entry: key length in bytes (as stored; see TRUNCATED). */
    public static final long KEY_LENGTH = 32;
    /** Entry: SIEVE previous (towards the tail). */
    public static final long SIEVE_PREV = 36;
    /** Entry: SIEVE next (towards the head); the free list's link while free. */
    public static final long SIEVE_NEXT = 40;
    /** Entry: the key's kind, {@link #KIND_BYTES}, {@link #KIND_LONG} or {@link #KIND_TEXT} (an int). */
    public static final long KEY_KIND = 44;
    /** Entry: first key byte. */
    public static final long KEY = 48;
    /** Bytes of an entry's fixed part. */
    public static final int ENTRY_HEADER_BYTES = 48;

    /** Key kind: bytes ({@code observe(byte[])}, {@code observe(MemorySegment)}); 0, so a zeroed entry is bytes. */
    public static final int KIND_BYTES = 0;
    /** Key kind: a {@code long}'s 8 little-endian bytes ({@code observe(long)}). */
    public static final int KIND_LONG = 1;
    /** Key kind: a {@code CharSequence}'s UTF-8 bytes ({@code observe(CharSequence)}). */
    public static final int KIND_TEXT = 2;

    /** "No entry" in index fields. */
    public static final int NONE = -1;
    /** Stack link not written yet by the pusher. */
    public static final long NOT_YET = -2;

    /** Flag: linked in the shard. */
    public static final long MEMBER = 1;
    /** Flag: marked for deletion. */
    public static final long DEAD = 2;
    /** Flag: SIEVE visited bit. */
    public static final long VISITED = 4;
    /** Flag: the key was longer than maxKeyBytes and is stored truncated. */
    public static final long TRUNCATED = 8;
    /** One reference in the state word. */
    public static final long REF = 1L << 8;
    /** Mask of the reference count. */
    public static final long REF_MASK = 0xFFL << 8;
    /** Shift of the generation. */
    public static final int GENERATION_SHIFT = 32;

    /** Bits of the shard id in a link. */
    public static final int LINK_SHARD_BITS = 12;
    /** Bits of the entry index in a link. */
    public static final int LINK_ENTRY_BITS = 20;
    /** Most shards. */
    public static final int MAX_SHARDS = 1 << LINK_SHARD_BITS;
    /** Most entries per shard. */
    public static final int MAX_ENTRIES = 1 << LINK_ENTRY_BITS;
    /** Alignment of shard segments. */
    public static final int ALIGNMENT = 128;

    private ShardLayout() {
    }

    /** The heavy hitter kind of a stored key kind; an unknown code reads as bytes. */
    public static io.hotkeeper.engine.HeavyHitter.Kind kind(int code) {
        return switch (code) {
            case KIND_LONG -> io.hotkeeper.engine.HeavyHitter.Kind.LONG;
            case KIND_TEXT -> io.hotkeeper.engine.HeavyHitter.Kind.TEXT;
            default -> io.hotkeeper.engine.HeavyHitter.Kind.BYTES;
        };
    }

    /** Bytes of one entry for keys of up to {@code maxKeyBytes}. */
    public static long entryBytes(int maxKeyBytes) {
        return ENTRY_HEADER_BYTES + ((maxKeyBytes + 7L) & ~7L);
    }

    /** Byte offset of entry {@code index}. */
    public static long entryOffset(int index, long entryBytes) {
        return HEADER_BYTES + index * entryBytes;
    }

    /** Bytes of a shard of {@code capacity} entries. */
    public static long shardBytes(int capacity, int maxKeyBytes) {
        return HEADER_BYTES + capacity * entryBytes(maxKeyBytes);
    }

    /** Generation of a state word. */
    public static int generation(long state) {
        return (int) (state >>> GENERATION_SHIFT);
    }

    /** Reference count of a state word. */
    public static int references(long state) {
        return (int) ((state & REF_MASK) >>> 8);
    }

    /** A link naming entry {@code entry} of shard {@code shard} in generation {@code generation}. */
    public static long link(int shard, int entry, int generation) {
        return ((long) shard << 52) | ((long) entry << 32) | (generation & 0xFFFF_FFFFL);
    }

    /** Shard of a link. */
    public static int linkShard(long link) {
        return (int) (link >>> 52);
    }

    /** Entry index of a link. */
    public static int linkEntry(long link) {
        return (int) (link >>> 32) & (MAX_ENTRIES - 1);
    }

    /** Generation of a link. */
    public static int linkGeneration(long link) {
        return (int) link;
    }
}
