package io.hotkeeper.engine.placement;

import io.hotkeeper.engine.Placement;
import io.hotkeeper.engine.PlacementReport;
import io.hotkeeper.engine.RegionPlacement;
import io.hotkeeper.numa.Numa;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The production allocator on the CI machine: libnuma available, one node (0). Placement has no effect on
 * one node, so every policy is served by the arena; the page query still reports where the pages are.
 */
class PlacementOneNodeTest {

    private static Numa numa;

    @BeforeAll
    static void oneNodeMachine() {
        numa = Numa.system();
        assertTrue(numa.isAvailable(), numa::toString);
        assertEquals(List.of(0), numa.nodes(), "CI machines have one node");
    }

    @Test
    void tablePagesAreOnNodeZeroByThePageQuery() {
        RecordingLogger log = new RecordingLogger();
        RegionAllocator allocator = new RegionAllocator(numa, log, false);
        long bytes = 64 * 1024;
        try (Arena arena = Arena.ofShared()) {
            MemorySegment table = allocator.allocate(arena, "table", bytes, 128, Placement.LOCAL);
            assertEquals(bytes, table.byteSize());
            assertEquals(0, table.address() % 128);
            assertTrue(Pages.allZero(table));
            Pages.touch(table, numa.pageSize());

            RegionPlacement placement = allocator.report().region("table");
            long pages = Pages.spanned(table, numa.pageSize());
            assertEquals(pages, placement.pages());
            assertEquals(Map.of(0, pages), placement.pagesPerNode());
            assertEquals(0, placement.untouchedPages());
            assertEquals(Placement.LOCAL, placement.requested());
            assertEquals(Placement.DEFAULT, placement.effective());
            assertEquals("fallback: one NUMA node (nodes=[0]), placement has no effect", placement.note());
        }
    }

    @Test
    void everyPolicyWorksAndFallsBackWithOneLogLine() {
        RecordingLogger log = new RecordingLogger();
        RegionAllocator allocator = new RegionAllocator(numa, log, false);
        try (Arena arena = Arena.ofConfined()) {
            allocator.allocate(arena, "table", 8192, 128, Placement.node(0));
            allocator.allocate(arena, "salt", 128, 128, Placement.INTERLEAVE);
            allocator.allocate(arena, "stats", 4 * 128, 128, Placement.LOCAL);
            allocator.allocateOnCurrentNode(arena, "shard-0", 4096, 128);
            allocator.allocate(arena, "plain", 256, 128, Placement.DEFAULT);

            PlacementReport report = allocator.report();
            assertEquals(List.of("table", "salt", "stats", "shard-0", "plain"),
                    report.regions().stream().map(RegionPlacement::name).toList());
            for (RegionPlacement r : report.regions()) {
                assertEquals(Placement.DEFAULT, r.effective(), r.name());
                assertEquals(List.of(0), List.copyOf(r.nodes()), r.name() + ": the arena zero-filled it here");
                assertEquals(0, r.untouchedPages(), r.name());
            }
            assertEquals(Placement.node(0), report.region("table").requested());
            assertEquals(Placement.INTERLEAVE, report.region("salt").requested());
            assertEquals(Placement.LOCAL, report.region("shard-0").requested());
            assertEquals("", report.region("plain").note(), "default asked, default given: no fallback");
        }
        assertEquals(1, log.lines.size(), () -> "exactly one line: " + log.lines);
        assertEquals(System.Logger.Level.INFO, log.lines.getFirst().level());
        assertEquals("NUMA placement off, regions use plain arena allocation (effective placement default): "
                + "one NUMA node (nodes=[0]), placement has no effect (first: region table, requested node:0)",
                log.lines.getFirst().message());
    }

    @Test
    void aNodeThatDoesNotExistIsAClearError() {
        RecordingLogger log = new RecordingLogger();
        RegionAllocator allocator = new RegionAllocator(numa, log, false);
        try (Arena arena = Arena.ofConfined()) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> allocator.allocate(arena, "table", 4096, 128, Placement.node(7)));
            assertEquals("node=7: available nodes are [0]", e.getMessage());
            e = assertThrows(IllegalArgumentException.class,
                    () -> allocator.allocate(arena, "table", 4096, 128, Placement.parse("node:7")));
            assertEquals("node=7: available nodes are [0]", e.getMessage());
        }
        assertTrue(allocator.report().regions().isEmpty());
        assertTrue(log.lines.isEmpty(), "an error is not a fallback");
    }

    @Test
    void badArgumentsAreRejected() {
        RegionAllocator allocator = new RegionAllocator(numa, new RecordingLogger(), false);
        try (Arena arena = Arena.ofConfined()) {
            assertEquals("bytes=0: must be positive", assertThrows(IllegalArgumentException.class,
                    () -> allocator.allocate(arena, "t", 0, 128, Placement.LOCAL)).getMessage());
            assertEquals("alignment=96: must be a power of two", assertThrows(IllegalArgumentException.class,
                    () -> allocator.allocate(arena, "t", 64, 96, Placement.LOCAL)).getMessage());
            assertEquals("name=\" \": must not be blank", assertThrows(IllegalArgumentException.class,
                    () -> allocator.allocate(arena, " ", 64, 128, Placement.LOCAL)).getMessage());
            assertThrows(NullPointerException.class, () -> allocator.allocate(arena, "t", 64, 128, null));
        }
    }

    @Test
    void thePublicConstructorUsesTheSystemLibraryAndNeverThrows() {
        RegionAllocator allocator = new RegionAllocator();
        assertEquals("one NUMA node (nodes=[0]), placement has no effect", allocator.fallbackReason());
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment salt = allocator.allocate(arena, "salt", 128, 128, Placement.INTERLEAVE);
            assertEquals(128, salt.byteSize());
            assertEquals(0, salt.address() % 128);
            String table = allocator.report().format();
            assertTrue(table.contains("salt"), table);
        }
    }
}
