package io.hotkeeper.cli;

import io.hotkeeper.engine.Hotkeeper;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Splits a byte range into lines and observes one key per line straight from the segment: no copy, no String.
 * A line ends at LF; a CR before the LF is dropped; an empty line (or empty field) is skipped; with a field
 * number, the key is that field of the line, fields separated by single delimiter bytes (as {@code cut -d}).
 * Newlines are found eight bytes at a time. Threads: one per instance (each worker has its own). Progress:
 * lock-free (the sketch's observe).
 */
final class LineScanner {
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;
    private static final long NEWLINES = ONES * '\n';

    private final Hotkeeper hk;
    private final int field;
    private final byte delimiter;
    private final long maxLineBytes;
    private final long maxKeyBytes;
    final Tally tally = new Tally();

    /**
     * @param field        1-based field to use as the key, or 0 for the whole line
     * @param maxLineBytes longer lines (without LF) are skipped as too long
     * @param maxKeyBytes  longer keys are still observed, but counted as truncated (the sketch keeps a prefix)
     */
    LineScanner(Hotkeeper hk, int field, byte delimiter, long maxLineBytes, long maxKeyBytes) {
        this.hk = hk;
        this.field = field;
        this.delimiter = delimiter;
        this.maxLineBytes = maxLineBytes;
        this.maxKeyBytes = maxKeyBytes;
    }

    /** Observes every line of {@code [start, end)}; a last line without LF counts as a line. */
    void scan(MemorySegment seg, long start, long end) {
        long pos = start;
        while (pos < end) {
            long nl = indexOfNewline(seg, pos, end);
            line(seg, pos, nl);
            pos = nl + 1;
        }
    }

    long maxLineBytes() {
        return maxLineBytes;
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
            int f = 1;
            long i = start;
            while (f < field) {
                while (i < end && seg.get(ValueLayout.JAVA_BYTE, i) != delimiter) {
                    i++;
                }
                if (i == end) {
                    if (start == end) {
                        tally.empty++;
                    } else {
                        tally.missingField++;
                    }
                    return;
                }
                i++;
                f++;
            }
            from = i;
            while (i < end && seg.get(ValueLayout.JAVA_BYTE, i) != delimiter) {
                i++;
            }
            to = i;
        }
        long length = to - from;
        if (length == 0) {
            tally.empty++;
            return;
        }
        if (length > maxKeyBytes) {
            tally.truncatedKeys++;
        }
        hk.observe(seg, from, length);
        tally.keys++;
    }
}
