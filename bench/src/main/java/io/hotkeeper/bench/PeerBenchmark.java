package io.hotkeeper.bench;

import io.hotkeeper.engine.Partitioning;
import io.hotkeeper.engine.CombiningMode;
import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.HotkeeperBuilder;

import com.clearspring.analytics.stream.StreamSummary;
import com.github.benmanes.caffeine.cache.FrequencySketchAccess;
import org.apache.datasketches.frequencies.ErrorType;
import org.apache.datasketches.frequencies.FrequentItemsSketch;
import org.apache.datasketches.frequencies.FrequentLongsSketch;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.ThreadParams;

import java.nio.charset.StandardCharsets;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * Update throughput of Hotkeeper against its peers on the same key streams, in one run (docs/peers.md).
 *
 * <pre>
 * # everything, 1 and 2 threads (at -t 2 only the thread-safe or per-thread peers; see below for what each means there):
 * java -jar bench/target/benchmarks.jar PeerBenchmark -t 1
 * java -jar bench/target/benchmarks.jar \
 *     'PeerBenchmark\.(hotkeeper.*|dataSketches.*|itemsSketchText|streamSummarySynchronized|exactMap)$' -t 2
 * bench/sweep 'PeerBenchmark' --threads 1,2
 * # the smoke run of docs/peers.md:
 * java -jar bench/target/benchmarks.jar 'PeerBenchmark\.[a-zA-Z]+$' -f 1 -wi 1 -i 2 -w 1s -r 1s \
 *     -p memory=65536 -p stream=zipf1.0,zipf1.2 -t 1
 * # equal memory against DataSketches' next map size (4,096 slots measure 73,864 B, PeerSizing), and the
 * # earlier sizing (Hotkeeper's table alone on the budget) beside it:
 * java -jar bench/target/benchmarks.jar 'PeerBenchmark\.(hotkeeperShared|dataSketches)$' \
 *     -p memory=65536,73864 -p hotkeeperSizing=total,table -t 1
 * </pre>
 *
 * <h2>What it measures</h2>
 * One op is one update with the next key of a pre-generated stream (2^22 keys from {@code ZipfKeys} over
 * 1,000,000 distinct items, exponent 0.8, 1.0, 1.2, or uniform); score is ops/us summed over all {@code -t}
 * threads. Each thread starts at offset {@code threadIndex * 2^22 / threads}. The object-keyed peers get keys
 * boxed once per distinct item in setup, so no op allocates a {@code Long}. Every peer starts empty each trial
 * and fills during warmup. {@link #dataSketchesMerge} is the exception: average time of one query-time merge.
 *
 * <p><b>Text keys</b> ({@code hotkeeperText}, {@code hotkeeperBytes}, {@code itemsSketchText}): the same stream,
 * item {@code i} written as {@code "user:"} and {@code i} zero-padded to 16 digits (21 bytes, e.g.
 * {@code user:0000000000000042}). One {@code String} and one UTF-8 {@code byte[]} per distinct item are built in
 * setup, and the stream is an array of references to them, so no op allocates or encodes up front.
 *
 * <p><b>Readers.</b> {@code dataSketchesLive} and {@code dataSketchesOneLock} run a {@link PeriodicReader}
 * thread from the trial's setup to its teardown: every 10 ms it reads the top 100 while the writers update, so
 * their score is update throughput with a live reader. The reader thread is not one of JMH's {@code -t} threads;
 * pinned runs give it no CPU of its own (it takes time from the writers, as it would in an application).
 *
 * <p><b>Teardown report.</b> Once per trial every peer prints lines starting {@code # peer (method, memory,
 * stream, threads)}: what it holds, in bytes, read from its own state after the run ({@link PeerMemory}); what
 * one top-k read costs once the writers have stopped ({@link PeriodicReader#quiescentReadCost}; peers with no
 * top-k print none); and, for the peers with a reader, how many reads it made and how long they took.
 *
 * <h2>Peers (sizes from {@link PeerSizing} for the {@code memory} budget)</h2>
 * Each side gets its largest configuration within {@code memory}: Hotkeeper by default every native byte
 * ({@code hotkeeperSizing=total}: {@code Builder.memory(memory)}, split for the {@code -t} threads;
 * {@code hotkeeperSizing=table}: the table alone, as before 2026-12-05), DataSketches the largest power-of-two
 * map whose full sketch measures within it (JOL): at 64 KiB 2,048 slots (37,000 B), at 73,864 B 4,096.
 * <ul>
 *   <li>{@code hotkeeperShared}, {@code hotkeeperSharded}: {@link Hotkeeper#observe(long)} with the shared or the
 *       sharded eviction salt; {@code ...NoKeys}: the same with {@code Builder.keepKeys(false)} (no key shards,
 *       so no promotions: {@code estimate} only); {@code hotkeeperSharedUncombined}: shared salt and key shards
 *       with {@code Builder.combining(CombiningMode.OFF)} (every observation writes the shared table; the others use
 *       the default, {@code AUTO}); {@code hotkeeperWorkerTables}: one table per thread
 *       ({@code Builder.workerTables}: no table line written by two cores; estimates and topK merge the
 *       tables), the per-worker salt, key shards on.</li>
 *   <li>{@code dataSketches}: DataSketches {@code FrequentLongsSketch.update}, one unlocked sketch per thread
 *       ({@code Scope.Thread}): at {@code -t 1} the plain single-threaded sketch, at {@code -t 2} the per-thread
 *       update throughput of "per-thread sketches merged at query time". The upper bound of DataSketches'
 *       update throughput: nothing reads these sketches while the writers run (they are not thread-safe), so it
 *       answers no query during the run.</li>
 *   <li>{@code dataSketchesLive}: the least a DataSketches user must do to read a top-k from any thread while
 *       writers run ({@link LiveDataSketches}): one {@code FrequentLongsSketch} per thread, each under its own
 *       fair {@code ReentrantLock} ({@link LockedSketch} says why not {@code synchronized}), registered in a
 *       concurrent list by each thread's {@link ThreadPeers} setup; a reader thread, every 10 ms, takes each lock
 *       in turn, merges that sketch into a fresh one, then lists the merged sketch's frequent items
 *       ({@code NO_FALSE_NEGATIVES}) and keeps the first 100 by estimate.</li>
 *   <li>{@code dataSketchesOneLock}: the naive alternative: one {@code FrequentLongsSketch} for all threads
 *       under one shared (non-fair) {@code ReentrantLock}; the same 10 ms reader lists its top 100 under that
 *       lock.</li>
 *   <li>{@code hotkeeperText}, {@code hotkeeperBytes}: Hotkeeper (default configuration, as
 *       {@code hotkeeperShared}) on the text keys: {@code observe(CharSequence)} on the {@code String}, which
 *       hashes the UTF-8 encoding on the fly, and {@code observe(byte[])} on its bytes.</li>
 *   <li>{@code itemsSketchText}: DataSketches {@code FrequentItemsSketch<String>} (called {@code ItemsSketch}
 *       before DataSketches 9) {@code update} on the text keys, one unlocked sketch per thread, as many slots as
 *       {@code dataSketches}; like it, no query during the run.</li>
 *   <li>{@code dataSketchesMerge}: the query side of that design: a fresh sketch merges two full per-thread
 *       sketches (each filled from a different half-offset of the stream) and lists its frequent items
 *       ({@code NO_FALSE_NEGATIVES}); us/op. A real deployment must also stop or hand off the writers before it
 *       reads their sketches (they are not thread-safe); that cost is not in this number.</li>
 *   <li>{@code streamSummarySynchronized}: stream-lib {@code StreamSummary.offer} under one
 *       {@code synchronized} lock.</li>
 *   <li>{@code exactMap}: exact {@code ConcurrentHashMap<Long, LongAdder>}; ignores {@code memory} (it holds
 *       every distinct key: ~1M entries, ~80 MB).</li>
 *   <li>{@code caffeineFrequencySketch}: Caffeine's W-TinyLFU count-min sketch, {@code increment} only (no
 *       top-k), reached through {@link FrequencySketchAccess}. Single-threaded in Caffeine; shared here, so run
 *       it at {@code -t 1}.</li>
 *   <li>{@code referenceHeavyKeeper}: {@link ReferenceHeavyKeeper} (d = 2, b = 1.08, heap of 100), one per
 *       thread: the paper's algorithm, sequential, on-heap.</li>
 * </ul>
 *
 * <h2>What each side holds and does</h2>
 * Bytes as the teardown report prints them ({@link PeerMemory}): native regions for Hotkeeper, array and object
 * layouts (compressed oops) for the on-heap peers, per thread x threads where each thread has its own.
 * <table>
 *   <caption>Per peer, for a budget {@code memory}</caption>
 *   <tr><th>peer</th><th>holds</th><th>top-k from any thread while writers run</th><th>a read</th></tr>
 *   <tr><td>{@code hotkeeper*}, {@code hotkeeperText}, {@code hotkeeperBytes}</td>
 *       <td>native: table + links (as many bytes as the table) + key shards + control + salt + one combiner
 *       block per worker once combining is engaged (all regions of {@code placement()}): with
 *       {@code hotkeeperSizing=total} (the default) all of it within {@code memory} (the teardown throws if not);
 *       with {@code table} the table is {@code memory} and the rest comes on top. The key bytes live in the
 *       shards, nothing per key on the heap</td>
 *       <td>yes, wait-free, no writer stops</td><td>{@code topK(100)}: walks the key shards' live entries, one
 *       validated copy per reported key; {@code ...NoKeys}: no top-k ({@code estimate} only)</td></tr>
 *   <tr><td>{@code dataSketches}</td><td>threads x (18 B x map length + 136 B of objects and array headers),
 *       map length up to {@link PeerSizing#dataSketchesMaxMapSize}, whose full sketch measures within
 *       {@code memory}</td><td>no (unlocked)</td><td>merge of every thread's sketch
 *       into a fresh one + {@code getFrequentItems}, only once the writers stop</td></tr>
 *   <tr><td>{@code dataSketchesLive}</td><td>the same, plus one lock per thread; the reader allocates a fresh
 *       sketch per read</td><td>yes: the reader holds each writer's lock while it merges that sketch</td>
 *       <td>per thread: lock, merge, unlock; then {@code getFrequentItems}, sort, first 100</td></tr>
 *   <tr><td>{@code dataSketchesOneLock}</td><td>one sketch: 18 B x map length</td><td>yes: the reader holds the
 *       writers' lock while it lists</td><td>lock, {@code getFrequentItems}, unlock; sort, first 100</td></tr>
 *   <tr><td>{@code itemsSketchText}</td><td>threads x (14 B x map length + the {@code String} of every live
 *       item)</td><td>no (unlocked)</td><td>merge + {@code getFrequentItems}, once the writers stop</td></tr>
 *   <tr><td>{@code dataSketchesMerge}</td><td>two full sketches + the fresh one per op</td><td>-</td><td>it is the
 *       read</td></tr>
 *   <tr><td>{@code streamSummarySynchronized}</td><td>~112 B per counter + its map table, budget / 32
 *       counters</td><td>yes, under the writers' lock</td><td>{@code topK(100)} under the lock</td></tr>
 *   <tr><td>{@code referenceHeavyKeeper}</td><td>threads x (buckets + heap of k + index + 32 KiB decay
 *       table)</td><td>no</td><td>-</td></tr>
 *   <tr><td>{@code caffeineFrequencySketch}</td><td>the {@code long[]} table: {@code memory}</td><td>no top-k</td>
 *       <td>-</td></tr>
 *   <tr><td>{@code exactMap}</td><td>~72 B per distinct key + table (ignores {@code memory})</td><td>would need a
 *       full scan and sort</td><td>-</td></tr>
 * </table>
 *
 * <p>Size: every contender of the side-by-side tables in one JMH class, so that one run measures them all under the
 * same parameters.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 2, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 3, timeUnit = TimeUnit.SECONDS)
@Fork(value = 2, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"})
public class PeerBenchmark {
    /** Keys in the pre-generated stream (a power of two). */
    static final int STREAM_KEYS = 1 << 22;
    /** Distinct items the stream draws from. */
    static final int DISTINCT = 1_000_000;
    /** Stream seed (the one ObserveBenchmark uses). */
    static final long STREAM_SEED = 0x0b5e_57eaL;
    /** Heavy hitters kept by the top-k peers. */
    static final int K = 100;
    /** Per-thread sketches merged by {@link #dataSketchesMerge}. */
    static final int MERGED_SKETCHES = 2;
    /** Period of the top-k reader of {@link #dataSketchesLive} and {@link #dataSketchesOneLock}. */
    static final long READ_PERIOD_MS = 10;
    /** Text key of an item: this prefix and the item's index, zero-padded to 16 digits: 21 bytes. */
    static final String TEXT_PREFIX = "user:";
    /** Digits of the item index in a text key. */
    static final int TEXT_DIGITS = 16;
    /** Bytes of a text key (all ASCII): Hotkeeper's {@code maxKeyBytes} for them under {@code total} sizing. */
    static final int TEXT_KEY_BYTES = TEXT_PREFIX.length() + TEXT_DIGITS;

    private static final Function<Long, LongAdder> NEW_ADDER = key -> new LongAdder();

    /** The stream and the shared peers of a trial. */
    @State(Scope.Benchmark)
    public static class Workload {
        /** Key distribution over 1,000,000 distinct items. */
        @Param({"zipf0.8", "zipf1.0", "zipf1.2", "uniform"})
        public String stream;

        /** Memory budget in bytes for every sized peer. */
        @Param({"65536", "8388608"})
        public long memory;

        /**
         * How Hotkeeper is fitted to {@link #memory} ({@link PeerSizing.HotkeeperSizing}): {@code total}, every
         * native byte within the budget ({@code Builder.memory}, split for the trial's threads); {@code table},
         * the table alone is the budget ({@code Builder.memoryBytes}), links and key shards on top (the sizing of
         * every {@code PeerBenchmark} figure before 2026-12-05). The other peers ignore it.
         */
        @Param({"total"})
        public String hotkeeperSizing;

        String method;
        long[] keys;
        /** The same stream as boxed keys, one {@code Long} per distinct item. */
        Long[] boxed;
        Hotkeeper hotkeeper;
        StreamSummary<Long> summary;
        final Object lock = new Object();
        ConcurrentHashMap<Long, LongAdder> exact;
        FrequencySketchAccess caffeine;
        FrequentLongsSketch[] mergeInputs;
        /** The stream as text keys (one {@code String} per distinct item, shared by its occurrences). */
        String[] texts;
        /** The stream as the UTF-8 bytes of the text keys (one array per distinct item). */
        byte[][] textBytes;
        LiveDataSketches live;
        LockedSketch oneLock;
        PeriodicReader reader;
        /** The per-thread peers of the trial, registered by each thread's {@link ThreadPeers} for the reports. */
        final Queue<FrequentLongsSketch> threadSketches = new ConcurrentLinkedQueue<>();
        final Queue<FrequentItemsSketch<String>> threadItemsSketches = new ConcurrentLinkedQueue<>();
        final Queue<ReferenceHeavyKeeper> threadReferences = new ConcurrentLinkedQueue<>();

        @Setup(Level.Trial)
        public void setup(BenchmarkParams params) {
            method = params.getBenchmark().substring(params.getBenchmark().lastIndexOf('.') + 1);
            Workloads.Stream s = Workloads.zipfStream(stream, DISTINCT, STREAM_KEYS, STREAM_SEED);
            keys = s.keys();
            int threads = params.getThreads();
            switch (method) {
                case "hotkeeperShared" -> hotkeeper = hotkeeper(false, true, true, 1, threads, Long.BYTES);
                case "hotkeeperText" -> {
                    hotkeeper = hotkeeper(false, true, true, 1, threads, TEXT_KEY_BYTES);
                    texts = texts(s.items());
                }
                case "hotkeeperBytes" -> {
                    hotkeeper = hotkeeper(false, true, true, 1, threads, TEXT_KEY_BYTES);
                    textBytes = textBytes(s.items());
                }
                case "itemsSketchText" -> texts = texts(s.items());
                case "dataSketchesLive" -> {
                    live = new LiveDataSketches(PeerSizing.dataSketchesMaxMapSize(memory));
                    reader = new PeriodicReader(method, live::topK, K, READ_PERIOD_MS);
                    reader.start();
                }
                case "dataSketchesOneLock" -> {
                    oneLock = new LockedSketch(PeerSizing.dataSketchesMaxMapSize(memory), false);
                    reader = new PeriodicReader(method, oneLock::topK, K, READ_PERIOD_MS);
                    reader.start();
                }
                case "hotkeeperSharded" -> hotkeeper = hotkeeper(true, true, true, 1, threads, Long.BYTES);
                case "hotkeeperSharedNoKeys" -> hotkeeper = hotkeeper(false, false, true, 1, threads, Long.BYTES);
                case "hotkeeperShardedNoKeys" -> hotkeeper = hotkeeper(true, false, true, 1, threads, Long.BYTES);
                case "hotkeeperSharedUncombined" ->
                        hotkeeper = hotkeeper(false, true, false, 1, threads, Long.BYTES);
                case "hotkeeperWorkerTables" -> hotkeeper = hotkeeper(false, true, true,
                        Integer.highestOneBit(2 * threads - 1), threads, Long.BYTES);
                case "streamSummarySynchronized" -> {
                    boxed = boxed(s.items());
                    summary = new StreamSummary<>(PeerSizing.spaceSavingCapacity(memory));
                }
                case "exactMap" -> {
                    boxed = boxed(s.items());
                    exact = new ConcurrentHashMap<>();
                }
                case "caffeineFrequencySketch" -> {
                    boxed = boxed(s.items());
                    caffeine = new FrequencySketchAccess(PeerSizing.caffeineMaximumSize(memory));
                }
                case "dataSketchesMerge" -> {
                    mergeInputs = new FrequentLongsSketch[MERGED_SKETCHES];
                    for (int t = 0; t < MERGED_SKETCHES; t++) {
                        mergeInputs[t] = new FrequentLongsSketch(PeerSizing.dataSketchesMaxMapSize(memory));
                        int offset = t * (STREAM_KEYS / MERGED_SKETCHES);
                        for (int i = 0; i < STREAM_KEYS; i++) {
                            mergeInputs[t].update(keys[(offset + i) & (STREAM_KEYS - 1)]);
                        }
                    }
                }
                case "dataSketches", "referenceHeavyKeeper" -> { }
                default -> throw new IllegalStateException("no setup for benchmark method " + method);
            }
        }

        /**
         * Hotkeeper sized by {@link #hotkeeperSizing} ({@link PeerSizing#hotkeeper}). Worker tables > 1 take the
         * builder's default salt for them (per-worker) unless sharded is asked.
         */
        private Hotkeeper hotkeeper(boolean shardedSalt, boolean keyShards, boolean combining, int workerTables,
                                    int threads, int maxKeyBytes) {
            HotkeeperBuilder b = builder(PeerSizing.HotkeeperSizing.of(hotkeeperSizing), memory, threads,
                    maxKeyBytes, shardedSalt, keyShards, combining, workerTables);
            return b.build();
        }

        /** The builder of {@link #hotkeeper}, for {@code PeerSizingTest}. */
        static HotkeeperBuilder builder(PeerSizing.HotkeeperSizing sizing, long memory, int threads,
                                        int maxKeyBytes, boolean shardedSalt, boolean keyShards, boolean combining,
                                        int workerTables) {
            HotkeeperBuilder b = PeerSizing.hotkeeper(sizing, memory, threads, keyShards ? maxKeyBytes : 0)
                    .seed(Workloads.SKETCH_SEED).k(K).keepKeys(keyShards)
                    .combining(combining ? CombiningMode.AUTO : CombiningMode.OFF)
                    .partitioning(Partitioning.perWorker(workerTables));
            if (shardedSalt) {
                b.shardedSalt();
            }
            return b;
        }

        /** Text key of item {@code item}: {@code "user:"} and the index zero-padded to 16 digits. */
        static String textKey(int item) {
            String digits = Integer.toString(item);
            return TEXT_PREFIX + "0".repeat(TEXT_DIGITS - digits.length()) + digits;
        }

        private static String[] texts(int[] items) {
            String[] byItem = new String[DISTINCT];
            for (int i = 0; i < DISTINCT; i++) {
                byItem[i] = textKey(i);
            }
            String[] out = new String[items.length];
            for (int i = 0; i < items.length; i++) {
                out[i] = byItem[items[i]];
            }
            return out;
        }

        private static byte[][] textBytes(int[] items) {
            byte[][] byItem = new byte[DISTINCT][];
            for (int i = 0; i < DISTINCT; i++) {
                byItem[i] = textKey(i).getBytes(StandardCharsets.UTF_8);
            }
            byte[][] out = new byte[items.length][];
            for (int i = 0; i < items.length; i++) {
                out[i] = byItem[items[i]];
            }
            return out;
        }

        private static Long[] boxed(int[] items) {
            Long[] byItem = new Long[DISTINCT];
            for (int i = 0; i < DISTINCT; i++) {
                byItem[i] = Workloads.keyOfItem(i);
            }
            Long[] out = new Long[items.length];
            for (int i = 0; i < items.length; i++) {
                out[i] = byItem[items[i]];
            }
            return out;
        }

        /**
         * Stops the reader, then prints (once per trial, prefixed {@code # peer}) what the reader did, what the
         * peer holds ({@link PeerMemory}) and what one top-k read costs now that the writers have stopped
         * ({@link PeriodicReader#quiescentReadCost}).
         */
        @TearDown(Level.Trial)
        public void tearDown(BenchmarkParams params) {
            String at = String.format(java.util.Locale.ROOT, "(%s, memory=%d, stream=%s, threads=%d%s)", method,
                    memory, stream, params.getThreads(),
                    hotkeeper == null ? "" : ", hotkeeperSizing=" + hotkeeperSizing);
            if (reader != null) {
                reader.stop();
                System.out.println("# peer " + at + " " + reader.summary());
            }
            String held = held();
            if (held != null) {
                System.out.println("# peer " + at + " holds " + held);
            }
            java.util.function.IntFunction<Object[]> read = read();
            if (read != null) {
                System.out.println("# peer " + at + " " + PeriodicReader.quiescentReadCost(read, K));
            }
            if (hotkeeper != null) {
                long nativeBytes = hotkeeper.info().nativeBytes();
                hotkeeper.close();
                if (PeerSizing.HotkeeperSizing.of(hotkeeperSizing) == PeerSizing.HotkeeperSizing.TOTAL
                        && nativeBytes > memory) {
                    throw new IllegalStateException("Hotkeeper held " + nativeBytes + " native bytes, over the "
                            + memory + "-byte budget of hotkeeperSizing=total");
                }
            }
        }

        /** What this trial's peer holds, or null (the merge benchmark). */
        private String held() {
            return switch (method) {
                case "dataSketches" -> PeerMemory.longsSketches("DataSketches, unlocked per thread", threadSketches);
                case "dataSketchesLive" -> PeerMemory.longsSketches("DataSketches, locked per thread",
                        live.sketches().stream().map(LockedSketch::sketch).toList());
                case "dataSketchesOneLock" -> PeerMemory.longsSketches("DataSketches, one locked sketch",
                        java.util.List.of(oneLock.sketch()));
                case "itemsSketchText" -> PeerMemory.itemsSketches("DataSketches FrequentItemsSketch<String>",
                        threadItemsSketches);
                case "referenceHeavyKeeper" -> PeerMemory.referenceHeavyKeeper(threadReferences);
                case "streamSummarySynchronized" -> PeerMemory.streamSummary(summary);
                case "exactMap" -> PeerMemory.exactMap(exact);
                case "caffeineFrequencySketch" -> PeerMemory.caffeine(caffeine.tableBytes());
                default -> hotkeeper == null ? null : PeerMemory.hotkeeper(hotkeeper);
            };
        }

        /** One top-k read of this trial's peer, or null where it has none (or not from this state). */
        private java.util.function.IntFunction<Object[]> read() {
            if (hotkeeper != null) {
                // Without key shards Hotkeeper answers estimate(key) only, no top-k.
                return hotkeeper.info().keepsKeys() ? n -> hotkeeper.topK(n).toArray() : null;
            }
            return switch (method) {
                case "dataSketches" -> n -> {
                    FrequentLongsSketch merged = new FrequentLongsSketch(PeerSizing.dataSketchesMaxMapSize(memory));
                    threadSketches.forEach(merged::merge);
                    return LockedSketch.top(merged.getFrequentItems(ErrorType.NO_FALSE_NEGATIVES), n);
                };
                case "itemsSketchText" -> n -> {
                    FrequentItemsSketch<String> merged =
                            new FrequentItemsSketch<>(PeerSizing.dataSketchesMaxMapSize(memory));
                    threadItemsSketches.forEach(merged::merge);
                    FrequentItemsSketch.Row<String>[] rows = merged.getFrequentItems(ErrorType.NO_FALSE_NEGATIVES);
                    java.util.Arrays.sort(rows, java.util.Comparator.comparingLong(
                            (FrequentItemsSketch.Row<String> r) -> r.getEstimate()).reversed());
                    return rows.length <= n ? rows : java.util.Arrays.copyOf(rows, n);
                };
                case "dataSketchesLive" -> live::topK;
                case "dataSketchesOneLock" -> oneLock::topK;
                case "streamSummarySynchronized" -> n -> {
                    synchronized (lock) {
                        return summary.topK(n).toArray();
                    }
                };
                default -> null;
            };
        }
    }

    /** A thread's position in the stream; threads start at evenly spaced offsets. */
    @State(Scope.Thread)
    public static class Cursor {
        int next;
        final int mask = STREAM_KEYS - 1;

        @Setup(Level.Trial)
        public void setup(ThreadParams threads) {
            next = (int) ((long) threads.getThreadIndex() * STREAM_KEYS / threads.getThreadCount());
        }

        int next() {
            int i = next & mask;
            next = i + 1;
            return i;
        }
    }

    /** The single-threaded peers, one instance per benchmark thread. */
    @State(Scope.Thread)
    public static class ThreadPeers {
        FrequentLongsSketch sketch;
        LockedSketch live;
        FrequentItemsSketch<String> items;
        ReferenceHeavyKeeper reference;

        /** Creates this thread's peer and registers it with the trial's {@link Workload}. */
        @Setup(Level.Trial)
        public void setup(Workload w) {
            int maxMapSize = PeerSizing.dataSketchesMaxMapSize(w.memory);
            switch (w.method) {
                case "dataSketches" -> {
                    sketch = new FrequentLongsSketch(maxMapSize);
                    w.threadSketches.add(sketch);
                }
                case "dataSketchesLive" -> live = w.live.register();
                case "itemsSketchText" -> {
                    items = new FrequentItemsSketch<>(maxMapSize);
                    w.threadItemsSketches.add(items);
                }
                case "referenceHeavyKeeper" -> {
                    reference = new ReferenceHeavyKeeper(w.memory, 2, ReferenceHeavyKeeper.PAPER_BASE, K,
                            Workloads.SKETCH_SEED);
                    w.threadReferences.add(reference);
                }
                default -> { }
            }
        }
    }

    /** Hotkeeper, shared salt, key shards on (the default configuration). */
    @Benchmark
    public long hotkeeperShared(Workload w, Cursor c) {
        return w.hotkeeper.observe(w.keys[c.next()]);
    }

    /** Hotkeeper, sharded salt, key shards on. */
    @Benchmark
    public long hotkeeperSharded(Workload w, Cursor c) {
        return w.hotkeeper.observe(w.keys[c.next()]);
    }

    /** Hotkeeper, shared salt, key shards on, hot-key combining off (every observation writes the table). */
    @Benchmark
    public long hotkeeperSharedUncombined(Workload w, Cursor c) {
        return w.hotkeeper.observe(w.keys[c.next()]);
    }

    /**
     * Hotkeeper with one table per thread ({@code Builder.workerTables}, the thread count rounded up to a power of
     * two; per-worker salt, key shards on): the per-thread-sketch design with the merge built into
     * {@code estimate} and {@code topK}. At {@code -t 1} it is one table, the default configuration.
     */
    @Benchmark
    public long hotkeeperWorkerTables(Workload w, Cursor c) {
        return w.hotkeeper.observe(w.keys[c.next()]);
    }

    /** Hotkeeper, shared salt, no key shards. */
    @Benchmark
    public long hotkeeperSharedNoKeys(Workload w, Cursor c) {
        return w.hotkeeper.observe(w.keys[c.next()]);
    }

    /** Hotkeeper, sharded salt, no key shards. */
    @Benchmark
    public long hotkeeperShardedNoKeys(Workload w, Cursor c) {
        return w.hotkeeper.observe(w.keys[c.next()]);
    }

    /**
     * DataSketches Misra-Gries, one unlocked sketch per thread: the upper bound of update throughput, with no
     * query (nothing can read these sketches while their writers run).
     */
    @Benchmark
    public void dataSketches(ThreadPeers p, Workload w, Cursor c) {
        p.sketch.update(w.keys[c.next()]);
    }

    /**
     * DataSketches Misra-Gries, one sketch per thread, each under its own fair lock, while a reader thread merges
     * them into a fresh sketch and lists the top 100 every 10 ms ({@link LiveDataSketches}).
     */
    @Benchmark
    public void dataSketchesLive(ThreadPeers p, Workload w, Cursor c) {
        p.live.update(w.keys[c.next()]);
    }

    /** DataSketches Misra-Gries, one sketch under one shared lock, read (top 100) every 10 ms under that lock. */
    @Benchmark
    public void dataSketchesOneLock(Workload w, Cursor c) {
        w.oneLock.update(w.keys[c.next()]);
    }

    /** Hotkeeper (default configuration) on the text keys: {@code observe(CharSequence)} of a {@code String}. */
    @Benchmark
    public long hotkeeperText(Workload w, Cursor c) {
        return w.hotkeeper.observe(w.texts[c.next()]);
    }

    /** Hotkeeper (default configuration) on the text keys' UTF-8 bytes: {@code observe(byte[])}. */
    @Benchmark
    public long hotkeeperBytes(Workload w, Cursor c) {
        return w.hotkeeper.observe(w.textBytes[c.next()]);
    }

    /** DataSketches {@code FrequentItemsSketch<String>} on the text keys, one unlocked sketch per thread. */
    @Benchmark
    public void itemsSketchText(ThreadPeers p, Workload w, Cursor c) {
        p.items.update(w.texts[c.next()]);
    }

    /** The query-time merge of two per-thread DataSketches sketches, with the frequent-items listing. */
    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public FrequentLongsSketch.Row[] dataSketchesMerge(Workload w) {
        FrequentLongsSketch merged = new FrequentLongsSketch(PeerSizing.dataSketchesMaxMapSize(w.memory));
        for (FrequentLongsSketch s : w.mergeInputs) {
            merged.merge(s);
        }
        return merged.getFrequentItems(ErrorType.NO_FALSE_NEGATIVES);
    }

    /** stream-lib Space-Saving under one lock. */
    @Benchmark
    public boolean streamSummarySynchronized(Workload w, Cursor c) {
        Long key = w.boxed[c.next()];
        synchronized (w.lock) {
            return w.summary.offer(key);
        }
    }

    /** Exact counting. */
    @Benchmark
    public void exactMap(Workload w, Cursor c) {
        w.exact.computeIfAbsent(w.boxed[c.next()], NEW_ADDER).increment();
    }

    /** Caffeine's frequency sketch, increment only. */
    @Benchmark
    public void caffeineFrequencySketch(Workload w, Cursor c) {
        w.caffeine.increment(w.boxed[c.next()]);
    }

    /** The paper's HeavyKeeper, sequential, one per thread. */
    @Benchmark
    public void referenceHeavyKeeper(ThreadPeers p, Workload w, Cursor c) {
        p.reference.observe(w.keys[c.next()]);
    }
}
