package io.hotkeeper.engine.placement;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** Test helpers over region memory. */
final class Pages {

    private Pages() {
    }

    /** Writes one byte in every page the segment spans, so that each page is faulted in. */
    static void touch(MemorySegment segment, long pageSize) {
        long firstPage = segment.address() / pageSize * pageSize;
        for (long page = firstPage; page < segment.address() + segment.byteSize(); page += pageSize) {
            long offset = Math.max(0, page - segment.address());
            segment.set(ValueLayout.JAVA_BYTE, offset, (byte) 1);
        }
    }

    /** Number of pages the segment spans. */
    static long spanned(MemorySegment segment, long pageSize) {
        long first = segment.address() / pageSize;
        long last = (segment.address() + segment.byteSize() - 1) / pageSize;
        return last - first + 1;
    }

    /** Whether every byte is zero. */
    static boolean allZero(MemorySegment segment) {
        return segment.mismatch(MemorySegment.ofArray(new byte[(int) segment.byteSize()])) == -1;
    }
}
