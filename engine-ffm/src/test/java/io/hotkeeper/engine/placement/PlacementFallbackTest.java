package io.hotkeeper.engine.placement;

import io.hotkeeper.engine.Placement;
import io.hotkeeper.engine.PlacementReport;
import io.hotkeeper.engine.RegionPlacement;
import io.hotkeeper.numa.Numa;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Without libnuma every policy falls back to the arena, says why, and logs it once. */
class PlacementFallbackTest {

    private final Numa missing = Numa.load("libnuma-does-not-exist.so");

    @Test
    void missingLibraryFallsBackToDefaultWithTheReasonInTheReport() {
        assertFalse(missing.isAvailable());
        RecordingLogger log = new RecordingLogger();
        RegionAllocator allocator = new RegionAllocator(missing, log, true);
        assertTrue(allocator.fallbackReason().startsWith(
                "libnuma unavailable: library=libnuma-does-not-exist.so: cannot be loaded ("),
                allocator::fallbackReason);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment table = allocator.allocate(arena, "table", 64 * 1024, 128, Placement.INTERLEAVE);
            MemorySegment salt = allocator.allocate(arena, "salt", 128, 128, Placement.LOCAL);
            MemorySegment node0 = allocator.allocate(arena, "stats", 512, 128, Placement.node(0));
            MemorySegment shard = allocator.allocateOnCurrentNode(arena, "shard-0", 4096, 128);
            for (MemorySegment s : new MemorySegment[] {table, salt, node0, shard}) {
                assertEquals(0, s.address() % 128);
                assertTrue(Pages.allZero(s));
            }

            PlacementReport report = allocator.report();
            for (RegionPlacement r : report.regions()) {
                assertEquals(Placement.DEFAULT, r.effective(), r.name());
                assertFalse(r.placementKnown(), r.name());
                assertTrue(r.note().startsWith("fallback: libnuma unavailable: library=libnuma-does-not-exist.so"),
                        r::note);
                assertTrue(r.note().endsWith("; pages unknown"), r::note);
            }
            assertEquals(Placement.INTERLEAVE, report.region("table").requested());
            String text = report.format();
            assertTrue(text.startsWith("NUMA: Numa[library=libnuma-does-not-exist.so, unavailable: "), text);
            assertTrue(text.contains("\nfallback: libnuma unavailable: library=libnuma-does-not-exist.so"), text);
            assertTrue(text.contains("interleave  default        ?          ?  ?               fallback; pages unknown\n"),
                    text);
        }
        assertEquals(1, log.lines.size(), () -> "exactly one line: " + log.lines);
        RecordingLogger.Line line = log.lines.getFirst();
        assertEquals(System.Logger.Level.WARNING, line.level());
        assertTrue(line.message().startsWith("NUMA placement off, regions use plain arena allocation "
                + "(effective placement default): libnuma unavailable: library=libnuma-does-not-exist.so"),
                line::message);
        assertTrue(line.message().endsWith("(first: region table, requested interleave)"), line::message);
    }

    @Test
    void oneLinePerAllocatorEvenFromManyThreads() throws Exception {
        RecordingLogger log = new RecordingLogger();
        RegionAllocator allocator = new RegionAllocator(missing, log, false);
        try (Arena arena = Arena.ofShared()) {
            Thread[] threads = new Thread[16];
            for (int i = 0; i < threads.length; i++) {
                String name = "shard-" + i;
                threads[i] = Thread.ofVirtual().start(() -> allocator.allocateOnCurrentNode(arena, name, 256, 128));
            }
            for (Thread t : threads) {
                t.join();
            }
            assertEquals(16, allocator.report().regions().size());
        }
        assertEquals(1, log.lines.size(), () -> "exactly one line: " + log.lines);

        RecordingLogger second = new RecordingLogger();
        try (Arena arena = Arena.ofConfined()) {
            new RegionAllocator(missing, second, false).allocate(arena, "table", 128, 128, Placement.LOCAL);
        }
        assertEquals(1, second.lines.size(), "one line per allocator");
    }

    @Test
    void defaultIsNotAFallback() {
        RecordingLogger log = new RecordingLogger();
        RegionAllocator allocator = new RegionAllocator(missing, log, false);
        try (Arena arena = Arena.ofConfined()) {
            allocator.allocate(arena, "table", 4096, 128, Placement.DEFAULT);
            assertEquals("pages unknown: " + missing.unavailableReason(), allocator.report().region("table").note());
        }
        assertTrue(log.lines.isEmpty());
    }

    @Test
    void aNodeThatDoesNotExistIsStillAnError() {
        RecordingLogger log = new RecordingLogger();
        RegionAllocator allocator = new RegionAllocator(missing, log, false);
        try (Arena arena = Arena.ofConfined()) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> allocator.allocate(arena, "table", 4096, 128, Placement.node(7)));
            assertEquals("node=7: available nodes are [0]", e.getMessage());
        }
        assertTrue(log.lines.isEmpty());
    }
}
