package io.hotkeeper.cli;

import io.hotkeeper.bench.PeerSizing;
import io.hotkeeper.engine.CombiningMode;
import io.hotkeeper.engine.Partitioning;
import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.HotkeeperBuilder;
import io.hotkeeper.engine.hash.KeyHasher;
import io.hotkeeper.engine.workload.ZipfKeys;

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

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * {@code hotkeeper top}'s ingest of a file, warm, one layer at a time (docs/cli.md, "Where the time goes"). The
 * file is the one of docs/cli.md's measurements, written to a temporary file and read from the page cache: 3,125,000
 * lines {@code user-NNNNNNNNNN} (16 bytes with the LF), Zipf(1.0) over 1,000,000 distinct keys, 50,000,000 bytes.
 * One operation is one pass over the whole file; keys per second = 3,125,000 / (seconds per op).
 *
 * <ul>
 *   <li>{@code scan}: the newlines found eight bytes at a time ({@link LineScanner#indexOfNewline}) over the
 *       mapping, nothing else.</li>
 *   <li>{@code scanFreshMapping}, {@code scanRead}: the same newlines over a mapping made afresh each pass, and
 *       over positional reads into a reused buffer (docs/cli.md, "Files: read, not mapped").</li>
 *   <li>{@code hash}: the same plus the engine's {@code KeyHasher.hash(segment, offset, length)} of every line.</li>
 *   <li>{@code peerDataSketches}: the same plus DataSketches' {@code FrequentLongsSketch} update of each hash,
 *       at the same budget: the peer's cost for the same lines.</li>
 *   <li>{@code ingest}: what {@code top} runs: {@link Ingest} cuts the file into line-aligned ranges, its
 *       {@code threads} workers read them into their own buffers and observe every line into a sketch built as
 *       the CLI builds it ({@code memory}, 4 MiB by default, k 100,
 *       256-byte keys, the fixed seed; a table per thread unless {@code sharedTable}), fresh for each pass.</li>
 * </ul>
 *
 * <pre>
 * java -jar bench/target/benchmarks.jar CliIngestBenchmark -p threads=1,2 -p sharedTable=false,true
 * java -jar bench/target/benchmarks.jar 'CliIngestBenchmark.ingest$' -p keyShards=true,false -p candidates=2,1
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED",
        "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "-XX:+UseParallelGC"})
public class CliIngestBenchmark {
    /** Lines of the file. */
    public static final int LINES = 3_125_000;

    /** The file, mapped, and a fresh sketch per pass. */
    @State(Scope.Benchmark)
    public static class File {
        @Param({"1"})
        public int threads;

        @Param({"false"})
        public boolean sharedTable;

        /** Candidate buckets per key (the default 2, or 1): what the second bucket costs this stream. */
        @Param({"2"})
        public int candidates;

        /** Whether the sketch keeps the real keys of its tracked entries (the CLI's sketch does). */
        @Param({"true"})
        public boolean keyShards;

        /**
         * The sketch's {@code --memory}: the CLI's default, 4 MiB, or a budget where the layouts differ. The peer
         * gets the same.
         */
        @Param({"4194304"})
        public long memory;

        Path path;
        Arena arena;
        MemorySegment mapped;
        /** scanRead's buffer, and a ByteBuffer view of it for FileChannel.read. */
        MemorySegment readBuffer;
        java.nio.ByteBuffer readIo;
        KeyHasher hasher;
        Hotkeeper sketch;
        FrequentLongsSketch peer;

        @Setup(Level.Trial)
        public void write() throws IOException {
            path = Files.createTempFile("hotkeeper-cli-ingest-", ".txt");
            Files.write(path, zipfText(LINES, 1_000_000, 42));
            try (FileChannel ch = FileChannel.open(path, StandardOpenOption.WRITE)) {
                // Written back before any pass: the kernel's write-back of a fresh 50 MB file otherwise competes
                // with the first passes for the 2 CPUs (measured: forks at 120-130 or 200-245 ms a pass at random).
                ch.force(true);
            }
            arena = Arena.ofShared();
            try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
                mapped = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size(), arena);
            }
            readBuffer = arena.allocate(Ingest.BLOCK);
            readIo = readBuffer.asByteBuffer();
            hasher = KeyHasher.seeded(TopCommand.DEFAULT_SEED);
        }

        @Setup(Level.Invocation)
        public void freshSketch() {
            HotkeeperBuilder b = Hotkeeper.builder().seed(TopCommand.DEFAULT_SEED).memory(memory)
                    .expectedThreads(threads).k(100).candidateBuckets(candidates);
            b = keyShards ? b.maxKeyBytes(TopCommand.DEFAULT_MAX_KEY_BYTES) : b.keepKeys(false);
            if (threads > 1 && !sharedTable) {
                b.partitioning(Partitioning.perWorker(Integer.highestOneBit(threads)));
            }
            if (threads == 1) {
                b.combining(CombiningMode.OFF); // as TopCommand: one writer, nothing to combine
            }
            sketch = b.build();
            peer = new FrequentLongsSketch(PeerSizing.dataSketchesMaxMapSize(memory));
        }

        @TearDown(Level.Invocation)
        public void closeSketch() {
            sketch.close();
        }

        @TearDown(Level.Trial)
        public void delete() throws IOException {
            arena.close();
            Files.deleteIfExists(path);
        }
    }

    @Benchmark
    public long scan(File f) {
        return lineBytes(f.mapped, f.mapped.byteSize());
    }

    /**
     * As {@link #scan}, over a mapping made afresh for the pass, as a run of {@code top} maps its file once (before
     * RangeReader): the first touch of each page faults, and the unmap at the end releases them.
     */
    @Benchmark
    public long scanFreshMapping(File f) throws IOException {
        try (Arena a = Arena.ofShared(); FileChannel ch = FileChannel.open(f.path, StandardOpenOption.READ)) {
            MemorySegment seg = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size(), a);
            return lineBytes(seg, seg.byteSize());
        }
    }

    /**
     * As {@link #scan}, over positional reads into a reused native buffer of {@link Ingest#BLOCK} bytes, as
     * RangeReader reads (a line cut by a buffer's end is scanned as two; the byte count is the same).
     */
    @Benchmark
    public long scanRead(File f) throws IOException {
        long sum = 0;
        try (FileChannel ch = FileChannel.open(f.path, StandardOpenOption.READ)) {
            for (long pos = 0; ; ) {
                int n = ch.read(f.readIo.clear(), pos);
                if (n <= 0) {
                    return sum;
                }
                sum += lineBytes(f.readBuffer, n);
                pos += n;
            }
        }
    }

    /** The bytes of the lines of {@code seg[0, end)}, newlines excluded: every newline found, nothing else. */
    private static long lineBytes(MemorySegment seg, long end) {
        long sum = 0;
        for (long pos = 0; pos < end; ) {
            long nl = LineScanner.indexOfNewline(seg, pos, end);
            sum += nl - pos;
            pos = nl + 1;
        }
        return sum;
    }

    @Benchmark
    public long hash(File f) {
        MemorySegment seg = f.mapped;
        long end = seg.byteSize();
        long sum = 0;
        for (long pos = 0; pos < end; ) {
            long nl = LineScanner.indexOfNewline(seg, pos, end);
            sum += f.hasher.hash(seg, pos, nl - pos);
            pos = nl + 1;
        }
        return sum;
    }

    /**
     * The same scan and hash as {@link #hash}, each hash counted by DataSketches' {@code FrequentLongsSketch}
     * (Misra-Gries) sized to the same budget ({@link PeerSizing}), fresh for each pass: the fastest one-thread
     * heavy-hitter peer of docs/performance.md, doing less than {@link #ingest} (one thread only, no top-k
     * readable while it runs, the 64-bit hash instead of the key).
     */
    @Benchmark
    public long peerDataSketches(File f) {
        MemorySegment seg = f.mapped;
        long end = seg.byteSize();
        FrequentLongsSketch peer = f.peer;
        for (long pos = 0; pos < end; ) {
            long nl = LineScanner.indexOfNewline(seg, pos, end);
            peer.update(f.hasher.hash(seg, pos, nl - pos));
            pos = nl + 1;
        }
        return peer.getStreamLength();
    }

    @Benchmark
    public long ingest(File f) throws InterruptedException {
        try (Ingest ingest = Ingest.open(List.of(f.path.toString()), () -> {
            throw new IllegalStateException("no standard input here");
        })) {
            Progress none = new Progress(new PrintWriter(new StringWriter()), ingest.mappedBytes(), false);
            long maxKey = f.keyShards ? f.sketch.info().maxKeyBytes() : Integer.MAX_VALUE;
            Tally t = ingest.run(f.sketch, f.threads,
                    () -> new LineScanner(f.sketch, 0, Splitter.single((byte) '\t'), 0, 1 << 20, maxKey), none);
            if (t.keys != LINES) {
                throw new IllegalStateException("observed " + t.keys + " keys, not " + LINES);
            }
            return t.keys;
        }
    }

    /**
     * docs/cli.md's file: {@code lines} keys {@code user-NNNNNNNNNN}, Zipf(1.0) ranks over {@code distinct}, each
     * rank scrambled to ten digits as the Python generator there does (the draws differ from Python's).
     */
    static byte[] zipfText(int lines, int distinct, long seed) {
        ZipfKeys zipf = new ZipfKeys(distinct, 1.0);
        SplittableRandom random = new SplittableRandom(seed);
        StringBuilder text = new StringBuilder(lines * 16);
        for (int i = 0; i < lines; i++) {
            String digits = Long.toString(zipf.rankOf(random.nextDouble()) * 2654435761L % 4294967296L);
            text.append("user-").append("0".repeat(10 - digits.length())).append(digits).append('\n');
        }
        return text.toString().getBytes(StandardCharsets.US_ASCII);
    }
}
