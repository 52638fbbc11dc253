package io.hotkeeper.engine;

import io.hotkeeper.engine.hash.KeyHasher;
import io.hotkeeper.engine.lottery.DecayLottery;
import io.hotkeeper.engine.salt.EvictionSalt;
import io.hotkeeper.engine.salt.SaltLayout;
import io.hotkeeper.engine.salt.SaltMode;
import io.hotkeeper.engine.stats.StatsLayout;
import io.hotkeeper.engine.stats.StatsStripes;
import io.hotkeeper.engine.table.BucketTable;
import io.hotkeeper.engine.table.TableLayout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;

/**
 * A concurrent heavy-hitter sketch (HeavyKeeper family) whose whole state lives in native memory.
 *
 * <pre>{@code
 * try (Hotkeeper hot = Hotkeeper.builder().memoryBytes(64 * 1024).build()) {
 *     hot.observe(userId);              // any thread, lock-free, no allocation
 *     long estimate = hot.estimate(userId);
 * }
 * }</pre>
 *
 * <h2>Space</h2>
 * {@code memoryBytes} is rounded down to a power-of-two number of 64-byte buckets of 8 slots (4 KiB .. 64 MiB);
 * the salt takes 128 bytes per shard and the stats 128 bytes per worker stripe, all off-heap in one
 * {@link Arena} owned by the instance.
 *
 * <h2>Updating</h2>
 * {@link #observe(long)} hashes the key with a 64-bit keyed hash (self-seeded from {@code SecureRandom} unless
 * {@link Builder#seed(long)} is given) to a bucket, a fingerprint and 32 spare bits, then: phase 1 increments
 * the key's slot if its fingerprint is present; phase 2 claims an empty slot; phase 3 (bucket full) draws a
 * lottery against the weakest occupant, which loses one count with probability {@code b^-count}
 * (b = 2 by default), and at zero the challenger takes its slot. Each draw folds a never-repeating salt value.
 *
 * <h2>Accuracy</h2>
 * Estimates never exceed the true count of a key unless another key with the same bucket and fingerprint was
 * counted in its slot; heavy keys are kept with high probability (docs/theory.md gives sizing and measured
 * precision).
 *
 * <h2>Concurrency and lifecycle</h2>
 * Every method may be called from any thread, platform or virtual. Observations are lock-free; reads are
 * wait-free. {@link #close()} frees the native memory exactly once; afterwards every method throws
 * {@link IllegalStateException}. Closing while other threads are inside a call is safe: the arena is shared, so
 * the JVM never lets a thread touch freed memory; such a call either completes or throws
 * {@link IllegalStateException}.
 */
/*
 * References: [1] Gong et al., HeavyKeeper, USENIX ATC 2018 and IEEE/ACM ToN 2019. [2] Yang et al., HeavyGuardian,
 * KDD 2018 (buckets of several cells, decay the weakest). [3] docs/decisions/salt.md (shared vs sharded salt).
 * The instance is a thin facade: hashing in KeyHasher, the phases in BucketTable, the salt in EvictionSalt,
 * stats in StatsStripes; each owns one region of the arena.
 */
public final class Hotkeeper implements AutoCloseable {
    /** Default table size. */
    public static final long DEFAULT_MEMORY_BYTES = 64 * 1024;

    private static final VarHandle CLOSED;

    static {
        try {
            CLOSED = MethodHandles.lookup().findVarHandle(Hotkeeper.class, "closed", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Arena arena;
    private final KeyHasher hasher;
    private final BucketTable table;
    private final EvictionSalt salt;
    private final StatsStripes stats;
    private final SaltMode saltMode;
    private final DecayLottery lottery;
    @SuppressWarnings("unused") // accessed through CLOSED
    private volatile boolean closed;

    private Hotkeeper(Builder b) {
        int indexBits = indexBitsFor(b.memoryBytes);
        this.hasher = b.seeded ? KeyHasher.seeded(b.seed) : KeyHasher.selfSeeded();
        long drawKey = b.seeded ? KeyHasher.splitMix(b.seed ^ 0x5a17L) : new java.security.SecureRandom().nextLong();
        this.lottery = new DecayLottery(b.decayBase, drawKey);
        this.saltMode = b.saltMode;
        int processors = Runtime.getRuntime().availableProcessors();
        int saltShards = b.saltMode == SaltMode.SHARDED
                ? (b.saltShards > 0 ? b.saltShards : SaltLayout.shardsFor(processors)) : 1;
        this.arena = Arena.ofShared();
        try {
            this.salt = new EvictionSalt(arena, saltShards);
            int exclusive = Math.max(64, 4 * processors);
            int shared = Integer.highestOneBit(Math.max(8, 2 * processors) * 2 - 1);
            this.stats = new StatsStripes(arena, exclusive, shared);
            this.table = new BucketTable(arena, indexBits, lottery, salt, stats);
        } catch (RuntimeException | Error e) {
            arena.close();
            throw e;
        }
    }

    static int indexBitsFor(long memoryBytes) {
        if (memoryBytes < TableLayout.MIN_TABLE_BYTES || memoryBytes > TableLayout.MAX_TABLE_BYTES) {
            throw new IllegalArgumentException("memoryBytes=" + memoryBytes + ": must be >= "
                    + TableLayout.MIN_TABLE_BYTES + " and <= " + TableLayout.MAX_TABLE_BYTES);
        }
        return 63 - Long.numberOfLeadingZeros(memoryBytes / TableLayout.BUCKET_BYTES);
    }

    /** A builder with the defaults: 64 KiB, self-seeded, shared salt, decay base 2. Threads: any. Progress: wait-free. */
    public static Builder builder() {
        return new Builder();
    }

    // ---------------------------------------------------------------- observe

    /**
     * Records one occurrence of {@code key} and returns its estimate afterwards (0 if it is not tracked).
     * Threads: any. Progress: lock-free; no allocation.
     *
     * @throws IllegalStateException if closed
     */
    public long observe(long key) {
        return update(hasher.hash(key), 1);
    }

    /**
     * Records {@code weight} occurrences of {@code key} in O(log weight) steps and returns its estimate.
     * Threads: any. Progress: lock-free; no allocation.
     *
     * @throws IllegalArgumentException if {@code weight < 1}
     * @throws IllegalStateException    if closed
     */
    public long observe(long key, long weight) {
        return update(hasher.hash(key), checkWeight(weight));
    }

    /**
     * Records one occurrence of the byte-string key. Threads: any. Progress: lock-free; no allocation.
     *
     * @throws NullPointerException  if {@code key} is null
     * @throws IllegalStateException if closed
     */
    public long observe(byte[] key) {
        return update(hasher.hash(Objects.requireNonNull(key, "key")), 1);
    }

    /**
     * Records {@code weight} occurrences of the byte-string key. Threads: any. Progress: lock-free; no allocation.
     *
     * @throws NullPointerException     if {@code key} is null
     * @throws IllegalArgumentException if {@code weight < 1}
     * @throws IllegalStateException    if closed
     */
    public long observe(byte[] key, long weight) {
        return update(hasher.hash(Objects.requireNonNull(key, "key")), checkWeight(weight));
    }

    /**
     * Records one occurrence of the key {@code key[offset, offset + length)}. Threads: any. Progress: lock-free;
     * no allocation.
     *
     * @throws IndexOutOfBoundsException if the range is outside the array
     * @throws IllegalStateException     if closed
     */
    public long observe(byte[] key, int offset, int length) {
        return update(hasher.hash(Objects.requireNonNull(key, "key"), offset, length), 1);
    }

    /**
     * Records one occurrence of the UTF-8 bytes of {@code key}, encoded on the fly. Threads: any. Progress:
     * lock-free; no allocation.
     *
     * @throws NullPointerException  if {@code key} is null
     * @throws IllegalStateException if closed
     */
    public long observe(CharSequence key) {
        return update(hasher.hash(Objects.requireNonNull(key, "key")), 1);
    }

    /**
     * Records {@code weight} occurrences of the UTF-8 bytes of {@code key}. Threads: any. Progress: lock-free.
     *
     * @throws IllegalArgumentException if {@code weight < 1}
     * @throws IllegalStateException    if closed
     */
    public long observe(CharSequence key, long weight) {
        return update(hasher.hash(Objects.requireNonNull(key, "key")), checkWeight(weight));
    }

    /**
     * Records one occurrence of the bytes of {@code key} (any segment: heap, native, mapped). Threads: any.
     * Progress: lock-free; no allocation.
     *
     * @throws IllegalStateException if closed, or if {@code key}'s own arena is closed
     */
    public long observe(MemorySegment key) {
        return update(hasher.hash(Objects.requireNonNull(key, "key")), 1);
    }

    /**
     * Records one occurrence of the key {@code key[offset, offset + length)}. Threads: any. Progress: lock-free;
     * no allocation.
     *
     * @throws IndexOutOfBoundsException if the range is outside the segment
     * @throws IllegalStateException     if closed
     */
    public long observe(MemorySegment key, long offset, long length) {
        return update(hasher.hash(Objects.requireNonNull(key, "key"), offset, length), 1);
    }

    /**
     * Records {@code weight} occurrences of the key {@code key[offset, offset + length)}. Threads: any.
     * Progress: lock-free; no allocation.
     *
     * @throws IllegalArgumentException  if {@code weight < 1}
     * @throws IndexOutOfBoundsException if the range is outside the segment
     * @throws IllegalStateException     if closed
     */
    public long observe(MemorySegment key, long offset, long length, long weight) {
        return update(hasher.hash(Objects.requireNonNull(key, "key"), offset, length), checkWeight(weight));
    }

    // ---------------------------------------------------------------- estimate

    /** The estimate of {@code key}, without changing anything. Threads: any. Progress: wait-free. */
    public long estimate(long key) {
        return read(hasher.hash(key));
    }

    /** The estimate of the byte-string key. Threads: any. Progress: wait-free. */
    public long estimate(byte[] key) {
        return read(hasher.hash(Objects.requireNonNull(key, "key")));
    }

    /** The estimate of the key {@code key[offset, offset + length)}. Threads: any. Progress: wait-free. */
    public long estimate(byte[] key, int offset, int length) {
        return read(hasher.hash(Objects.requireNonNull(key, "key"), offset, length));
    }

    /** The estimate of the UTF-8 bytes of {@code key}. Threads: any. Progress: wait-free. */
    public long estimate(CharSequence key) {
        return read(hasher.hash(Objects.requireNonNull(key, "key")));
    }

    /** The estimate of the bytes of {@code key}. Threads: any. Progress: wait-free. */
    public long estimate(MemorySegment key) {
        return read(hasher.hash(Objects.requireNonNull(key, "key")));
    }

    // ---------------------------------------------------------------- introspection

    /** Operation counts summed over all workers. Threads: any. Progress: wait-free. */
    public HotkeeperStats stats() {
        try {
            return new HotkeeperStats(stats.sum(StatsLayout.REFRESHES), stats.sum(StatsLayout.CLAIMS),
                    stats.sum(StatsLayout.EVICTION_ATTEMPTS), stats.sum(StatsLayout.EVICTION_WINS),
                    stats.sum(StatsLayout.REPLACEMENTS), stats.sum(StatsLayout.SATURATIONS));
        } catch (IllegalStateException e) {
            throw closedOr(e);
        }
    }

    /** Bytes of the bucket table. Threads: any. Progress: wait-free. */
    public long tableBytes() {
        return table.byteSize();
    }

    /** Number of buckets (8 slots each). Threads: any. Progress: wait-free. */
    public long bucketCount() {
        return table.bucketCount();
    }

    /** How the eviction salt is kept. Threads: any. Progress: wait-free. */
    public SaltMode saltMode() {
        return saltMode;
    }

    /** Number of salt counters (1 when shared). Threads: any. Progress: wait-free. */
    public int saltShards() {
        return salt.shards();
    }

    /** The lottery's decay base. Threads: any. Progress: wait-free. */
    public double decayBase() {
        return lottery.base();
    }

    /** Whether {@link #close()} has been called. Threads: any. Progress: wait-free. */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Frees the native memory. Idempotent: only the first call frees, later calls return at once.
     * Threads: any. Progress: blocking (the JVM hands shakes with threads that may be accessing the memory).
     */
    @Override
    public void close() {
        if (CLOSED.compareAndSet(this, false, true)) {
            arena.close();
        }
    }

    // ---------------------------------------------------------------- internals

    private long update(long hash, long weight) {
        try {
            return table.observe(hash, weight, stats.currentHandle());
        } catch (IllegalStateException e) {
            throw closedOr(e);
        }
    }

    private long read(long hash) {
        try {
            return table.estimate(hash);
        } catch (IllegalStateException e) {
            throw closedOr(e);
        }
    }

    private IllegalStateException closedOr(IllegalStateException e) {
        if (closed) {
            return new IllegalStateException("Hotkeeper is closed", e);
        }
        return e;
    }

    private static long checkWeight(long weight) {
        if (weight < 1) {
            throw new IllegalArgumentException("weight=" + weight + ": must be >= 1");
        }
        return weight;
    }

    /**
     * Configures a {@link Hotkeeper}. Threads: one (not thread-safe). Progress: wait-free except
     * {@link #build()}, which allocates native memory and may read {@code SecureRandom} (blocking).
     */
    public static final class Builder {
        private long memoryBytes = DEFAULT_MEMORY_BYTES;
        private boolean seeded;
        private long seed;
        private SaltMode saltMode = SaltMode.SHARED;
        private int saltShards;
        private double decayBase = DecayLottery.DEFAULT_BASE;

        private Builder() {
        }

        /** Table memory in bytes: 4 KiB .. 64 MiB, rounded down to a power of two number of 64-byte buckets. */
        public Builder memoryBytes(long memoryBytes) {
            indexBitsFor(memoryBytes);
            this.memoryBytes = memoryBytes;
            return this;
        }

        /** A fixed hash seed (reproducible runs, tests, merging); without it each instance seeds itself. */
        public Builder seed(long seed) {
            this.seeded = true;
            this.seed = seed;
            return this;
        }

        /** Shared (default) or sharded eviction salt. */
        public Builder saltMode(SaltMode saltMode) {
            this.saltMode = Objects.requireNonNull(saltMode, "saltMode");
            return this;
        }

        /** Opt in to the sharded salt (same as {@code saltMode(SaltMode.SHARDED)}). */
        public Builder shardedSalt() {
            return saltMode(SaltMode.SHARDED);
        }

        /**
         * Overrides the sharded salt's shard count (a power of two in 1..32); by default it is the number of
         * available processors rounded up to a power of two, capped at 32. Ignored in shared mode.
         */
        public Builder saltShards(int saltShards) {
            if (saltShards < 1 || saltShards > SaltLayout.MAX_SHARDS || Integer.bitCount(saltShards) != 1) {
                throw new IllegalArgumentException("saltShards=" + saltShards + ": must be a power of two in 1.."
                        + SaltLayout.MAX_SHARDS);
            }
            this.saltShards = saltShards;
            return this;
        }

        /**
         * The lottery's decay base b in (1, 1024]: an occupant with count c loses a draw with probability b^-c.
         * 2 (default) is the reference design; 1.08 is the HeavyKeeper paper's.
         */
        public Builder decayBase(double decayBase) {
            if (!(decayBase > DecayLottery.MIN_BASE && decayBase <= DecayLottery.MAX_BASE)) {
                throw new IllegalArgumentException("decayBase=" + decayBase + ": must be > " + DecayLottery.MIN_BASE
                        + " and <= " + DecayLottery.MAX_BASE);
            }
            this.decayBase = decayBase;
            return this;
        }

        /** Allocates the sketch. Threads: one. Progress: blocking. */
        public Hotkeeper build() {
            return new Hotkeeper(this);
        }
    }
}
