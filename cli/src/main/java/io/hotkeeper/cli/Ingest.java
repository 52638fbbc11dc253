package io.hotkeeper.cli;

import io.hotkeeper.engine.Hotkeeper;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Feeds every line of the inputs to the sketch. Regular files are cut into byte ranges at line boundaries (found in
 * a memory mapping of the file), which the worker threads take from a shared list and read into buffers of their
 * own ({@link RangeReader}); keys are hashed straight from those buffers.
 * Standard input and other streams (pipes, devices) are read by the calling thread in blocks that end at a line
 * boundary, handed to the workers through a bounded queue. Threads: one caller. Progress: blocking.
 *
 * <p>Size: the three ingest paths (a mapped file split into ranges, a stream read in blocks, a followed file) share
 * their workers, progress and shutdown handling, kept together so an interrupt is handled the same way on each.
 */
final class Ingest implements AutoCloseable {
    /** Largest byte range of a mapped file given to one worker at a time. */
    static final long MAX_CHUNK = 16L << 20;
    /** Smallest range a file is cut into for parallel workers. */
    static final long MIN_CHUNK = 64L << 10;
    /** Bytes a stream block holds before it is handed over. */
    static final int BLOCK = 1 << 20;

    /**
     * One input: a regular file to map ({@code stream} null), or a stream (standard input, a pipe, a device, a
     * file that reports size 0 such as those of /proc, a file that cannot be mapped); {@code channel} is the open
     * file, if any.
     */
    record Source(String name, FileChannel channel, long size, InputStream stream) {
        boolean mapped() {
            return stream == null;
        }
    }

    /** Bytes {@code [start, end)} of the mapping {@code segment} of {@code source}. */
    private record Range(Source source, MemorySegment segment, long start, long end) {
    }

    /** Bytes {@code [0, length)} of a stream, starting at its byte {@code offset} and line {@code firstLine}. */
    private record Block(byte[] data, int length, long offset, long firstLine) {
    }

    private static final Block END = new Block(new byte[0], 0, 0, 0);

    /**
     * Test seam: if set, run once per {@link #run} after every mapped input has been mapped and before any of
     * them is read, by {@link #cut} or by a worker (tests truncate a file here). Null outside tests.
     */
    static volatile Runnable afterMapping;

    private final List<Source> sources;
    private final Arena arena = Arena.ofShared();
    private Consumer<String> onInput = name -> { };
    /** Nanoseconds {@link #run} spent mapping the files and cutting them into ranges (read by the caller). */
    private long mapNanos;
    /**
     * For {@link #soFar}: the counts of the inputs read to their end, the workers reading now, and the tally of the
     * stream reader now reading (null when none). Set by the calling thread.
     */
    private volatile Tally finished;
    private volatile Workers running;
    private volatile Tally reading;

    private Ingest(List<Source> sources) {
        this.sources = sources;
    }

    /**
     * Opens every input before reading any, so that a missing or unreadable one stops the run at once.
     *
     * @param names file names; {@code -} or an empty list means standard input
     * @throws UserException naming the first input that cannot be opened, and why
     */
    static Ingest open(List<String> names, Supplier<InputStream> stdin) {
        return open(names, stdin, false);
    }

    /**
     * Opens every input; with {@code follow}, the one FILE is read like {@code tail -F} ({@link FollowStream}).
     *
     * @throws UserException naming the first input that cannot be opened, and why
     */
    static Ingest open(List<String> names, Supplier<InputStream> stdin, boolean follow) {
        List<Source> sources = new ArrayList<>();
        List<String> all = names.isEmpty() ? List.of("-") : names;
        try {
            for (String name : all) {
                if (name.equals("-")) {
                    sources.add(new Source("-", null, -1, stdin.get()));
                    continue;
                }
                Source file = openFile(name);
                sources.add(follow ? follow(file) : file);
            }
        } catch (RuntimeException e) {
            closeAll(sources);
            throw e;
        }
        return new Ingest(sources);
    }

    private static Source follow(Source file) {
        try {
            return new Source(file.name(), null, -1, new FollowStream(Path.of(file.name()), file.channel()));
        } catch (IOException e) {
            close(file.channel());
            throw new UserException(file.name() + ": cannot follow (" + reason(e) + ")");
        }
    }

    private static Source openFile(String name) {
        Path path;
        try {
            path = Path.of(name);
        } catch (InvalidPathException e) {
            throw new UserException(name + ": invalid file name (" + e.getReason() + ")");
        }
        if (Files.isDirectory(path)) {
            throw new UserException(name + ": is a directory");
        }
        FileChannel channel;
        try {
            channel = FileChannel.open(path, StandardOpenOption.READ);
        } catch (NoSuchFileException e) {
            throw new UserException(name + ": no such file");
        } catch (AccessDeniedException e) {
            throw new UserException(name + ": permission denied");
        } catch (IOException | SecurityException e) {
            throw new UserException(name + ": cannot open (" + reason(e) + ")");
        }
        try {
            long size = channel.size();
            if (Files.isRegularFile(path) && size > 0) {
                return new Source(name, channel, size, null);
            }
            // A pipe, a device, or a file whose size says nothing (0 for /proc and /sys): read it as a stream.
            return new Source(name, channel, -1, Channels.newInputStream(channel));
        } catch (IOException e) {
            close(channel);
            throw new UserException(name + ": cannot read (" + reason(e) + ")");
        }
    }

    private static Source asStream(Source s) {
        try {
            return new Source(s.name(), s.channel(), -1, Channels.newInputStream(s.channel().position(0)));
        } catch (IOException e) {
            throw new UserException(s.name() + ": cannot read (" + reason(e) + ")");
        }
    }

    /** Calls {@code onInput} with an input's name when its reading starts (mapped files: all at once). */
    void onInput(Consumer<String> onInput) {
        this.onInput = onInput;
    }

    /** Bytes of the mapped inputs (streams have no known size). */
    long mappedBytes() {
        return sources.stream().filter(Source::mapped).mapToLong(Source::size).sum();
    }

    int sourceCount() {
        return sources.size();
    }

    /**
     * Observes every line of every input with {@code threads} workers.
     *
     * @return the summed counts
     * @throws UserException if an input fails while it is read, a mapped file shrank while it was read
     *                       ({@link Truncation}), or a line's weight is more than the sketch counts (naming its line)
     */
    Tally run(Hotkeeper hk, int threads, Supplier<LineScanner> scanners, Progress progress)
            throws InterruptedException {
        try {
            return runAll(hk, threads, scanners, progress);
        } catch (WeightLimitException e) {
            throw e.named(sourceName(e.at.source()), e.at.line() >= 0 ? e.at.line() : lineOf(e.at));
        }
    }

    /**
     * The 1-based line number of the line at {@code at} of a mapped input, counted in a mapping of its own.
     *
     * @throws UserException if the file cannot be read again
     */
    private long lineOf(Tally.Position at) {
        Source s = sources.get(at.source());
        try (Arena counting = Arena.ofConfined()) {
            MemorySegment mapping = s.channel().map(FileChannel.MapMode.READ_ONLY, 0, at.offset(), counting);
            return 1 + LineScanner.countNewlines(mapping, 0, at.offset());
        } catch (IOException | InternalError e) {
            throw new UserException(s.name() + ": cannot read (" + reason(e) + ")");
        }
    }

    private Tally runAll(Hotkeeper hk, int threads, Supplier<LineScanner> scanners, Progress progress)
            throws InterruptedException {
        long mapStart = System.nanoTime();
        Tally total = new Tally();
        finished = total;
        List<Range> ranges = new ArrayList<>();
        List<Range> whole = new ArrayList<>();
        for (int i = 0; i < sources.size(); i++) {
            Source s = sources.get(i);
            if (s.mapped()) {
                try {
                    MemorySegment mapping = s.channel().map(FileChannel.MapMode.READ_ONLY, 0, s.size(), arena);
                    whole.add(new Range(s, plainView(mapping), 0, s.size()));
                } catch (IOException | UnsupportedOperationException e) {
                    // Some file systems cannot map: read the file as a stream instead.
                    sources.set(i, asStream(s));
                }
            }
        }
        Runnable hook = afterMapping;
        if (hook != null) {
            hook.run();
        }
        for (Range w : whole) {
            try {
                cut(w.source(), w.segment(), threads, ranges); // reads the mapping: the file may have shrunk
            } catch (InternalError e) {
                throw Truncation.fault(w.source(), sources, e);
            }
        }
        mapNanos = System.nanoTime() - mapStart;
        for (Range w : whole) {
            onInput.accept(w.source().name());
        }
        if (!ranges.isEmpty()) {
            try {
                total.add(runRanges(sources, ranges, threads, scanners, progress));
                resolveLine(total, whole);
            } catch (InternalError e) {
                // A fault reading the mapping to number the line of a first bad weight (resolveLine): the file
                // shrank meanwhile, or an I/O error.
                throw Truncation.fault(null, sources, e);
            }
            // Every range has been read (join): a file may have shrunk after its bytes were read.
            for (Source s : sources) {
                if (s.mapped()) {
                    Truncation.checkSize(s);
                }
            }
        }
        for (int i = 0; i < sources.size(); i++) {
            if (!sources.get(i).mapped()) {
                onInput.accept(sources.get(i).name());
                total.add(runStream(sources.get(i), i, threads, scanners, progress));
            }
        }
        return total;
    }

    /** Nanoseconds the last {@link #run} spent mapping files and cutting them into line-aligned ranges. */
    long mapNanos() {
        return mapNanos;
    }

    /**
     * The counts so far of a run that a signal interrupts (its report of skipped lines): the inputs read to their
     * end plus what the workers and the stream reader have counted. Threads: any (a signal's). Progress:
     * wait-free. The workers' and the reader's counters are plain fields written by their own threads and read here
     * without synchronization: a count may lag behind by the lines of a block in flight, and a phase that is
     * ending (its workers joined, their counts not yet added) is missed; each long is read whole (64-bit JVM).
     * A first bad weight of a mapped file may lack its line number (-1).
     */
    Tally soFar() {
        Tally sum = new Tally();
        Tally done = finished;
        if (done != null) {
            sum.add(done);
        }
        Workers w = running;
        if (w != null) {
            for (LineScanner s : w.scanners) {
                sum.add(s.tally);
            }
        }
        Tally r = reading;
        if (r != null) {
            sum.add(r);
        }
        return sum;
    }

    /** The name of input number {@code index} (- for standard input). */
    String sourceName(int index) {
        return sources.get(index).name();
    }

    /** Counts the line number of a first bad weight found in a mapped file (the workers know only its offset). */
    private void resolveLine(Tally total, List<Range> whole) {
        Tally.Position p = total.firstBadWeight;
        if (p == null || p.line() >= 0) {
            return;
        }
        Source source = sources.get(p.source());
        for (Range w : whole) {
            if (w.source() == source) {
                long line = 1 + LineScanner.countNewlines(w.segment(), 0, p.offset());
                total.firstBadWeight = new Tally.Position(p.source(), p.offset(), line);
            }
        }
    }

    /** Ranges per worker a file is cut into when several workers read it (so that they finish together). */
    static final int RANGES_PER_WORKER = 8;

    /**
     * Cuts {@code segment} into ranges that start at a line start and end after an LF (or at the end). With one
     * worker the ranges are as long as allowed ({@link #MAX_CHUNK}); with several, about
     * {@link #RANGES_PER_WORKER} per worker (at least {@link #MIN_CHUNK} each), so that the worker that takes the
     * last range does not work alone for long: cut into three 16 MiB ranges, a 50 MB file kept one of two workers
     * busy for two of them while the other had finished.
     */
    private static void cut(Source source, MemorySegment segment, int threads, List<? super Range> out) {
        long size = segment.byteSize();
        long pieces = threads == 1 ? 1 : (long) threads * RANGES_PER_WORKER;
        long chunk = Math.clamp((size + pieces - 1) / pieces, MIN_CHUNK, MAX_CHUNK);
        long start = 0;
        while (start < size) {
            long end = start + chunk >= size ? size
                    : Math.min(size, LineScanner.indexOfNewline(segment, start + chunk - 1, size) + 1);
            out.add(new Range(source, segment, start, end));
            start = end;
        }
    }

    /**
     * The same bytes as {@code mapping}, as a plain native segment of the same arena (unmapped when it closes): the
     * newline search then sees one segment class, whether it finds cut points in a mapping or lines in a worker's
     * buffer (see runStream). With the mapping's own class beside the buffers' one, the JIT's code for the scan
     * loop trapped at its entry (-Xlog:deoptimization: "profile_predicate", two to six times a run).
     */
    private MemorySegment plainView(MemorySegment mapping) {
        return MemorySegment.ofAddress(mapping.address()).reinterpret(mapping.byteSize(), arena, null);
    }

    /** The ranges {@link #cut} makes, as {start, end} pairs (for tests). */
    static List<long[]> cutPoints(MemorySegment segment, int threads) {
        List<Range> ranges = new ArrayList<>();
        cut(null, segment, threads, ranges);
        return ranges.stream().map(r -> new long[] {r.start(), r.end()}).toList();
    }

    private Tally runRanges(List<Source> sources, List<Range> ranges, int threads,
                                   Supplier<LineScanner> scanners, Progress progress) throws InterruptedException {
        AtomicInteger next = new AtomicInteger();
        Workers workers = new Workers(Math.min(threads, ranges.size()), scanners, scanner -> {
            // Each range is read into this worker's buffer, not scanned in the mapping (see RangeReader).
            try (RangeReader reader = new RangeReader(scanner)) {
                for (int i = next.getAndIncrement(); i < ranges.size(); i = next.getAndIncrement()) {
                    Range r = ranges.get(i);
                    reader.read(r.source(), sources.indexOf(r.source()), r.start(), r.end());
                    scanner.tally.bytes += r.end() - r.start();
                    progress.advance(r.end() - r.start());
                }
            } catch (RuntimeException e) {
                // A range that could not be read (its file shrank, an I/O error) fails the run: no other range is
                // handed out. The volatile set is seen by every later getAndIncrement, so the other workers stop
                // after the range they hold.
                next.set(ranges.size());
                throw e;
            }
        });
        running = workers;
        Tally tally = workers.join();
        running = null;
        return tally;
    }

    private Tally runStream(Source source, int index, int threads, Supplier<LineScanner> scanners,
                                   Progress progress) throws InterruptedException {
        BlockingQueue<Block> queue = new ArrayBlockingQueue<>(2 * threads + 2);
        Workers workers = new Workers(threads, scanners, scanner -> {
            // Each block is copied into this worker's native buffer and scanned there, never as a heap segment:
            // the scanner and the sketch read keys through MemorySegment accessors, and one process that hands
            // them both heap and native segments gets them compiled for both (a polymorphic segment type, a
            // base object that may or may not be null). Measured: with the AOT cache trained on a stdin run
            // that scanned heap segments, one-thread ingest of a mapped 100 MB file took 0.78 s, and 0.58 s once
            // the blocks were native (docs/cli.md, "Cold runs"). The copy costs ~0.1 ms a MiB. The arena is a
            // shared one, as the mapping's: a confined arena's segments carry another session class, which the
            // same accessors would then be compiled for as well.
            try (Arena own = Arena.ofShared()) {
                MemorySegment buffer = own.allocate(BLOCK);
                for (Block b = queue.take(); b != END; b = queue.take()) {
                    // Reusing the buffer for the next block is safe: scan observes every key before it returns,
                    // the sketch copies a promoted key's bytes into its shard, and the tally keeps offsets, so
                    // nothing refers to the buffer's bytes once scan has returned.
                    if (b.length() > buffer.byteSize()) {
                        buffer = own.allocate(b.length()); // a long line grew the block; freed with the arena
                    }
                    MemorySegment.copy(b.data(), 0, buffer, ValueLayout.JAVA_BYTE, 0, b.length());
                    scanner.scan(buffer, 0, b.length(), index, b.offset(), b.firstLine());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        Tally reader = new Tally();
        running = workers;
        reading = reader;
        boolean done = false;
        try {
            LineScanner probe = scanners.get();
            read(source, queue, reader, probe.maxLineBytes(), probe.weighted(), workers, progress);
            done = true;
        } finally {
            if (done) {
                for (int i = 0; i < threads; i++) {
                    put(queue, END, workers);
                }
            } else {
                workers.interruptAll();
            }
        }
        Tally tally = workers.join();
        running = null;
        reading = null;
        tally.add(reader);
        return tally;
    }

    /**
     * Reads the stream into blocks that end after an LF and queues them. A line longer than the scanner's limit
     * is dropped (and counted) without being buffered whole.
     */
    private static void read(Source source, BlockingQueue<Block> queue, Tally tally, long maxLine,
                             boolean countLines, Workers workers, Progress progress) throws InterruptedException {
        InputStream in = source.stream();
        if (in instanceof FollowStream f) {
            f.onPoll(workers::rethrowIfFailed); // a worker's failure ends the wait for more lines
        }
        byte[] buf = new byte[BLOCK];
        int filled = 0;
        long offset = 0; // the stream's offset of buf[0]
        long line = countLines ? 1 : -1; // the line number of the line at buf[0], or -1: not counted
        boolean skipping = false; // inside a line that is too long: drop bytes up to the next LF
        while (true) {
            int n;
            try {
                n = in.read(buf, filled, buf.length - filled);
            } catch (IOException e) {
                throw new UserException(source.name() + ": read failed (" + reason(e) + ")");
            }
            if (n < 0) {
                if (filled > 0 && !skipping) {
                    put(queue, new Block(buf, filled, offset, line), workers);
                }
                return;
            }
            tally.bytes += n;
            progress.advance(n);
            int from = filled;
            filled += n;
            if (skipping) {
                int nl = indexOf(buf, from, filled);
                if (nl < 0) {
                    offset += filled;
                    filled = 0;
                    continue;
                }
                skipping = false;
                if (line >= 0) {
                    line++;
                }
                offset += nl + 1;
                System.arraycopy(buf, nl + 1, buf, 0, filled - nl - 1);
                filled -= nl + 1;
                from = 0;
            }
            if (filled < buf.length && filled < BLOCK / 4 && available(in) > 0) {
                continue; // a pipe delivers little at a time: gather a bigger block while more is ready
            }
            int last = lastIndexOf(buf, filled);
            if (last >= 0) {
                int length = last + 1;
                Block block;
                if (length < BLOCK / 4) {
                    // A small block (a slow pipe): hand over a copy and keep the buffer.
                    block = new Block(Arrays.copyOf(buf, length), length, offset, line);
                    System.arraycopy(buf, length, buf, 0, filled - length);
                } else {
                    block = new Block(buf, length, offset, line);
                    byte[] next = new byte[Math.max(BLOCK, filled - length)];
                    System.arraycopy(buf, length, next, 0, filled - length);
                    buf = next;
                }
                put(queue, block, workers);
                if (line >= 0) {
                    line += countNewlines(block.data(), length);
                }
                offset += length;
                filled -= length;
            } else if (filled == buf.length) {
                // One line fills the buffer: grow it while the line may still be short enough, else drop it.
                if (filled > maxLine + 1) {
                    tally.tooLong++;
                    skipping = true;
                    offset += filled;
                    filled = 0;
                } else {
                    buf = Arrays.copyOf(buf, grownBuffer(source, buf.length, maxLine));
                }
            }
        }
    }

    /**
     * The size a line buffer of {@code length} bytes, filled by one line of at most {@code maxLine + 1} bytes (a CR
     * may follow the limit), grows to: double, but no more than the longest line that may still be kept needs.
     *
     * @throws UserException if that would pass what one buffer can hold
     */
    static int grownBuffer(Source source, long length, long maxLine) {
        long grown = Math.max(length + 1, Math.min(2 * length, maxLine + 2));
        if (grown > Integer.MAX_VALUE - 16) {
            throw new UserException(source.name() + ": a line is longer than " + (Integer.MAX_VALUE - 16)
                    + " bytes; lower --max-line-bytes");
        }
        return (int) grown;
    }

    /**
     * Bytes the stream can give without blocking (0 when it would block or cannot tell): when nothing more is
     * ready, the lines read so far are handed over at once, so that a slow pipe's keys are counted promptly.
     */
    private static int available(InputStream in) {
        try {
            return in.available();
        } catch (IOException e) {
            return 0;
        }
    }

    private static void put(BlockingQueue<Block> queue, Block block, Workers workers) throws InterruptedException {
        while (!queue.offer(block, 100, TimeUnit.MILLISECONDS)) {
            workers.rethrowIfFailed();
        }
    }

    private static int indexOf(byte[] buf, int from, int to) {
        for (int i = from; i < to; i++) {
            if (buf[i] == '\n') {
                return i;
            }
        }
        return -1;
    }

    /**
     * The LF bytes of {@code buf[0, length)}: a loop of its own, so that the scanner's newline search sees native
     * segments only (see runStream).
     */
    private static long countNewlines(byte[] buf, int length) {
        long count = 0;
        for (int i = 0; i < length; i++) {
            if (buf[i] == '\n') {
                count++;
            }
        }
        return count;
    }

    private static int lastIndexOf(byte[] buf, int to) {
        for (int i = to - 1; i >= 0; i--) {
            if (buf[i] == '\n') {
                return i;
            }
        }
        return -1;
    }

    static String reason(Throwable e) {
        String m = e.getMessage();
        String simple = e.getClass().getSimpleName();
        return m == null || m.isBlank() ? simple : simple + ": " + m;
    }

    @Override
    public void close() {
        closeAll(sources);
        arena.close();
    }

    private static void closeAll(List<Source> sources) {
        for (Source s : sources) {
            if (s.channel() != null) {
                close(s.channel());
            }
            if (s.stream() instanceof FollowStream f) {
                close(f);
            }
        }
    }

    private static void close(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // read-only input: nothing to lose
        }
    }

    /** Platform worker threads, each with its own scanner; the first failure is rethrown by {@link #join}. */
    private static final class Workers {
        private final Thread[] threads;
        private final LineScanner[] scanners;
        private volatile Throwable failure;

        Workers(int count, Supplier<LineScanner> factory, java.util.function.Consumer<LineScanner> body) {
            threads = new Thread[count];
            scanners = new LineScanner[count];
            for (int i = 0; i < count; i++) {
                LineScanner scanner = factory.get();
                scanners[i] = scanner;
                threads[i] = Thread.ofPlatform().name("hotkeeper-ingest-" + i).start(() -> {
                    try {
                        body.accept(scanner);
                        scanner.finish();
                    } catch (Throwable t) {
                        failure = t;
                    }
                });
            }
        }

        void rethrowIfFailed() {
            Throwable t = failure;
            if (t != null) {
                interruptAll();
                if (t instanceof RuntimeException r) {
                    throw r;
                }
                if (t instanceof Error e) {
                    throw e;
                }
                throw new IllegalStateException(t);
            }
        }

        void interruptAll() {
            for (Thread t : threads) {
                t.interrupt();
            }
        }

        Tally join() throws InterruptedException {
            for (Thread t : threads) {
                t.join();
            }
            rethrowIfFailed();
            Tally sum = new Tally();
            for (LineScanner s : scanners) {
                sum.add(s.tally);
            }
            return sum;
        }
    }
}
