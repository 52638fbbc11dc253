package io.hotkeeper.numa;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** An unavailable facade behaves like a one-node machine and never throws for the missing library. */
class NumaFallbackTest {

    private final Numa missing = Numa.load("libnuma-does-not-exist.so");

    @Test
    void missingLibraryIsUnavailableWithAReason() {
        assertFalse(missing.isAvailable());
        assertTrue(missing.unavailableReason().startsWith("library=libnuma-does-not-exist.so: cannot be loaded ("),
                missing.unavailableReason());
        assertEquals("libnuma-does-not-exist.so", missing.libraryName());
        assertTrue(missing.toString().contains("unavailable: library=libnuma-does-not-exist.so"), missing::toString);
    }

    @Test
    void topologyFallsBackToOneNode() {
        assertEquals(1, missing.nodeCount());
        assertEquals(List.of(0), missing.nodes());
        assertEquals(0, missing.maxNode());
        assertEquals(Runtime.getRuntime().availableProcessors(), missing.cpuCount());
        assertEquals(0, missing.nodeOfCpu(0));
        assertEquals(0, missing.nodeOfCpu(4095));
        assertEquals(0, missing.currentNode());
        assertTrue(missing.currentCpu() >= 0);
        assertEquals(4096, missing.pageSize());
        assertThrows(IllegalArgumentException.class, () -> missing.nodeOfCpu(-1));
    }

    @Test
    void allocationFallsBackToTheArena() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment onNode = missing.allocateOnNode(arena, 100, 0);
            assertEquals(100, onNode.byteSize());
            assertEquals(0, onNode.address() % 4096, "page aligned");
            MemorySegment interleaved = missing.allocateInterleaved(arena, 8192);
            MemorySegment local = missing.allocateLocal(arena, 1);
            assertEquals(0, interleaved.address() % 4096);
            assertEquals(0, local.address() % 4096);
            assertEquals(0, missing.liveAllocations());

            missing.bindToNode(onNode, 0);
            assertEquals(0, missing.nodesOfPages(onNode).length, "placement unknown");
            assertTrue(missing.pagesPerNode(onNode).isEmpty(), "placement unknown");
        }
    }

    @Test
    void aNodeThatDoesNotExistIsStillRejected() {
        try (Arena arena = Arena.ofConfined()) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> missing.allocateOnNode(arena, 4096, 7));
            assertEquals("node=7: available nodes are [0]", e.getMessage());
            MemorySegment segment = missing.allocateLocal(arena, 4096);
            e = assertThrows(IllegalArgumentException.class, () -> missing.bindToNode(segment, 7));
            assertEquals("node=7: available nodes are [0]", e.getMessage());
        }
    }

    @Test
    void aLibraryThatIsNotLibnumaIsUnavailable() {
        Numa libc = Numa.load("libc.so.6");
        assertFalse(libc.isAvailable());
        assertEquals("library=libc.so.6: does not export numa_available, it is not libnuma", libc.unavailableReason());
    }

    @Test
    void theDefaultLibraryLoadsAgain() {
        Numa again = Numa.load("libnuma.so.1");
        assertTrue(again.isAvailable(), again::toString);
        assertEquals(Numa.system().nodes(), again.nodes());
    }

    @Test
    void blankLibraryNamesAreRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Numa.load(" "));
        assertEquals("libraryName=\" \": must not be blank", e.getMessage());
        assertThrows(NullPointerException.class, () -> Numa.load(null));
    }
}
