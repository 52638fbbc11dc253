package io.hotkeeper.bench;

import io.hotkeeper.engine.HeavyHitter;
import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.Partitioning;
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

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Latency of {@code topK(n)} on tables filled from a Zipf 1.0 stream (4M keys over 1M distinct). {@code shared}:
 * one table, a walk over its key shards' live entries, then one validated key copy per reported key; the issue's
 * bound: {@code topK(100)} on a 1 MiB table in at most 100 us. {@code perWorker2} (two worker tables, each filled
 * by one of two threads alive together, alternate items) and {@code window2} (a window of two slices, the first
 * half of the stream in one, the second in the other, on a clock that then stands still): the several-table query,
 * which estimates every distinct key held by any table's shards by its sum over the tables (see
 * {@code Hotkeeper.topK}).
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar TopKBenchmark}
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
        "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED"})
@State(Scope.Benchmark)
public class TopKBenchmark {
    /** Table bytes. */
    @Param({"65536", "1048576"})
    public long memory;

    /** Keys asked for. */
    @Param({"100"})
    public int n;

    /** The tables: shared (one), perWorker2 (two worker tables) or window2 (two time slices). */
    @Param({"shared", "perWorker2", "window2"})
    public String tables;

    Hotkeeper sketch;

    @Setup(Level.Trial)
    public void setup() throws InterruptedException {
        long[] keys = Workloads.zipfStream("zipf1.0", ObserveBenchmark.DISTINCT, 1 << 22, 7).keys();
        switch (tables) {
            case "shared" -> {
                sketch = Workloads.sketch(memory, "shared");
                for (long key : keys) {
                    sketch.observe(key);
                }
            }
            case "perWorker2" -> {
                sketch = Workloads.sketch(memory, "default", true, 0, "default", "auto", 2);
                // Two threads alive together hold two consecutive worker ids: one table each.
                CyclicBarrier alive = new CyclicBarrier(2);
                Thread[] workers = new Thread[2];
                for (int t = 0; t < workers.length; t++) {
                    int first = t;
                    workers[t] = Thread.ofPlatform().start(() -> {
                        await(alive);
                        for (int i = first; i < keys.length; i += 2) {
                            sketch.observe(keys[i]);
                        }
                        await(alive);
                    });
                }
                for (Thread w : workers) {
                    w.join();
                }
            }
            case "window2" -> {
                AtomicLong now = new AtomicLong(1_000_000_000_000L);
                sketch = Hotkeeper.builder().memoryBytes(memory).seed(Workloads.SKETCH_SEED)
                        .partitioning(Partitioning.window(Duration.ofSeconds(2), 2)).clock(now::get).build();
                for (int i = 0; i < keys.length; i++) {
                    if (i == keys.length / 2) {
                        now.addAndGet(1_000_000_000L); // the second slice
                    }
                    sketch.observe(keys[i]);
                }
            }
            default -> throw new IllegalArgumentException("tables=" + tables);
        }
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        sketch.close();
    }

    /** One top-k query. */
    @Benchmark
    public List<HeavyHitter> topK() {
        return sketch.topK(n);
    }

    /**
     * One {@code contains} of the heaviest key (k = 100, the default): one table, its slot and the k-th tracked
     * count; several tables, the ranking of {@code topK(k)}.
     */
    @Benchmark
    public boolean contains() {
        return sketch.contains(HEAVIEST);
    }

    private static final long HEAVIEST = Workloads.keyOfItem(0);
}
