package io.hotkeeper.bench;

import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.HotkeeperBuilder;
import io.hotkeeper.micrometer.HotkeeperMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jdk.jfr.Recording;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.ThreadParams;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Full {@link Hotkeeper#observe(long)} (hash, bucket scan, refresh / claim / eviction lottery, stats) on a
 * production-size table: the demand side of the salt decision (docs/decisions/salt.md §3 "context measurement",
 * {@code BenchmarkSketch_Observe_Parallel}).
 *
 * <pre>
 * java -jar bench/target/benchmarks.jar 'ObserveBenchmark\.observe$' -t 4
 * bench/sweep 'ObserveBenchmark\.observe$'
 * # allocation proof for every key type (expect gc.alloc.rate.norm ~ 0 B/op):
 * java -jar bench/target/benchmarks.jar ObserveBenchmark -prof gc -p memory=65536 -p stream=zipf1.0 -p salt=shared
 * </pre>
 *
 * <h2>What it measures</h2>
 * One op is one observe of the next key of a pre-generated stream; score is ops/us summed over all {@code -t}
 * threads (system-wide observes per microsecond).
 *
 * <h2>Parameters</h2>
 * <ul>
 *   <li>{@code memory}: table bytes. 65536 (1,024 buckets, the default size, L1/L2-resident) and 8388608
 *       (131,072 buckets, 8 MiB: past L2, at or past the LLC of small machines, so memory-bound).</li>
 *   <li>{@code stream}: 2^22 keys drawn once per trial from {@code ZipfKeys} over 1,000,000 distinct items with
 *       exponent 1.0 or 1.2, or uniform (exponent 0). Each thread starts at offset
 *       {@code threadIndex * 2^22 / threads} and walks the array with a power-of-two mask.</li>
 *   <li>{@code salt}: {@code shared} (default) or {@code sharded} with the builder's default shard count,
 *       {@code SaltLayout.shardsFor(availableProcessors)}: under {@code taskset -c 0-(t-1)} the forked JVM sees
 *       {@code t} processors, so the shard count follows the pinned core count, as it would in production.</li>
 *   <li>{@code observer}: what reads the sketch while it is observed (docs/operations.md): {@code none} (the
 *       default, an unnamed sketch), {@code named} (named, so its JFR hook is registered, but no recording),
 *       {@code jfr} (named, and a {@link Recording} with {@code io.hotkeeper.HotKey} enabled at its default
 *       1 s period runs during the trial), {@code micrometer} ({@code HotkeeperMetrics} with k = 100 bound to a
 *       {@code SimpleMeterRegistry}, refreshing every second on its thread). The claim to check is that none of
 *       them changes the score beyond the noise: they read from other threads and never touch the observe path.
 *       <pre>
 * taskset -c 0 java -jar bench/target/benchmarks.jar 'ObserveBenchmark\.observe$' -f 1 -wi 2 -i 3 -r 1 \
 *     -p memory=65536 -p stream=zipf1.0 -p salt=shared -p observer=none,jfr,micrometer
 *       </pre>
 *       (run it twice for an alternation: JMH runs one parameter value after the other).</li>
 * </ul>
 * The sketch starts empty each trial and fills during warmup; its hash seed is fixed so runs are comparable.
 *
 * <h2>Key types</h2>
 * {@link #observe} takes a {@code long}; {@link #observeCharSequence}, {@link #observeBytes} and
 * {@link #observeSegment} take the same stream as 21-byte ASCII keys {@code "key-" + 16 hex digits + "#"}
 * pre-built per distinct item (a {@code String}, a {@code byte[]}, a slice of one native segment given as
 * offset and length). Their job is to show, with {@code -prof gc}, that no overload allocates.
 *
 * <h2>Seen (smoke run only, not a measurement)</h2>
 * 2-core AMD EPYC container under other load, smoke settings, t=1, shared: 64 KiB zipf1.0 / zipf1.2 / uniform
 * 16.8 / 22.0 / 12.1 ops/us, 8 MiB 15.3 / 18.5 / 4.8; text keys (64 KiB, zipf1.0) 4.3 / 4.6 / 5.0 for
 * CharSequence / byte[] / MemorySegment; gc.alloc.rate.norm 0.001..0.004 B/op for every overload (JMH's own
 * noise: nothing is allocated). Final figures come from the defaults below through bench/sweep.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 2, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 3, timeUnit = TimeUnit.SECONDS)
@Fork(value = 2, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"})
public class ObserveBenchmark {
    /** Keys in the pre-generated stream (a power of two). */
    static final int STREAM_KEYS = 1 << 22;
    /** Distinct items the Zipf stream draws from. */
    static final int DISTINCT = 1_000_000;
    /** Keys per {@link #observeAll} call. */
    static final int BATCH = 256;
    /** Seed of the key streams. */
    static final long STREAM_SEED = 0x0b5e_57eaL;
    /** Bytes of a text key. */
    static final int TEXT_KEY_BYTES = 21;
    /** Stride of a text key in the native key segment. */
    static final int SEGMENT_STRIDE = 32;

    /** The sketch and the key stream, shared by all threads of a trial. */
    @State(Scope.Benchmark)
    public static class Workload {
        /** Table bytes. */
        @Param({"65536", "8388608"})
        public long memory;

        /** Key distribution: zipf1.0, zipf1.2 or uniform, over 1,000,000 distinct items. */
        @Param({"zipf1.0", "zipf1.2", "uniform"})
        public String stream;

        /** Eviction salt: shared, sharded or perWorker. */
        @Param({"shared", "sharded", "perWorker"})
        public String salt;

        /** Key shards (real keys for topK): on (the default) or off; {@code -p keyShards=on,off} compares. */
        @Param({"on"})
        public String keyShards;

        /** Approximate counting from 2^approx on; 0 (the default) counts exactly; {@code -p approx=0,14}. */
        @Param({"0"})
        public int approx;

        /** Hot-key combining: auto (the default), on or off; {@code -p combine=auto,on,off} compares. */
        @Param({"auto"})
        public String combine;

        /**
         * Worker tables (1: one shared table, the default; 2, 4, ...: {@code Builder.workerTables}); with them
         * {@code -p salt=default} takes the builder's per-worker salt.
         */
        @Param({"1"})
        public int workerTables;

        /** NUMA placement of the table: default, local, interleave, node:N; {@code -p placement=local,interleave}. */
        @Param({"default"})
        public String placement;

        /** What reads the sketch meanwhile: none, named, jfr or micrometer (see the class javadoc). */
        @Param({"none"})
        public String observer;

        Hotkeeper sketch;
        /** The stream as long keys (for {@link #observe}). */
        long[] keys;
        /** The stream as item indexes 0..DISTINCT-1 (for the text-key methods). */
        int[] items;
        String[] strings;
        byte[][] bytes;
        Arena keyArena;
        MemorySegment segment;
        /** The recording of {@code observer=jfr}. */
        Recording recording;
        /** The binder of {@code observer=micrometer}. */
        HotkeeperMetrics metrics;

        @Setup(Level.Trial)
        public void setup(BenchmarkParams params) {
            HotkeeperBuilder builder = Workloads.builder(memory, salt, keyShards.equals("on"), approx, placement,
                    combine, workerTables);
            switch (observer) {
                case "none", "micrometer" -> { }
                case "named", "jfr" -> builder.name("bench");
                default -> throw new IllegalArgumentException("observer=" + observer
                        + ": must be none, named, jfr or micrometer");
            }
            sketch = builder.build();
            if (observer.equals("jfr")) {
                recording = new Recording();
                recording.enable("io.hotkeeper.HotKey").withPeriod(java.time.Duration.ofSeconds(1));
                recording.start();
            } else if (observer.equals("micrometer")) {
                metrics = new HotkeeperMetrics(sketch, "bench", 100);
                metrics.bindTo(new SimpleMeterRegistry());
            }
            Workloads.Stream s = Workloads.zipfStream(stream, DISTINCT, STREAM_KEYS, STREAM_SEED);
            String method = params.getBenchmark().substring(params.getBenchmark().lastIndexOf('.') + 1);
            switch (method) {
                case "observe", "observeAll" -> keys = s.keys();
                case "observeCharSequence" -> {
                    items = s.items();
                    strings = new String[DISTINCT];
                    for (int i = 0; i < DISTINCT; i++) {
                        strings[i] = textKey(i);
                    }
                }
                case "observeBytes" -> {
                    items = s.items();
                    bytes = new byte[DISTINCT][];
                    for (int i = 0; i < DISTINCT; i++) {
                        bytes[i] = textKey(i).getBytes(StandardCharsets.US_ASCII);
                    }
                }
                case "observeSegment" -> {
                    items = s.items();
                    keyArena = Arena.ofShared();
                    segment = keyArena.allocate((long) DISTINCT * SEGMENT_STRIDE, 8);
                    for (int i = 0; i < DISTINCT; i++) {
                        byte[] b = textKey(i).getBytes(StandardCharsets.US_ASCII);
                        MemorySegment.copy(b, 0, segment, ValueLayout.JAVA_BYTE, (long) i * SEGMENT_STRIDE, b.length);
                    }
                }
                default -> throw new IllegalStateException("no key setup for benchmark method " + method);
            }
        }

        /** The text form of item {@code i}: 21 ASCII bytes. */
        static String textKey(int i) {
            return "key-" + java.util.HexFormat.of().toHexDigits(Workloads.keyOfItem(i)) + "#";
        }

        /** Length of the pre-generated stream (a power of two). */
        int streamLength() {
            return keys != null ? keys.length : items.length;
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            if (recording != null) {
                recording.close();
            }
            if (metrics != null) {
                metrics.close();
            }
            sketch.close();
            if (keyArena != null) {
                keyArena.close();
            }
        }
    }

    /** A thread's position in the stream; threads start at evenly spaced offsets. */
    @State(Scope.Thread)
    public static class Cursor {
        int next;
        int mask;

        @Setup(Level.Trial)
        public void setup(Workload workload, ThreadParams threads) {
            int length = workload.streamLength();
            mask = length - 1;
            next = (int) ((long) threads.getThreadIndex() * length / threads.getThreadCount());
        }

        int next() {
            int i = next & mask;
            next = i + 1;
            return i;
        }

        /** The start of the next {@code n} consecutive keys ({@code n} divides the stream length). */
        int nextBatch(int n) {
            int i = next & mask & -n;
            next = i + n;
            return i;
        }
    }

    /** One observe of a {@code long} key. */
    @Benchmark
    public long observe(Workload w, Cursor c) {
        return w.sketch.observe(w.keys[c.next()]);
    }

    /** {@link #BATCH} keys through {@code observeAll(long[], int, int)}; the score is per key. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void observeAll(Workload w, Cursor c) {
        int from = c.nextBatch(BATCH);
        w.sketch.observeAll(w.keys, from, from + BATCH);
    }

    /** One observe of a {@code String} key through {@code observe(CharSequence)}. */
    @Benchmark
    public long observeCharSequence(Workload w, Cursor c) {
        return w.sketch.observe(w.strings[w.items[c.next()]]);
    }

    /** One observe of a {@code byte[]} key. */
    @Benchmark
    public long observeBytes(Workload w, Cursor c) {
        return w.sketch.observe(w.bytes[w.items[c.next()]]);
    }

    /** One observe of a key held in native memory, through {@code observe(MemorySegment, offset, length)}. */
    @Benchmark
    public long observeSegment(Workload w, Cursor c) {
        return w.sketch.observe(w.segment, (long) w.items[c.next()] * SEGMENT_STRIDE, TEXT_KEY_BYTES);
    }
}
