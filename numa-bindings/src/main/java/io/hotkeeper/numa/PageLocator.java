package io.hotkeeper.numa;

import io.hotkeeper.numa.internal.ErrnoCalls;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Reports the node of every page of a range with {@code numa_move_pages(0, n, pages, NULL, status, 0)}:
 * with no target nodes nothing moves and {@code status[i]} is the node of page {@code i}, or a negative
 * errno ({@code -ENOENT}: not faulted in yet). Queries in batches to bound the scratch memory.
 */
final class PageLocator {

    /** Pages per system call: 16 K pages is 192 KiB of scratch (8-byte address + 4-byte status each). */
    private static final int BATCH = 16 * 1024;

    private PageLocator() {
    }

    static int[] nodesOfPages(MemorySegment segment, long pageSize) {
        long start = segment.address() & -pageSize;
        long end = segment.address() + segment.byteSize();
        long pageCount = segment.byteSize() == 0 ? 0 : (end - start + pageSize - 1) / pageSize;
        if (pageCount > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("segment.byteSize=" + segment.byteSize()
                    + ": spans more pages than an int[] can report");
        }
        int[] nodes = new int[(int) pageCount];
        try (Arena arena = Arena.ofConfined()) {
            int batch = (int) Math.min(BATCH, pageCount);
            MemorySegment pages = arena.allocate(ValueLayout.ADDRESS, Math.max(batch, 1));
            MemorySegment status = arena.allocate(ValueLayout.JAVA_INT, Math.max(batch, 1));
            MemorySegment callState = ErrnoCalls.allocateCallState(arena);
            for (int first = 0; first < nodes.length; first += batch) {
                int count = Math.min(batch, nodes.length - first);
                for (int i = 0; i < count; i++) {
                    long page = start + (first + (long) i) * pageSize;
                    pages.setAtIndex(ValueLayout.ADDRESS, i, MemorySegment.ofAddress(page));
                }
                int result = ErrnoCalls.numaMovePages(callState, 0, count, pages, MemorySegment.NULL, status, 0);
                if (result < 0) {
                    throw new NumaException("numa_move_pages(pid=0, count=" + count + ", address=0x"
                            + Long.toHexString(start + first * pageSize) + ", nodes=NULL)",
                            ErrnoCalls.errno(callState));
                }
                MemorySegment.copy(status, ValueLayout.JAVA_INT, 0, nodes, first, count);
            }
        }
        return nodes;
    }
}
