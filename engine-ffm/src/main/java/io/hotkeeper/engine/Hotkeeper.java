package io.hotkeeper.engine;

import io.hotkeeper.engine.combine.CombinerLayout;
import io.hotkeeper.engine.combine.HotKeyCombiners;
import io.hotkeeper.engine.hash.KeyHasher;
import io.hotkeeper.engine.lottery.DecayLottery;
import io.hotkeeper.engine.Placement;
import io.hotkeeper.engine.PlacementReport;
import io.hotkeeper.engine.placement.RegionAllocator;
import io.hotkeeper.engine.salt.EvictionSalt;
import io.hotkeeper.engine.salt.SaltLayout;
import io.hotkeeper.engine.SaltMode;
import io.hotkeeper.engine.shard.ExpelledKeys;
import io.hotkeeper.engine.shard.KeyShard;
import io.hotkeeper.engine.shard.KeyShards;
import io.hotkeeper.engine.shard.PendingCounts;
import io.hotkeeper.engine.shard.ShardLayout;
import io.hotkeeper.engine.snapshot.HotkeeperSnapshot;
import io.hotkeeper.engine.snapshot.KeyBounds;
import io.hotkeeper.engine.snapshot.MergeReport;
import io.hotkeeper.engine.snapshot.SnapshotKey;
import io.hotkeeper.engine.stats.StatsLayout;
import io.hotkeeper.engine.stats.StatsStripes;
import io.hotkeeper.engine.stats.Weights;
import io.hotkeeper.engine.table.BucketTable;
import io.hotkeeper.engine.table.TableGeometry;
import io.hotkeeper.engine.table.TableLayout;
import io.hotkeeper.engine.core.Internals;
import io.hotkeeper.engine.core.Routing;
import io.hotkeeper.engine.core.SnapshotReplay;
import io.hotkeeper.engine.core.SnapshotTables;
import io.hotkeeper.engine.core.TableSet;
import io.hotkeeper.engine.worker.WorkerHandle;
import io.hotkeeper.engine.worker.WorkerSpace;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

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
 * One {@link Sizing} choice ({@link HotkeeperBuilder#sizing}): {@code Sizing.total(bytes)} fits everything below
 * within the budget; {@code Sizing.table(bytes)} (the default, 64 KiB) sizes the table alone and the rest comes on
 * top. Per table: the bucket table, whole 64-byte buckets of 8 slots (any count, 4 KiB .. 64 MiB), its links (8
 * bytes per slot: as large as the table, present with key shards) and 128 bytes of control; with key shards (the
 * default), a shard per worker whose entries follow their keys' length; with hot-key combining engaged, a 4 KiB
 * combiner block per worker; the salt takes 128 bytes per counter (one per table with worker tables, the
 * expected writers rounded up to a power of two with the per-worker salt, one when shared) and the stats 128 bytes
 * per worker stripe (only with {@link HotkeeperBuilder#recordStats()} or approximate counting, whose coin state
 * shares the stripe).
 * All of it is off-heap in one {@link Arena} owned by the instance;
 * {@link #info()} reports each part ({@code nativeBytes()}, {@code nativeBytesByPart()}).
 *
 * <h2>Updating</h2>
 * The {@code observe} overloads are those of {@link KeyObserver}, which the thread-bound {@link #writer()}
 * implements too: every kind of key ({@code long}, {@code byte[]}, {@code CharSequence}, {@code MemorySegment},
 * whole or a range), each with or without a weight, and batches of {@code long} keys; {@code estimate},
 * {@code contains} and {@code bounds} take the same kinds of key.
 * {@link #observe(long)} hashes the key with a 64-bit keyed hash (self-seeded from {@code SecureRandom} unless
 * {@link HotkeeperBuilder#seed(long)} is given) to a bucket, a fingerprint and 32 spare bits, then: phase 1 increments
 * the key's slot if its fingerprint is present; phase 2 claims an empty slot; phase 3 (bucket full) draws a
 * lottery against the weakest occupant, which loses one count with probability {@code b^-count}
 * (b = 1.02 by default, {@link HotkeeperBuilder#decayBase}), and at zero the challenger takes its slot. Each draw folds a never-repeating salt value.
 * With hot-key combining ({@link HotkeeperBuilder#combining(CombiningMode)}; by default it engages once a second thread
 * observes hot keys), a worker's repeat observations of its hottest keys are counted in its own block of native
 * memory and reach the table in batches; {@link #estimate} and {@link #topK} include them. With
 * {@link Partitioning#perWorker(int)} each worker observes into a table of its own instead, and queries merge
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
 * stats in StatsStripes; each owns one region of the arena. The workers, their stripe geometry and the lookup of
 * the calling thread's worker, are one WorkerSpace, which every per-worker part is built with.
 *
 * <p>Size: the facade carries the contract javadoc (threads, progress, close rule) of its sixty-odd public methods
 * (the observe overloads' in KeyObserver) and the wiring of the parts in its constructor; the logic lives in
 * TableSet, BucketTable, KeyShards, HotKeyCombiners and the snapshot package.
 */
public final class Hotkeeper implements KeyObserver, AutoCloseable {
    /** Default table size. */
    public static final long DEFAULT_MEMORY_BYTES = 64 * 1024;
    /** Default k. */
    public static final int DEFAULT_K = 100;
    /** Default longest key stored whole. */
    public static final int DEFAULT_MAX_KEY_BYTES = 64;
    /** Default promotion floor. */
    public static final long DEFAULT_PROMOTION_FLOOR = 1;
    /** Default candidate buckets per key ({@link HotkeeperBuilder#candidateBuckets}). */
    public static final int DEFAULT_CANDIDATE_BUCKETS = 2;
    /** Default entries of each worker's hot-key combiner. */
    public static final int DEFAULT_COMBINER_ENTRIES = 256;
    /** Default flush threshold of the hot-key combiners. */
    public static final int DEFAULT_FLUSH_THRESHOLD = 64;
    /** How many keys ahead {@link #observeAll(long[], int, int)} loads bucket lines. */
    public static final int BATCH_LOOKAHEAD = 8;
    /** An arbitrary value for the touch loads' sum to be compared with (see observeAll). */
    private static final long TOUCH_SENTINEL = 0x7E57_AB1E_5EED_C0DEL;
    /** The most tables {@link Partitioning#perWorker} takes. */
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
        // The project's diagnostics and tests reach the tables through core.Internals (not exported).
        Internals.install(h -> {
            h.ensureOpen();
            return h.tables;
        });
    }

    private final Arena arena;
    private final KeyHasher hasher;
    /** Node 0's table (the only one unless per-node tables are on): the common case reads this field. */
    private final BucketTable table;
    /** Every table, with the routing of a caller to its own (one, per node, per worker, per time slice). */
    private final TableSet tables;
    /** Whether there is more than one table (per-node or worker tables): estimates sum, topK merges. */
    private final boolean multiTable;
    /** Salt counters in all (1 shared; the shards; the per-worker counters; one per table). */
    private final int saltCounters;
    /** The workers: stripe geometry and the calling thread's worker ({@link WorkerSpace#current()}). */
    private final WorkerSpace workers;
    /** Counters and coins; {@link StatsStripes#off()} with stats off and exact counting. */
    private final StatsStripes stats;
    /** Per-worker hot-key combiners; null when combining is off. */
    private final HotKeyCombiners combiners;
    private final SaltMode saltMode;
    private final DecayLottery lottery;
    private final KeyShards shards;
    private final int k;
    /** The partitioning the builder was given (info). */
    private final Partitioning partitioning;
    private final RegionAllocator regions;
    /**
     * Whether an observation needs the caller's worker: stats on, or worker tables. Otherwise observations skip
     * the lookup; promotion, engaged combining, a per-worker salt's draw and an approximate count's coin look the
     * worker up themselves.
     */
    private final boolean lookupOnObserve;
    /** The split of a total budget ({@link HotkeeperBuilder#memory(long)}); null when the table size was given instead. */
    private final MemoryPlan plan;
    /** The expelled-key listener's per-thread delivery queues, shared by every table; null without a listener. */
    private final ExpelledKeys expelledKeys;
    @SuppressWarnings("unused") // accessed through CLOSED
    private volatile boolean closed;
    /** The JFR periodic hook of a named sketch (HotkeeperBuilder.name); null without a name. */
    private final Runnable flightRecorderHook;

    /**
     * Builds the instance {@code b} describes, as {@code r} resolved it ({@link ResolvedOptions#of}, which checked
     * the options): {@code r.tables()} tables routed by {@code r.routing()}.
     */
    Hotkeeper(HotkeeperBuilder b, ResolvedOptions r) {
        this.hasher = b.seeded ? KeyHasher.seeded(b.seed) : KeyHasher.selfSeeded();
        this.seeded = b.seeded;
        long drawKey = b.seeded ? KeyHasher.splitMix(b.seed ^ 0x5a17L) : new java.security.SecureRandom().nextLong();
        this.lottery = new DecayLottery(b.decayBase, drawKey);
        this.expelledKeys = b.listener == null ? null : new ExpelledKeys(b.listener);
        this.arena = Arena.ofShared();
        this.regions = new RegionAllocator();
        Placement placement = b.placement;
        // One table per time slice (placed as configured), per node, per worker, or one.
        Routing routing = r.routing();
        try {
            this.workers = r.workers();
            int count = r.tables();
            int workerCounters = r.workerSaltCounters(); // 1 unless the salt is per worker
            long saltBytes = SaltLayout.segmentBytes(r.saltCounters());
            // The stats region holds the counters and approximate counting's coins; without either, nothing is
            // allocated for it.
            long statsBytes = r.statsRegion() ? StatsStripes.segmentBytes(workers) : 0;
            boolean combine = r.combines();
            // A total budget (memory(total)) bounds every part up front; otherwise the table size is given and the
            // per-worker parts (shards, combiner blocks) follow the workers.
            // Under a budget the per-worker salt's counters past the first come from the room above its minimum.
            this.plan = b.totalMemory == 0 ? null : MemoryPlan.of(b.totalMemory, b.k, b.maxKeyBytes, b.keepKeys,
                    count, (r.salt() == SaltMode.PER_WORKER ? SaltLayout.segmentBytes(1) : saltBytes) + statsBytes,
                    workerCounters, combine ? CombinerLayout.blockBytes(b.combinerEntries) : 0, r.expectedWorkers(),
                    r.tableWriters(), b.expectedKeyLengths);
            if (plan != null && r.salt() == SaltMode.PER_WORKER) {
                workerCounters = plan.saltCounters();
                saltBytes = SaltLayout.segmentBytes(workerCounters);
            }
            this.saltMode = r.saltGranted(workerCounters);
            // One or two candidate buckets per key (docs/design.md, "Two candidate buckets").
            TableGeometry geometry = TableGeometry.of(bucketsFor(plan != null ? plan.tableBytes() : b.memoryBytes),
                    b.candidateBuckets);
            MemorySegment saltRegion = regions.allocate(arena, "salt", saltBytes, SaltLayout.ALIGNMENT, placement);
            EvictionSalt[] salts = new EvictionSalt[count];
            for (int i = 0; i < count; i++) {
                // PER_TABLE: table i draws from its own counter (its own 128-byte line); the others share one salt.
                salts[i] = switch (saltMode) {
                    case PER_TABLE -> EvictionSalt.perTable(saltRegion.asSlice(SaltLayout.counterOffset(i),
                            SaltLayout.REGION_BYTES), i, count);
                    case PER_WORKER -> i == 0 ? EvictionSalt.perWorker(saltRegion, workerCounters) : salts[0];
                    default -> i == 0 ? new EvictionSalt(saltRegion, r.saltShards()) : salts[0];
                };
            }
            this.saltCounters = saltMode == SaltMode.PER_TABLE ? count : salts[0].shards();
            this.stats = r.statsRegion()
                    ? new StatsStripes(regions.allocate(arena, "stats", statsBytes, StatsLayout.ALIGNMENT, placement),
                            workers, b.recordStats)
                    : StatsStripes.off();
            // A worker's combiner block is created by its own first admission, so it lands on its node like a shard.
            // Under a budget, only the first plan.combinerBlocks() workers get one; the others do not combine.
            int combinerWorkers = plan == null ? workers.exclusiveStripes() : plan.combinerBlocks();
            this.combiners = !combine || combinerWorkers == 0 ? null : new HotKeyCombiners(workers, stats,
                    combinerWorkers, b.combinerEntries, b.flushThreshold, 2L * b.flushThreshold,
                    bytes -> placement.equals(Placement.DEFAULT)
                            ? regions.allocate(arena, "combiner", bytes, CombinerLayout.ALIGNMENT, placement)
                            : regions.allocateOnCurrentNode(arena, "combiner", bytes, CombinerLayout.ALIGNMENT),
                    b.combining == CombiningMode.AUTO);
            long tableBytes = geometry.tableBytes();
            BucketTable[] built = new BucketTable[count];
            KeyShards[] shardSets = b.keepKeys ? new KeyShards[count] : null;
            for (int i = 0; i < count; i++) {
                // Worker tables: table i is written by the workers given it (TableSet, WorkerAssignment). Per-node
                // tables: table i lives on node i and is written only by threads running there. A window's slices
                // and one table take the placement configured.
                Placement where = routing instanceof Routing.PerNode n ? Placement.node(n.topology().nodes()[i])
                        : placement;
                String suffix = switch (routing) {
                    case Routing.PerWorker w -> "[worker " + i + "]";
                    case Routing.PerNode n -> "[" + i + ", node " + n.topology().nodes()[i] + "]";
                    case Routing.Window w -> "[slice " + i + "]";
                    case Routing.Single s -> "";
                };
                built[i] = buildTable(b, geometry, tableBytes, where, suffix, shardSets, i, count, salts[i]);
            }
            // Windowed: the "node" of an observation is its time slice (see SlidingWindow).
            this.tables = new TableSet(built, shardSets, routing, workers,
                    combiners == null ? null : combiners::tableCleared);
            this.table = built[0];
            this.shards = shardSets == null ? null : shardSets[0];
            this.multiTable = count > 1;
            this.k = b.k;
            this.partitioning = b.partitioning;
            this.lookupOnObserve = r.lookupOnObserve();
        } catch (RuntimeException | Error e) {
            arena.close();
            regions.arenaClosed();
            throw e;
        }
        // Last, once every field is set: JFR's periodic thread may read the sketch from now on (the hook is handed
        // over under JFR's task-list lock, which orders these writes before its reads). Unnamed: no JFR at all.
        Runnable hook = null;
        if (b.name != null) {
            try {
                hook = io.hotkeeper.engine.jfr.HotKeyEvents.register(b.name, this,
                        b.recordStats && !(routing instanceof Routing.Window));
            } catch (RuntimeException | Error e) { // e.g. a runtime image without jdk.jfr: free what was built
                arena.close();
                regions.arenaClosed();
                throw e;
            }
        }
        this.flightRecorderHook = hook;
    }

    /** One table (and its key shards) in the given placement; region names end with {@code suffix}. */
    private BucketTable buildTable(HotkeeperBuilder b, TableGeometry geometry, long tableBytes, Placement placement,
                                   String suffix, KeyShards[] shardSets, int index, int count,
                                   EvictionSalt salt) {
        MemorySegment tableSegment = regions.allocate(arena, "table" + suffix, tableBytes,
                TableLayout.TABLE_ALIGNMENT, placement);
        MemorySegment control = regions.allocate(arena, "control" + suffix, BucketTable.CONTROL_BYTES, 128,
                placement);
        if (!b.keepKeys) {
            return new BucketTable(tableSegment, geometry, lottery, salt, stats, Long.MAX_VALUE, t -> null,
                    b.approximateBits, control);
        }
        MemorySegment links = regions.allocate(arena, "links" + suffix, tableBytes, TableLayout.TABLE_ALIGNMENT,
                placement);
        int slots = (int) (tableBytes / TableLayout.SLOT_BYTES);
        int capacity = plan != null ? plan.shardCapacity()
                : b.shardCapacity > 0 ? b.shardCapacity : Math.min(slots, Math.max(1024, 8 * b.k));
        int shardLimit = plan != null ? plan.shards() : 0;
        long shardBytes = plan != null ? plan.shardBytes() : ShardLayout.shardBytes(capacity, b.maxKeyBytes);
        return new BucketTable(tableSegment, geometry, lottery, salt, stats, b.minCount,
                t -> shardSets[index] = new KeyShards(t, links, workers, stats, capacity, shardBytes, shardLimit,
                        plan != null ? plan.inboxBytes() : 0, b.maxKeyBytes,
                        expelledKeys,
                        // A shard is created (and zeroed) by its owner's first promotion, so under first-touch its
                        // pages already land on the owner's node; other policies place it there explicitly.
                        bytes -> placement.equals(Placement.DEFAULT)
                                ? regions.allocate(arena, "shard" + suffix, bytes, ShardLayout.ALIGNMENT, placement)
                                : regions.allocateOnCurrentNode(arena, "shard" + suffix, bytes,
                                        ShardLayout.ALIGNMENT),
                        // One table: topK adds the combiners' pending counts. Several tables: the merge adds
                        // them once, through estimate.
                        combiners == null || count > 1 ? PendingCounts.NONE : combiners),
                b.approximateBits, control);
    }

    /** Buckets of a table of at most {@code memoryBytes}: {@code memoryBytes / 64} (any count, 64 .. 2^20). */
    static long bucketsFor(long memoryBytes) {
        if (memoryBytes < TableLayout.MIN_TABLE_BYTES || memoryBytes > TableLayout.MAX_TABLE_BYTES) {
            throw new IllegalArgumentException("memoryBytes=" + memoryBytes + ": must be >= "
                    + TableLayout.MIN_TABLE_BYTES + " and <= " + TableLayout.MAX_TABLE_BYTES);
        }
        return TableGeometry.bucketsFor(memoryBytes);
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
     * A builder with the defaults: a 64 KiB table, k = 100, keys kept, self-seeded, a per-worker salt (shared with
     * one expected writer), decay base 1.02
     * (the README's options table lists every default). Threads: any. Progress: wait-free.
     */
    public static HotkeeperBuilder builder() {
        return new HotkeeperBuilder();
    }

    // ---------------------------------------------------------------- observe
    // The KeyObserver overloads, in its order; their contract is the interface's javadoc (Threads: any).

    /**
     * {@inheritDoc}
     *
     * @throws IllegalStateException {@inheritDoc}
     */
    @Override
    public long observe(long key) {
        return observeLong(key, 1, observeWorker());
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException {@inheritDoc}
     * @throws IllegalStateException    {@inheritDoc}
     */
    @Override
    public long observe(long key, long weight) {
        return observeLong(key, checkWeight(weight), observeWorker());
    }

    /**
     * {@inheritDoc}
     *
     * @throws NullPointerException  {@inheritDoc}
     * @throws IllegalStateException {@inheritDoc}
     */
    @Override
    public long observe(byte[] key) {
        return observeArray(key, 0, Objects.requireNonNull(key, "key").length, 1, observeWorker());
    }

    /**
     * {@inheritDoc}
     *
     * @throws NullPointerException     {@inheritDoc}
     * @throws IllegalArgumentException {@inheritDoc}
     * @throws IllegalStateException    {@inheritDoc}
     */
    @Override
    public long observe(byte[] key, long weight) {
        return observeArray(key, 0, Objects.requireNonNull(key, "key").length, checkWeight(weight), observeWorker());
    }

    /**
     * {@inheritDoc}
     *
     * @throws NullPointerException      {@inheritDoc}
     * @throws IndexOutOfBoundsException {@inheritDoc}
     * @throws IllegalStateException     {@inheritDoc}
     */
    @Override
    public long observe(byte[] key, int offset, int length) {
        return observeArray(key, offset, length, 1, observeWorker());
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException  {@inheritDoc}
     * @throws NullPointerException      {@inheritDoc}
     * @throws IndexOutOfBoundsException {@inheritDoc}
     * @throws IllegalStateException     {@inheritDoc}
     */
    @Override
    public long observe(byte[] key, int offset, int length, long weight) {
        return observeArray(key, offset, length, checkWeight(weight), observeWorker());
    }

    /**
     * {@inheritDoc}
     *
     * @throws NullPointerException  {@inheritDoc}
     * @throws IllegalStateException {@inheritDoc}
     */
    @Override
    public long observe(CharSequence key) {
        return observeChars(key, 1, observeWorker());
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException {@inheritDoc}
     * @throws NullPointerException     {@inheritDoc}
     * @throws IllegalStateException    {@inheritDoc}
     */
    @Override
    public long observe(CharSequence key, long weight) {
        return observeChars(key, checkWeight(weight), observeWorker());
    }

    /**
     * {@inheritDoc}
     *
     * @throws NullPointerException  {@inheritDoc}
     * @throws IllegalStateException {@inheritDoc}
     */
    @Override
    public long observe(MemorySegment key) {
        return observeSegment(key, 0, Objects.requireNonNull(key, "key").byteSize(), 1, observeWorker());
    }

    /**
     * {@inheritDoc}
     *
     * @throws NullPointerException     {@inheritDoc}
     * @throws IllegalArgumentException {@inheritDoc}
     * @throws IllegalStateException    {@inheritDoc}
     */
    @Override
    public long observe(MemorySegment key, long weight) {
        return observeSegment(key, 0, Objects.requireNonNull(key, "key").byteSize(), checkWeight(weight),
                observeWorker());
    }

    /**
     * {@inheritDoc}
     *
     * @throws NullPointerException      {@inheritDoc}
     * @throws IndexOutOfBoundsException {@inheritDoc}
     * @throws IllegalStateException     {@inheritDoc}
     */
    @Override
    public long observe(MemorySegment key, long offset, long length) {
        return observeSegment(key, offset, length, 1, observeWorker());
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException  {@inheritDoc}
     * @throws NullPointerException      {@inheritDoc}
     * @throws IndexOutOfBoundsException {@inheritDoc}
     * @throws IllegalStateException     {@inheritDoc}
     */
    @Override
    public long observe(MemorySegment key, long offset, long length, long weight) {
        return observeSegment(key, offset, length, checkWeight(weight), observeWorker());
    }

    /**
     * {@inheritDoc}
     *
     * @throws NullPointerException  {@inheritDoc}
     * @throws IllegalStateException {@inheritDoc}
     */
    @Override
    public void observeAll(long[] keys) {
        observeAll(keys, 0, Objects.requireNonNull(keys, "keys").length, observeWorker());
    }

    /**
     * {@inheritDoc}
     *
     * @throws NullPointerException      {@inheritDoc}
     * @throws IndexOutOfBoundsException {@inheritDoc}
     * @throws IllegalStateException     {@inheritDoc}
     */
    @Override
    public void observeAll(long[] keys, int from, int to) {
        observeAll(keys, from, to, observeWorker());
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
        return new HotkeeperWriter(this, worker());
    }

    // The per-key bodies, shared by the methods above and by HotkeeperWriter (which passes its own worker). A
    // weight of 1 may go through the caller's hot-key combiner; larger weights always go to the table.

    long observeLong(long key, long weight, long worker) {
        long hash = hasher.hash(key);
        long result = record(hash, weight, worker);
        return result <= TableLayout.COUNT_MASK ? result : after(result, hash, key, null, 0, 0, null, worker);
    }

    long observeArray(byte[] key, int offset, int length, long weight, long worker) {
        long hash = hasher.hash(Objects.requireNonNull(key, "key"), offset, length);
        long result = record(hash, weight, worker);
        return result <= TableLayout.COUNT_MASK ? result : afterArray(result, hash, key, offset, length, worker);
    }

    long observeChars(CharSequence key, long weight, long worker) {
        long hash = hasher.hash(Objects.requireNonNull(key, "key"));
        long result = record(hash, weight, worker);
        return result <= TableLayout.COUNT_MASK ? result : after(result, hash, 0, null, 0, 0, key, worker);
    }

    long observeSegment(MemorySegment key, long offset, long length, long weight, long worker) {
        long hash = hasher.hash(Objects.requireNonNull(key, "key"), offset, length);
        long result = record(hash, weight, worker);
        return result <= TableLayout.COUNT_MASK ? result : after(result, hash, 0, key, offset, length, null, worker);
    }

    void observeAll(long[] keys, int from, int to, long worker) {
        Objects.checkFromToIndex(from, to, Objects.requireNonNull(keys, "keys").length);
        long touched = 0;
        try {
            // The table at the start of the batch (per-node tables: a thread that migrates mid-batch only touches
            // lines of its previous node's table; the observations themselves pick the table each time).
            BucketTable ahead = tableFor(worker);
            for (int i = from; i < Math.min(to, from + BATCH_LOOKAHEAD); i++) {
                touched += ahead.touch(hasher.hash(keys[i]));
            }
            for (int i = from; i < to; i++) {
                if (i + BATCH_LOOKAHEAD < to) {
                    // Hashing the key twice (here and below) is cheaper than keeping a ring of hashes.
                    touched += ahead.touch(hasher.hash(keys[i + BATCH_LOOKAHEAD]));
                }
                observeLong(keys[i], 1, worker);
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
     * The {@code k} heavy hitters (see {@link HotkeeperBuilder#k(int)}) with their keys, highest estimate first.
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
     * <p>Several tables (time slices, worker or per-node tables): a key ranks by its estimate summed over all
     * tables ({@link #estimate}), whatever its rank in each, and is listed if it holds a tracked slot in at least
     * one; {@link #contains} holds for exactly the keys {@code topK(k)} lists (ties rank by hash). Each row is
     * one key: two keys truncated to the same first {@code maxKeyBytes} bytes are two rows, each with its own
     * estimate.
     *
     * <p>Cost: one table, a walk over its key shards' live entries and one validated copy per reported key.
     * Several tables ({@code T} tables whose shards hold {@code E} live entries in all, {@code U <= E} distinct
     * keys): a walk over the {@code E} entries, a sort of their hashes, {@code U} summed estimates
     * ({@code U x T} slot probes) and a heap of {@code n + 16} candidates; 16 bytes of heap per entry.
     * bench/TopKBenchmark measures both.
     *
     * <p>Threads: any, while other threads observe; it never stops them. Progress: wait-free.
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
        return whileOpen(() -> {
            requireShards();
            tables.rotate();
            return tables.topK(n, this::sumOverTables);
        });
    }

    /**
     * Whether {@code key} is currently among the {@code k} heavy hitters (RedisBloom's {@code TOPK.QUERY}): one
     * of the keys {@link #topK()} lists, a truncated key included (the whole key is hashed): it runs the same
     * ranking (estimates with pending combined counts, ties by the hash of the whole key), at the cost of a
     * {@code topK()}, so the two agree even where keys tie at the {@code k}-th estimate. Threads: any. Progress:
     * wait-free (walks the tracked entries of every key shard).
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
     * Whether the key {@code key[offset, offset + length)} is among the {@code k} heavy hitters. Threads: any.
     * Progress: wait-free.
     *
     * @throws NullPointerException          if {@code key} is null
     * @throws IndexOutOfBoundsException     if the range is outside the array
     * @throws UnsupportedOperationException if key shards are disabled
     * @throws IllegalStateException         if closed
     */
    public boolean contains(byte[] key, int offset, int length) {
        return containsHash(hasher.hash(Objects.requireNonNull(key, "key"), offset, length));
    }

    /**
     * Whether the bytes of {@code key} are among the {@code k} heavy hitters. Threads: any. Progress: wait-free.
     *
     * @throws NullPointerException          if {@code key} is null
     * @throws UnsupportedOperationException if key shards are disabled
     * @throws IllegalStateException         if closed, or if {@code key}'s own arena is closed
     */
    public boolean contains(MemorySegment key) {
        return containsHash(hasher.hash(Objects.requireNonNull(key, "key")));
    }

    /**
     * Whether the key {@code key[offset, offset + length)} is among the {@code k} heavy hitters. Threads: any.
     * Progress: wait-free.
     *
     * @throws NullPointerException          if {@code key} is null
     * @throws IndexOutOfBoundsException     if the range is outside the segment
     * @throws UnsupportedOperationException if key shards are disabled
     * @throws IllegalStateException         if closed, or if {@code key}'s own arena is closed
     */
    public boolean contains(MemorySegment key, long offset, long length) {
        return containsHash(hasher.hash(Objects.requireNonNull(key, "key"), offset, length));
    }

    private boolean containsHash(long hash) {
        // Before any shard exists, contains reads no native memory: the arena cannot tell it is closed.
        return whileOpen(() -> {
            KeyShards s = requireShards();
            if (multiTable) {
                // Exactly the keys topK(k) lists (the same ranking by summed estimate, ties by hash).
                tables.rotate();
                return tables.ranks(hash, k, this::sumOverTables);
            }
            // Exactly the keys topK(k) lists: the same ranking (estimate with pending counts, ties by hash).
            return s.ranks(hash, k);
        });
    }

    private KeyShards requireShards() {
        if (shards == null) {
            throw new UnsupportedOperationException("key shards are disabled (HotkeeperBuilder.keepKeys(false))");
        }
        return shards;
    }

    /**
     * Reaps what other threads' evictions handed to the calling thread's key shard, and carries out the
     * promotions that other workers sharing that shard left in its inbox while it was busy (a memory budget with fewer
     * shards than writers). Owners do both at their own next promotion anyway; a thread that stops promoting (it
     * went idle, or its keys all settled, or its input ended) can call this so that neither waits. Under such a
     * budget a thread is given a shard at its first promotion into a table, so one that has promoted nothing there
     * has nothing to reap. Threads: acts on the caller's shard only. Progress: wait-free (skips a busy shard).
     */
    public void reap() {
        // Without key shards, or before the caller has a shard, reap touches no native memory.
        whileOpenRun(() -> {
            tables.drainCurrent();
        });
    }

    /**
     * Hands the calling thread's pending hot-key counts (see {@link HotkeeperBuilder#combining(CombiningMode)}) to the table and
     * returns how many observations that was. Estimates and {@code topK} include pending counts anyway; the table
     * itself (and so the eviction lottery and {@code contains}) sees them only when they are flushed, which a
     * busy thread does every {@code flushThreshold} observations of a key. A thread that goes idle can call this
     * from its own loop. Threads: acts on the caller's combiner only. Progress: lock-free.
     *
     * @throws IllegalStateException if closed
     */
    public long flush() {
        // Without combiners, or before the caller has a combiner block, flush touches no native memory.
        return whileOpenLong(() -> {
            if (combiners == null) {
                return 0;
            }
            long worker = worker();
            long flushed = combiners.flushCurrent(worker, tableFor(worker));
            if (shards != null) {
                shardsHere(worker).deliverExpelled();
            }
            return flushed;
        });
    }

    /** The sketch's shape. Threads: any. Progress: wait-free. */
    public HotkeeperInfo info() {
        // Without key shards or combiners, info reads Java fields only.
        return whileOpen(() -> {
            int shardCount = tables.shardCount();
            long shardBytes = tables.shardBytes();
            return new HotkeeperInfo(k, tableBytes(), table.bucketCount(), lottery.base(), saltMode,
                    saltCounters, shards != null, shardCount, shards == null ? 0 : shards.capacity(),
                    shards == null ? 0 : shards.maxKeyBytes(), shards == null ? 0 : table.promotionFloor(),
                    shardBytes, tables.count(), combiners == null ? CombiningMode.OFF
                            : combiners.auto() ? CombiningMode.AUTO : CombiningMode.ON,
                    combiners != null && combiners.engaged(), combiners == null ? 0 : combiners.entries(),
                    combiners == null ? 0 : (int) combiners.flushThreshold(),
                    combiners == null ? 0 : combiners.activeBlocks(), regions.bytesByPart(),
                    plan == null ? 0 : plan.budget(), plan == null || shards == null ? 0 : plan.shards(),
                    table.geometry().candidates(), partitioning);
        });
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

    // ---------------------------------------------------------------- introspection

    /** Operation counts summed over all workers. Threads: any. Progress: wait-free. */
    public HotkeeperStats stats() {
        // Stats off: no counters to read, so nothing native to fail on after close (whileOpen checks first).
        return whileOpen(() -> {
            return new HotkeeperStats(stats.sum(StatsLayout.REFRESHES), stats.sum(StatsLayout.CLAIMS),
                    stats.sum(StatsLayout.EVICTION_ATTEMPTS), stats.sum(StatsLayout.EVICTION_WINS),
                    stats.sum(StatsLayout.REPLACEMENTS), stats.sum(StatsLayout.SATURATIONS),
                    stats.sum(StatsLayout.PROMOTIONS), stats.sum(StatsLayout.PROMOTIONS_MISSED),
                    stats.sum(StatsLayout.HAND_OFFS), stats.sum(StatsLayout.COMBINED));
        });
    }

    /**
     * Whether the operation counters are recorded ({@link HotkeeperBuilder#recordStats()}): {@link #stats()} counts
     * and, unless the sketch is windowed, {@link #totalWeight()} is exact. Threads: any. Progress: wait-free.
     *
     * @throws IllegalStateException if closed
     */
    public boolean recordsStats() {
        ensureOpen();
        return stats.recording();
    }

    /** Bytes of the bucket table (of all of them, with per-node tables). Threads: any. Progress: wait-free. */
    public long tableBytes() {
        ensureOpen();
        return tables.tableBytes();
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

    /**
     * Number of salt counters: 1 when shared, the shards when sharded, the per-worker counters, or one per table.
     * Threads: any. Progress: wait-free.
     */
    public int saltShards() {
        ensureOpen();
        return saltCounters;
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
            if (flightRecorderHook != null) {
                io.hotkeeper.engine.jfr.HotKeyEvents.unregister(flightRecorderHook);
            }
            arena.close();
            regions.arenaClosed();
        }
    }

    // ---------------------------------------------------------------- snapshots, merging, totals, bounds

    /**
     * The stream length that merged snapshots brought in beyond what their replay counted, rebased by reset and
     * decay (only with stats recorded, see {@link #countedWeight}): may be negative after a reset, by the stripes'
     * sum at that moment. Written by merges, resets and decays only, never on the observe path: volatile.
     */
    private final java.util.concurrent.atomic.AtomicLong mergedWeight = new java.util.concurrent.atomic.AtomicLong();
    /** Whether the hash function came from {@link HotkeeperBuilder#seed} (recorded in snapshots). */
    private final boolean seeded;

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
        return whileOpen(() -> {
            tables.rotate();
            TableGeometry geometry = table.geometry();
            List<long[]> copies = tables.copyTables();
            List<SnapshotKey> keys = new java.util.ArrayList<>();
            if (shards != null) {
                for (HeavyHitter h : topK(tables.trackedLimit())) {
                    keys.add(new SnapshotKey(h.key(), h.estimate(), h.truncated(), h.kind(),
                            h.truncated() ? SnapshotKey.NO_LOCATION : geometry.location(hasher.hash(h.key()))));
                }
            }
            return SnapshotTables.access().of(geometry.bucketCount(), geometry.candidates(), k,
                    shards == null ? DEFAULT_MAX_KEY_BYTES : shards.maxKeyBytes(), lottery.base(), seedFingerprint(), seeded, totalWeight(), copies, keys);
        });
    }

    /**
     * Merges a snapshot into this sketch, as if its counts had been observed here (weighted observations through
     * the ordinary lock-free paths, so other threads may observe and read meanwhile).
     *
     * <p>By table when the snapshot has a table of this size, this sketch has one table, and the hash functions
     * are equal ({@link #seedFingerprint()}: instances built with the same {@link HotkeeperBuilder#seed}): every slot's
     * count is replayed as an observation of the key that claimed the slot (its first bucket, which the slot word
     * records, and its fingerprint), through its key when the snapshot tracks it (so the key is promoted here),
     * untracked otherwise; so it lands where that key's next observation looks, and two keys of one fingerprint
     * stay two. By keys otherwise: every tracked, untruncated key is
     * observed with its estimate. Loss: by keys, the snapshot's untracked counts and truncated keys; both ways,
     * whatever the lottery of a full bucket here does to a replayed count (as it would to the same observations
     * arriving live). With {@link HotkeeperBuilder#recordStats()} the total weight grows by the snapshot's
     * (saturating at {@code Long.MAX_VALUE}); without, it is derived from the slots ({@link #totalWeight()}), so it
     * grows by what the replay left in them (a replayed unit still pending in the caller's hot-key combiner counts
     * once it is flushed).
     *
     * <p>Threads: any. Progress: lock-free.
     *
     * @throws IllegalStateException if closed
     */
    public MergeReport merge(HotkeeperSnapshot snapshot) {
        Objects.requireNonNull(snapshot, "snapshot");
        return whileOpen(() -> {
            long worker = observeWorker();
            TableGeometry geometry = table.geometry();
            boolean byTable = snapshot.hasTable() && !multiTable && snapshot.bucketCount() == geometry.bucketCount()
                    && snapshot.candidates() == geometry.candidates() && snapshot.seedFingerprint() == seedFingerprint();
            long merged = 0;
            long dropped = 0;
            if (byTable) {
                merged = SnapshotReplay.byTable(snapshot, geometry,
                        first -> table.laSlot(first, TableLayout.SLOTS_PER_BUCKET - 1) != 0,
                        (location, key, count) -> replay(location, key, count, worker));
            } else {
                for (SnapshotKey key : snapshot.keys()) {
                    if (key.truncated() || key.estimate() == 0) {
                        dropped += key.estimate();
                        continue;
                    }
                    observeArray(key.key(), 0, key.key().length, key.estimate(), worker);
                    merged += key.estimate();
                }
                dropped += Math.max(0, snapshot.tableWeight() - merged - dropped);
            }
            if (stats.recording()) {
                // The replay counted `merged` in the stripes; the snapshot's stream was totalWeight long.
                mergedWeight.accumulateAndGet(snapshot.totalWeight() - merged, Weights::saturatedAdd);
            }
            return new MergeReport(byTable, merged, dropped);
        });
    }

    /**
     * Replays {@code count} units of a snapshot's slot word whose key has {@code location} (first bucket and
     * fingerprint): through {@code key} when the snapshot tracks it, else as an untracked observation of a hash
     * with that location (spare bits, the lottery's, from the location). Merges only.
     */
    private void replay(long location, SnapshotKey key, long count, long worker) {
        if (key != null) {
            observeArray(key.key(), 0, key.key().length, count, worker);
            return;
        }
        long hash = (KeyHasher.splitMix(location) & ~0xFFFF_FFFFL) | location;
        stats.addWeight(worker, count);
        long result = table.observe(hash, count, worker);
        if ((result & BucketTable.EXPELLED) != 0) {
            shardsHere(worker).deliverExpelled();
        }
    }

    /**
     * The fingerprint of this sketch's hash function (equal for instances built with the same
     * {@link HotkeeperBuilder#seed}; it does not reveal the seed). Threads: any. Progress: wait-free.
     *
     * @throws IllegalStateException if closed
     */
    public long seedFingerprint() {
        ensureOpen();
        return HotkeeperSnapshot.fingerprintOf(hasher::hash);
    }

    /**
     * The stream length: the sum of the weights of all observations, plus the total weight of merged snapshots.
     * Exact with {@link HotkeeperBuilder#recordStats()}: each observation adds its weight to its worker's stats stripe (a
     * line only that worker writes, which the observation writes anyway for the other counters), and this sums
     * the stripes; no shared word is written on the observe path. Without stats it is derived: the sum of the
     * counts the tables hold, a lower bound (counts lost in the eviction lottery, and pending combined counts,
     * are not in it). A windowed sketch ({@link Partitioning#window}) always derives it: the weight its slices hold,
     * the window's. Every total saturates at {@link Long#MAX_VALUE} (a weight may be any positive {@code long}):
     * a longer stream reads as that, never as a wrapped value. Concurrent observations may or may not be
     * included. Threads: any. Progress: wait-free.
     *
     * @throws IllegalStateException if closed
     */
    public long totalWeight() {
        return whileOpenLong(() -> {
            if (tables.windowed()) {
                tables.rotate();
            } else if (stats.recording()) {
                return countedWeight();
            }
            return tables.slotWeight();
        });
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
        List<HeavyHitter> all = topK(tables.trackedLimit());
        int n = 0;
        while (n < all.size() && all.get(n).estimate() >= threshold) {
            n++;
        }
        return List.copyOf(all.subList(0, n));
    }

    /**
     * Bounds on the true count of the byte-string key that hold together with probability {@code confidence}
     * (docs/theory.md, "Per-key bounds"): the lower bound is the estimate, the upper the estimate plus
     * {@code totalWeight / (buckets * delta)}. Best with {@link HotkeeperBuilder#recordStats()} (an exact total).
     * Threads: any. Progress: wait-free.
     *
     * @throws IllegalArgumentException if {@code confidence} is not in (0, 1)
     * @throws IllegalStateException    if closed
     */
    public KeyBounds bounds(byte[] key, double confidence) {
        return boundsOf(estimate(key), confidence);
    }

    /** {@link #bounds(byte[], double)} of the UTF-8 bytes of {@code key}. Threads: any. Progress: wait-free. */
    public KeyBounds bounds(CharSequence key, double confidence) {
        return boundsOf(estimate(key), confidence);
    }

    /** {@link #bounds(byte[], double)} of a {@code long} key. Threads: any. Progress: wait-free. */
    public KeyBounds bounds(long key, double confidence) {
        return boundsOf(estimate(key), confidence);
    }

    /**
     * {@link #bounds(byte[], double)} of the key {@code key[offset, offset + length)}. Threads: any. Progress:
     * wait-free.
     *
     * @throws NullPointerException      if {@code key} is null
     * @throws IndexOutOfBoundsException if the range is outside the array
     * @throws IllegalArgumentException  if {@code confidence} is not in (0, 1)
     * @throws IllegalStateException     if closed
     */
    public KeyBounds bounds(byte[] key, int offset, int length, double confidence) {
        return boundsOf(estimate(key, offset, length), confidence);
    }

    /**
     * {@link #bounds(byte[], double)} of the bytes of {@code key}. Threads: any. Progress: wait-free.
     *
     * @throws NullPointerException     if {@code key} is null
     * @throws IllegalArgumentException if {@code confidence} is not in (0, 1)
     * @throws IllegalStateException    if closed, or if {@code key}'s own arena is closed
     */
    public KeyBounds bounds(MemorySegment key, double confidence) {
        return boundsOf(estimate(key), confidence);
    }

    /**
     * {@link #bounds(byte[], double)} of the key {@code key[offset, offset + length)}. Threads: any. Progress:
     * wait-free.
     *
     * @throws NullPointerException      if {@code key} is null
     * @throws IndexOutOfBoundsException if the range is outside the segment
     * @throws IllegalArgumentException  if {@code confidence} is not in (0, 1)
     * @throws IllegalStateException     if closed, or if {@code key}'s own arena is closed
     */
    public KeyBounds bounds(MemorySegment key, long offset, long length, double confidence) {
        return boundsOf(estimate(key, offset, length), confidence);
    }

    /** The bounds of a key whose estimate is {@code estimate}, at {@code confidence}, from this table's geometry. */
    private KeyBounds boundsOf(long estimate, double confidence) {
        TableGeometry g = table.geometry();
        return KeyBounds.of(estimate, totalWeight(), g.bucketCount(), g.candidates(), g.fingerprintBits(), confidence);
    }

    /**
     * Clears the sketch to empty while other threads keep observing and reading: no close, and no exception for
     * them. Every slot of every table is emptied from the last slot of its bucket to the first (a volatile CAS
     * to 0); a tracked slot is first untracked under its link lock (one volatile CAS that clears {@code T} and
     * takes {@code P}) and its key-shard entry handed to its owner, exactly as when a replacement expels a
     * tracked key (the expelled-key listener, if any, hears of it); a slot whose link lock another thread holds
     * (a promotion in flight) is waited for. The total weight restarts from 0. Once a table's slots are emptied,
     * its promotion floor is restored to the configured one ({@link HotkeeperBuilder#minCount}), so after
     * reset the sketch tracks keys exactly as a fresh one. A shard owner that turned a candidate away from counts
     * read before reset, and raises the floor after reset restored it, gives the raise back before its call
     * returns; a raise from counts read after reset stands.
     *
     * <p>What an observation racing with reset counts toward: an observation that completes before reset begins
     * is cleared; one that begins after reset returns is counted exactly as in a fresh sketch; one that overlaps
     * it is counted in the new state or cleared, per slot. Not cleared: the hot-key combiners' pending counts
     * (owner-only state; at most {@code flushThreshold - 1} per combining worker and key), which reach the new
     * state: after each table's clear every combining worker's block is withdrawn from its hit path, and the
     * worker's next observation hands its pending counts to the table and empties its block before it observes
     * through the table. So no key stays combined without a table slot: from that observation on, {@code topK},
     * {@link #contains} and {@code estimate} agree as on a fresh sketch, and a key is combined again only once its
     * count after the reset reaches the admission count. A worker that does not observe again keeps its pending
     * counts, visible to {@code estimate}, until it calls {@link #flush()} (docs/design.md, "Hot-key combining").
     *
     * <p>What holds after a race (docs/design.md, "One observation"): a key is never left in its second candidate
     * bucket while its first has room. A claim in a second bucket re-checks, after a full fence, that no reset of
     * the table is under way and that the first bucket is still full without the key; otherwise it takes the
     * claim back and observes the units again after the reset (or, with the reset still under way, they count as
     * cleared and observe returns 0). One racing case is not excluded, since excluding it would put the same
     * re-check after every claim above the first slot of a bucket, on the observe hot path: a claim whose scan read
     * a slot before reset emptied it, and whose CAS lands after reset's last look at the bucket (reset sweeps the
     * table twice, the second time clearing again every bucket left out of order), sits above an empty slot. Its
     * units are then invisible to {@code estimate} and to observations of its key until the slots below are
     * claimed again; the key's next observation claims a lower slot of its own, and the stale word, never
     * refreshed, stays a light occupant that the lottery evicts like any other. {@code decay}, {@link #totalWeight()}
     * without recorded stats, {@link #snapshot()} and reset itself visit every slot, so they still scale, count,
     * copy and clear it. The same holds for a claim that lands directly above a second-bucket claim in the moment
     * before it is taken back, and for a second-bucket claim that another thread's refresh got promoted before
     * it could be taken back (left to the key shards).
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
     * bits, so tracked keys stay tracked; every slot of a bucket is visited, a word that a claim racing a reset
     * left above an empty slot included (see {@link #reset()}). The total weight is multiplied by the same factor.
     * Observations racing with it are decayed or not, per slot; pending combined counts are not decayed
     * (owner-only state). After a table's last slot, its promotion floor is scaled with the counts,
     * {@code max(configured, floor(floor x factor))}, so a key that becomes as heavy as the decayed tracked keys is
     * tracked again; a racing raise from counts read before the decay is given back, or scaled with the floor.
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
        whileOpenRun(() -> {
            long merged = mergedWeight.get();
            long counted = Weights.saturatedAdd(stats.sum(StatsLayout.OBSERVED_WEIGHT), merged);
            tables.scale(factor);
            if (stats.recording()) {
                rebaseCountedWeight(merged, counted, factor);
            }
        });
    }

    /**
     * The stream length with stats recorded: the workers' stripes plus {@link #mergedWeight}, never negative.
     * The volatile read of {@code mergedWeight} comes first: a rebase subtracts a stripes' sum read before its
     * CAS, and stripes only grow, so stripes read after the rebase are at least that sum. Read in the other order,
     * stripes read before a racing reset plus the rebased value went below zero (CI saw a snapshot with
     * totalWeight -25,271 while three threads observed through 300 resets).
     */
    private long countedWeight() {
        long merged = mergedWeight.get();
        return Weights.saturatedAdd(stats.sum(StatsLayout.OBSERVED_WEIGHT), merged);
    }

    /**
     * Scales the counted weight by {@code factor}, as the tables' counts were: the stripes are their workers'
     * own, so {@link #mergedWeight} takes {@code floor(counted x factor) - counted}, and observations counted
     * after {@code counted} was read stay counted. A volatile CAS from the {@code merged} that {@code counted}
     * was read with: a merge, reset or decay that rebased in between fails it, and the loop rebases the total
     * that one left (two resets that read the same total would otherwise subtract it twice).
     */
    private void rebaseCountedWeight(long merged, long counted, double factor) {
        while (!mergedWeight.compareAndSet(merged, merged + (long) Math.floor(counted * factor) - counted)) {
            merged = mergedWeight.get();
            counted = Weights.saturatedAdd(stats.sum(StatsLayout.OBSERVED_WEIGHT), merged);
        }
    }

    // ---------------------------------------------------------------- internals

    /** The calling thread's worker ({@link WorkerHandle}). */
    private long worker() {
        return workers.current();
    }

    /** The worker an observation carries: the caller's, or {@link WorkerHandle#NO_HANDLE} when nothing needs it. */
    private long observeWorker() {
        return lookupOnObserve ? workers.current() : WorkerHandle.NO_HANDLE;
    }

    /** {@code weight} units of the key of {@code hash}: one through the combiner (when on), more to the table. */
    private long record(long hash, long weight, long worker) {
        return weight == 1 ? observeOne(hash, worker) : update(hash, weight, worker);
    }

    /** One unit: through the caller's hot-key combiner when combining is engaged, else to the table. */
    private long observeOne(long hash, long worker) {
        try {
            // The stream length, in the worker's own stripe; a no-op unless stats are recorded (see totalWeight).
            stats.add(worker, StatsLayout.OBSERVED_WEIGHT, 1);
            BucketTable t = tableFor(worker);
            if (combiners == null) {
                return t.observe(hash, 1, worker);
            }
            // Auto combining before it engages: the table, then the check that engages it.
            return combiners.engaged() ? combiners.observe(hash, worker, t)
                    : combiners.unengaged(t.observe(hash, 1, worker));
        } catch (IllegalStateException e) {
            throw closedOr(e);
        }
    }

    private long update(long hash, long weight, long worker) {
        try {
            stats.addWeight(worker, weight);
            return tableFor(worker).observe(hash, weight, worker);
        } catch (IllegalStateException e) {
            throw closedOr(e);
        }
    }

    /**
     * The slow path after an observation whose result carries PROMOTE, VISIT or EXPELLED, kept out of the hot
     * methods: the promotion into the caller's key shard, unless the floor of the key's size class turns it away
     * there ({@code KeyShard.belowClassFloor}; the key as {@code KeyShard.promote} takes it:
     * {@code longKey} when {@code bytes} and {@code chars} are null, else a segment range, else characters), or the
     * SIEVE visit of a tracked key's hit, then the expelled-key listener for the keys this observation expelled,
     * last: outside the combiner's block and the shard's busy section, so a listener may call back into this sketch
     * (see ExpelledKeys). Returns the count.
     */
    private long after(long result, long hash, long longKey, MemorySegment bytes, long offset, long length,
                       CharSequence chars, long worker) {
        try {
            KeyShards here = shardsHere(worker);
            if ((result & BucketTable.PROMOTE) != 0) {
                KeyShard shard = here.shardFor(worker);
                // A key's UTF-8 bytes are at least its chars: a lower bound on its stored length is enough here.
                long keyBytes = chars != null ? chars.length() : bytes != null ? length : Long.BYTES;
                if (!shard.belowClassFloor(keyBytes, result & TableLayout.COUNT_MASK)) {
                    shard.promote(hash, longKey, bytes, offset, length, chars, worker);
                }
            } else if ((result & BucketTable.VISIT) != 0) {
                here.visit(hash);
            }
            if ((result & BucketTable.EXPELLED) != 0) {
                here.deliverExpelled();
            }
            return result & TableLayout.COUNT_MASK;
        } catch (IllegalStateException e) {
            throw closedOr(e);
        }
    }

    /** As {@link #after} for an array: the segment view is made only for a promotion (a VISIT allocates nothing). */
    private long afterArray(long result, long hash, byte[] key, int offset, int length, long worker) {
        MemorySegment bytes = (result & BucketTable.PROMOTE) != 0 ? MemorySegment.ofArray(key) : null;
        return after(result, hash, 0, bytes, offset, length, null, worker);
    }

    /** The calling thread's table: the only one, its node's, or its worker's. */
    private BucketTable tableFor(long worker) {
        return multiTable ? tables.tableFor(worker) : table;
    }

    /** The key shards of the calling thread's table. */
    private KeyShards shardsHere(long worker) {
        return multiTable ? tables.shardsFor(worker) : shards;
    }

    /**
     * Several tables: the key's estimate summed over them (acquire loads), then its pending combined counts, as
     * {@link #read} without rotating the window (the multi-table topK calls it once per candidate key).
     */
    private long sumOverTables(long hash) {
        long sum = tables.estimate(hash);
        return combiners == null ? sum : sum + combiners.pending(hash);
    }

    private long read(long hash) {
        try {
            // The tables first (acquire loads), then the combiners' pending counts: never a unit counted twice.
            long sum;
            if (multiTable) {
                tables.rotate(); // a windowed query rotates too, so old slices leave even when nobody observes
                sum = tables.estimate(hash);
            } else {
                sum = table.estimate(hash);
            }
            return combiners == null ? sum : sum + combiners.pending(hash);
        } catch (IllegalStateException e) {
            throw closedOr(e);
        }
    }

    /**
     * Runs a reading-side or maintenance step ({@code topK}, {@code info}, {@code snapshot}, {@code merge},
     * {@code reset} ...) as every such method must: the explicit closed check first ({@link #ensureOpen}: the step
     * may touch no native memory, so the arena alone might never notice), and an access to a closed arena
     * reported as this instance being closed ({@link #closedOr}). The observe and estimate paths keep their own
     * {@code try}/{@code catch} instead: they always touch the arena, so they skip the volatile read, and a lambda
     * there would be one more call for C2 to inline on every observation.
     */
    private <T> T whileOpen(Supplier<T> step) {
        ensureOpen();
        try {
            return step.get();
        } catch (IllegalStateException e) {
            throw closedOr(e);
        }
    }

    /** {@link #whileOpen} for a step that returns a {@code long} (no boxing). */
    private long whileOpenLong(LongSupplier step) {
        ensureOpen();
        try {
            return step.getAsLong();
        } catch (IllegalStateException e) {
            throw closedOr(e);
        }
    }

    /** {@link #whileOpen} for a step that returns nothing. */
    private void whileOpenRun(Runnable step) {
        whileOpen(() -> {
            step.run();
            return null;
        });
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
}
