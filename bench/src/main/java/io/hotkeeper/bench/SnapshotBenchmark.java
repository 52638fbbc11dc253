package io.hotkeeper.bench;

import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.snapshot.HotkeeperSnapshot;
import io.hotkeeper.engine.snapshot.MergeReport;
import io.hotkeeper.engine.workload.ZipfKeys;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Snapshots of a 1 MiB instance (131,072 slots; 4M Zipf 1.0 keys over 1M items, seeds fixed): taking one
 * ({@code snapshot}), encoding it ({@code toBytes}), reading one back and merging it with another by table
 * ({@code readAndMergeSnapshots}: one image read and merged slot by slot with a snapshot in memory), and reading one and merging it into a
 * live instance of the same seed ({@code readAndMergeIntoInstance}, the instance reset before each call).
 * Targets (issue #15): snapshot <= 5 ms, read + merge <= 10 ms.
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar SnapshotBenchmark}; results in docs/format.md.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
    "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED"})
@State(Scope.Thread)
public class SnapshotBenchmark {
    static final long MEMORY = 1L << 20;

    Hotkeeper source;
    Hotkeeper target;
    byte[] imageA;
    /** The snapshot a read image is merged with (say, the running merge of earlier images). */
    HotkeeperSnapshot snapshotB;

    @Setup(Level.Trial)
    public void setup() {
        ZipfKeys zipf = new ZipfKeys(1_000_000, 1.0);
        source = Hotkeeper.builder().memoryBytes(MEMORY).seed(7).recordStats().build();
        source.observeAll(zipf.keys(4_000_000, 42));
        imageA = source.snapshot().toBytes();
        try (Hotkeeper other = Hotkeeper.builder().memoryBytes(MEMORY).seed(7).recordStats().build()) {
            other.observeAll(zipf.keys(4_000_000, 43));
            snapshotB = other.snapshot();
        }
        target = Hotkeeper.builder().memoryBytes(MEMORY).seed(7).recordStats().build();
    }

    @Setup(Level.Invocation)
    public void emptyTarget() {
        target.reset();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        source.close();
        target.close();
    }

    @Benchmark
    public HotkeeperSnapshot snapshot() {
        return source.snapshot();
    }

    @Benchmark
    public byte[] toBytes() {
        return source.snapshot().toBytes();
    }

    @Benchmark
    public HotkeeperSnapshot readAndMergeSnapshots() {
        return HotkeeperSnapshot.merge(HotkeeperSnapshot.read(imageA), snapshotB);
    }

    @Benchmark
    public MergeReport readAndMergeIntoInstance() {
        return target.merge(HotkeeperSnapshot.read(imageA));
    }
}
