package io.hotkeeper.cli;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Reads the weight field of a line: a non-negative decimal integer (ASCII digits, an optional leading {@code +},
 * at most {@link Long#MAX_VALUE}). Parsed straight from the segment, without a String per line. Threads: any.
 * Progress: wait-free.
 */
final class Weight {
    /** What {@link #parse} returns for a field that is not such a number. */
    static final long MALFORMED = -1;

    private Weight() {
    }

    /** The number in {@code [from, to)}, or {@link #MALFORMED}. */
    static long parse(MemorySegment seg, long from, long to) {
        long i = from;
        if (i < to && seg.get(ValueLayout.JAVA_BYTE, i) == '+') {
            i++;
        }
        if (i == to) {
            return MALFORMED;
        }
        long value = 0;
        for (; i < to; i++) {
            int d = seg.get(ValueLayout.JAVA_BYTE, i) - '0';
            if (d < 0 || d > 9 || value > (Long.MAX_VALUE - d) / 10) {
                return MALFORMED;
            }
            value = value * 10 + d;
        }
        return value;
    }
}
