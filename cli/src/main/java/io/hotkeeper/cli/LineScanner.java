package io.hotkeeper.cli;

import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.HotkeeperWriter;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Splits a byte range into lines and observes one key per line straight from the segment: no copy, no String.
 * A line ends at LF; a CR before the LF is dropped; an empty line (or empty field) is skipped; with a field
 * number, the key is that field of the line, as a {@link Splitter} finds it ({@code cut}-style or awk-style); with
 * a weight field, the line adds that field's number to its key (a missing or malformed weight skips the line).
 * Newlines are found eight bytes at a time. Unweighted keys go through a {@link HotkeeperWriter} made by the
 * scanning thread at its first {@link #scan} (no worker lookup per key). Threads: one per instance (each worker
 * has its own, and only the thread that scanned first may scan it). Progress: lock-free (the sketch's observe).
 */
final class LineScanner {
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;
    private static final long NEWLINES = ONES * '\n';

    private final Hotkeeper hk;
    private final int field;
    private final Splitter splitter;
    private final int weightField;
    private final long maxLineBytes;
    private final long maxKeyBytes;
    final Tally tally = new Tally();
    /** The scanning thread's writer, made at its first scan (a writer belongs to the thread that made it). */
    private HotkeeperWriter writer;
    /** Where the line being scanned is (for the position of a bad weight): input, its offset base, line. */
    private int source;
    private long base;
    private long lineNumber;

    /**
     * @param field        1-based field to use as the key, or 0 for the whole line
     * @param splitter     how fields are separated
     * @param weightField  1-based field holding the line's weight, or 0: every line weighs 1
     * @param maxLineBytes longer lines (without LF) are skipped as too long
     * @param maxKeyBytes  longer keys are still observed, but counted as truncated (the sketch keeps a prefix)
     */
    LineScanner(Hotkeeper hk, int field, Splitter splitter, int weightField, long maxLineBytes, long maxKeyBytes) {
        this.hk = hk;
        this.field = field;
        this.splitter = splitter;
        this.weightField = weightField;
        this.maxLineBytes = maxLineBytes;
        this.maxKeyBytes = maxKeyBytes;
    }

    /** A scanner of unweighted lines whose fields are separated by single {@code delimiter} bytes. */
    LineScanner(Hotkeeper hk, int field, byte delimiter, long maxLineBytes, long maxKeyBytes) {
        this(hk, field, Splitter.single(delimiter), 0, maxLineBytes, maxKeyBytes);
    }

    /** Observes every line of {@code [start, end)}; a last line without LF counts as a line. */
    void scan(MemorySegment seg, long start, long end) {
        scan(seg, start, end, 0, 0, -1);
    }

    /**
     * Observes every line of {@code [start, end)} of input number {@code source}.
     *
     * @param base      the input's offset of {@code seg}'s byte 0
     * @param firstLine the 1-based line number of the line at {@code start}, or -1 if not known
     */
    void scan(MemorySegment seg, long start, long end, int source, long base, long firstLine) {
        this.source = source;
        this.base = base;
        this.lineNumber = firstLine;
        if (writer == null) {
            writer = hk.writer();
        }
        long pos = start;
        while (pos < end) {
            long nl = indexOfNewline(seg, pos, end);
            line(seg, pos, nl);
            pos = nl + 1;
            if (lineNumber >= 0) {
                lineNumber++;
            }
        }
    }

    long maxLineBytes() {
        return maxLineBytes;
    }

    /** Whether lines carry a weight (then the position of the first bad one is wanted, line number included). */
    boolean weighted() {
        return weightField > 0;
    }

    /** The index of the first LF in {@code [from, end)}, or {@code end}. */
    static long indexOfNewline(MemorySegment seg, long from, long end) {
        long i = from;
        while (i + Long.BYTES <= end) {
            long x = seg.get(WORD, i) ^ NEWLINES;
            long found = (x - ONES) & ~x & HIGHS;
            if (found != 0) {
                return i + (Long.numberOfTrailingZeros(found) >>> 3);
            }
            i += Long.BYTES;
        }
        while (i < end) {
            if (seg.get(ValueLayout.JAVA_BYTE, i) == '\n') {
                return i;
            }
            i++;
        }
        return end;
    }

    /** One line {@code [start, end)}, LF excluded. */
    void line(MemorySegment seg, long start, long end) {
        if (end > start && seg.get(ValueLayout.JAVA_BYTE, end - 1) == '\r') {
            end--;
        }
        if (end - start > maxLineBytes) {
            tally.tooLong++;
            return;
        }
        long from = start;
        long to = end;
        if (field > 0) {
            from = splitter.fieldStart(seg, start, end, field);
            if (from < 0) {
                if (splitter.blank(seg, start, end)) {
                    tally.empty++;
                } else {
                    tally.missingField++;
                }
                return;
            }
            to = splitter.fieldEnd(seg, from, end);
        }
        long length = to - from;
        if (length == 0) {
            tally.empty++;
            return;
        }
        long weight = 1;
        if (weightField > 0) {
            long w = splitter.fieldStart(seg, start, end, weightField);
            weight = w < 0 ? Weight.MALFORMED : Weight.parse(seg, w, splitter.fieldEnd(seg, w, end));
            if (weight == Weight.MALFORMED) {
                tally.badWeight(new Tally.Position(source, base + start, lineNumber));
                return;
            }
            if (weight == 0) {
                tally.zeroWeights++;
                return;
            }
        }
        if (length > maxKeyBytes) {
            tally.truncatedKeys++;
        }
        if (weight == 1) {
            writer.observe(seg, from, length);
        } else {
            hk.observe(seg, from, length, weight);
        }
        tally.keys++;
    }

    /** The number of LF bytes in {@code [from, end)}. */
    static long countNewlines(MemorySegment seg, long from, long end) {
        long count = 0;
        for (long i = indexOfNewline(seg, from, end); i < end; i = indexOfNewline(seg, i + 1, end)) {
            count++;
        }
        return count;
    }
}
