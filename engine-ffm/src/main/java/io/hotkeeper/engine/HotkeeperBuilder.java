package io.hotkeeper.engine;

import io.hotkeeper.engine.combine.HotKeyCombiners;
import io.hotkeeper.engine.core.NodeTopology;
import io.hotkeeper.engine.lottery.DecayLottery;
import io.hotkeeper.engine.salt.SaltLayout;
import io.hotkeeper.engine.shard.ShardLayout;
import io.hotkeeper.engine.table.TableLayout;

import java.util.Objects;

/**
 * Configures a {@link Hotkeeper}. Threads: one (not thread-safe). Progress: wait-free except
 * {@link #build()}, which allocates native memory and may read {@code SecureRandom} (blocking).
 *
 * <p>Each option may be set once: a second call of the same option (or a second sizing, by {@link #sizing},
 * {@link #memory}, {@link #memoryBytes} or {@link #sizedFor}) throws {@link IllegalStateException} naming both
 * calls. The options fall in two groups (README, "Options"): decisions a user makes (sizing, {@link #k},
 * {@link #maxKeyBytes}, {@link #keepKeys}, {@link #partitioning}, {@link #placement}, {@link #recordStats},
 * {@link #name}, {@link #seed}, {@link #expelledKeyListener}, {@link #clock}, {@link #expectedThreads},
 * {@link #expectedKeyLengths}) and engine
 * tuning with defaults that suit most streams ({@link #candidateBuckets}, {@link #combining}, {@link #combiner},
 * {@link #saltMode}, {@link #saltShards}, {@link #minCount}, {@link #shardCapacity}, {@link #decayBase},
 * {@link #approximateCountsAbove}).
 *
 * <p>Size: mostly the javadoc of each option (what it costs, what it excludes); the checks that span options are in
 * one method, checkOptions.
 */
public final class HotkeeperBuilder {
    /** The range of {@link #approximateCountsAbove}: 2^4 .. 2^32. */
    private static final long MIN_APPROXIMATE_FROM = 1L << 4;
    private static final long MAX_APPROXIMATE_FROM = 1L << 32;

    long memoryBytes = Hotkeeper.DEFAULT_MEMORY_BYTES;
    boolean seeded;
    long seed;
    /** The salt chosen; null: the default, which ResolvedOptions resolves. */
    SaltMode saltMode;
    int saltShards;
    double decayBase = DecayLottery.DEFAULT_BASE;
    boolean keepKeys = true;
    int k = Hotkeeper.DEFAULT_K;
    int maxKeyBytes = Hotkeeper.DEFAULT_MAX_KEY_BYTES;
    int shardCapacity;
    /** The total budget (memory), or 0: the table size is given (memoryBytes, or the default). */
    long totalMemory;
    // Options given explicitly, for checkOptions: an option that would have no effect is an error.
    boolean maxKeyBytesGiven;
    boolean minCountGiven;
    boolean combinerGiven;
    /** Threads the budget is split for; 0: the available processors. */
    int expectedThreads;
    /** Lengths of keys like those expected at the top (a copy); empty: the plan's 16-byte keys. */
    int[] expectedKeyLengths = new int[0];
    long minCount = Hotkeeper.DEFAULT_PROMOTION_FLOOR;
    ExpelledKeyListener listener;
    Placement placement = Placement.DEFAULT;
    /** log2 of the count approximate counting starts at; 0: exact counts (approximateCountsAbove). */
    int approximateBits;
    int candidateBuckets = Hotkeeper.DEFAULT_CANDIDATE_BUCKETS;
    CombiningMode combining = CombiningMode.AUTO;
    int combinerEntries = Hotkeeper.DEFAULT_COMBINER_ENTRIES;
    int flushThreshold = Hotkeeper.DEFAULT_FLUSH_THRESHOLD;
    /** The partitioning choice; resolved (with the machine's nodes) by ResolvedOptions. */
    Partitioning partitioning = Partitioning.shared();
    boolean recordStats;
    java.util.function.LongSupplier clock = System::nanoTime;
    boolean clockGiven;
    /** The name the sketch's JFR events carry; null: no events (see name). */
    String name;

    /** The options set so far, each with how it was set (for the message when one is set again). */
    private final java.util.Map<String, String> given = new java.util.HashMap<>();

    HotkeeperBuilder() {
    }

    /**
     * Records that {@code option} is being set by {@code how}; refuses a second setting of the same option, as
     * Caffeine does, naming both (a later setter silently replacing an earlier one hides a mistake:
     * {@code sizedFor(100).k(1000)} would keep the table sized for 100).
     */
    private void once(String option, String how) {
        String before = given.putIfAbsent(option, how);
        if (before != null) {
            throw new IllegalStateException(option + " was already set by " + before + "; " + how
                    + " would replace it (each option may be set once)");
        }
    }

    /**
     * How the table is split: {@link Partitioning#shared()} (the default), {@link Partitioning#perNode()},
     * {@link Partitioning#perWorker(int)} or {@link Partitioning#window(java.time.Duration, int)}; one choice, so the
     * four never combine. {@link #build()} refuses options that have no effect under it (see {@link Partitioning}).
     */
    public HotkeeperBuilder partitioning(Partitioning partitioning) {
        Objects.requireNonNull(partitioning, "partitioning");
        once("partitioning", "partitioning(" + partitioning + ")");
        this.partitioning = partitioning;
        return this;
    }

    /**
     * Turns on the operation counters of {@link Hotkeeper#stats()}: refreshes, claims, lottery draws and wins,
     * replacements, promotions, hand-offs, combined units. They live in per-worker stripes (no shared counter),
     * but every observation then writes its stripe and looks its worker up; off, the observation path touches
     * no counter at all and {@code stats()} reports zeros. Off by default, like Caffeine's {@code recordStats()}
     * (docs/performance.md gives the cost).
     */
    public HotkeeperBuilder recordStats() {
        once("recordStats", "recordStats()");
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
    public HotkeeperBuilder combining(CombiningMode mode) {
        Objects.requireNonNull(mode, "mode");
        once("combining", "combining(" + mode + ")");
        this.combining = mode;
        return this;
    }

    /**
     * The combiners' size: {@code entries} per worker (a power of two in 16..65536; default 256) and the
     * observations of a key per flush ({@code flushThreshold}, 2..32768; default 64). See
     * {@link #combining(CombiningMode)}.
     */
    public HotkeeperBuilder combiner(int entries, int flushThreshold) {
        HotKeyCombiners.checkSize(entries, flushThreshold);
        once("combiner", "combiner(" + entries + ", " + flushThreshold + ")");
        this.combinerGiven = true;
        this.combinerEntries = entries;
        this.flushThreshold = flushThreshold;
        return this;
    }

    /**
     * Opt-in approximate counting for hot keys: counts below {@code count} stay exact; from it on a count {@code c}
     * grows by {@code 2^j} with probability {@code 2^-j} ({@code j = floor(log2 c) - log2(count) + 1}) instead of
     * by 1. Estimates stay unbiased with a relative standard error of about {@code 1.63 / sqrt(count)} (2.5% above
     * 4,096, 1.3% above 16,384, 0.6% above 65,536), and a hot key's slot is written by only one refresh in
     * {@code 2^j}: the shared-write traffic that makes two cores slower than one on skewed streams mostly
     * disappears. Off by default (every count exact). Threads: the builder's (not thread-safe). Progress:
     * wait-free.
     *
     * @param count where approximate counting starts: a power of two in 16..2^32
     * @throws IllegalArgumentException if {@code count} is not a power of two in 16..2^32 (a base-2 logarithm such
     *                                  as 12, what this option took before, is refused with the count it names)
     */
    public HotkeeperBuilder approximateCountsAbove(long count) {
        if (count < MIN_APPROXIMATE_FROM || count > MAX_APPROXIMATE_FROM || Long.bitCount(count) != 1) {
            String log2 = count >= 4 && count <= 32 ? " (a count, not its log2: 2^" + count + " is " + (1L << count)
                    + ")" : "";
            throw new IllegalArgumentException("approximateCountsAbove=" + count + ": must be a power of two in "
                    + MIN_APPROXIMATE_FROM + ".." + MAX_APPROXIMATE_FROM + log2);
        }
        once("approximateCountsAbove", "approximateCountsAbove(" + count + ")");
        this.approximateBits = Long.numberOfTrailingZeros(count);
        return this;
    }

    /**
     * Candidate buckets per key: 2 (the default) or 1. With two, a key whose first bucket is full goes to its second
     * (derived from the first and its fingerprint), and a newcomer to two full buckets draws against the weaker of
     * their weakest occupants: fewer keys lost at equal memory, and small inputs exact up to twice as many
     * distinct keys (docs/theory.md section 6), for a second cache line read by every observation that misses in
     * a full first bucket (docs/performance.md, "Two candidate buckets": at 64 KiB and one thread, 19% fewer
     * observations per second on Zipf 1.0 and on uniform keys, 12% on Zipf 1.2). 1 is the single-bucket table,
     * for the last of the speed where accuracy at the budget has room to spare. Snapshots record the choice and merge by table only with
     * snapshots of the same choice.
     *
     * @throws IllegalArgumentException if {@code candidates} is not 1 or 2
     */
    public HotkeeperBuilder candidateBuckets(int candidates) {
        if (candidates != 1 && candidates != 2) {
            throw new IllegalArgumentException("candidateBuckets=" + candidates + ": must be 1 or 2");
        }
        once("candidateBuckets", "candidateBuckets(" + candidates + ")");
        this.candidateBuckets = candidates;
        return this;
    }

    /**
     * Where the table, its links, the salt and the stats live: {@link Placement#DEFAULT} (first touch),
     * {@code LOCAL} (the building thread's node), {@code node(n)}, {@code INTERLEAVE}. Key shards always go
     * to the node of the thread that owns them. Without libnuma or with one node every policy falls back to
     * DEFAULT (one log line; {@link Hotkeeper#placement()} says why); a node that does not exist fails in
     * {@link #build()} with {@link IllegalArgumentException}.
     */
    public HotkeeperBuilder placement(Placement placement) {
        Objects.requireNonNull(placement, "placement");
        once("placement", "placement(" + placement + ")");
        this.placement = placement;
        return this;
    }

    /**
     * Whether to keep the real keys of tracked entries in per-worker key shards (default true). Without them
     * the sketch only answers {@code estimate}; {@code topK} and {@code contains} need them.
     */
    public HotkeeperBuilder keepKeys(boolean enabled) {
        once("keepKeys", "keepKeys(" + enabled + ")");
        this.keepKeys = enabled;
        return this;
    }

    /**
     * Sets {@code k} and the table size {@link Hotkeeper#recommendedMemoryBytes(int)} recommends for it: both options,
     * so neither {@link #k} nor a sizing may follow.
     */
    public HotkeeperBuilder sizedFor(int k) {
        setK(k, "sizedFor(" + k + ")");
        Sizing table = Sizing.table(Hotkeeper.recommendedMemoryBytes(k));
        once("sizing", "sizedFor(" + k + ")");
        applySizing(table);
        return this;
    }

    /** Heavy hitters reported by {@code topK()} and tested by {@code contains} (1..100,000; default 100). */
    public HotkeeperBuilder k(int k) {
        setK(k, "k(" + k + ")");
        return this;
    }

    private void setK(int k, String how) {
        if (k < 1 || k > 100_000) {
            throw new IllegalArgumentException("k=" + k + ": must be >= 1 and <= 100000");
        }
        once("k", how);
        this.k = k;
    }

    /**
     * Longest key stored whole in a key shard (1..4096; default 64). Longer keys are counted exactly like
     * others (the hash covers every byte) but their shard entry keeps only the first {@code maxKeyBytes}
     * bytes and {@link HeavyHitter#truncated()} says so.
     */
    public HotkeeperBuilder maxKeyBytes(int maxKeyBytes) {
        if (maxKeyBytes < 1 || maxKeyBytes > 4096) {
            throw new IllegalArgumentException("maxKeyBytes=" + maxKeyBytes + ": must be >= 1 and <= 4096");
        }
        once("maxKeyBytes", "maxKeyBytes(" + maxKeyBytes + ")");
        this.maxKeyBytes = maxKeyBytes;
        this.maxKeyBytesGiven = true;
        return this;
    }

    /**
     * Entries per key shard (16..2^20), with room for that many keys of any length up to maxKeyBytes (shorter
     * keys take smaller entries; a shard spans at most 8 MiB, docs/shards.md); by default min(table slots,
     * max(1024, 8k)). A full shard evicts one of its own entries with SIEVE.
     */
    public HotkeeperBuilder shardCapacity(int shardCapacity) {
        if (shardCapacity < 16 || shardCapacity > ShardLayout.MAX_ENTRIES) {
            throw new IllegalArgumentException("shardCapacity=" + shardCapacity + ": must be >= 16 and <= "
                    + ShardLayout.MAX_ENTRIES);
        }
        once("shardCapacity", "shardCapacity(" + shardCapacity + ")");
        this.shardCapacity = shardCapacity;
        return this;
    }

    /**
     * The smallest count at which a key is kept (the command line's {@code --min-count}): the engine's promotion
     * floor starts here, and a key is recorded in its observer's shard once its count reaches the floor (>= 1;
     * default 1: every key is tracked from its first observation while the shards have room, so small inputs are
     * exact, docs/theory.md section 6). The floor rises by itself when a full shard turns away a candidate lighter than its eviction
     * victim, so it settles where the shards hold the heaviest keys, and falls again when shards reap keys that
     * left the table; {@code reset()} and a window's rotation restore it to this value and {@code decay(f)} scales
     * it with the counts (never below this value). A higher starting floor keeps keys seen fewer times out of the
     * shards from the start.
     */
    public HotkeeperBuilder minCount(long minCount) {
        if (minCount < 1 || minCount > TableLayout.MAX_COUNT) {
            throw new IllegalArgumentException("minCount=" + minCount + ": must be >= 1 and <= "
                    + TableLayout.MAX_COUNT);
        }
        once("minCount", "minCount(" + minCount + ")");
        this.minCount = minCount;
        this.minCountGiven = true;
        return this;
    }

    /** Receives keys expelled from the table (opt-in; see {@link ExpelledKeyListener}). */
    public HotkeeperBuilder expelledKeyListener(ExpelledKeyListener listener) {
        Objects.requireNonNull(listener, "listener");
        once("expelledKeyListener", "expelledKeyListener(...)");
        this.listener = listener;
        return this;
    }

    /**
     * The size of the bucket table alone, in bytes: 4 KiB .. 64 MiB, rounded down to whole 64-byte buckets (any
     * number of them, not only a power of two). The links (as much again, with key shards), the key shards of
     * each promoting worker and
     * the combiner blocks come on top; {@link #memory(long)} bounds everything instead. The same as
     * {@code sizing(Sizing.table(memoryBytes))}: one sizing per builder.
     *
     * @throws IllegalStateException if a sizing was already given
     */
    public HotkeeperBuilder memoryBytes(long memoryBytes) {
        return sizing(Sizing.table(memoryBytes));
    }

    /**
     * The total native memory of the instance, in bytes: table, links, control, key shards of every worker,
     * combiner blocks, salt and stats together stay within it however many threads observe. The builder
     * splits it (docs/design.md, "One memory budget"): fixed parts first (salt, stats if recorded), combiner
     * blocks up to an eighth, then key shards (1 to 8 per table, shared by the workers in turn) of at least
     * {@code max(16, k + max(8, k/16))} entries each, {@code max(16, 2k)} once the table keeps {@code 5k/2}
     * buckets beside them, and the rest to the table and its links, to the bucket (any bucket count); what
     * the last partial bucket leaves goes to the shards' capacity. {@link Hotkeeper#info()} reports each part.
     * {@code build()} refuses a budget that cannot
     * hold k keys, naming the minimum. Not with {@link #shardCapacity}. The same as
     * {@code sizing(Sizing.total(totalBytes))}: one sizing per builder.
     *
     * @throws IllegalStateException if a sizing was already given
     */
    public HotkeeperBuilder memory(long totalBytes) {
        return sizing(Sizing.total(totalBytes));
    }

    /**
     * How much native memory the instance gets: {@link Sizing#total(long)} (everything it allocates) or
     * {@link Sizing#table(long)} (the bucket table alone); {@link #memory(long)}, {@link #memoryBytes(long)} and
     * {@link #sizedFor(int)} are shortcuts for it. One choice: a second sizing, however given, is refused.
     * Default: {@code Sizing.table(}{@value Hotkeeper#DEFAULT_MEMORY_BYTES}{@code )}.
     *
     * @throws IllegalStateException if a sizing was already given
     */
    public HotkeeperBuilder sizing(Sizing sizing) {
        Objects.requireNonNull(sizing, "sizing");
        once("sizing", sizing.toString());
        applySizing(sizing);
        return this;
    }

    private void applySizing(Sizing sizing) {
        switch (sizing) {
            case Sizing.Total t -> this.totalMemory = t.bytes();
            case Sizing.Table t -> this.memoryBytes = t.bytes();
        }
    }

    /**
     * Threads expected to observe at once (1..4096; default: the available processors). With any sizing it picks
     * the default salt: one shared counter for 1, per-worker counters for more ({@link #saltMode}). Under
     * {@link #memory(long)} it also sets how many key shards and combiner blocks the budget is split for. More
     * threads still work; they share the shards and salt counters and observe without combining.
     */
    public HotkeeperBuilder expectedThreads(int threads) {
        if (threads < 1 || threads > 4096) {
            throw new IllegalArgumentException("expectedThreads=" + threads + ": must be >= 1 and <= 4096");
        }
        once("expectedThreads", "expectedThreads(" + threads + ")");
        this.expectedThreads = threads;
        return this;
    }

    /**
     * Lengths in bytes of keys like those expected at the top (a sample, each length standing for an equal share;
     * at least one, each 1..2^20; default: none): under {@link #memory(long)}, the key shards get room for the
     * top k at these lengths before the table grows past its smallest size. Without it the plan counts keys of
     * up to 16 bytes, and a top of longer keys (log lines, paths, URLs) may not fit in the shards: such a key is
     * counted but never listed. The command line passes the lengths of the heaviest keys in the head of its
     * first file. Costs nothing after {@link #build()}; the minimum budget does not change.
     */
    public HotkeeperBuilder expectedKeyLengths(int... lengths) {
        Objects.requireNonNull(lengths, "lengths");
        if (lengths.length == 0) {
            throw new IllegalArgumentException("expectedKeyLengths(): give at least one length");
        }
        for (int length : lengths) {
            if (length < 1 || length > 1 << 20) {
                throw new IllegalArgumentException("expectedKeyLengths: length " + length
                        + " must be >= 1 and <= 1048576");
            }
        }
        once("expectedKeyLengths", "expectedKeyLengths(" + lengths.length + " lengths)");
        this.expectedKeyLengths = lengths.clone();
        return this;
    }

    /** A fixed hash seed (reproducible runs, tests, merging); without it each instance seeds itself. */
    public HotkeeperBuilder seed(long seed) {
        once("seed", "seed(" + seed + ")");
        this.seeded = true;
        this.seed = seed;
        return this;
    }

    /**
     * The eviction salt. By default: {@link SaltMode#PER_TABLE} with {@linkplain Partitioning#perWorker
     * per-worker tables} (each table's own counter, 128 bytes per table); otherwise {@link SaltMode#PER_WORKER}
     * where more than one writer is expected ({@link #expectedThreads}, or more than one available processor:
     * 128 bytes per counter, the writers rounded up to a power of two; under {@link #memory} those past the
     * first only from the room above the budget's minimum, at most a 64th of it, and with one granted the salt is
     * the shared one), {@link SaltMode#SHARED} (one counter) for a single writer.
     * Threads: the builder's (not thread-safe). Progress: wait-free.
     */
    public HotkeeperBuilder saltMode(SaltMode saltMode) {
        Objects.requireNonNull(saltMode, "saltMode");
        once("saltMode", "saltMode(" + saltMode + ")");
        this.saltMode = saltMode;
        return this;
    }

    /** Opt in to the sharded salt (same as {@code saltMode(SaltMode.SHARDED)}). */
    public HotkeeperBuilder shardedSalt() {
        return saltMode(SaltMode.SHARDED);
    }

    /**
     * Overrides the sharded salt's shard count (a power of two in 1..32); by default it is the number of
     * available processors rounded up to a power of two, capped at 32. Only with {@link SaltMode#SHARDED}
     * ({@code build()} refuses it in the other modes).
     */
    public HotkeeperBuilder saltShards(int saltShards) {
        if (saltShards < 1 || saltShards > SaltLayout.MAX_SHARDS || Integer.bitCount(saltShards) != 1) {
            throw new IllegalArgumentException("saltShards=" + saltShards + ": must be a power of two in 1.."
                    + SaltLayout.MAX_SHARDS);
        }
        once("saltShards", "saltShards(" + saltShards + ")");
        this.saltShards = saltShards;
        return this;
    }

    /**
     * The lottery's decay base b in [1.01, 1024]: an occupant with count c loses a draw with probability
     * b^-c. The default, 1.02: light and medium occupants yield, which a flat-topped stream, a small budget and
     * a stream whose keys arrive in runs need (a key whose run has ended loses its slot to the next run's heavy
     * key), while a count of 100 loses a draw with probability 0.14, of 500 with 5e-5, and a count past 2,240
     * never does. The HeavyKeeper paper's 1.08 (a count of 100 loses with probability 4.5e-4) holds medium counts
     * longer: on a stream in runs at 24 KiB its precision@100 is 0.2-0.3 lower. 2 is the reference design's draw
     * (a trailing-zeros test), whose precision@100 on flat-topped text at 16 KiB is 0.21-0.26 lower than 1.08's
     * (docs/decisions/decay-base.md). Bases other than 2 and the default build their own table of about
     * {@code 44.4 / ln b} thresholds (at most 4,459 entries, 35 KiB of heap, at 1.01); closer to 1 that table grows
     * without bound ({@link DecayLottery#MIN_BASE}).
     *
     * @throws IllegalArgumentException if {@code decayBase} is outside [1.01, 1024] or NaN; the same check as
     *         {@link DecayLottery#checkBase(double)}
     */
    public HotkeeperBuilder decayBase(double decayBase) {
        double checked = DecayLottery.checkBase(decayBase);
        once("decayBase", "decayBase(" + decayBase + ")");
        this.decayBase = checked;
        return this;
    }

    /**
     * The clock of a {@linkplain Partitioning#window window} in nanoseconds (default {@code System::nanoTime});
     * tests pass a controllable one. It is called from any thread, on every observation and query of a windowed
     * sketch. Only with a window partitioning.
     */
    public HotkeeperBuilder clock(java.util.function.LongSupplier nanos) {
        Objects.requireNonNull(nanos, "nanos");
        once("clock", "clock(...)");
        this.clock = nanos;
        this.clockGiven = true;
        return this;
    }

    /**
     * Names the sketch for Java Flight Recorder: while it is open, a recording that enables the event
     * {@code io.hotkeeper.HotKey} (off by default; docs/operations.md) receives, every period (1 s by default), one
     * event per key of its {@link Hotkeeper#topK()}, carrying this name, the key as
     * {@link HeavyHitter#keyAsString()} prints it, its estimate and bounds, the total weight and the table's fill.
     * The events are produced by JFR's periodic thread, which reads the sketch like any reader; the observe path
     * is not touched. Several sketches in one JVM are told apart by their names (names need not be unique).
     *
     * <p>A sketch without a name is not registered with JFR and emits nothing; a named one registers a periodic
     * hook when it is built (the first loads JFR's event metadata, not a recording) and removes it in
     * {@link Hotkeeper#close()}. Needs key shards ({@code keepKeys(false)} has no top k to report).
     *
     * @throws IllegalArgumentException if {@code name} is blank
     */
    public HotkeeperBuilder name(String name) {
        if (Objects.requireNonNull(name, "name").isBlank()) {
            throw new IllegalArgumentException("name=\"" + name + "\": must not be blank");
        }
        once("name", "name(" + name + ")");
        this.name = name;
        return this;
    }

    /** Allocates the sketch. Threads: one. Progress: blocking. */
    public Hotkeeper build() {
        return new Hotkeeper(this, ResolvedOptions.of(this, Runtime.getRuntime().availableProcessors(),
                NodeTopology::system));
    }

    /**
     * Every check that spans options, in one place: options that exclude each other, and options that would
     * have no effect in the configuration given (nothing is silently ignored). Each message names the options.
     * {@code salt} and {@code combines} are what {@link ResolvedOptions#of} resolved, which calls this before it
     * resolves the rest.
     */
    void checkOptions(SaltMode salt, boolean combines) {
        if (expectedKeyLengths.length > 0 && (totalMemory == 0 || !keepKeys)) {
            throw new IllegalArgumentException("expectedKeyLengths(...) " + (keepKeys
                    ? "without memory(total): it only sizes the split of a total budget"
                    : "with keepKeys(false): it sizes the key shards"));
        }
        if (!keepKeys && (shardCapacity > 0 || maxKeyBytesGiven || minCountGiven || listener != null
                || name != null)) {
            throw new IllegalArgumentException("keepKeys(false) with " + (shardCapacity > 0 ? "shardCapacity"
                    : maxKeyBytesGiven ? "maxKeyBytes" : minCountGiven ? "minCount"
                    : listener != null ? "expelledKeyListener" : "name") + ": that option needs key shards");
        }
        if (saltShards > 0 && salt != SaltMode.SHARDED) {
            throw new IllegalArgumentException("saltShards=" + saltShards + " with saltMode " + salt
                    + ": shard counts apply to SaltMode.SHARDED only");
        }
        if (combinerGiven && !combines) {
            throw new IllegalArgumentException("combiner(...) with combining " + combining
                    + (combining == CombiningMode.AUTO ? " and partitioning " + partitioning
                    + " (AUTO stays off with per-worker tables; choose CombiningMode.ON)" : "")
                    + ": the combiners would never be used");
        }
        if (totalMemory > 0 && shardCapacity > 0) {
            throw new IllegalArgumentException("memory=" + totalMemory + " and shardCapacity=" + shardCapacity
                    + ": choose one (under a memory budget the builder sizes the shards)");
        }
        if (clockGiven && !(partitioning instanceof Partitioning.Window)) {
            throw new IllegalArgumentException("clock(...) with partitioning " + partitioning
                    + ": only a window reads the clock");
        }
    }
}
