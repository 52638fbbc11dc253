package io.hotkeeper.cli;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;

/**
 * Reads line-aligned byte ranges of regular files with positional reads into one worker's native buffer, and
 * scans each buffer there: the worker's way through a file's ranges, instead of scanning the file's mapping.
 *
 * <p>Why not the mapping: a run maps its file once, and a fresh mapping pays for its pages as they are first
 * touched (page faults, then the unmap). Measured on CliIngestBenchmark's 50 MB file, newlines only, one thread
 * ({@code scan}, {@code scanFreshMapping}, {@code scanRead}): an established mapping 13.9 ms a pass, a mapping made
 * afresh 46.6 ms ({@code MADV_POPULATE_READ} first: 41.7, {@code load()}: 36.5, scratch runs), positional reads
 * into a reused 1 MiB native buffer 17.6 ms (docs/cli.md, "Files: read, not mapped").
 *
 * <p>The buffer is native and comes from a shared arena, as standard input's blocks do, so the scanner and the
 * sketch see one segment class whatever the input (see Ingest.runStream). A line longer than the buffer grows it
 * up to the scanner's line limit; a longer one is counted as too long and skipped without being buffered whole.
 * A read that ends before its range does means the file shrank: the run fails with {@link Truncation}'s message.
 *
 * <p>Threads: one per instance (a worker's own). Progress: blocking (file reads).
 */
final class RangeReader implements AutoCloseable {
    private final Arena arena = Arena.ofShared();
    private final LineScanner scanner;
    private MemorySegment buffer;
    private ByteBuffer io;

    RangeReader(LineScanner scanner) {
        this(scanner, Ingest.BLOCK);
    }

    /** A reader whose buffer starts at {@code bufferBytes} (tests use small ones to cross many buffer ends). */
    RangeReader(LineScanner scanner, int bufferBytes) {
        this.scanner = scanner;
        use(arena.allocate(bufferBytes));
    }

    private void use(MemorySegment segment) {
        buffer = segment;
        io = segment.asByteBuffer();
    }

    /**
     * Scans the lines of {@code [start, end)} of {@code source} (input number {@code index}): {@code start} is a
     * line start, {@code end} follows an LF or is the file's end as opened.
     *
     * @throws UserException if the file cannot be read, or ends before {@code end}
     */
    void read(Ingest.Source source, int index, long start, long end) {
        long pos = start; // the file offset of the buffer's byte 0
        int filled = 0;
        boolean skipping = false; // inside a line that is too long: drop bytes up to the next LF
        long maxLine = scanner.maxLineBytes();
        while (true) {
            int want = (int) Math.min(buffer.byteSize() - filled, end - pos - filled);
            io.clear().position(filled).limit(filled + want);
            int n;
            try {
                n = source.channel().read(io, pos + filled);
            } catch (IOException e) {
                throw new UserException(source.name() + ": read failed (" + Ingest.reason(e) + ")");
            }
            if (n < 0) {
                Truncation.checkSize(source); // throws, naming the size now
                throw new UserException(source.name() + ": truncated or changed while being read");
            }
            filled += n;
            boolean last = pos + filled == end;
            int from = 0;
            if (skipping) {
                long nl = LineScanner.indexOfNewline(buffer, 0, filled);
                if (nl == filled) {
                    pos += filled;
                    filled = 0;
                    if (last) {
                        return;
                    }
                    continue;
                }
                skipping = false;
                from = (int) nl + 1;
            }
            int whole = last ? filled : lastLineEnd(buffer, from, filled);
            if (whole > from) {
                scanner.scan(buffer, from, whole, index, pos, -1);
            }
            if (last) {
                return;
            }
            int tail = filled - whole;
            if (tail == buffer.byteSize()) {
                // One line fills the buffer: grow it while the line may still be short enough, else drop it.
                if (tail > maxLine + 1) {
                    scanner.tally.tooLong++;
                    skipping = true;
                    pos += filled;
                    filled = 0;
                    continue;
                }
                // The old buffer is freed with the arena.
                MemorySegment bigger = arena.allocate(Ingest.grownBuffer(source, buffer.byteSize(), maxLine));
                MemorySegment.copy(buffer, 0, bigger, 0, filled);
                use(bigger);
                continue;
            }
            // The partial last line moves to the front (reusing the buffer is safe: scan has observed every key
            // and the sketch copied any key it keeps; nothing refers to these bytes any more).
            MemorySegment.copy(buffer, whole, buffer, 0, tail);
            pos += whole;
            filled = tail;
        }
    }

    /** The end of the last whole line of {@code [from, to)} (just past its LF), or {@code from} if none ends there. */
    static int lastLineEnd(MemorySegment seg, int from, int to) {
        for (int i = to - 1; i >= from; i--) {
            if (seg.get(ValueLayout.JAVA_BYTE, i) == '\n') {
                return i + 1;
            }
        }
        return from;
    }

    /** Frees the buffers. */
    @Override
    public void close() {
        arena.close();
    }
}
