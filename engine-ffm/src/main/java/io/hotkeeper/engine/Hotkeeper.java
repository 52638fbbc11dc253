package io.hotkeeper.engine;

import io.hotkeeper.engine.combine.CombinerLayout;
import io.hotkeeper.engine.combine.HotKeyCombiners;
import io.hotkeeper.engine.hash.KeyHasher;
import io.hotkeeper.engine.lottery.DecayLottery;
import io.hotkeeper.engine.placement.Placement;
import io.hotkeeper.engine.placement.PlacementReport;
import io.hotkeeper.engine.placement.RegionAllocator;
import io.hotkeeper.engine.salt.EvictionSalt;
import io.hotkeeper.engine.salt.SaltLayout;
import io.hotkeeper.engine.salt.SaltMode;
import io.hotkeeper.engine.shard.ExpelledKeys;
import io.hotkeeper.engine.shard.KeyShards;
import io.hotkeeper.engine.shard.PendingCounts;
import io.hotkeeper.engine.shard.ShardLayout;
import io.hotkeeper.engine.snapshot.HotkeeperSnapshot;
import io.hotkeeper.engine.snapshot.KeyBounds;
import io.hotkeeper.engine.snapshot.MergeReport;
import io.hotkeeper.engine.snapshot.SnapshotKey;
import io.hotkeeper.engine.stats.StatsLayout;
import io.hotkeeper.engine.stats.StatsStripes;
import io.hotkeeper.engine.table.BucketTable;
import io.hotkeeper.engine.table.TableLayout;
import io.hotkeeper.engine.window.SlidingWindow;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
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
 * the salt takes 128 bytes per shard and the stats 128 bytes per worker stripe (allocated even with stats off:
 * a stripe also names its worker for the per-worker salt, the combiners and approximate counting), all off-heap
 * in one {@link Arena} owned by the instance.
 *
 * <h2>Updating</h2>
 * {@link #observe(long)} hashes the key with a 64-bit keyed hash (self-seeded from {@code SecureRandom} unless
 * {@link Builder#seed(long)} is given) to a bucket, a fingerprint and 32 spare bits, then: phase 1 increments
 * the key's slot if its fingerprint is present; phase 2 claims an empty slot; phase 3 (bucket full) draws a
 * lottery against the weakest occupant, which loses one count with probability {@code b^-count}
 * (b = 2 by default), and at zero the challenger takes its slot. Each draw folds a never-repeating salt value.
 * With hot-key combining ({@link Builder#combining(CombiningMode)}; by default it engages once a second thread
 * observes hot keys), a worker's repeat observations of its hottest keys are counted in its own block of native
 * memory and reach the table in batches; {@link #estimate} and {@link #topK} include them. With
 * {@link Builder#workerTables(int)} each worker observes into a table of its own instead, and queries merge
 * the tables.
 *
 * <h2>Accuracy</h2>
 * Estimates never exceed the true count of a key unless another key with the same bucket and fingerprint was
 * counted in its slot; heavy keys are kept with high probability (docs/theory.md gives sizing and measured
 * precision).
 *
 * <h2>Concurrency and lifecycle</h2>
 * Every method may be called from any thread, platform or virtual. Observations are lock-free; reads are
 * wait-free. {@link #close()} frees the native memory exactly once; once it has returned, every public method
 * except {@code close()} and {@link #isClosed()} throws {@link IllegalStateException} with the message
 * {@value #CLOSED_MESSAGE}. Closing while other threads are inside a call is safe: the arena is shared, so the
 * JVM never lets a thread touch freed memory; such a call either completes normally or throws that exception.
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
    /** Default k. */
    public static final int DEFAULT_K = 100;
    /** Default longest key stored whole. */
    public static final int DEFAULT_MAX_KEY_BYTES = 64;
    /** Default promotion floor. */
    public static final long DEFAULT_PROMOTION_FLOOR = 1;
    /** Default entries of each worker's hot-key combiner. */
    public static final int DEFAULT_COMBINER_ENTRIES = 256;
    /** Default flush threshold of the hot-key combiners. */
    public static final int DEFAULT_FLUSH_THRESHOLD = 64;
    /** How many keys ahead {@link #observeAll(long[], int, int)} loads bucket lines. */
    public static final int BATCH_LOOKAHEAD = 8;
    /** An arbitrary value for the touch loads' sum to be compared with (see observeAll). */
    private static final long TOUCH_SENTINEL = 0x7E57_AB1E_5EED_C0DEL;
    /** The most tables {@link Builder#workerTables} takes. */
    public static final int MAX_WORKER_TABLES = 64;

    /** The message of the {@link IllegalStateException} every call throws once the instance is closed. */
    public static final String CLOSED_MESSAGE = "Hotkeeper is closed";

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
    /** Node 0's table (the only one unless per-node tables are on): the common case reads this field. */
    private final BucketTable table;
    /** One table per NUMA node (length 1 unless per-node tables are on and the machine has several nodes). */
    private final BucketTable[] tables;
    /** Key shards of each table (null when key shards are off). */
    private final KeyShards[] shardSets;
    /** Index of the calling thread's node among {@link #tables} (per-node tables); null otherwise. */
    private final java.util.function.IntSupplier nodeIndex;
    /** Worker tables: a worker's table is {@code tables[stripe & workerTableMask]}; -1 otherwise. */
    private final int workerTableMask;
    /** Whether there is more than one table (per-node or worker tables): estimates sum, topK merges. */
    private final boolean multiTable;
    private final EvictionSalt salt;
    private final StatsStripes stats;
    /** Per-worker hot-key combiners; null when combining is off. */
    private final HotKeyCombiners combiners;
    private final SaltMode saltMode;
    private final DecayLottery lottery;
    private final KeyShards shards;
    private final int k;
    private final RegionAllocator regions;
    /**
     * Whether an observation needs the caller's worker handle: stats on, per-worker salt, approximate counting
     * (its coins) or worker tables. Otherwise observations skip the lookup; promotion and engaged combining
     * look the worker up themselves.
     */
    private final boolean lookupOnObserve;
    /** The split of a total budget ({@link Builder#memory(long)}); null when the table size was given instead. */
    private final MemoryPlan plan;
    /** The expelled-key listener's per-thread delivery queues, shared by every table; null without a listener. */
    private final ExpelledKeys expelledKeys;
    @SuppressWarnings("unused") // accessed through CLOSED
    private volatile boolean closed;

    private Hotkeeper(Builder b) {
        this.hasher = b.seeded ? KeyHasher.seeded(b.seed) : KeyHasher.selfSeeded();
        this.seeded = b.seeded;
        long drawKey = b.seeded ? KeyHasher.splitMix(b.seed ^ 0x5a17L) : new java.security.SecureRandom().nextLong();
        this.lottery = new DecayLottery(b.decayBase, drawKey);
        this.expelledKeys = b.listener == null ? null : new ExpelledKeys(b.listener);
        // Worker tables: each worker's draws from its own counter, unless a salt mode was chosen explicitly.
        this.saltMode = b.saltMode != null ? b.saltMode : b.workerTables > 1 ? SaltMode.PER_WORKER : SaltMode.SHARED;
        int processors = Runtime.getRuntime().availableProcessors();
        int saltShards = saltMode == SaltMode.SHARDED
                ? (b.saltShards > 0 ? b.saltShards : SaltLayout.shardsFor(processors)) : 1;
        this.arena = Arena.ofShared();
        this.regions = new RegionAllocator();
        Placement placement = b.placement;
        try {
            int exclusive = Math.max(64, 4 * processors);
            int shared = Integer.highestOneBit(Math.max(8, 2 * processors) * 2 - 1);
            long saltBytes = saltMode == SaltMode.PER_WORKER ? SaltLayout.segmentBytes(1) * (exclusive + shared)
                    : SaltLayout.segmentBytes(saltShards);
            // The stats region holds the counters and approximate counting's coins; without either, the stripes
            // only name workers and nothing is allocated for them.
            boolean statsRegion = b.recordStats || b.approximateBits != 0;
            long statsBytes = statsRegion ? StatsStripes.segmentBytes(exclusive, shared) : 0;
            // Worker tables: a worker's table is its own already, so AUTO never engages there.
            boolean combine = b.combining == CombiningMode.ON
                    || b.combining == CombiningMode.AUTO && b.workerTables <= 1;
            int[] nodeIds = b.nodeIds();
            int count = b.workerTables > 1 ? b.workerTables : nodeIds.length;
            // A total budget (memory(total)) bounds every part up front; otherwise the table size is given and the
            // per-worker parts (shards, combiner blocks) follow the workers.
            this.plan = b.totalMemory == 0 ? null : MemoryPlan.of(b.totalMemory, b.k, b.maxKeyBytes, b.keyShards,
                    count, saltBytes + statsBytes, combine ? CombinerLayout.blockBytes(b.combinerEntries) : 0,
                    b.expectedThreads > 0 ? b.expectedThreads : Math.min(processors, exclusive));
            int indexBits = indexBitsFor(plan != null ? plan.tableBytes() : b.memoryBytes);
            if (saltMode == SaltMode.PER_WORKER) {
                this.salt = EvictionSalt.perWorker(regions.allocate(arena, "salt", saltBytes, SaltLayout.ALIGNMENT,
                        placement), exclusive + shared);
            } else {
                this.salt = new EvictionSalt(regions.allocate(arena, "salt", saltBytes, SaltLayout.ALIGNMENT,
                        placement), saltShards);
            }
            this.stats = statsRegion
                    ? new StatsStripes(regions.allocate(arena, "stats", statsBytes, StatsLayout.ALIGNMENT, placement),
                            exclusive, shared, b.recordStats)
                    : StatsStripes.namesOnly(exclusive, shared);
            // A worker's combiner block is created by its own first admission, so it lands on its node like a shard.
            // Under a budget, only the first plan.combinerBlocks() workers get one; the others do not combine.
            int combinerWorkers = plan == null ? exclusive : plan.combinerBlocks();
            this.combiners = !combine || combinerWorkers == 0 ? null : new HotKeyCombiners(stats, combinerWorkers,
                    b.combinerEntries, b.flushThreshold, 2L * b.flushThreshold,
                    bytes -> placement.equals(Placement.DEFAULT)
                            ? regions.allocate(arena, "combiner", bytes, CombinerLayout.ALIGNMENT, placement)
                            : regions.allocateOnCurrentNode(arena, "combiner", bytes, CombinerLayout.ALIGNMENT),
                    b.combining == CombiningMode.AUTO);
            long tableBytes = (long) TableLayout.BUCKET_BYTES << indexBits;
            this.tables = new BucketTable[count];
            this.shardSets = b.keyShards ? new KeyShards[count] : null;
            for (int i = 0; i < count; i++) {
                if (b.workerTables > 1) {
                    // Worker tables: table i is written by the workers whose stripe is i modulo the count.
                    this.tables[i] = buildTable(b, indexBits, tableBytes, placement, "[worker " + i + "]", i);
                } else {
                    // Per-node tables: table i lives on node i and is written only by threads running there.
                    Placement where = count == 1 || b.windowSlices > 0 ? placement : Placement.node(nodeIds[i]);
                    String suffix = count == 1 ? "" : "[" + i + ", node " + nodeIds[i] + "]";
                    this.tables[i] = buildTable(b, indexBits, tableBytes, where, suffix, i);
                }
            }
            this.table = tables[0];
            this.shards = shardSets == null ? null : shardSets[0];
            this.multiTable = count > 1;
            this.workerTableMask = b.workerTables > 1 ? b.workerTables - 1 : -1;
            // Windowed: the "node" of an observation is its time slice (see SlidingWindow).
            SlidingWindow slicing = b.windowSlices == 0 ? null
                    : new SlidingWindow(b.windowSpan, b.windowSlices, b.clock, this::clearSlice);
            this.window = slicing;
            this.nodeIndex = slicing != null ? slicing::current
                    : count == 1 || b.workerTables > 1 ? null : b.nodeIndex(nodeIds);
            this.k = b.k;
            this.lookupOnObserve = b.recordStats || saltMode == SaltMode.PER_WORKER || b.approximateBits != 0
                    || workerTableMask >= 0;
        } catch (RuntimeException | Error e) {
            arena.close();
            regions.arenaClosed();
            throw e;
        }
    }

    /** One table (and its key shards) in the given placement; region names end with {@code suffix}. */
    private BucketTable buildTable(Builder b, int indexBits, long tableBytes, Placement placement, String suffix,
                                   int index) {
        MemorySegment tableSegment = regions.allocate(arena, "table" + suffix, tableBytes,
                TableLayout.TABLE_ALIGNMENT, placement);
        MemorySegment control = regions.allocate(arena, "control" + suffix, BucketTable.CONTROL_BYTES, 128,
                placement);
        if (!b.keyShards) {
            return new BucketTable(tableSegment, indexBits, lottery, salt, stats, Long.MAX_VALUE, t -> null,
                    b.approximateBits, control);
        }
        MemorySegment links = regions.allocate(arena, "links" + suffix, tableBytes, TableLayout.TABLE_ALIGNMENT,
                placement);
        int slots = (int) (tableBytes / TableLayout.SLOT_BYTES);
        int capacity = plan != null ? plan.shardCapacity()
                : b.shardCapacity > 0 ? b.shardCapacity : Math.min(slots, Math.max(1024, 8 * b.k));
        int shardLimit = plan != null ? plan.shards() : 0;
        long shardBytes = plan != null ? plan.shardBytes() : ShardLayout.shardBytes(capacity, b.maxKeyBytes);
        return new BucketTable(tableSegment, indexBits, lottery, salt, stats, b.promotionFloor,
                t -> shardSets[index] = new KeyShards(t, links, stats, capacity, shardBytes, shardLimit,
                        b.maxKeyBytes,
                        expelledKeys,
                        // A shard is created (and zeroed) by its owner's first promotion, so under first-touch its
                        // pages already land on the owner's node; other policies place it there explicitly.
                        bytes -> placement.equals(Placement.DEFAULT)
                                ? regions.allocate(arena, "shard" + suffix, bytes, ShardLayout.ALIGNMENT, placement)
                                : regions.allocateOnCurrentNode(arena, "shard" + suffix, bytes,
                                        ShardLayout.ALIGNMENT),
                        // One table: topK adds the combiners' pending counts. Several tables: the merge adds
                        // them once, through estimate.
                        combiners == null || tables.length > 1 ? PendingCounts.NONE : combiners),
                b.approximateBits, control);
    }

    static int indexBitsFor(long memoryBytes) {
        if (memoryBytes < TableLayout.MIN_TABLE_BYTES || memoryBytes > TableLayout.MAX_TABLE_BYTES) {
            throw new IllegalArgumentException("memoryBytes=" + memoryBytes + ": must be >= "
                    + TableLayout.MIN_TABLE_BYTES + " and <= " + TableLayout.MAX_TABLE_BYTES);
        }
        return 63 - Long.numberOfLeadingZeros(memoryBytes / TableLayout.BUCKET_BYTES);
    }

    /**
     * The table size recommended for tracking the top {@code k} keys: 160 bytes (20 slots) per key, rounded up
     * to a power of two, at least 4 KiB (docs/theory.md: at 20 slots per key, precision@k was 1.00 on Zipf 0.8,
     * 1.0 and 1.2 streams; at 5 slots per key, 0.92 on Zipf 0.8). Threads: any. Progress: wait-free.
     *
     * @throws IllegalArgumentException if {@code k} is not in 1..100,000
     */
    public static long recommendedMemoryBytes(int k) {
        if (k < 1 || k > 100_000) {
            throw new IllegalArgumentException("k=" + k + ": must be >= 1 and <= 100000");
        }
        long bytes = Math.max(TableLayout.MIN_TABLE_BYTES, Long.highestOneBit(160L * k - 1) << 1);
        return Math.min(bytes, TableLayout.MAX_TABLE_BYTES);
    }

    /**
     * A builder with the defaults: 64 KiB, self-seeded, shared salt, decay base 2. Threads: any. Progress:
     * wait-free.
     */
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
        return observeLong(key, 1, observeHandle());
    }

    /**
     * Records one occurrence of each key of {@code keys}, in order: the same as {@link #observe(long)} on each,
     * faster when the table does not fit the caches. While it observes one key it has already loaded the bucket
     * lines of the next {@value #BATCH_LOOKAHEAD}, so their memory latencies overlap instead of adding up.
     * Threads: any. Progress: lock-free; no allocation.
     *
     * @throws NullPointerException  if {@code keys} is null
     * @throws IllegalStateException if closed
     */
    public void observeAll(long[] keys) {
        observeAll(keys, 0, Objects.requireNonNull(keys, "keys").length);
    }

    /**
     * Records one occurrence of each of {@code keys[from, to)}, in order; see {@link #observeAll(long[])}.
     * Threads: any (the caller keeps the range stable during the call). Progress: lock-free; no allocation.
     *
     * @throws NullPointerException      if {@code keys} is null
     * @throws IndexOutOfBoundsException if the range is outside the array
     * @throws IllegalStateException     if closed
     */
    public void observeAll(long[] keys, int from, int to) {
        observeAll(keys, from, to, observeHandle());
    }

    /**
     * Records {@code weight} occurrences of {@code key} in O(log weight) steps and returns its estimate.
     * Threads: any. Progress: lock-free; no allocation.
     *
     * @throws IllegalArgumentException if {@code weight < 1}
     * @throws IllegalStateException    if closed
     */
    public long observe(long key, long weight) {
        return observeLong(key, checkWeight(weight), observeHandle());
    }

    /**
     * Records one occurrence of the byte-string key. Threads: any. Progress: lock-free; no allocation.
     *
     * @throws NullPointerException  if {@code key} is null
     * @throws IllegalStateException if closed
     */
    public long observe(byte[] key) {
        return observeArray(key, 0, Objects.requireNonNull(key, "key").length, 1, observeHandle());
    }

    /**
     * Records {@code weight} occurrences of the byte-string key. Threads: any. Progress: lock-free; no allocation.
     *
     * @throws NullPointerException     if {@code key} is null
     * @throws IllegalArgumentException if {@code weight < 1}
     * @throws IllegalStateException    if closed
     */
    public long observe(byte[] key, long weight) {
        return observeArray(key, 0, Objects.requireNonNull(key, "key").length, checkWeight(weight), observeHandle());
    }

    /**
     * Records one occurrence of the key {@code key[offset, offset + length)}. Threads: any. Progress: lock-free;
     * no allocation.
     *
     * @throws IndexOutOfBoundsException if the range is outside the array
     * @throws IllegalStateException     if closed
     */
    public long observe(byte[] key, int offset, int length) {
        return observeArray(key, offset, length, 1, observeHandle());
    }

    /**
     * Records one occurrence of the UTF-8 bytes of {@code key}, encoded on the fly. Threads: any. Progress:
     * lock-free; no allocation.
     *
     * @throws NullPointerException  if {@code key} is null
     * @throws IllegalStateException if closed
     */
    public long observe(CharSequence key) {
        return observeChars(key, 1, observeHandle());
    }

    /**
     * Records {@code weight} occurrences of the UTF-8 bytes of {@code key}. Threads: any. Progress: lock-free.
     *
     * @throws IllegalArgumentException if {@code weight < 1}
     * @throws IllegalStateException    if closed
     */
    public long observe(CharSequence key, long weight) {
        return observeChars(key, checkWeight(weight), observeHandle());
    }

    /**
     * Records one occurrence of the bytes of {@code key} (any segment: heap, native, mapped). Threads: any.
     * Progress: lock-free; no allocation.
     *
     * @throws IllegalStateException if closed, or if {@code key}'s own arena is closed
     */
    public long observe(MemorySegment key) {
        return observeSegment(key, 0, Objects.requireNonNull(key, "key").byteSize(), 1, observeHandle());
    }

    /**
     * Records one occurrence of the key {@code key[offset, offset + length)}. Threads: any. Progress: lock-free;
     * no allocation.
     *
     * @throws IndexOutOfBoundsException if the range is outside the segment
     * @throws IllegalStateException     if closed
     */
    public long observe(MemorySegment key, long offset, long length) {
        return observeSegment(key, offset, length, 1, observeHandle());
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
        return observeSegment(key, offset, length, checkWeight(weight), observeHandle());
    }

    /**
     * A writer bound to the calling thread: the same observations, without looking the thread's worker up on
     * each call (the lookup is done once, here). For hot loops that observe from one thread; see
     * {@link HotkeeperWriter} for what it means on a virtual thread and from another thread.
     * Threads: any; the writer belongs to the caller. Progress: wait-free after the thread's first lookup.
     *
     * @throws IllegalStateException if closed
     */
    public HotkeeperWriter writer() {
        ensureOpen();
        return new HotkeeperWriter(this, handle());
    }

    // The per-key bodies, shared by the methods above and by HotkeeperWriter (which passes its own handle). A
    // weight of 1 may go through the caller's hot-key combiner; larger weights always go to the table.

    long observeLong(long key, long weight, long handle) {
        long hash = hasher.hash(key);
        long result = record(hash, weight, handle);
        return result <= TableLayout.COUNT_MASK ? result : afterLong(result, hash, key, handle);
    }

    long observeArray(byte[] key, int offset, int length, long weight, long handle) {
        long hash = hasher.hash(Objects.requireNonNull(key, "key"), offset, length);
        long result = record(hash, weight, handle);
        return result <= TableLayout.COUNT_MASK ? result : afterArray(result, hash, key, offset, length, handle);
    }

    long observeChars(CharSequence key, long weight, long handle) {
        long hash = hasher.hash(Objects.requireNonNull(key, "key"));
        long result = record(hash, weight, handle);
        return result <= TableLayout.COUNT_MASK ? result : afterChars(result, hash, key, handle);
    }

    long observeSegment(MemorySegment key, long offset, long length, long weight, long handle) {
        long hash = hasher.hash(Objects.requireNonNull(key, "key"), offset, length);
        long result = record(hash, weight, handle);
        return result <= TableLayout.COUNT_MASK ? result : afterBytes(result, hash, key, offset, length, handle);
    }

    void observeAll(long[] keys, int from, int to, long handle) {
        Objects.checkFromToIndex(from, to, Objects.requireNonNull(keys, "keys").length);
        long touched = 0;
        try {
            // The table at the start of the batch (per-node tables: a thread that migrates mid-batch only touches
            // lines of its previous node's table; the observations themselves pick the table each time).
            BucketTable ahead = tableFor(handle);
            for (int i = from; i < Math.min(to, from + BATCH_LOOKAHEAD); i++) {
                touched += ahead.touch(hasher.hash(keys[i]));
            }
            for (int i = from; i < to; i++) {
                if (i + BATCH_LOOKAHEAD < to) {
                    // Hashing the key twice (here and below) is cheaper than keeping a ring of hashes.
                    touched += ahead.touch(hasher.hash(keys[i + BATCH_LOOKAHEAD]));
                }
                observeLong(keys[i], 1, handle);
            }
        } catch (IllegalStateException e) {
            throw closedOr(e);
        }
        if (touched == TOUCH_SENTINEL) {
            // Never taken in practice; it makes every touch load a used value, so the JIT keeps them.
            Thread.onSpinWait();
        }
    }

    // ---------------------------------------------------------------- estimate

    /** The estimate of {@code key}, without changing anything. Threads: any. Progress: wait-free. */
    public long estimate(long key) {
        return read(hasher.hash(key));
    }

    /** The estimate of the bytes of {@code key[offset, offset + length)}. Threads: any. Progress: wait-free. */
    public long estimate(MemorySegment key, long offset, long length) {
        return read(hasher.hash(Objects.requireNonNull(key, "key"), offset, length));
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

    // ---------------------------------------------------------------- heavy hitters

    /**
     * The {@code k} heavy hitters (see {@link Builder#k(int)}) with their keys, highest estimate first.
     * See {@link #topK(int)}.
     */
    public List<HeavyHitter> topK() {
        return topK(k);
    }

    /**
     * The {@code n} tracked keys with the highest estimates, highest first, with their real key bytes.
     *
     * <p>Consistency: every returned key held a tracked table slot when it was read, and its estimate is that
     * slot's count at that moment plus the key's pending combined counts, ranked by that sum (a key whose table
     * count trails by its pending counts is not passed over); the scan is not an atomic snapshot, so a key
     * promoted or expelled during the call may be missing or present. Keys whose count never reached the promotion
     * floor are not tracked.
     *
     * <p>Threads: any, while other threads observe; it never stops them. Progress: wait-free (a walk over the
     * key shards' live entries and one validated copy per reported key).
     *
     * @throws IllegalArgumentException      if {@code n < 0}
     * @throws UnsupportedOperationException if key shards are disabled
     * @throws IllegalStateException         if closed
     */
    public List<HeavyHitter> topK(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("n=" + n + ": must be >= 0");
        }
        // topK(0) and an instance without shards touch no native memory: the arena cannot tell it is closed.
        ensureOpen();
        try {
            requireShards();
            if (window != null) {
                window.current();
            }
            return multiTable ? mergedTopK(n) : shards.topK(n);
        } catch (IllegalStateException e) {
            throw closedOr(e);
        }
    }

    /**
     * Whether {@code key} is currently among the {@code k} heavy hitters (RedisBloom's {@code TOPK.QUERY}).
     * Threads: any. Progress: wait-free (walks the tracked entries of every key shard).
     */
    public boolean contains(long key) {
        return containsHash(hasher.hash(key));
    }

    /** Whether the byte-string key is among the {@code k} heavy hitters. Threads: any. Progress: wait-free. */
    public boolean contains(byte[] key) {
        return containsHash(hasher.hash(Objects.requireNonNull(key, "key")));
    }

    /** Whether the UTF-8 bytes of {@code key} are among the {@code k} heavy hitters. Threads: any. Progress: wait-free. */
    public boolean contains(CharSequence key) {
        return containsHash(hasher.hash(Objects.requireNonNull(key, "key")));
    }

    /**
     * Several tables: the union of every table's top keys, each with its estimate summed over all tables (the key's
     * hash is recomputed from its bytes; a truncated key keeps the sum of the tables that reported it).
     */
    private List<HeavyHitter> mergedTopK(int n) {
        java.util.Map<java.nio.ByteBuffer, HeavyHitter> merged = new java.util.HashMap<>();
        for (KeyShards s : shardSets) {
            for (HeavyHitter h : s.topK(n)) {
                merged.merge(java.nio.ByteBuffer.wrap(h.key()), h, (a, c) -> new HeavyHitter(a.key(),
                        a.estimate() + c.estimate(), a.truncated(), a.kind()));
            }
        }
        List<HeavyHitter> out = new java.util.ArrayList<>(merged.size());
        for (HeavyHitter h : merged.values()) {
            out.add(h.truncated() ? h : new HeavyHitter(h.key(), read(hasher.hash(h.key())), false, h.kind()));
        }
        out.sort((a, c) -> Long.compare(c.estimate(), a.estimate()));
        return out.size() > n ? List.copyOf(out.subList(0, n)) : out;
    }

    private boolean containsHash(long hash) {
        // Before any shard exists, contains reads no native memory: the arena cannot tell it is closed.
        ensureOpen();
        if (multiTable) {
            long estimate = read(hash);
            List<HeavyHitter> top = topK(k);
            return estimate > 0 && top.size() > 0
                    && (top.size() < k || estimate >= top.get(top.size() - 1).estimate())
                    && top.stream().anyMatch(h -> !h.truncated() && hasher.hash(h.key()) == hash);
        }
        try {
            KeyShards s = requireShards();
            long count = s.trackedCount(hash);
            return count > 0 && count >= s.kthTrackedCount(k);
        } catch (IllegalStateException e) {
            throw closedOr(e);
        }
    }

    private KeyShards requireShards() {
        if (shards == null) {
            throw new UnsupportedOperationException("key shards are disabled (Builder.keyShards(false))");
        }
        return shards;
    }

    /**
     * Reaps what other threads' evictions handed to the calling thread's key shard. Owners reap at their own next
     * promotion anyway; a thread that stops promoting (it went idle, or its keys all settled) can call this from
     * its own loop so that handed-over entries do not wait. Threads: acts on the caller's shard only. Progress:
     * wait-free (skips a shard busy with another virtual thread of the same carrier).
     */
    public void reap() {
        // Without key shards, or before the caller has a shard, reap touches no native memory.
        ensureOpen();
        if (shardSets == null) {
            return;
        }
        try {
            for (KeyShards s : shardSets) {
                s.drainCurrent();
            }
        } catch (IllegalStateException e) {
            throw closedOr(e);
        }
    }

    /**
     * Hands the calling thread's pending hot-key counts (see {@link Builder#combining(CombiningMode)}) to the table and
     * returns how many observations that was. Estimates and {@code topK} include pending counts anyway; the table
     * itself (and so the eviction lottery and {@code contains}) sees them only when they are flushed, which a
     * busy thread does every {@code flushThreshold} observations of a key. A thread that goes idle can call this
     * from its own loop. Threads: acts on the caller's combiner only. Progress: lock-free.
     *
     * @throws IllegalStateException if closed
     */
    public long flush() {
        // Without combiners, or before the caller has a combiner block, flush touches no native memory.
        ensureOpen();
        if (combiners == null) {
            return 0;
        }
        try {
            long handle = handle();
            long flushed = combiners.flushCurrent(handle, tableFor(handle));
            if (shardSets != null) {
                shardsHere(handle).deliverExpelled();
            }
            return flushed;
        } catch (IllegalStateException e) {
            throw closedOr(e);
        }
    }

    /** The sketch's shape. Threads: any. Progress: wait-free. */
    public HotkeeperInfo info() {
        // Without key shards or combiners, info reads Java fields only.
        ensureOpen();
        try {
            int shardCount = 0;
            long shardBytes = 0;
            if (shardSets != null) {
                for (KeyShards s : shardSets) {
                    shardCount += s.shardCount();
                    shardBytes += s.byteSize();
                }
            }
            return new HotkeeperInfo(k, tableBytes(), table.bucketCount(), lottery.base(), saltMode,
                    salt.shards(), shards != null, shardCount, shards == null ? 0 : shards.capacity(),
                    shards == null ? 0 : shards.maxKeyBytes(), shards == null ? 0 : table.promotionFloor(),
                    shardBytes, tables.length, combiners == null ? CombiningMode.OFF
                            : combiners.auto() ? CombiningMode.AUTO : CombiningMode.ON,
                    combiners != null && combiners.engaged(), combiners == null ? 0 : combiners.entries(),
                    combiners == null ? 0 : (int) combiners.flushThreshold(),
                    combiners == null ? 0 : combiners.activeBlocks(), regions.bytesByPart(),
                    plan == null ? 0 : plan.budget(), plan == null || shards == null ? 0 : plan.shards());
        } catch (IllegalStateException e) {
            throw closedOr(e);
        }
    }

    /**
     * Where every native region sits: size, requested policy, effective policy, and the NUMA nodes its pages are
     * on, queried from the kernel. The first report (or the first placement other than {@link Placement#DEFAULT})
     * loads libnuma: restricted native calls, for which the JVM wants {@code --enable-native-access}
     * (docs/deployment.md); a sketch built and used with the default placement makes none. Threads: any.
     * Progress: blocking (a system call per region).
     */
    public PlacementReport placement() {
        // The report asks the kernel about addresses; it would describe freed regions without complaint.
        ensureOpen();
        return regions.report();
    }

    /** The key shards (diagnostics, tests, benchmarks); null when disabled. Threads: any. Progress: wait-free. */
    public KeyShards keyShards() {
        ensureOpen();
        return shards;
    }

    /**
     * The key shards of every table, in table order: one set, or one per table with per-node or worker tables;
     * empty when key shards are disabled (diagnostics, integrity checks, tests). Threads: any. Progress:
     * wait-free.
     */
    public List<KeyShards> keyShardSets() {
        ensureOpen();
        return shardSets == null ? List.of() : List.of(shardSets);
    }

    // ---------------------------------------------------------------- introspection

    /** Operation counts summed over all workers. Threads: any. Progress: wait-free. */
    public HotkeeperStats stats() {
        if (!stats.hasRegion()) {
            ensureOpen(); // stats off: no counters to read, so nothing native to fail on after close
        }
        try {
            return new HotkeeperStats(stats.sum(StatsLayout.REFRESHES), stats.sum(StatsLayout.CLAIMS),
                    stats.sum(StatsLayout.EVICTION_ATTEMPTS), stats.sum(StatsLayout.EVICTION_WINS),
                    stats.sum(StatsLayout.REPLACEMENTS), stats.sum(StatsLayout.SATURATIONS),
                    stats.sum(StatsLayout.PROMOTIONS), stats.sum(StatsLayout.PROMOTIONS_MISSED),
                    stats.sum(StatsLayout.HAND_OFFS), stats.sum(StatsLayout.COMBINED));
        } catch (IllegalStateException e) {
            throw closedOr(e);
        }
    }

    /** Bytes of the bucket table (of all of them, with per-node tables). Threads: any. Progress: wait-free. */
    public long tableBytes() {
        ensureOpen();
        return table.byteSize() * tables.length;
    }

    /** Number of buckets (8 slots each). Threads: any. Progress: wait-free. */
    public long bucketCount() {
        ensureOpen();
        return table.bucketCount();
    }

    /** How the eviction salt is kept. Threads: any. Progress: wait-free. */
    public SaltMode saltMode() {
        ensureOpen();
        return saltMode;
    }

    /** Number of salt counters (1 when shared). Threads: any. Progress: wait-free. */
    public int saltShards() {
        ensureOpen();
        return salt.shards();
    }

    /** The lottery's decay base. Threads: any. Progress: wait-free. */
    public double decayBase() {
        ensureOpen();
        return lottery.base();
    }

    /** Whether {@link #close()} has been called. Threads: any. Progress: wait-free. */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Frees the native memory. Idempotent: only the first call frees, later calls return at once (possibly
     * before the first has finished freeing). Once it has returned, every other public method but
     * {@link #isClosed()} throws {@link IllegalStateException} with the message {@value #CLOSED_MESSAGE}.
     * Threads: any. Progress: blocking (the JVM hands shakes with threads that may be accessing the memory).
     */
    @Override
    public void close() {
        // Volatile CAS: one closer; the flag is set before the arena closes, so a call that then fails on the
        // arena's liveness check sees it (closedOr), and so does every later explicit check (ensureOpen).
        if (CLOSED.compareAndSet(this, false, true)) {
            arena.close();
            regions.arenaClosed();
        }
    }

    // ---------------------------------------------------------------- snapshots, merging, totals, bounds

    /**
     * The stream length that merged snapshots brought in beyond what their replay counted (only with stats
     * recorded, see totalWeight). Written by merges only, never on the observe path: a plain shared counter,
     * volatile add.
     */
    private final java.util.concurrent.atomic.AtomicLong mergedWeight = new java.util.concurrent.atomic.AtomicLong();
    /** Whether the hash function came from {@link Builder#seed} (recorded in snapshots). */
    private final boolean seeded;
    /** The time slices of a windowed sketch (one table each); null otherwise. */
    private final SlidingWindow window;

    /**
     * An immutable copy of the sketch: its parameters, every tracked key with its estimate, and the table's slot
     * words (fingerprint and count). With several tables (per-node or worker tables) the copy folds them into one
     * with the snapshot merge ({@link HotkeeperSnapshot#mergeAll}).
     *
     * <p>Guarantee against concurrent observers: every slot word is read atomically with an acquire load, each
     * bucket from its last slot to its first (slots empty only in {@link #reset()}, so a claim racing the copy
     * cannot land below a slot read as empty; words a racing reset leaves out of order are moved up); the
     * keys are {@link #topK(int)} of all tracked keys, with its guarantee. So every count in the snapshot is a
     * count the sketch held at some moment of the call, a key in it held a tracked slot during the call, and
     * observations that complete before the call starts are all included; observations concurrent with it may
     * or may not be, per slot. It is not one instant of the whole sketch; a snapshot of a quiescent sketch is
     * exact. {@code totalWeight} is read last, so it is at least the stream length before the call.
     *
     * <p>Threads: any, while others observe; it never stops them. Progress: wait-free.
     *
     * @throws IllegalStateException if closed
     */
    public HotkeeperSnapshot snapshot() {
        ensureOpen();
        try {
            if (window != null) {
                window.current();
            }
            int indexBits = table.indexBits();
            List<long[]> copies = new java.util.ArrayList<>(tables.length);
            for (BucketTable t : tables) {
                copies.add(copyTable(t));
            }
            List<SnapshotKey> keys = new java.util.ArrayList<>();
            // A key's location: the hash bits that pick its bucket and fingerprint.
            long locationMask = (1L << (indexBits + TableLayout.fingerprintBits(indexBits))) - 1;
            if (shards != null) {
                for (HeavyHitter h : topK(trackedLimit())) {
                    keys.add(new SnapshotKey(h.key(), h.estimate(), h.truncated(), h.kind(),
                            h.truncated() ? SnapshotKey.NO_LOCATION : hasher.hash(h.key()) & locationMask));
                }
            }
            return HotkeeperSnapshot.of(indexBits, k, shards == null ? DEFAULT_MAX_KEY_BYTES : shards.maxKeyBytes(),
                    lottery.base(), seedFingerprint(), seeded, totalWeight(), copies, keys);
        } catch (IllegalStateException e) {
            throw closedOr(e);
        }
    }

    /**
     * Merges a snapshot into this sketch, as if its counts had been observed here (weighted observations through
     * the ordinary lock-free paths, so other threads may observe and read meanwhile).
     *
     * <p>By table when the snapshot has a table of this size, this sketch has one table, and the hash functions
     * are equal ({@link #seedFingerprint()}: instances built with the same {@link Builder#seed}): every slot's
     * count is replayed into the same bucket and fingerprint, through its key when the snapshot tracks it (so
     * the key is promoted here), untracked otherwise. By keys otherwise: every tracked, untruncated key is
     * observed with its estimate. Loss: by keys, the snapshot's untracked counts and truncated keys; both ways,
     * whatever the lottery of a full bucket here does to a replayed count (as it would to the same observations
     * arriving live). The total weight grows by the snapshot's.
     *
     * <p>Threads: any. Progress: lock-free.
     *
     * @throws IllegalStateException if closed
     */
    public MergeReport merge(HotkeeperSnapshot snapshot) {
        Objects.requireNonNull(snapshot, "snapshot");
        ensureOpen();
        try {
            long handle = observeHandle();
            int indexBits = table.indexBits();
            boolean byTable = snapshot.hasTable() && !multiTable && snapshot.indexBits() == indexBits
                    && snapshot.seedFingerprint() == seedFingerprint();
            long merged = 0;
            long dropped = 0;
            if (byTable) {
                java.util.Map<Long, SnapshotKey> located = new java.util.HashMap<>();
                for (SnapshotKey key : snapshot.keys()) {
                    if (key.located()) {
                        located.putIfAbsent(key.location(), key);
                    }
                }
                for (int i = 0; i < snapshot.slotCount(); i++) {
                    long word = snapshot.slotWord(i);
                    if (word == 0) {
                        continue;
                    }
                    long count = TableLayout.count(word);
                    long location = (long) (i / TableLayout.SLOTS_PER_BUCKET)
                            | TableLayout.fingerprint(word) << indexBits;
                    SnapshotKey key = located.get(location);
                    if (key != null) {
                        observeArray(key.key(), 0, key.key().length, count, handle);
                    } else {
                        // No key: the same bucket and fingerprint, spare bits (the lottery's) from the location.
                        long hash = (KeyHasher.splitMix(location) & ~0xFFFF_FFFFL) | location;
                        long result = record(hash, count, handle);
                        if ((result & BucketTable.EXPELLED) != 0) {
                            shardsHere(handle).deliverExpelled();
                        }
                    }
                    merged += count;
                }
            } else {
                for (SnapshotKey key : snapshot.keys()) {
                    if (key.truncated() || key.estimate() == 0) {
                        dropped += key.estimate();
                        continue;
                    }
                    observeArray(key.key(), 0, key.key().length, key.estimate(), handle);
                    merged += key.estimate();
                }
                dropped += Math.max(0, snapshot.tableWeight() - merged - dropped);
            }
            if (stats.recording()) {
                // The replay counted `merged` in the stripes; the snapshot's stream was totalWeight long.
                mergedWeight.addAndGet(snapshot.totalWeight() - merged);
            }
            return new MergeReport(byTable, merged, dropped);
        } catch (IllegalStateException e) {
            throw closedOr(e);
        }
    }

    /**
     * The fingerprint of this sketch's hash function (equal for instances built with the same
     * {@link Builder#seed}; it does not reveal the seed). Threads: any. Progress: wait-free.
     *
     * @throws IllegalStateException if closed
     */
    public long seedFingerprint() {
        ensureOpen();
        return HotkeeperSnapshot.fingerprintOf(hasher::hash);
    }

    /**
     * The stream length: the sum of the weights of all observations, plus the total weight of merged snapshots.
     * Exact with {@link Builder#recordStats()}: each observation adds its weight to its worker's stats stripe (a
     * line only that worker writes, which the observation writes anyway for the other counters), and this sums
     * the stripes; no shared word is written on the observe path. Without stats it is derived: the sum of the
     * counts the tables hold, a lower bound (counts lost in the eviction lottery, and pending combined counts,
     * are not in it). A windowed sketch ({@link Builder#window}) always derives it: the weight its slices hold,
     * the window's. Concurrent observations may or may not be included. Threads: any. Progress: wait-free.
     *
     * @throws IllegalStateException if closed
     */
    public long totalWeight() {
        ensureOpen();
        try {
            if (window != null) {
                window.current();
            } else if (stats.recording()) {
                return stats.sum(StatsLayout.OBSERVED_WEIGHT) + mergedWeight.get();
            }
            long sum = 0;
            for (BucketTable t : tables) {
                for (long b = 0; b < t.bucketCount(); b++) {
                    for (int s = 0; s < TableLayout.SLOTS_PER_BUCKET; s++) {
                        long word = t.readSlotAcquire(b, s);
                        if (word == 0) {
                            break;
                        }
                        sum += TableLayout.count(word);
                    }
                }
            }
            return sum;
        } catch (IllegalStateException e) {
            throw closedOr(e);
        }
    }

    /**
     * Every tracked key whose estimate is at least {@code phi * totalWeight()}, highest first (the
     * phi-heavy hitters; with stats off the total is a lower bound, so the list can only grow). Consistency as
     * {@link #topK(int)}. Threads: any. Progress: wait-free.
     *
     * @throws IllegalArgumentException      if {@code phi} is not in (0, 1]
     * @throws UnsupportedOperationException if key shards are disabled
     * @throws IllegalStateException         if closed
     */
    public List<HeavyHitter> heavyHitters(double phi) {
        double threshold = HotkeeperSnapshot.threshold(phi, totalWeight());
        List<HeavyHitter> all = topK(trackedLimit());
        int n = 0;
        while (n < all.size() && all.get(n).estimate() >= threshold) {
            n++;
        }
        return List.copyOf(all.subList(0, n));
    }

    /**
     * Bounds on the true count of the byte-string key that hold together with probability {@code confidence}
     * (docs/theory.md, "Per-key bounds"): the lower bound is the estimate, the upper the estimate plus
     * {@code totalWeight / (buckets * delta)}. Best with {@link Builder#recordStats()} (an exact total).
     * Threads: any. Progress: wait-free.
     *
     * @throws IllegalArgumentException if {@code confidence} is not in (0, 1)
     * @throws IllegalStateException    if closed
     */
    public KeyBounds bounds(byte[] key, double confidence) {
        return KeyBounds.of(estimate(key), totalWeight(), table.indexBits(), confidence);
    }

    /** {@link #bounds(byte[], double)} of the UTF-8 bytes of {@code key}. Threads: any. Progress: wait-free. */
    public KeyBounds bounds(CharSequence key, double confidence) {
        return KeyBounds.of(estimate(key), totalWeight(), table.indexBits(), confidence);
    }

    /** {@link #bounds(byte[], double)} of a {@code long} key. Threads: any. Progress: wait-free. */
    public KeyBounds bounds(long key, double confidence) {
        return KeyBounds.of(estimate(key), totalWeight(), table.indexBits(), confidence);
    }

    /**
     * Clears the sketch to empty while other threads keep observing and reading: no close, and no exception for
     * them. Every slot of every table is emptied from the last slot of its bucket to the first (a volatile CAS
     * to 0); a tracked slot is first untracked under its link lock (one volatile CAS that clears {@code T} and
     * takes {@code P}) and its key-shard entry handed to its owner, exactly as when a replacement expels a
     * tracked key (the expelled-key listener, if any, hears of it); a slot whose link lock another thread holds
     * (a promotion in flight) is waited for. The total weight restarts from 0.
     *
     * <p>What an observation racing with reset counts toward: an observation that completes before reset begins
     * is cleared; one that begins after reset returns is counted exactly as in a fresh sketch; one that overlaps
     * it is counted in the new state or cleared, per slot. Not cleared: the hot-key combiners' pending counts
     * (owner-only state; at most {@code flushThreshold - 1} per combining worker and key), which reach the new
     * state. One racing case leaves a trace: a claim that scanned a bucket before reset emptied its lower slots
     * can land above an emptied slot; scans stop at the first empty slot, so that unit is invisible until the
     * bucket's lower slots are claimed again, and later observations of its key count in a slot of their own.
     * Reset re-clears a bucket whose slots it finds out of order, which catches most of these.
     *
     * <p>Threads: any, while others observe. Progress: blocking only on another thread's link lock (an in-flight
     * promotion, replacement or eviction of one slot, each lock-free and short), and boundedly: a slot whose lock
     * stays held through 65,536 spins and 10,000 yields (its holder descheduled that long, or the resetting thread
     * itself, from a key's {@code charAt} during its own promotion) is left uncleared; lock-free otherwise.
     *
     * @throws IllegalStateException if closed
     */
    public void reset() {
        scaleCounts(0);
    }

    /**
     * Multiplies every count in the tables by {@code factor} in (0, 1) (rounded down, but never below 1: a slot
     * is never emptied, so a bucket's occupied slots stay a prefix; the lightest keys stay as the weakest
     * occupants, first to go in the lottery), from any thread while others observe; {@code decay(0.5)} is the
     * halving of Caffeine's periodic reset. Each slot is one volatile CAS loop that keeps the slot's key-shard
     * bits, so tracked keys stay tracked. The total weight is multiplied by the same factor. Observations racing
     * with it are decayed or not, per slot; pending combined counts are not decayed (owner-only state).
     *
     * <p>Threads: any, while others observe. Progress: lock-free (a failed CAS is another thread's update).
     *
     * @throws IllegalArgumentException if {@code factor} is not in (0, 1)
     * @throws IllegalStateException    if closed
     */
    public void decay(double factor) {
        if (!(factor > 0 && factor < 1)) {
            throw new IllegalArgumentException("factor=" + factor + ": must be in (0, 1)");
        }
        scaleCounts(factor);
    }

    /** reset (factor 0) and decay: every slot of every table, then the total weight. */
    private void scaleCounts(double factor) {
        ensureOpen();
        try {
            long countedBefore = stats.recording() ? stats.sum(StatsLayout.OBSERVED_WEIGHT) + mergedWeight.get() : 0;
            for (int i = 0; i < tables.length; i++) {
                if (factor == 0) {
                    clearSlice(i);
                    continue;
                }
                BucketTable t = tables[i];
                for (long b = 0; b < t.bucketCount(); b++) {
                    for (int s = 0; s < TableLayout.SLOTS_PER_BUCKET; s++) {
                        if (!scaleSlot(t, b * TableLayout.BUCKET_BYTES + (long) s * TableLayout.SLOT_BYTES, factor)) {
                            break; // occupied slots are a prefix
                        }
                    }
                }
            }
            if (stats.recording()) {
                // Volatile add: the stripes are their workers' own, so the total is rebased here instead.
                mergedWeight.addAndGet(-countedBefore + (long) Math.floor(countedBefore * factor));
            }
        } catch (IllegalStateException e) {
            throw closedOr(e);
        }
    }

    /**
     * Empties table {@code i} (reset, and a window's rotation), then hands the keys it expelled to the listener
     * (this thread's queue; the caller is outside any combiner block or shard operation).
     */
    private void clearSlice(int i) {
        BucketTable t = tables[i];
        KeyShards ks = shardSets == null ? null : shardSets[i];
        boolean expelled = false;
        for (long b = 0; b < t.bucketCount(); b++) {
            long base = b * TableLayout.BUCKET_BYTES;
            // Up to 4 passes while a racing claim left the bucket's slots out of order.
            for (int pass = 0; pass < 4; pass++) {
                for (int s = TableLayout.SLOTS_PER_BUCKET - 1; s >= 0; s--) {
                    expelled |= clearSlot(t, ks, base + (long) s * TableLayout.SLOT_BYTES);
                }
                if (inOrder(t, b)) {
                    break;
                }
            }
        }
        if (expelled) {
            ks.deliverExpelled();
        }
    }

    /**
     * Empties one slot. Volatile load of the word; a word with another thread's link lock is waited for; a
     * tracked word is untracked and locked in one volatile CAS, its entry handed off (KeyShards.replaced, which
     * clears the link and gives the lock back); then a volatile CAS to 0. Returns whether a key was queued for
     * the expelled-key listener.
     */
    private static boolean clearSlot(BucketTable t, KeyShards ks, long offset) {
        boolean expelled = false;
        int waits = 0;
        while (true) {
            long word = t.slotVolatile(offset);
            if (word == 0) {
                return expelled;
            }
            if (TableLayout.promoting(word)) {
                // Another link lock holder: only it may clear P. It is short, unless it is this very thread (a
                // key's charAt that resets, or rotates a window, during its own promotion): then, after a bounded
                // wait, the slot is left as it is rather than waiting forever.
                if (++waits > LOCK_SPINS + LOCK_YIELDS) {
                    return expelled;
                }
                if (waits > LOCK_SPINS) {
                    Thread.yield();
                } else {
                    Thread.onSpinWait();
                }
                continue;
            }
            if (TableLayout.tracked(word) && ks != null) {
                long locked = (word & ~TableLayout.TRACKED) | TableLayout.PROMOTING;
                if (t.casSlotVolatile(offset, word, locked)) {
                    expelled |= ks.replaced(offset, word, true);
                }
                continue;
            }
            if (t.casSlotVolatile(offset, word, 0L)) {
                return expelled;
            }
        }
    }

    /** Spins, then yields, on another thread's link lock before reset leaves that slot alone (see clearSlot). */
    private static final int LOCK_SPINS = 1 << 16;
    private static final int LOCK_YIELDS = 10_000;

    /** Scales one slot's count (volatile CAS loop, other bits kept); false if the slot is empty. */
    private static boolean scaleSlot(BucketTable t, long offset, double factor) {
        while (true) {
            long word = t.slotVolatile(offset);
            if (word == 0) {
                return false;
            }
            long count = TableLayout.count(word);
            long scaled = Math.max(1, (long) Math.floor(count * factor));
            if (scaled == count || t.casSlotVolatile(offset, word, word - count + scaled)) {
                return true;
            }
        }
    }

    /** Whether bucket {@code b}'s occupied slots are a prefix (acquire loads). */
    private static boolean inOrder(BucketTable t, long b) {
        boolean empty = false;
        for (int s = 0; s < TableLayout.SLOTS_PER_BUCKET; s++) {
            long word = t.readSlotAcquire(b, s);
            if (word == 0) {
                empty = true;
            } else if (empty) {
                return false;
            }
        }
        return true;
    }

    /** Enough for every tracked key of every table. */
    private int trackedLimit() {
        return (int) Math.min(Integer.MAX_VALUE - 16,
                table.bucketCount() * TableLayout.SLOTS_PER_BUCKET * tables.length);
    }

    /**
     * One table's slot words, key-shard bits cleared; each bucket read from its last slot down (acquire loads),
     * then its occupied words moved to the front in order (a reset racing with a claim can leave a word above an
     * emptied slot; the copy keeps it, as a prefix).
     */
    private static long[] copyTable(BucketTable t) {
        long[] words = new long[(int) (t.bucketCount() * TableLayout.SLOTS_PER_BUCKET)];
        long[] bucket = new long[TableLayout.SLOTS_PER_BUCKET];
        for (long b = 0; b < t.bucketCount(); b++) {
            int base = (int) (b * TableLayout.SLOTS_PER_BUCKET);
            for (int s = TableLayout.SLOTS_PER_BUCKET - 1; s >= 0; s--) {
                bucket[s] = t.readSlotAcquire(b, s) & ~(TableLayout.TRACKED | TableLayout.PROMOTING);
            }
            int used = 0;
            for (long word : bucket) {
                if (word != 0) {
                    words[base + used++] = word;
                }
            }
        }
        return words;
    }

    // ---------------------------------------------------------------- internals

    private long handle() {
        return stats.currentHandle();
    }

    /** The handle an observation carries: the caller's, or {@link StatsStripes#NO_HANDLE} when nothing needs it. */
    private long observeHandle() {
        return lookupOnObserve ? stats.currentHandle() : StatsStripes.NO_HANDLE;
    }

    /** {@code weight} units of the key of {@code hash}: one through the combiner (when on), more to the table. */
    private long record(long hash, long weight, long handle) {
        return weight == 1 ? observeOne(hash, handle) : update(hash, weight, handle);
    }

    /** One unit: through the caller's hot-key combiner when combining is on. */
    private long observeOne(long hash, long handle) {
        try {
            // The stream length, in the worker's own stripe; a no-op unless stats are recorded (see totalWeight).
            stats.add(handle, StatsLayout.OBSERVED_WEIGHT, 1);
            BucketTable t = tableFor(handle);
            return combiners == null ? t.observe(hash, 1, handle) : combiners.observe(hash, handle, t);
        } catch (IllegalStateException e) {
            throw closedOr(e);
        }
    }

    private long update(long hash, long weight, long handle) {
        try {
            stats.add(handle, StatsLayout.OBSERVED_WEIGHT, weight);
            return tableFor(handle).observe(hash, weight, handle);
        } catch (IllegalStateException e) {
            throw closedOr(e);
        }
    }

    // The slow paths after an observation whose result carries PROMOTE or VISIT: kept out of the hot methods.

    private long afterLong(long result, long hash, long key, long handle) {
        try {
            KeyShards here = shardsHere(handle);
            if ((result & BucketTable.PROMOTE) != 0) {
                here.promoteLong(hash, key, handle);
            } else if ((result & BucketTable.VISIT) != 0) {
                here.visit(hash);
            }
            delivered(result, here);
        } catch (IllegalStateException e) {
            throw closedOr(e);
        }
        return result & TableLayout.COUNT_MASK;
    }

    private long afterBytes(long result, long hash, MemorySegment key, long offset, long length, long handle) {
        try {
            KeyShards here = shardsHere(handle);
            if ((result & BucketTable.PROMOTE) != 0) {
                here.promoteBytes(hash, key, offset, length, handle);
            } else if ((result & BucketTable.VISIT) != 0) {
                here.visit(hash);
            }
            delivered(result, here);
        } catch (IllegalStateException e) {
            throw closedOr(e);
        }
        return result & TableLayout.COUNT_MASK;
    }

    /**
     * Runs the expelled-key listener for the keys this observation expelled, last: outside the combiner's block
     * and the shard's busy section, so a listener may call back into this sketch (see ExpelledKeys).
     */
    private static void delivered(long result, KeyShards here) {
        if ((result & BucketTable.EXPELLED) != 0) {
            here.deliverExpelled();
        }
    }

    /** As afterBytes for an array: the segment view is made only for a promotion (a VISIT allocates nothing). */
    private long afterArray(long result, long hash, byte[] key, int offset, int length, long handle) {
        if ((result & BucketTable.PROMOTE) != 0) {
            return afterBytes(result, hash, MemorySegment.ofArray(key), offset, length, handle);
        }
        return afterBytes(result, hash, null, offset, length, handle);
    }

    private long afterChars(long result, long hash, CharSequence key, long handle) {
        try {
            KeyShards here = shardsHere(handle);
            if ((result & BucketTable.PROMOTE) != 0) {
                here.promoteChars(hash, key, handle);
            } else if ((result & BucketTable.VISIT) != 0) {
                here.visit(hash);
            }
            delivered(result, here);
        } catch (IllegalStateException e) {
            throw closedOr(e);
        }
        return result & TableLayout.COUNT_MASK;
    }

    /** The calling thread's table: the only one, its node's, or its worker's. */
    private BucketTable tableFor(long handle) {
        return multiTable ? tables[tableIndex(handle)] : table;
    }

    private int tableIndex(long handle) {
        return workerTableMask >= 0 ? StatsStripes.stripe(handle) & workerTableMask : nodeIndex.getAsInt();
    }

    /** The key shards of the calling thread's table. */
    private KeyShards shardsHere(long handle) {
        return multiTable ? shardSets[tableIndex(handle)] : shards;
    }

    private long read(long hash) {
        try {
            if (window != null) {
                window.current(); // a query rotates too, so old slices leave even when nobody observes
            }
            // The tables first (acquire loads), then the combiners' pending counts: never a unit counted twice.
            long sum = multiTable ? 0 : table.estimate(hash);
            if (multiTable) {
                // Several tables: a key observed through several has a count in each; its estimate is the sum.
                for (BucketTable t : tables) {
                    sum += t.estimate(hash);
                }
            }
            return combiners == null ? sum : sum + combiners.pending(hash);
        } catch (IllegalStateException e) {
            throw closedOr(e);
        }
    }

    /**
     * The closed exception, for the methods that may touch no native memory (so the arena's liveness check may
     * never run). A volatile read of {@code closed}: close() sets it before closing the arena, so once close()
     * has returned every caller sees it. Not on the observe and estimate paths: they always access the arena,
     * whose own check fails first (see closedOr).
     */
    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException(CLOSED_MESSAGE);
        }
    }

    /**
     * The exception to throw for {@code e}, thrown by an access to native memory: the closed exception (with the
     * arena's exception as its cause) if this instance is closed, else {@code e} itself (e.g. a caller's key
     * segment whose own arena is closed). A volatile read of {@code closed}, on the failure path only:
     * close() sets the flag before it closes the arena, so an access that failed on the closed arena sees it.
     */
    private IllegalStateException closedOr(IllegalStateException e) {
        if (closed) {
            return new IllegalStateException(CLOSED_MESSAGE, e);
        }
        return e;
    }

    static long checkWeight(long weight) {
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
        /** Null: shared, or per-worker with worker tables. */
        private SaltMode saltMode;
        private int saltShards;
        private double decayBase = DecayLottery.DEFAULT_BASE;
        private boolean keyShards = true;
        private int k = DEFAULT_K;
        private int maxKeyBytes = DEFAULT_MAX_KEY_BYTES;
        private int shardCapacity;
        /** The total budget (memory), or 0: the table size is given (memoryBytes, or the default). */
        private long totalMemory;
        private boolean tableSizeGiven;
        // Options given explicitly, for checkOptions: an option that would have no effect is an error.
        private boolean maxKeyBytesGiven;
        private boolean promotionFloorGiven;
        private boolean combinerGiven;
        /** Threads the budget is split for; 0: the available processors. */
        private int expectedThreads;
        private long promotionFloor = DEFAULT_PROMOTION_FLOOR;
        private ExpelledKeyListener listener;
        private Placement placement = Placement.DEFAULT;
        private int approximateBits;
        private CombiningMode combining = CombiningMode.AUTO;
        private int combinerEntries = DEFAULT_COMBINER_ENTRIES;
        private int flushThreshold = DEFAULT_FLUSH_THRESHOLD;
        private boolean perNodeTables;
        private int workerTables = 1;
        private boolean recordStats;
        private int[] forcedNodes;
        private java.util.function.IntSupplier forcedNodeIndex;
        private java.time.Duration windowSpan;
        private int windowSlices;
        private java.util.function.LongSupplier clock = System::nanoTime;

        private Builder() {
        }

        /**
         * Opt-in: one bucket table per NUMA node, placed on that node and written only by threads running there,
         * so no table line crosses nodes on the observe path. Each node's table gets the full
         * {@code memoryBytes} (N nodes: N times the memory); {@code estimate} sums the node tables and
         * {@code topK} merges them. With one node (or no libnuma) it is exactly one table. See
         * docs/deployment.md for the trade-off against one interleaved table.
         */
        public Builder perNodeTables(boolean enabled) {
            this.perNodeTables = enabled;
            return this;
        }

        /**
         * Opt-in: {@code tables} bucket tables (a power of two in 2..64), each with the full {@code memoryBytes}, a
         * worker writing the table of its stats stripe modulo {@code tables}. With as many tables as threads (worker
         * ids are given lowest-free-first, so threads that start observing together get consecutive ones) no
         * table line is written by two cores (the per-thread sketches of the peers, with the merge built in):
         * observations scale with cores at the price of {@code tables} times the memory and of each table
         * seeing only its workers' share of the stream. {@code estimate} sums the tables and {@code topK} merges
         * their top keys, from any thread. The salt defaults to {@link SaltMode#PER_WORKER} here and combining
         * {@link CombiningMode#AUTO} stays off (a worker's table is already its own). Not with
         * {@link #perNodeTables}.
         *
         * @throws IllegalArgumentException if {@code tables} is not a power of two in 1..64 (1: one shared table)
         */
        public Builder workerTables(int tables) {
            if (tables < 1 || tables > MAX_WORKER_TABLES || Integer.bitCount(tables) != 1) {
                throw new IllegalArgumentException("workerTables=" + tables + ": must be a power of two in 1.."
                        + MAX_WORKER_TABLES);
            }
            this.workerTables = tables;
            return this;
        }

        /**
         * Test hook: per-node tables for {@code nodes} pretend nodes, the calling thread's node chosen by
         * {@code nodeOfCurrentThread} (an index into 0..nodes-1). Placement stays as configured.
         */
        Builder simulatedNodes(int nodes, java.util.function.IntSupplier nodeOfCurrentThread) {
            this.perNodeTables = true;
            this.forcedNodes = new int[nodes];
            this.forcedNodeIndex = nodeOfCurrentThread;
            return this;
        }

        int[] nodeIds() {
            if (windowSlices > 0) {
                return new int[windowSlices]; // one table per time slice (placed as configured, not per node)
            }
            if (forcedNodes != null) {
                return forcedNodes.length <= 1 ? new int[] {0} : forcedNodes;
            }
            if (!perNodeTables) {
                return new int[] {0};
            }
            io.hotkeeper.numa.Numa numa = io.hotkeeper.numa.Numa.system();
            List<Integer> nodes = numa.isAvailable() ? numa.nodes() : List.of(0);
            return nodes.stream().mapToInt(Integer::intValue).toArray();
        }

        java.util.function.IntSupplier nodeIndex(int[] nodeIds) {
            if (forcedNodeIndex != null) {
                return forcedNodeIndex;
            }
            io.hotkeeper.numa.Numa numa = io.hotkeeper.numa.Numa.system();
            int[] indexOfNode = new int[java.util.Arrays.stream(nodeIds).max().orElse(0) + 1];
            for (int i = 0; i < nodeIds.length; i++) {
                indexOfNode[nodeIds[i]] = i;
            }
            return () -> {
                int node = numa.currentNode();
                return node >= 0 && node < indexOfNode.length ? indexOfNode[node] : 0;
            };
        }

        /**
         * Turns on the operation counters of {@link Hotkeeper#stats()}: refreshes, claims, lottery draws and wins,
         * replacements, promotions, hand-offs, combined units. They live in per-worker stripes (no shared counter),
         * but every observation then writes its stripe and looks its worker up; off, the observation path touches
         * no counter at all and {@code stats()} reports zeros. Off by default, like Caffeine's {@code recordStats()}
         * (docs/performance.md gives the cost).
         */
        public Builder recordStats() {
            this.recordStats = true;
            return this;
        }

        /**
         * Per-worker combining of hot keys. Each worker keeps, in a block of native memory only it writes
         * ({@code 128 + 16 * entries} bytes, created at its first hot key), the keys it observes most whose table
         * count reached {@code 2 * flushThreshold}; their repeat observations raise a pending count there instead
         * of writing the shared table, and every {@code flushThreshold}-th adds them all to the table in one
         * weighted update. With several threads on skewed streams this takes most observations off the shared
         * table lines, which other cores would otherwise keep pulling away (docs/performance.md).
         *
         * <p>{@link CombiningMode#AUTO} (the default) engages once a second thread has seen a hot key;
         * {@link CombiningMode#ON} from the start; {@link CombiningMode#OFF} never.
         *
         * <p>Bound: {@code estimate} and {@code topK} add every worker's pending counts to the table's, so once
         * writers pause they equal what the table would hold had every observation gone to it; while a worker is
         * flushing a key, a concurrent estimate of that key can be low by up to {@code flushThreshold}, never
         * high. The table alone (the eviction lottery, {@code contains}) lags by at most
         * {@code flushThreshold - 1} per combining worker and key until {@link Hotkeeper#flush()} or the next
         * flush. An observation of a combined key returns the count at its worker's last flush plus its pending
         * count. Observations of weight above 1 are never combined.
         */
        public Builder combining(CombiningMode mode) {
            this.combining = Objects.requireNonNull(mode, "mode");
            return this;
        }

        /**
         * The combiners' size: {@code entries} per worker (a power of two in 16..65536; default 256) and the
         * observations of a key per flush ({@code flushThreshold}, 2..32768; default 64). See
         * {@link #combining(CombiningMode)}.
         */
        public Builder combiner(int entries, int flushThreshold) {
            HotKeyCombiners.checkSize(entries, flushThreshold);
            this.combinerGiven = true;
            this.combinerEntries = entries;
            this.flushThreshold = flushThreshold;
            return this;
        }

        /**
         * Opt-in approximate counting for hot keys: a count {@code c >= 2^bits} grows by {@code 2^j} with
         * probability {@code 2^-j} ({@code j = floor(log2 c) - bits + 1}) instead of by 1. Estimates stay
         * unbiased with a relative standard error of about {@code 1.63 * 2^(-bits/2)} (1.3% at 14 bits, 0.6% at
         * 16), counts below {@code 2^bits} stay exact, and a hot key's slot is written by only one refresh in
         * {@code 2^j}: the shared-write traffic that makes two cores slower than one on skewed streams mostly
         * disappears. {@code bits} in 4..32; 0 (the default) counts exactly.
         */
        public Builder approximateCountsAbove(int bits) {
            if (bits != 0 && (bits < 4 || bits > 32)) {
                throw new IllegalArgumentException("approximateCountsAbove=" + bits + ": must be 0 or in 4..32");
            }
            this.approximateBits = bits;
            return this;
        }

        /**
         * Where the table, its links, the salt and the stats live: {@link Placement#DEFAULT} (first touch),
         * {@code LOCAL} (the building thread's node), {@code node(n)}, {@code INTERLEAVE}. Key shards always go
         * to the node of the thread that owns them. Without libnuma or with one node every policy falls back to
         * DEFAULT (one log line; {@link Hotkeeper#placement()} says why); a node that does not exist fails in
         * {@link #build()} with {@link IllegalArgumentException}.
         */
        public Builder placement(Placement placement) {
            this.placement = Objects.requireNonNull(placement, "placement");
            return this;
        }

        /**
         * Whether to keep the real keys of tracked entries in per-worker key shards (default true). Without them
         * the sketch only answers {@code estimate}; {@code topK} and {@code contains} need them.
         */
        public Builder keyShards(boolean enabled) {
            this.keyShards = enabled;
            return this;
        }

        /** Sets {@code k} and the table size {@link Hotkeeper#recommendedMemoryBytes(int)} recommends for it. */
        public Builder sizedFor(int k) {
            k(k);
            return memoryBytes(recommendedMemoryBytes(k));
        }

        /** Heavy hitters reported by {@code topK()} and tested by {@code contains} (1..100,000; default 100). */
        public Builder k(int k) {
            if (k < 1 || k > 100_000) {
                throw new IllegalArgumentException("k=" + k + ": must be >= 1 and <= 100000");
            }
            this.k = k;
            return this;
        }

        /**
         * Longest key stored whole in a key shard (1..4096; default 64). Longer keys are counted exactly like
         * others (the hash covers every byte) but their shard entry keeps only the first {@code maxKeyBytes}
         * bytes and {@link HeavyHitter#truncated()} says so.
         */
        public Builder maxKeyBytes(int maxKeyBytes) {
            if (maxKeyBytes < 1 || maxKeyBytes > 4096) {
                throw new IllegalArgumentException("maxKeyBytes=" + maxKeyBytes + ": must be >= 1 and <= 4096");
            }
            this.maxKeyBytes = maxKeyBytes;
            this.maxKeyBytesGiven = true;
            return this;
        }

        /**
         * Entries per key shard (16..2^20), with room for that many keys of any length up to maxKeyBytes (shorter
         * keys take smaller entries; a shard spans at most 8 MiB, docs/shards.md); by default min(table slots,
         * max(1024, 8k)). A full shard evicts one of its own entries with SIEVE.
         */
        public Builder shardCapacity(int shardCapacity) {
            if (shardCapacity < 16 || shardCapacity > ShardLayout.MAX_ENTRIES) {
                throw new IllegalArgumentException("shardCapacity=" + shardCapacity + ": must be >= 16 and <= "
                        + ShardLayout.MAX_ENTRIES);
            }
            this.shardCapacity = shardCapacity;
            return this;
        }

        /**
         * The initial count at which a key is recorded in its observer's shard (>= 1; default 1: every key is
         * tracked from its first observation while the shards have room, so small inputs are exact, docs/theory.md
         * section 6). The floor rises by itself when a full shard turns away a candidate lighter than its eviction
         * victim, so it settles where the shards hold the heaviest keys; a higher starting floor keeps keys seen
         * fewer times out of the shards from the start.
         */
        public Builder promotionFloor(long promotionFloor) {
            if (promotionFloor < 1 || promotionFloor > TableLayout.MAX_COUNT) {
                throw new IllegalArgumentException("promotionFloor=" + promotionFloor + ": must be >= 1 and <= "
                        + TableLayout.MAX_COUNT);
            }
            this.promotionFloor = promotionFloor;
            this.promotionFloorGiven = true;
            return this;
        }

        /** Receives keys expelled from the table (opt-in; see {@link ExpelledKeyListener}). */
        public Builder expelledKeyListener(ExpelledKeyListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * The size of the bucket table alone, in bytes: 4 KiB .. 64 MiB, rounded down to a power of two number of
         * 64-byte buckets. The links (as much again, with key shards), the key shards of each promoting worker and
         * the combiner blocks come on top; {@link #memory(long)} bounds everything instead. Not with
         * {@code memory}.
         */
        public Builder memoryBytes(long memoryBytes) {
            indexBitsFor(memoryBytes);
            this.memoryBytes = memoryBytes;
            this.tableSizeGiven = true;
            return this;
        }

        /**
         * The total native memory of the instance, in bytes: table, links, control, key shards of every worker,
         * combiner blocks, salt and stats together stay within it however many threads observe. The builder
         * splits it (docs/design.md, "One memory budget"): fixed parts first (salt, stats if recorded), combiner
         * blocks up to an eighth, then the largest power-of-two table that fits beside key shards of at least
         * {@code max(16, 2k)} entries each (1 to 8 per table, shared by the workers in turn), and the rest to the
         * shards' capacity. {@link Hotkeeper#info()} reports each part. {@code build()} refuses a budget that cannot
         * hold k keys, naming the minimum. Not with {@link #memoryBytes} or {@link #shardCapacity}.
         */
        public Builder memory(long totalBytes) {
            if (totalBytes < 1) {
                throw new IllegalArgumentException("memory=" + totalBytes + ": must be positive");
            }
            this.totalMemory = totalBytes;
            return this;
        }

        /**
         * Threads expected to observe at once (1..4096; default: the available processors): under
         * {@link #memory(long)}, how many key shards and combiner blocks the budget is split for. More threads
         * still work; they share the shards and observe without combining.
         */
        public Builder expectedThreads(int threads) {
            if (threads < 1 || threads > 4096) {
                throw new IllegalArgumentException("expectedThreads=" + threads + ": must be >= 1 and <= 4096");
            }
            this.expectedThreads = threads;
            return this;
        }

        /** A fixed hash seed (reproducible runs, tests, merging); without it each instance seeds itself. */
        public Builder seed(long seed) {
            this.seeded = true;
            this.seed = seed;
            return this;
        }

        /**
         * The eviction salt: {@link SaltMode#SHARED} by default, {@link SaltMode#PER_WORKER} by default with
         * {@link #workerTables}.
         */
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
         * available processors rounded up to a power of two, capped at 32. Only with {@link SaltMode#SHARDED}
         * ({@code build()} refuses it in the other modes).
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
         * The lottery's decay base b in [1.01, 1024]: an occupant with count c loses a draw with probability
         * b^-c. 2 (default) is the reference design; 1.08 is the HeavyKeeper paper's. Bases other than 2 use a
         * table of about {@code 44.4 / ln b} thresholds (at most 4,459 entries, 35 KiB of heap, at 1.01); closer
         * to 1 that table grows without bound ({@link DecayLottery#MIN_BASE}).
         *
         * @throws IllegalArgumentException if {@code decayBase} is outside [1.01, 1024] or NaN; the same check as
         *         {@link DecayLottery#checkBase(double)}
         */
        public Builder decayBase(double decayBase) {
            this.decayBase = DecayLottery.checkBase(decayBase);
            return this;
        }

        /**
         * Windowed mode: estimates, {@code topK}, {@code contains} and {@code totalWeight} cover the last
         * {@code span} of the clock, through {@code slices} tables (2..64, each with the full {@code memoryBytes}, or an
         * equal share of {@link #memory(long)})
         * that take turns: time is cut into slices of {@code span / slices}, observations go to the current
         * slice's table, queries sum all of them, and when the clock passes into a new slice its table (the oldest
         * slice) is cleared first. So a query covers between {@code span - span / slices} and {@code span}.
         * Rotation is done by whichever caller first sees the clock past the slice, one at a time; other
         * observers and readers never wait for it (docs/design.md). Each observation reads the clock (see
         * {@link #clock}). Not with {@link #workerTables} or {@link #perNodeTables}.
         *
         * @throws IllegalArgumentException if {@code slices} is not in 2..64 or {@code span} is not at least
         *                                  {@code slices} nanoseconds
         */
        public Builder window(java.time.Duration span, int slices) {
            io.hotkeeper.engine.window.SlidingWindow.checkWindow(span, slices);
            this.windowSpan = span;
            this.windowSlices = slices;
            return this;
        }

        /**
         * The clock of {@link #window} in nanoseconds (default {@code System::nanoTime}); tests pass a
         * controllable one. It is called from any thread, on every observation and query of a windowed sketch.
         */
        public Builder clock(java.util.function.LongSupplier nanos) {
            this.clock = Objects.requireNonNull(nanos, "nanos");
            return this;
        }

        /** Allocates the sketch. Threads: one. Progress: blocking. */
        public Hotkeeper build() {
            checkOptions();
            return new Hotkeeper(this);
        }

        /**
         * Every check that spans options, in one place: options that exclude each other, and options that would
         * have no effect in the configuration given (nothing is silently ignored). Each message names the options.
         */
        private void checkOptions() {
            if (totalMemory > 0 && tableSizeGiven) {
                throw new IllegalArgumentException("memory=" + totalMemory + " and memoryBytes=" + memoryBytes
                        + " (or sizedFor): choose one (memory is the total budget, memoryBytes the table alone)");
            }
            if (expectedThreads > 0 && totalMemory == 0) {
                throw new IllegalArgumentException("expectedThreads=" + expectedThreads + " without memory(total): "
                        + "it only sizes the split of a total budget");
            }
            if (!keyShards && (shardCapacity > 0 || maxKeyBytesGiven || promotionFloorGiven || listener != null)) {
                throw new IllegalArgumentException("keyShards(false) with " + (shardCapacity > 0 ? "shardCapacity"
                        : maxKeyBytesGiven ? "maxKeyBytes" : promotionFloorGiven ? "promotionFloor"
                        : "expelledKeyListener") + ": that option needs key shards");
            }
            SaltMode effectiveSalt = saltMode != null ? saltMode
                    : workerTables > 1 ? SaltMode.PER_WORKER : SaltMode.SHARED;
            if (saltShards > 0 && effectiveSalt != SaltMode.SHARDED) {
                throw new IllegalArgumentException("saltShards=" + saltShards + " with saltMode " + effectiveSalt
                        + ": shard counts apply to SaltMode.SHARDED only");
            }
            boolean combines = combining == CombiningMode.ON
                    || combining == CombiningMode.AUTO && workerTables <= 1;
            if (combinerGiven && !combines) {
                throw new IllegalArgumentException("combiner(...) with combining " + combining
                        + (combining == CombiningMode.AUTO ? " and workerTables=" + workerTables
                        + " (AUTO stays off with worker tables; choose CombiningMode.ON)" : "")
                        + ": the combiners would never be used");
            }
            if (totalMemory > 0 && shardCapacity > 0) {
                throw new IllegalArgumentException("memory=" + totalMemory + " and shardCapacity=" + shardCapacity
                        + ": choose one (under a memory budget the builder sizes the shards)");
            }
            if (windowSlices > 0 && (workerTables > 1 || perNodeTables || forcedNodes != null)) {
                throw new IllegalArgumentException("window: not with workerTables or perNodeTables");
            }
            if (workerTables > 1 && (perNodeTables || forcedNodes != null)) {
                throw new IllegalArgumentException("workerTables=" + workerTables
                        + ": must be 1 with perNodeTables (choose one way to split the table)");
            }
        }
    }
}
