package io.hotkeeper.bench;

import io.hotkeeper.engine.CombiningMode;
import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.hash.KeyHasher;
import io.hotkeeper.engine.worker.Workers;

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

import java.util.concurrent.TimeUnit;

/**
 * Where one observation's time goes, one layer at a time, on the same stream and table size as
 * {@link PeerBenchmark} (docs/performance.md, "The cost of one observation"). Each method adds one layer to
 * the one before; the differences between them are the layers' costs.
 *
 * <pre>
 * taskset -c 0 java -jar bench/target/benchmarks.jar CostBreakdownBenchmark -p stream=zipf1.0,zipf3.0,uniform
 * </pre>
 *
 * <ul>
 *   <li>{@code hash}: {@code KeyHasher.hash(long)} of the next key.</li>
 *   <li>{@code lookup}: the worker lookup an observation pays when it needs per-worker state
 *       ({@code Workers.current()}: a thread-local read), plus the hash.</li>
 *   <li>{@code scan}: {@code estimate}: the hash and a read-only scan of the key's bucket.</li>
 *   <li>{@code table}: {@code observe} with key shards and combining off and stats off: hash, scan, the refresh /
 *       claim CAS or the lottery.</li>
 *   <li>{@code tableStats}: the same with {@code recordStats()}: the worker lookup and a stats-stripe write per
 *       observation.</li>
 *   <li>{@code full}: {@code observe} with the defaults (key shards on: promotions and hand-offs; combining
 *       {@code AUTO}, which stays off at one thread).</li>
 * </ul>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED",
        "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED"})
public class CostBreakdownBenchmark {
    private static final int STREAM_KEYS = 1 << 22;

    /** The stream and one sketch per configuration, for one thread. */
    @State(Scope.Thread)
    public static class Layers {
        @Param({"zipf1.0", "zipf3.0", "uniform"})
        public String stream;

        @Param({"65536"})
        public long memory;

        long[] keys;
        int next;
        KeyHasher hasher;
        Hotkeeper table;
        Hotkeeper tableStats;
        Hotkeeper full;

        @Setup(Level.Trial)
        public void setup() {
            keys = Workloads.zipfStream(stream, 1_000_000, STREAM_KEYS, 42).keys();
            hasher = KeyHasher.seeded(7);
            table = Hotkeeper.builder().memoryBytes(memory).seed(7).keepKeys(false)
                    .combining(CombiningMode.OFF).build();
            tableStats = Hotkeeper.builder().memoryBytes(memory).seed(7).keepKeys(false)
                    .combining(CombiningMode.OFF).recordStats().build();
            full = Hotkeeper.builder().memoryBytes(memory).seed(7).build();
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            table.close();
            tableStats.close();
            full.close();
        }

        long key() {
            int i = next & (STREAM_KEYS - 1);
            next = i + 1;
            return keys[i];
        }
    }

    @Benchmark
    public long hash(Layers l) {
        return l.hasher.hash(l.key());
    }

    @Benchmark
    public long lookup(Layers l) {
        return l.hasher.hash(l.key()) + Workers.current();
    }

    @Benchmark
    public long scan(Layers l) {
        return l.table.estimate(l.key());
    }

    @Benchmark
    public long table(Layers l) {
        return l.table.observe(l.key());
    }

    @Benchmark
    public long tableStats(Layers l) {
        return l.tableStats.observe(l.key());
    }

    @Benchmark
    public long full(Layers l) {
        return l.full.observe(l.key());
    }
}
