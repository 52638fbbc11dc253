package io.hotkeeper.cli;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Reads the weight field of a line: a non-negative decimal integer (ASCII digits, an optional leading {@code +}).
 * Parsed straight from the segment, without a String per line. A weight above {@link #MAX} is more than one slot of
 * the sketch can hold: the CLI refuses it (docs/cli.md, "Weights"). Threads: any. Progress: wait-free.
 */
final class Weight {
    /** What {@link #parse} returns for a field that is not such a number. */
    static final long MALFORMED = -1;
    /** What {@link #parse} returns for a number of ASCII digits above {@link Long#MAX_VALUE}. */
    static final long TOO_LARGE = -2;
    /**
     * The largest weight one line may carry: the largest count a slot of the sketch holds, 2^38 - 1, where a slot's
     * count saturates (the engine's internal {@code TableLayout.MAX_COUNT}; LineScannerTest checks they agree).
     */
    static final long MAX = (1L << 38) - 1;

    private Weight() {
    }

    /** The number in {@code [from, to)}, {@link #TOO_LARGE} if it is above {@link Long#MAX_VALUE}, or {@link #MALFORMED}. */
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
            if (d < 0 || d > 9) {
                return MALFORMED;
            }
            if (value != TOO_LARGE) {
                value = value > (Long.MAX_VALUE - d) / 10 ? TOO_LARGE : value * 10 + d;
            }
        }
        return value;
    }
}
