package io.hotkeeper.engine.shard;

/**
 * The off-heap layout of a key shard, of its pages and entries, of an entry's state word, and of the link words
 * that tie table slots to entries. No other class does offset or bit arithmetic on shards.
 *
 * <h2>Shard segment</h2>
 * <pre>
 *  0              128            256            384               640             640 + map
 *  +--------------+--------------+--------------+-----------------+---------------+--------+--------+---
 *  | owner region | hand-off     | busy region  | class region    | page map      | page 0 | page 1 | ...
 *  | (owner only) | (stack head: | (owner       | (owner only)    | (1 byte/page, |        |        |
 *  |              |  any thread  |  candidates: | free head, bump |  owner writes |        |        |
 *  |              |  xchg)       |  CAS)        | x MAX_CLASSES   |  once, any    |        |        |
 *  |              |              |              |                 |  thread reads)|        |        |
 *  +--------------+--------------+--------------+-----------------+---------------+--------+--------+---
 *  owner region: IN_USE SIEVE_HEAD SIEVE_TAIL SIEVE_HAND NEXT_PAGE REAP_CURSOR PENDING LIVE MAX_ZOMBIES
 *                (8 bytes each)
 *  class region: for class c, FREE_HEAD(c) at 384 + 8c and BUMP(c) at 384 + 8c + 4 (ints: an entry id or NONE;
 *                BUMP is the next never-used entry of the class's newest page); STARVED(c) at 496 + 8c (a
 *                candidate of class c counting less is turned away at once while the class has no room, 0:
 *                none); STARVED_RESCALES at 608 (the table's rescale count those were decided under). The owner
 *                writes both; any thread may read them (opaque) to skip a promotion the owner would turn away
 *  page map:     pageCount bytes rounded up to 128: 0 = not assigned yet, c + 1 = assigned to class c
 *  pages:        pageBytes each (a power of two, at least 512 bytes and at least one entry of the largest class)
 * </pre>
 *
 * <h2>Size classes and pages</h2>
 * <pre>
 *  class:      0    1    2    3    4    5    6    7     8     9     10    ...  top
 *  key bytes:  8    16   24   32   48   64   96   128   192   256   512   ...  maxKeyBytes rounded up to 8
 *  entry:      40   48   56   64   80   96   128  160   224   288   544   ...  32 + key bytes
 *  (two classes per doubling up to 256: a key of 17 to 256 bytes gets less than 1.5 times its length; the
 *  classes double above 256, where keys are rare; 2026-12-08, docs/shards.md "Two classes per doubling")
 *
 *  page of class c:  +---------+---------+---------+-- ... --+---------+------+
 *                    | entry 0 | entry 1 | entry 2 |         | entry n | tail |   n + 1 = pageBytes / entry(c)
 *                    +---------+---------+---------+-- ... --+---------+------+   tail: unused, < entry(c)
 * </pre>
 * A key takes an entry of the smallest class that holds its (stored) length: a {@code long} key 40 bytes, a
 * 12-byte word 48. A page is assigned to one class when that class first needs room and is <b>never reassigned
 * </b>, and an entry never moves or changes size: a link names an entry's position, and a stale link must
 * always land on a state word (of the same entry, in a later generation), never inside another entry's key
 * bytes, where key bytes could pass for a state word of the link's generation. Page 0 is assigned to the
 * largest class when the shard is created, so a key of any length always has entries it may take or evict.
 *
 * <h2>Entry (ENTRY_HEADER_BYTES + its class's key bytes), named by its 8-byte word offset in the segment</h2>
 * <pre>
 *  0        8        16       20       24          28          32
 *  +--------+--------+--------+--------+-----------+-----------+----------------+
 *  | state  | hash   | slot   | next   | sieve prev| sieve next| key bytes ...  |
 *  +--------+--------+--------+--------+-----------+-----------+----------------+
 *  state: atomic, any thread (CAS); it also holds the key's length and kind (below).
 *  next (int): hand-off stack link, written by the pusher.
 *  hash, slot, key: written by the owner before the entry is published, immutable while its generation lasts.
 *  slot (int): the table slot's byte offset (a table is at most 64 MiB, so it fits).
 *  sieve prev/next (int): owner only (SIEVE list, then its class's free list).
 *  Every entry field that names an entry (next, sieve prev/next, free and stack heads, links) holds an entry id:
 *  the entry's byte offset in the segment / 8 (entries start on 8-byte boundaries).
 * </pre>
 *
 * <h2>State word</h2>
 * <pre>
 *  63                               32 31  30 29              16 15            8 7            0
 *  +----------------------------------+------+------------------+---------------+--------------+
 *  | generation (32)                  | kind | key length (14)  | references    | flags        |
 *  +----------------------------------+------+------------------+---------------+--------------+
 *  flags: MEMBER 1 (linked in the shard), DEAD 2 (marked for deletion), VISITED 4 (SIEVE), TRUNCATED 8
 *  references: 1 for the shard while MEMBER, +1 for a hand-off push until the owner pops it.
 *  key length, kind: the stored key's bytes and how it was observed (KIND_BYTES 0, KIND_LONG 1, KIND_TEXT 2),
 *  set by the publishing store with MEMBER, kept by every later CAS, cleared when the entry is freed; a reader
 *  gets them with the state word it validates.
 *  generation: 0 while never used, 1 when first handed out, incremented when the entry is freed; a link word
 *  names one generation.
 * </pre>
 *
 * <h2>Link word (one per table slot, in the link segment parallel to the table)</h2>
 * <pre>
 *  63           52 51                  32 31                                  0
 *  +--------------+----------------------+-------------------------------------+
 *  | shard (12)   | entry id (20)        | generation (32)                     |
 *  +--------------+----------------------+-------------------------------------+
 *  0 = no link (generations start at 1). 20 bits of 8-byte words: a shard segment is at most 8 MiB.
 * </pre>
 *
 * <h2>Inbox cells (a segment of their own, only for a shard that several workers share)</h2>
 * <pre>
 *  cell i at i x inboxCellBytes(maxKeyBytes)   (each a whole number of 64-byte lines, at most MAX_INBOX_CELLS)
 *  0        8        16       24
 *  +--------+--------+--------+-----------------------------------------+
 *  | state  | hash   | key    | key bytes (maxKeyBytes, rounded up to 8)|
 *  |        |        | word   |                                         |
 *  +--------+--------+--------+-----------------------------------------+
 *  state:    INBOX_EMPTY 0 -> INBOX_FILLING 1 (a promoter that found the shard busy, CAS)
 *            -> INBOX_FULL 2 (that promoter, release store) -> INBOX_EMPTY (the shard's owner, release
 *            store, after carrying the promotion out); back to EMPTY from FILLING if copying the key threw.
 *  key word: keyBits(length, kind) | TRUNCATED, as in a state word.
 *  hash, key word, key bytes: written by the promoter between its CAS and its release store; read by the owner
 *            after its acquire load of FULL.
 * </pre>
 */
public final class ShardLayout {
    /** Bytes of each header region. */
    public static final int REGION_BYTES = 128;
    /** Owner region: entries handed out and not freed yet (members, zombies awaiting their hand-off). */
    public static final long IN_USE = 0;
    /** Owner region: most recently inserted SIEVE entry. */
    public static final long SIEVE_HEAD = 8;
    /** Owner region: oldest SIEVE entry. */
    public static final long SIEVE_TAIL = 16;
    /** Owner region: the SIEVE hand (NONE = start from the tail). */
    public static final long SIEVE_HAND = 24;
    /** Owner region: pages assigned to a class so far (pages at or above it are unassigned). */
    public static final long NEXT_PAGE = 32;
    /** Owner region: the reap cursor (an entry id, or NONE before its first step). */
    public static final long REAP_CURSOR = 40;
    /** Owner region: a popped hand-off chain whose next link was not yet written. */
    public static final long PENDING = 48;
    /** Owner region: entries linked in the shard. */
    public static final long LIVE = 56;
    /** Owner region: most handed-over entries found waiting at one drain (the zombie high-water mark). */
    public static final long MAX_ZOMBIES = 64;
    /** Hand-off region: head of the MPSC stack (entry id or NONE). */
    public static final long STACK_HEAD = REGION_BYTES;
    /** Busy region: 0 free, 1 held by an owner candidate. */
    public static final long BUSY = 2L * REGION_BYTES;
    /** Class region: its start. */
    public static final long CLASS_REGION = 3L * REGION_BYTES;
    /**
     * Key bytes of the size classes, smallest first: two per doubling up to 256, then doubling to
     * {@link #MAX_KEY_BYTES}. A shard's classes are those below its top, then the top ({@link #classes}).
     */
    private static final int[] CLASS_KEY_BYTES = {8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096};
    /** Most size classes (key bytes 8 .. 4096, {@link #classes}); the class region holds this many. */
    public static final int MAX_CLASSES = CLASS_KEY_BYTES.length;
    /** Bytes before the page map. */
    public static final long HEADER_BYTES = CLASS_REGION + 2L * REGION_BYTES;
    /**
     * Smallest page: a class's partly filled page wastes less than with the 1 KiB of before 2026-12-06, which let
     * the minimum for k = 100 drop to 16 KiB (docs/shards.md, "Smaller pages").
     */
    public static final int MIN_PAGE_BYTES = 512;
    /** Longest key a shard stores whole (the largest class). */
    public static final int MAX_KEY_BYTES = 4096;
    /** Key bytes the memory plan assumes for a text key (see {@link #plannedShardBytes}). */
    public static final int PLANNED_TEXT_KEY_BYTES = 16;

    /** Entry: state word (with the key's length and kind). */
    public static final long STATE = 0;
    /** Entry: full 64-bit key hash. */
    public static final long HASH = 8;
    /** Entry: table slot byte offset the key was promoted from (an int). */
    public static final long SLOT = 16;
    /** Entry: hand-off stack link (an int: an entry id, {@link #NONE} or {@link #NOT_YET}). */
    public static final long NEXT = 20;
    /** Entry: SIEVE previous (towards the tail). */
    public static final long SIEVE_PREV = 24;
    /** Entry: SIEVE next (towards the head); the free list's link while free. */
    public static final long SIEVE_NEXT = 28;
    /** Entry: first key byte. */
    public static final long KEY = 32;
    /** Bytes of an entry's fixed part. */
    public static final int ENTRY_HEADER_BYTES = 32;

    /** Key kind: bytes ({@code observe(byte[])}, {@code observe(MemorySegment)}); 0, so a zeroed entry is bytes. */
    public static final int KIND_BYTES = 0;
    /** Key kind: a {@code long}'s 8 little-endian bytes ({@code observe(long)}). */
    public static final int KIND_LONG = 1;
    /** Key kind: a {@code CharSequence}'s UTF-8 bytes ({@code observe(CharSequence)}). */
    public static final int KIND_TEXT = 2;

    /** "No entry" in entry id fields. */
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
    /** Shift of the key length in a state word. */
    public static final int KEY_LENGTH_SHIFT = 16;
    /** Mask of the key length, after the shift (14 bits: up to {@link #MAX_KEY_BYTES}). */
    public static final int KEY_LENGTH_MASK = (1 << 14) - 1;
    /** Shift of the key kind in a state word. */
    public static final int KEY_KIND_SHIFT = 30;
    /** Mask of the key kind, after the shift (2 bits: {@link #KIND_BYTES}, {@link #KIND_LONG}, {@link #KIND_TEXT}). */
    public static final int KEY_KIND_MASK = 3;

    /** Bits of the shard id in a link. */
    public static final int LINK_SHARD_BITS = 12;
    /** Bits of the entry index in a link. */
    public static final int LINK_ENTRY_BITS = 20;
    /** Most shards. */
    public static final int MAX_SHARDS = 1 << LINK_SHARD_BITS;
    /** Most entries per shard (entry ids are 20 bits). */
    public static final int MAX_ENTRIES = 1 << LINK_ENTRY_BITS;
    /** Most bytes of a shard segment: entry ids are 20-bit offsets in 8-byte words. */
    public static final long MAX_SHARD_BYTES = (long) MAX_ENTRIES * 8;
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

    /** Class region: the free list head of class {@code c} (an int: an entry id or NONE). */
    public static long freeHead(int c) {
        return CLASS_REGION + 8L * c;
    }

    /** Class region: the next never-used entry of class {@code c}'s newest page (an int: an entry id or NONE). */
    public static long bump(int c) {
        return CLASS_REGION + 8L * c + 4;
    }

    /**
     * Class region, written by the owner: the count below which a candidate of class {@code c} is turned away
     * without a SIEVE walk while no entry of class {@code c} or larger is free (0: none); see
     * {@code KeyShard.belowClassFloor}.
     */
    public static long starved(int c) {
        return CLASS_REGION + 8L * MAX_CLASSES + 8L * c;
    }

    /** Class region, written by the owner: the table's rescale count the {@link #starved} counts were decided under. */
    public static final long STARVED_RESCALES = CLASS_REGION + 16L * MAX_CLASSES;

    /** Key bytes rounded up to 8: the largest class's key bytes for keys of up to {@code maxKeyBytes}. */
    private static int topKeyBytes(int maxKeyBytes) {
        if (maxKeyBytes < 1 || maxKeyBytes > MAX_KEY_BYTES) {
            throw new IllegalArgumentException("maxKeyBytes=" + maxKeyBytes + ": must be in 1.." + MAX_KEY_BYTES);
        }
        return (maxKeyBytes + 7) & ~7;
    }

    /** Size classes for keys of up to {@code maxKeyBytes}: those of {@link #CLASS_KEY_BYTES} below the top, then it. */
    public static int classes(int maxKeyBytes) {
        int top = topKeyBytes(maxKeyBytes);
        int c = 0;
        while (CLASS_KEY_BYTES[c] < top) {
            c++;
        }
        return c + 1;
    }

    /** Key bytes of class {@code c}. */
    public static int classKeyBytes(int c, int maxKeyBytes) {
        int top = topKeyBytes(maxKeyBytes);
        return c == classes(maxKeyBytes) - 1 ? top : CLASS_KEY_BYTES[c];
    }

    /** The smallest class whose entries hold {@code storedBytes} key bytes (at most maxKeyBytes). */
    public static int classFor(int storedBytes, int maxKeyBytes) {
        int top = classes(maxKeyBytes) - 1;
        int c = 0;
        while (c < top && CLASS_KEY_BYTES[c] < storedBytes) {
            c++;
        }
        return c;
    }

    /** Bytes of an entry of class {@code c}. */
    public static int entryBytes(int c, int maxKeyBytes) {
        return ENTRY_HEADER_BYTES + classKeyBytes(c, maxKeyBytes);
    }

    /** Bytes of one page: a power of two, at least {@link #MIN_PAGE_BYTES} and one entry of the largest class. */
    public static int pageBytes(int maxKeyBytes) {
        int largest = entryBytes(classes(maxKeyBytes) - 1, maxKeyBytes);
        return Math.max(MIN_PAGE_BYTES, Integer.highestOneBit(largest - 1) << 1);
    }

    /** Entries of class {@code c} in one page. */
    public static int entriesPerPage(int c, int maxKeyBytes) {
        return pageBytes(maxKeyBytes) / entryBytes(c, maxKeyBytes);
    }

    /** Byte offset of page 0 in a shard of {@code pages} pages (after the page map, 128-byte aligned). */
    public static long pagesOffset(int pages) {
        return HEADER_BYTES + ((pages + 127L) & ~127L);
    }

    /** Bytes of a shard of {@code pages} pages. */
    public static long shardBytesForPages(int pages, int maxKeyBytes) {
        return pagesOffset(pages) + (long) pages * pageBytes(maxKeyBytes);
    }

    /** Most pages a shard can have: entry ids are 20-bit word offsets, so a segment spans at most 8 MiB. */
    public static int maxPages(int maxKeyBytes) {
        return pagesIn(MAX_SHARD_BYTES, maxKeyBytes);
    }

    /** The pages a segment of {@code bytes} holds (capped at {@link #maxPages}). */
    public static int pagesIn(long bytes, int maxKeyBytes) {
        long page = pageBytes(maxKeyBytes);
        int pages = (int) Math.max(0, Math.min(bytes, MAX_SHARD_BYTES) / page);
        while (pages > 0 && shardBytesForPages(pages, maxKeyBytes) > Math.min(bytes, MAX_SHARD_BYTES)) {
            pages--;
        }
        return pages;
    }

    /**
     * Bytes of a shard that holds {@code capacity} keys of any lengths up to {@code maxKeyBytes} (the worst case:
     * every key in the largest class), plus one page per class: pages are never reassigned, so each class may
     * leave one page partly filled. Capped at {@link #maxPages}.
     */
    public static long shardBytes(int capacity, int maxKeyBytes) {
        long pages = ceil(capacity, entriesPerPage(classes(maxKeyBytes) - 1, maxKeyBytes)) + classes(maxKeyBytes);
        return shardBytesForPages((int) Math.min(pages, maxPages(maxKeyBytes)), maxKeyBytes);
    }

    /**
     * Bytes of a shard the memory plan budgets for {@code keys} keys: pages for that many keys of up to
     * {@link #PLANNED_TEXT_KEY_BYTES} bytes (a {@code long} key, a word; a longer key takes a larger class and the
     * same pages hold fewer), plus the {@link #plannedSparePages spare pages} such keys may leave partly filled.
     * Capped at {@link #maxPages}.
     */
    public static long plannedShardBytes(int keys, int maxKeyBytes) {
        int c = plannedClass(maxKeyBytes);
        long pages = ceil(keys, entriesPerPage(c, maxKeyBytes)) + plannedSparePages(maxKeyBytes);
        return shardBytesForPages((int) Math.min(pages, maxPages(maxKeyBytes)), maxKeyBytes);
    }

    /** The class of a key of {@link #PLANNED_TEXT_KEY_BYTES} bytes (or of {@code maxKeyBytes}, if fewer). */
    public static int plannedClass(int maxKeyBytes) {
        return classFor(Math.min(PLANNED_TEXT_KEY_BYTES, maxKeyBytes), maxKeyBytes);
    }

    /**
     * Pages beyond the planned keys' own that keys of up to {@link #PLANNED_TEXT_KEY_BYTES} bytes may need: one
     * per class they can take (each class's newest page may be partly filled), and page 0, which the largest
     * class holds from the start, if that class is larger. (Until 2026-12-06 one page per class: pages for
     * classes that only longer keys take, which hold fewer keys than planned whatever the spare pages.)
     */
    public static int plannedSparePages(int maxKeyBytes) {
        int c = plannedClass(maxKeyBytes);
        return c + 1 + (c < classes(maxKeyBytes) - 1 ? 1 : 0);
    }

    /**
     * Bytes of a shard for {@code keys} keys whose stored lengths are spread as {@code keyLengths} (a sample of
     * lengths in bytes, each standing for an equal share of the keys; longer than {@code maxKeyBytes} counts as
     * truncated): pages for that many keys of the sample's classes; one more page for each class expecting at least
     * half a page of keys (each may leave its last page partly filled; a class expecting fewer takes the spare
     * entries of larger classes, as {@code KeyShard.allocate} lets it); and page 0, which the largest class holds
     * from the start, if the sample does not use that class. Capped at {@link #maxPages}.
     *
     * @throws IllegalArgumentException if {@code keyLengths} is empty or holds a length below 1
     */
    public static long shardBytesForLengths(int keys, int maxKeyBytes, int[] keyLengths) {
        if (keyLengths.length == 0) {
            throw new IllegalArgumentException("no key lengths");
        }
        int classes = classes(maxKeyBytes);
        int[] perClass = new int[classes];
        for (int length : keyLengths) {
            if (length < 1) {
                throw new IllegalArgumentException("key length " + length + ": must be >= 1");
            }
            perClass[classFor(Math.min(length, maxKeyBytes), maxKeyBytes)]++;
        }
        double pages = 0;
        int partial = perClass[classes - 1] == 0 ? 1 : 0;
        for (int c = 0; c < classes; c++) {
            double expected = (double) keys * perClass[c] / keyLengths.length;
            int perPage = entriesPerPage(c, maxKeyBytes);
            pages += expected / perPage;
            partial += expected >= perPage / 2.0 ? 1 : 0;
        }
        long total = (long) Math.ceil(pages) + partial;
        return shardBytesForPages((int) Math.min(total, maxPages(maxKeyBytes)), maxKeyBytes);
    }

    /** Inbox cell: its state word. */
    public static final long INBOX_STATE = 0;
    /** Inbox cell: the key's 64-bit hash. */
    public static final long INBOX_HASH = 8;
    /** Inbox cell: the key word ({@link #keyBits} and {@link #TRUNCATED}). */
    public static final long INBOX_KEY_WORD = 16;
    /** Inbox cell: the first key byte. */
    public static final long INBOX_KEY = 24;
    /** Inbox cell state: free. */
    public static final long INBOX_EMPTY = 0;
    /** Inbox cell state: a promoter is copying its key in. */
    public static final long INBOX_FILLING = 1;
    /** Inbox cell state: a promotion waits for the shard's next owner. */
    public static final long INBOX_FULL = 2;
    /** Most inbox cells of one shard. */
    public static final int MAX_INBOX_CELLS = 4;

    /** A stored {@code long} key's 8 bytes: little-endian, at any byte offset. */
    private static final java.lang.foreign.ValueLayout.OfLong KEY_LONG =
            java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);

    /**
     * Stores a {@code long} key as a shard keeps it, at {@code at} of {@code segment}: its {@code stored} (at most
     * 8) low bytes, little-endian (all 8 unless maxKeyBytes is smaller). An entry's key and an inbox cell's key are
     * written by this one rule. Threads: the writer of that entry or cell. Progress: wait-free.
     */
    public static void putLongKey(java.lang.foreign.MemorySegment segment, long at, long key, int stored) {
        if (stored == Long.BYTES) {
            segment.set(KEY_LONG, at, key);
        } else {
            for (int i = 0; i < stored; i++) {
                segment.set(java.lang.foreign.ValueLayout.JAVA_BYTE, at + i, (byte) (key >>> (8 * i)));
            }
        }
    }

    /** Bytes of one inbox cell for keys of up to {@code maxKeyBytes}: whole 64-byte lines. */
    public static long inboxCellBytes(int maxKeyBytes) {
        return (INBOX_KEY + topKeyBytes(maxKeyBytes) + 63) & ~63L;
    }

    private static long ceil(long a, long b) {
        return (a + b - 1) / b;
    }

    /** Byte offset of entry id {@code id}. */
    public static long entryOffset(int id) {
        return (long) id << 3;
    }

    /** Entry id of the entry at byte offset {@code offset} (a multiple of 8). */
    public static int entryId(long offset) {
        return (int) (offset >>> 3);
    }

    /** Generation of a state word. */
    public static int generation(long state) {
        return (int) (state >>> GENERATION_SHIFT);
    }

    /** Reference count of a state word. */
    public static int references(long state) {
        return (int) ((state & REF_MASK) >>> 8);
    }

    /** Stored key length of a state word (0 unless published). */
    public static int keyLength(long state) {
        return (int) (state >>> KEY_LENGTH_SHIFT) & KEY_LENGTH_MASK;
    }

    /** Key kind code of a state word ({@link #KIND_BYTES}, {@link #KIND_LONG} or {@link #KIND_TEXT}). */
    public static int keyKind(long state) {
        return (int) (state >>> KEY_KIND_SHIFT) & KEY_KIND_MASK;
    }

    /** The state bits that record a stored key of {@code length} bytes and kind {@code kind}. */
    public static long keyBits(int length, int kind) {
        if (length < 0 || length > KEY_LENGTH_MASK || (kind & ~KEY_KIND_MASK) != 0) {
            throw new IllegalArgumentException("length=" + length + ", kind=" + kind + ": outside the state word");
        }
        return ((long) kind << KEY_KIND_SHIFT) | ((long) length << KEY_LENGTH_SHIFT);
    }

    /** A link naming entry {@code entry} of shard {@code shard} in generation {@code generation}. */
    public static long link(int shard, int entry, int generation) {
        return ((long) shard << 52) | ((long) entry << 32) | (generation & 0xFFFF_FFFFL);
    }

    /** Shard of a link. */
    public static int linkShard(long link) {
        return (int) (link >>> 52);
    }

    /** Entry id of a link. */
    public static int linkEntry(long link) {
        return (int) (link >>> 32) & (MAX_ENTRIES - 1);
    }

    /** Generation of a link. */
    public static int linkGeneration(long link) {
        return (int) link;
    }

    /**
     * A shard segment of keys of up to {@code maxKeyBytes}, for debugging: the owner counters, then every assigned
     * page with its class, then every entry ever used (generation above 0) with its state decoded and its key
     * length and kind, one line each. Plain loads: a racing owner may be seen half way through an update (each
     * word itself is read whole). Threads: any. Progress: wait-free.
     */
    public static String describe(java.lang.foreign.MemorySegment shard, int maxKeyBytes) {
        java.lang.foreign.ValueLayout.OfLong word = java.lang.foreign.ValueLayout.JAVA_LONG;
        StringBuilder out = new StringBuilder();
        out.append("inUse=").append(shard.get(word, IN_USE)).append(" live=").append(shard.get(word, LIVE))
                .append(" nextPage=").append(shard.get(word, NEXT_PAGE)).append(" maxZombies=")
                .append(shard.get(word, MAX_ZOMBIES)).append(" stackHead=").append(shard.get(word, STACK_HEAD))
                .append(" busy=").append(shard.get(word, BUSY)).append('\n');
        int pages = pagesIn(shard.byteSize(), maxKeyBytes);
        for (int p = 0; p < pages; p++) {
            int mapped = Byte.toUnsignedInt(shard.get(java.lang.foreign.ValueLayout.JAVA_BYTE, HEADER_BYTES + p));
            if (mapped == 0) {
                continue;
            }
            int c = mapped - 1;
            long page = pagesOffset(pages) + (long) p * pageBytes(maxKeyBytes);
            out.append("page ").append(p).append(": class ").append(c).append(" (keys of up to ")
                    .append(classKeyBytes(c, maxKeyBytes)).append(" bytes)\n");
            for (int e = 0; e < entriesPerPage(c, maxKeyBytes); e++) {
                long at = page + (long) e * entryBytes(c, maxKeyBytes);
                long state = shard.get(word, at + STATE);
                if (generation(state) == 0) {
                    continue;
                }
                out.append("  entry ").append(entryId(at)).append(": gen=").append(generation(state))
                        .append(" refs=").append(references(state))
                        .append((state & MEMBER) != 0 ? " MEMBER" : "").append((state & DEAD) != 0 ? " DEAD" : "")
                        .append((state & VISITED) != 0 ? " VISITED" : "")
                        .append((state & TRUNCATED) != 0 ? " TRUNCATED" : "")
                        .append(" len=").append(keyLength(state))
                        .append(" kind=").append(keyKind(state)).append('\n');
            }
        }
        return out.toString();
    }
}
