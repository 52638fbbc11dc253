package io.hotkeeper.bench;

import io.hotkeeper.engine.HeavyHitter;
import io.hotkeeper.engine.Hotkeeper;
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

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Latency of {@code topK(n)} on a table filled from a Zipf 1.0 stream (4M keys over 1M distinct): a scan of every
 * slot word, then one validated key copy per reported key. The bound: {@code topK(100)} on a 1 MiB table
 * in at most 100 us.
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

    Hotkeeper sketch;

    @Setup(Level.Trial)
    public void setup() {
        sketch = Workloads.sketch(memory, "shared");
        for (long key : Workloads.zipfStream("zipf1.0", ObserveBenchmark.DISTINCT, 1 << 22, 7).keys()) {
            sketch.observe(key);
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
}
