package io.hotkeeper.engine.table;

/**
 * How a table of {@code bucketCount} buckets maps a 64-bit hash to a bucket and a fingerprint: the one place that
 * does it (observe, estimate, find, snapshot, merge, reset, the key shards' checks and the test fixtures all call
 * it). Any bucket count from {@link #MIN_BUCKETS} to {@link #MAX_BUCKETS} is allowed, not only powers of two, so a
 * memory budget is used to the bucket instead of being rounded down to a power of two.
 *
 * <pre>
 *  hash h (64 bits)
 *  63                              32 31          indexBits       0
 *  +---------------------------------+----------------+-------------+
 *  | spare (32 bits)                 | fingerprint    | low bits    |
 *  +---------------------------------+----------------+-------------+
 *                                     \________ low 32 bits _______/
 *
 *  indexBits = ceil(log2 bucketCount)            (6..20)
 *  x         = rotateRight(low 32 bits, indexBits), as unsigned: the low indexBits bits on top
 *  bucket    = (x * bucketCount) >>> 32          ("fastrange", Lemire 2019: multiply-high instead of modulo)
 *  fingerprint = (h >>> indexBits) & (2^fingerprintBits - 1),  fingerprintBits = min(23, 32 - indexBits)
 * </pre>
 *
 * The bucket is decided by the top bits of {@code x}, the low {@code indexBits} bits of the hash; the
 * fingerprint is the low bits of {@code x}, which move the bucket only by a carry in the product. For a power of
 * two {@code 2^b} the product is {@code x >>> (32 - b)}, exactly the low {@code b} bits of the hash: the mapping
 * of the earlier power-of-two tables, so their snapshots (format version 1) keep their meaning.
 *
 * <h2>Two candidate buckets</h2>
 * A geometry {@linkplain #withTwoCandidates() with two candidates} gives every key a second bucket, derived from
 * its first bucket and its fingerprint alone (partial-key cuckoo hashing, Fan et al., CoNEXT'14, adapted to any
 * bucket count):
 * <pre>
 *  d(fp)          = (((fp * 0x9E3779B97F4A7C15) &gt;&gt;&gt; 32) * bucketCount) &gt;&gt;&gt; 32      in 0..bucketCount-1
 *  alternate(b)   = (d(fp) - b) mod bucketCount
 * </pre>
 * The map is an involution ({@code alternate(alternate(b)) == b}), so from either bucket of a slot word and its
 * fingerprint the other one follows without the key; the word's {@link TableLayout#SECOND} bit says which of the
 * two is its key's first, so a merge, a snapshot and a replay can pair a word with its key wherever the word sits. Where {@code 2b == d(fp) (mod bucketCount)} both candidates are the same bucket (about
 * one key in {@code bucketCount}, or two for an even count); such keys have one bucket. A key enters its second
 * bucket only while its first is full, so a first bucket with an empty slot proves the key is not in its second
 * (until a reset empties both; docs/design.md, "Two candidate buckets").
 *
 * <p>A key's <em>location</em> is the hash bits that decide bucket and fingerprint: the low
 * {@code indexBits + fingerprintBits} bits for a power of two, all low 32 bits otherwise (a carry can reach the
 * bucket from any of them). {@link #locationAt} gives a location for a given bucket and fingerprint (a slot
 * without its key, in a merge).
 *
 * <p>Immutable. Threads: any. Progress: every method is wait-free.
 */
public final class TableGeometry {
    /** Fewest buckets: 4 KiB. */
    public static final long MIN_BUCKETS = 1L << TableLayout.MIN_INDEX_BITS;
    /** Most buckets: 64 MiB (the fingerprint keeps at least {@link TableLayout#MIN_FINGERPRINT_BITS} bits). */
    public static final long MAX_BUCKETS = 1L << TableLayout.MAX_INDEX_BITS;
    private static final long LOW_32 = 0xFFFF_FFFFL;
    /** Odd multiplier (2^64 / golden ratio) that spreads a fingerprint over 32 bits for {@link #alternate}. */
    private static final long ALTERNATE_MIX = 0x9E37_79B9_7F4A_7C15L;

    private final long bucketCount;
    private final int indexBits;
    private final int fingerprintBits;
    private final long fingerprintMask;
    private final long locationMask;
    private final boolean twoCandidates;

    private TableGeometry(long bucketCount, boolean twoCandidates) {
        if (bucketCount < MIN_BUCKETS || bucketCount > MAX_BUCKETS) {
            throw new IllegalArgumentException("bucketCount=" + bucketCount + ": must be in " + MIN_BUCKETS + ".."
                    + MAX_BUCKETS);
        }
        this.bucketCount = bucketCount;
        this.indexBits = 64 - Long.numberOfLeadingZeros(bucketCount - 1);
        this.fingerprintBits = TableLayout.fingerprintBits(indexBits);
        this.fingerprintMask = (1L << fingerprintBits) - 1;
        this.locationMask = Long.bitCount(bucketCount) == 1 ? (1L << (indexBits + fingerprintBits)) - 1 : LOW_32;
        this.twoCandidates = twoCandidates;
    }

    /**
     * The geometry of a table of {@code bucketCount} buckets, one candidate bucket per key.
     *
     * @throws IllegalArgumentException if {@code bucketCount} is not in {@link #MIN_BUCKETS}..{@link #MAX_BUCKETS}
     */
    public static TableGeometry of(long bucketCount) {
        return new TableGeometry(bucketCount, false);
    }

    /**
     * The geometry of a table of {@code bucketCount} buckets with {@code candidates} (1 or 2) candidate buckets
     * per key.
     *
     * @throws IllegalArgumentException if {@code bucketCount} is out of range or {@code candidates} is not 1 or 2
     */
    public static TableGeometry of(long bucketCount, int candidates) {
        if (candidates != 1 && candidates != 2) {
            throw new IllegalArgumentException("candidates=" + candidates + ": must be 1 or 2");
        }
        return new TableGeometry(bucketCount, candidates == 2);
    }

    /** This geometry with two candidate buckets per key (see the class comment). */
    public TableGeometry withTwoCandidates() {
        return twoCandidates ? this : new TableGeometry(bucketCount, true);
    }

    /** Candidate buckets per key: 1 or 2. */
    public int candidates() {
        return twoCandidates ? 2 : 1;
    }

    /**
     * The other candidate bucket of a key whose fingerprint is {@code fingerprint} and one of whose candidates is
     * {@code bucket}; {@code bucket} itself with one candidate per key, or where both candidates coincide. An
     * involution: {@code alternate(alternate(b, f), f) == b}.
     */
    public long alternate(long bucket, long fingerprint) {
        if (!twoCandidates) {
            return bucket;
        }
        long d = (((fingerprint * ALTERNATE_MIX) >>> 32) * bucketCount) >>> 32;
        long alternate = d - bucket;
        return alternate < 0 ? alternate + bucketCount : alternate;
    }

    /**
     * The lower of a key's two candidate buckets, given either one and the fingerprint: the same for both slots a
     * key may hold, so it names the key's pair of buckets. (Not the key: two keys of one fingerprint whose first
     * buckets are each other's second share it; TableLayout#SECOND tells them apart.)
     */
    public long canonicalBucket(long bucket, long fingerprint) {
        return Math.min(bucket, alternate(bucket, fingerprint));
    }

    /** The geometry of a power-of-two table of {@code 2^indexBits} buckets. */
    public static TableGeometry ofIndexBits(int indexBits) {
        if (indexBits < TableLayout.MIN_INDEX_BITS || indexBits > TableLayout.MAX_INDEX_BITS) {
            throw new IllegalArgumentException("indexBits=" + indexBits + ": must be in "
                    + TableLayout.MIN_INDEX_BITS + ".." + TableLayout.MAX_INDEX_BITS);
        }
        return new TableGeometry(1L << indexBits, false);
    }

    /** Number of buckets. */
    public long bucketCount() {
        return bucketCount;
    }

    /** Table bytes: {@code bucketCount * 64}. */
    public long tableBytes() {
        return bucketCount * TableLayout.BUCKET_BYTES;
    }

    /** {@code ceil(log2 bucketCount)}: the hash bits below the fingerprint. */
    public int indexBits() {
        return indexBits;
    }

    /** Whether the bucket count is a power of two (the version-1 snapshot geometry). */
    public boolean powerOfTwo() {
        return Long.bitCount(bucketCount) == 1;
    }

    /** Bits of a fingerprint: {@code min(23, 32 - indexBits)}. */
    public int fingerprintBits() {
        return fingerprintBits;
    }

    /** The bucket index of {@code hash}, in {@code 0..bucketCount-1}. */
    public long bucket(long hash) {
        long x = Integer.toUnsignedLong(Integer.rotateRight((int) hash, indexBits));
        return (x * bucketCount) >>> 32;
    }

    /** Byte offset of the bucket of {@code hash} in the table segment. */
    public long bucketOffset(long hash) {
        return bucket(hash) << TableLayout.BUCKET_SHIFT;
    }

    /** The fingerprint of {@code hash}. */
    public long fingerprint(long hash) {
        return (hash >>> indexBits) & fingerprintMask;
    }

    /** The location of {@code hash}: the bits that decide its bucket and fingerprint (see the class comment). */
    public long location(long hash) {
        return hash & locationMask;
    }

    /** Largest location plus one (locations are below it). */
    public long locationLimit() {
        return locationMask + 1;
    }

    /**
     * A location whose bucket is {@code bucket} and whose fingerprint is {@code fingerprint}: the lowest {@code x}
     * of the bucket's range whose low bits are the fingerprint (the range is at least {@code 2^(32 - indexBits)}
     * long, so it has one), rotated back. For a power of two this is {@code fingerprint << indexBits | bucket}.
     *
     * @throws IllegalArgumentException if {@code bucket} or {@code fingerprint} is out of range
     */
    public long locationAt(long bucket, long fingerprint) {
        if (bucket < 0 || bucket >= bucketCount || fingerprint < 0 || fingerprint > fingerprintMask) {
            throw new IllegalArgumentException("bucket=" + bucket + ", fingerprint=" + fingerprint + ": must be below "
                    + bucketCount + " and " + (fingerprintMask + 1));
        }
        long first = ((bucket << 32) + bucketCount - 1) / bucketCount;
        long x = first + ((fingerprint - first) & fingerprintMask);
        return Integer.toUnsignedLong(Integer.rotateLeft((int) x, indexBits)) & locationMask;
    }

    /**
     * The bucket count a table of at most {@code tableBytes} bytes has: {@code tableBytes / 64}, within
     * {@link #MIN_BUCKETS}..{@link #MAX_BUCKETS}.
     *
     * @throws IllegalArgumentException if fewer than {@link #MIN_BUCKETS} buckets fit
     */
    public static long bucketsFor(long tableBytes) {
        long buckets = tableBytes / TableLayout.BUCKET_BYTES;
        if (buckets < MIN_BUCKETS) {
            throw new IllegalArgumentException("tableBytes=" + tableBytes + ": must be >= "
                    + MIN_BUCKETS * TableLayout.BUCKET_BYTES);
        }
        return Math.min(buckets, MAX_BUCKETS);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TableGeometry g && g.bucketCount == bucketCount && g.twoCandidates == twoCandidates;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(bucketCount) * 2 + (twoCandidates ? 1 : 0);
    }

    @Override
    public String toString() {
        return bucketCount + " buckets" + (twoCandidates ? ", two candidates per key" : "");
    }
}
