package io.hotkeeper.cli;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Finds field N of a line held in a segment, either as {@code cut -d C} does (every single delimiter byte ends a
 * field, so {@code a,,b} has an empty field 2) or as awk does by default (fields are separated by runs of blanks,
 * spaces and tabs, and blanks at the start and end of the line are ignored). Threads: any (stateless).
 * Progress: wait-free.
 */
sealed interface Splitter {
    /** The awk-style splitter: runs of spaces and tabs. */
    Splitter BLANKS = new Blanks();

    /** A {@code cut}-style splitter on one delimiter byte. */
    static Splitter single(byte delimiter) {
        return new Single(delimiter);
    }

    /**
     * The index of the first byte of field {@code n} (1-based) of the line {@code [start, end)}, or -1 if the
     * line has fewer than {@code n} fields.
     */
    long fieldStart(MemorySegment seg, long start, long end, int n);

    /** The index just past the field that starts at {@code from}. */
    long fieldEnd(MemorySegment seg, long from, long end);

    /** Whether the line {@code [start, end)} has no field content at all (empty, or only blanks for awk). */
    boolean blank(MemorySegment seg, long start, long end);

    /** {@code cut -d C}. */
    record Single(byte delimiter) implements Splitter {
        @Override
        public long fieldStart(MemorySegment seg, long start, long end, int n) {
            long i = start;
            for (int f = 1; f < n; f++) {
                while (i < end && seg.get(ValueLayout.JAVA_BYTE, i) != delimiter) {
                    i++;
                }
                if (i == end) {
                    return -1;
                }
                i++;
            }
            return i;
        }

        @Override
        public long fieldEnd(MemorySegment seg, long from, long end) {
            long i = from;
            while (i < end && seg.get(ValueLayout.JAVA_BYTE, i) != delimiter) {
                i++;
            }
            return i;
        }

        @Override
        public boolean blank(MemorySegment seg, long start, long end) {
            return start == end;
        }
    }

    /** awk's default field splitting: runs of spaces and tabs, leading and trailing ones ignored. */
    record Blanks() implements Splitter {
        private static boolean isBlank(byte b) {
            return b == ' ' || b == '\t';
        }

        private static long skipBlanks(MemorySegment seg, long i, long end) {
            while (i < end && isBlank(seg.get(ValueLayout.JAVA_BYTE, i))) {
                i++;
            }
            return i;
        }

        @Override
        public long fieldStart(MemorySegment seg, long start, long end, int n) {
            long i = skipBlanks(seg, start, end);
            for (int f = 1; f < n && i < end; f++) {
                i = skipBlanks(seg, fieldEnd(seg, i, end), end);
            }
            return i == end ? -1 : i;
        }

        @Override
        public long fieldEnd(MemorySegment seg, long from, long end) {
            long i = from;
            while (i < end && !isBlank(seg.get(ValueLayout.JAVA_BYTE, i))) {
                i++;
            }
            return i;
        }

        @Override
        public boolean blank(MemorySegment seg, long start, long end) {
            return skipBlanks(seg, start, end) == end;
        }
    }
}
