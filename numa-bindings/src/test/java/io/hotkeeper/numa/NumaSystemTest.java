package io.hotkeeper.numa;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The system libnuma on a one-node machine (CI: Debian with numactl and libnuma-dev installed). */
class NumaSystemTest {

    private static Numa numa;

    @BeforeAll
    static void loadSystem() {
        numa = Numa.system();
    }

    @Test
    void systemIsAvailableOnThisMachine() {
        assertTrue(numa.isAvailable(), numa::toString);
        assertEquals("", numa.unavailableReason());
        assertEquals(Numa.DEFAULT_LIBRARY, numa.libraryName());
        assertSame(numa, Numa.system());
    }

    @Test
    void oneNodeNumberedZero() {
        assertEquals(1, numa.nodeCount());
        assertEquals(List.of(0), numa.nodes());
        assertEquals(0, numa.maxNode());
    }

    @Test
    void cpusBelongToNodeZero() {
        assertTrue(numa.cpuCount() >= 1, () -> "cpuCount=" + numa.cpuCount());
        assertEquals(0, numa.nodeOfCpu(0));
        for (int cpu = 0; cpu < numa.cpuCount(); cpu++) {
            assertEquals(0, numa.nodeOfCpu(cpu), "cpu=" + cpu);
        }
    }

    @Test
    void currentCpuIsAConfiguredCpu() {
        for (int i = 0; i < 1_000; i++) {
            int cpu = numa.currentCpu();
            assertTrue(cpu >= 0 && cpu < numa.cpuCount(), () -> "cpu=" + cpu + ", cpuCount=" + numa.cpuCount());
        }
        assertEquals(0, numa.currentNode());
    }

    @Test
    void pageSizeIsAPowerOfTwo() {
        long pageSize = numa.pageSize();
        assertTrue(pageSize >= 4096 && Long.bitCount(pageSize) == 1, () -> "pageSize=" + pageSize);
    }

    @Test
    void allocationOnNodeZeroIsPageAlignedAndLandsOnNodeZero() {
        long size = 3 * numa.pageSize() + 100;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment segment = numa.allocateOnNode(arena, size, 0);
            assertEquals(size, segment.byteSize());
            assertEquals(0, segment.address() % numa.pageSize(), "page aligned");
            int[] untouched = numa.nodesOfPages(segment);
            assertEquals(4, untouched.length);
            assertArrayEquals(new int[] {-2, -2, -2, -2}, untouched, "not faulted in yet");
            touch(segment);
            assertEquals(0, segment.get(ValueLayout.JAVA_BYTE, 1), "zero-filled");
            assertArrayEquals(new int[] {0, 0, 0, 0}, numa.nodesOfPages(segment));
            assertEquals(Map.of(0, 4L), numa.pagesPerNode(segment));
        }
    }

    @Test
    void interleavedAllocationLandsOnNodeZero() {
        long size = 8 * numa.pageSize();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment segment = numa.allocateInterleaved(arena, size);
            assertEquals(0, segment.address() % numa.pageSize());
            touch(segment);
            assertEquals(Map.of(0, 8L), numa.pagesPerNode(segment));
        }
    }

    @Test
    void localAllocationLandsOnTheCurrentNode() {
        long size = 2 * numa.pageSize();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment segment = numa.allocateLocal(arena, size);
            assertEquals(0, segment.address() % numa.pageSize());
            touch(segment);
            assertEquals(Map.of(numa.currentNode(), 2L), numa.pagesPerNode(segment));
        }
    }

    @Test
    void pageQueryCoversAnUnalignedSliceByItsPages() {
        long pageSize = numa.pageSize();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment segment = numa.allocateOnNode(arena, 4 * pageSize, 0);
            touch(segment);
            MemorySegment slice = segment.asSlice(pageSize - 1, 2); // last byte of page 0, first of page 1
            assertArrayEquals(new int[] {0, 0}, numa.nodesOfPages(slice));
            assertEquals(0, numa.nodesOfPages(segment.asSlice(0, 0)).length);
        }
    }

    @Test
    void bindingARangeToNodeZeroPlacesItsPagesThere() {
        long pageSize = numa.pageSize();
        try (Arena arena = Arena.ofConfined()) {
            // Ordinary arena memory, page aligned and page sized so that the binding covers only these pages.
            MemorySegment segment = arena.allocate(4 * pageSize, pageSize);
            numa.bindToNode(segment, 0);
            touch(segment);
            assertEquals(Map.of(0, 4L), numa.pagesPerNode(segment));

            MemorySegment local = numa.allocateLocal(arena, 2 * pageSize);
            touch(local);
            numa.bindToNode(local, 0); // already touched: MPOL_MF_MOVE keeps them on (or moves them to) node 0
            assertEquals(Map.of(0, 2L), numa.pagesPerNode(local));
        }
    }

    @Test
    void bindingNeedsAPageAlignedNativeSegment() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment segment = numa.allocateOnNode(arena, 2 * numa.pageSize(), 0);
            MemorySegment unaligned = segment.asSlice(8);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> numa.bindToNode(unaligned, 0));
            assertEquals("segment.address=0x" + Long.toHexString(unaligned.address())
                    + ": not aligned to the page size " + numa.pageSize(), e.getMessage());
        }
        MemorySegment heap = MemorySegment.ofArray(new byte[16]);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> numa.bindToNode(heap, 0))
                .getMessage().endsWith(": must be a native segment"));
        assertThrows(IllegalArgumentException.class, () -> numa.nodesOfPages(heap));
    }

    @Test
    void aNodeThatDoesNotExistIsRejectedWithTheAvailableNodes() {
        try (Arena arena = Arena.ofConfined()) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> numa.allocateOnNode(arena, 4096, 7));
            assertEquals("node=7: available nodes are [0]", e.getMessage());
            MemorySegment segment = numa.allocateOnNode(arena, numa.pageSize(), 0);
            e = assertThrows(IllegalArgumentException.class, () -> numa.bindToNode(segment, 7));
            assertEquals("node=7: available nodes are [0]", e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> numa.allocateOnNode(arena, 4096, -1));
            assertEquals("node=-1: available nodes are [0]", e.getMessage());
        }
    }

    @Test
    void invalidSizesAndCpusAreRejected() {
        try (Arena arena = Arena.ofConfined()) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> numa.allocateOnNode(arena, 0, 0));
            assertEquals("byteSize=0: must be positive", e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> numa.allocateInterleaved(arena, -1));
        }
        int cpus = numa.cpuCount();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> numa.nodeOfCpu(cpus));
        assertEquals("cpu=" + cpus + ": available cpus are [0, " + cpus + ")", e.getMessage());
    }

    @Test
    void toStringDescribesTheFacade() {
        String text = numa.toString();
        assertTrue(text.startsWith("Numa[library=libnuma.so.1, available, nodes=[0], cpus="), text);
        assertTrue(text.endsWith(", pageSize=" + numa.pageSize() + "]"), text);
    }

    /** Writes into every page so that it is faulted in (a read-only touch could map the shared zero page). */
    private static void touch(MemorySegment segment) {
        for (long offset = 0; offset < segment.byteSize(); offset += 512) {
            segment.set(ValueLayout.JAVA_BYTE, offset, (byte) 1);
        }
        segment.set(ValueLayout.JAVA_BYTE, segment.byteSize() - 1, (byte) 1);
    }
}
