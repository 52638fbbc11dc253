package io.hotkeeper.bench;

import io.hotkeeper.engine.CombiningMode;
import io.hotkeeper.engine.Hotkeeper;

import com.clearspring.analytics.stream.StreamSummary;
import com.github.benmanes.caffeine.cache.FrequencySketchAccess;
import org.apache.datasketches.frequencies.ErrorType;
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

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * Update throughput of Hotkeeper against its peers on the same key streams, in one run (docs/peers.md).
 *
 * <pre>
 * # everything, 1 and 2 threads (the thread-safe peers; see "Threads" for which methods mean what at -t 2):
 * java -jar bench/target/benchmarks.jar PeerBenchmark -t 1
 * java -jar bench/target/benchmarks.jar 'PeerBenchmark\.(hotkeeper.*|dataSketches|streamSummarySynchronized|exactMap)$' -t 2
 * bench/sweep 'PeerBenchmark' --threads 1,2
 * # the smoke run of docs/peers.md:
 * java -jar bench/target/benchmarks.jar 'PeerBenchmark\.[a-zA-Z]+$' -f 1 -wi 1 -i 2 -w 1s -r 1s \
 *     -p memory=65536 -p stream=zipf1.0,zipf1.2 -t 1
 * </pre>
 *
 * <h2>What it measures</h2>
 * One op is one update with the next key of a pre-generated stream (2^22 keys from {@code ZipfKeys} over
 * 1,000,000 distinct items, exponent 0.8, 1.0, 1.2, or uniform); score is ops/us summed over all {@code -t}
 * threads. Each thread starts at offset {@code threadIndex * 2^22 / threads}. The object-keyed peers get keys
 * boxed once per distinct item in setup, so no op allocates a {@code Long}. Every peer starts empty each trial
 * and fills during warmup. {@link #dataSketchesMerge} is the exception: average time of one query-time merge.
 *
 * <h2>Peers (sizes from {@link PeerSizing} for the {@code memory} budget)</h2>
 * <ul>
 *   <li>{@code hotkeeperShared}, {@code hotkeeperSharded}: {@link Hotkeeper#observe(long)} with the shared or the
 *       sharded eviction salt; {@code ...NoKeys}: the same with {@code Builder.keyShards(false)} (no key shards,
 *       so no promotions: {@code estimate} only); {@code hotkeeperSharedUncombined}: shared salt and key shards
 *       with {@code Builder.combining(CombiningMode.OFF)} (every observation writes the shared table; the others use
 *       the default, {@code AUTO}); {@code hotkeeperWorkerTables}: one table per thread
 *       ({@code Builder.workerTables}: no table line written by two cores; estimates and topK merge the
 *       tables), the per-worker salt, key shards on.</li>
 *   <li>{@code dataSketches}: DataSketches {@code FrequentLongsSketch.update}, one sketch per thread
 *       ({@code Scope.Thread}): at {@code -t 1} the plain single-threaded sketch, at {@code -t 2} the per-thread
 *       update throughput of "per-thread sketches merged at query time".</li>
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

        @Setup(Level.Trial)
        public void setup(BenchmarkParams params) {
            method = params.getBenchmark().substring(params.getBenchmark().lastIndexOf('.') + 1);
            Workloads.Stream s = Workloads.zipfStream(stream, DISTINCT, STREAM_KEYS, STREAM_SEED);
            keys = s.keys();
            switch (method) {
                case "hotkeeperShared" -> hotkeeper = hotkeeper(false, true, true, 1);
                case "hotkeeperSharded" -> hotkeeper = hotkeeper(true, true, true, 1);
                case "hotkeeperSharedNoKeys" -> hotkeeper = hotkeeper(false, false, true, 1);
                case "hotkeeperShardedNoKeys" -> hotkeeper = hotkeeper(true, false, true, 1);
                case "hotkeeperSharedUncombined" -> hotkeeper = hotkeeper(false, true, false, 1);
                case "hotkeeperWorkerTables" -> hotkeeper = hotkeeper(false, true, true,
                        Integer.highestOneBit(2 * params.getThreads() - 1));
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

        /** Worker tables > 1 take the builder's default salt for them (per-worker) unless sharded is asked. */
        private Hotkeeper hotkeeper(boolean shardedSalt, boolean keyShards, boolean combining, int workerTables) {
            Hotkeeper.Builder b = Hotkeeper.builder().memoryBytes(memory).seed(Workloads.SKETCH_SEED).k(K)
                    .keyShards(keyShards).combining(combining ? CombiningMode.AUTO : CombiningMode.OFF)
                    .workerTables(workerTables);
            if (shardedSalt) {
                b.shardedSalt();
            }
            return b.build();
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

        @TearDown(Level.Trial)
        public void tearDown() {
            if (hotkeeper != null) {
                hotkeeper.close();
            }
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
        ReferenceHeavyKeeper reference;

        @Setup(Level.Trial)
        public void setup(Workload w) {
            switch (w.method) {
                case "dataSketches" -> sketch = new FrequentLongsSketch(PeerSizing.dataSketchesMaxMapSize(w.memory));
                case "referenceHeavyKeeper" -> reference = new ReferenceHeavyKeeper(w.memory, 2,
                        ReferenceHeavyKeeper.PAPER_BASE, K, Workloads.SKETCH_SEED);
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

    /** DataSketches Misra-Gries, one sketch per thread. */
    @Benchmark
    public void dataSketches(ThreadPeers p, Workload w, Cursor c) {
        p.sketch.update(w.keys[c.next()]);
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
