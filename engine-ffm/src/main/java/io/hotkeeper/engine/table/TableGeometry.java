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

    private final long bucketCount;
    private final int indexBits;
    private final int fingerprintBits;
    private final long fingerprintMask;
    private final long locationMask;

    private TableGeometry(long bucketCount) {
        if (bucketCount < MIN_BUCKETS || bucketCount > MAX_BUCKETS) {
            throw new IllegalArgumentException("bucketCount=" + bucketCount + ": must be in " + MIN_BUCKETS + ".."
                    + MAX_BUCKETS);
        }
        this.bucketCount = bucketCount;
        this.indexBits = 64 - Long.numberOfLeadingZeros(bucketCount - 1);
        this.fingerprintBits = TableLayout.fingerprintBits(indexBits);
        this.fingerprintMask = (1L << fingerprintBits) - 1;
        this.locationMask = Long.bitCount(bucketCount) == 1 ? (1L << (indexBits + fingerprintBits)) - 1 : LOW_32;
    }

    /**
     * The geometry of a table of {@code bucketCount} buckets.
     *
     * @throws IllegalArgumentException if {@code bucketCount} is not in {@link #MIN_BUCKETS}..{@link #MAX_BUCKETS}
     */
    public static TableGeometry of(long bucketCount) {
        return new TableGeometry(bucketCount);
    }

    /** The geometry of a power-of-two table of {@code 2^indexBits} buckets. */
    public static TableGeometry ofIndexBits(int indexBits) {
        if (indexBits < TableLayout.MIN_INDEX_BITS || indexBits > TableLayout.MAX_INDEX_BITS) {
            throw new IllegalArgumentException("indexBits=" + indexBits + ": must be in "
                    + TableLayout.MIN_INDEX_BITS + ".." + TableLayout.MAX_INDEX_BITS);
        }
        return new TableGeometry(1L << indexBits);
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
        return o instanceof TableGeometry g && g.bucketCount == bucketCount;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(bucketCount);
    }

    @Override
    public String toString() {
        return bucketCount + " buckets";
    }
}
