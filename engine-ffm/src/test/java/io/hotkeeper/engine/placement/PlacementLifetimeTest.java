package io.hotkeeper.engine.placement;

import io.hotkeeper.engine.Placement;
import io.hotkeeper.engine.RegionPlacement;
import io.hotkeeper.numa.Numa;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Regions live exactly as long as their arena: freed once when it closes, unusable afterwards. */
class PlacementLifetimeTest {

    @Test
    void libnumaRegionsAreFreedWhenTheArenaCloses() {
        Numa numa = Numa.load(Numa.DEFAULT_LIBRARY);
        RegionAllocator allocator = new RegionAllocator(numa, new RecordingLogger(), true);
        MemorySegment table;
        MemorySegment salt;
        try (Arena arena = Arena.ofShared()) {
            table = allocator.allocate(arena, "table", 4 * numa.pageSize(), 128, Placement.node(0));
            salt = allocator.allocate(arena, "salt", 128, 128, Placement.INTERLEAVE);
            allocator.allocate(arena, "stats", 256, 128, Placement.LOCAL);
            assertEquals(3, numa.liveAllocations());
            assertEquals(4 * numa.pageSize() + 128 + 256, numa.liveBytes());
            table.set(ValueLayout.JAVA_LONG, 0, 42L);
        }
        assertEquals(0, numa.liveAllocations(), "numa_free ran once per region");
        assertEquals(0, numa.liveBytes());
        assertClosedArena(assertThrows(IllegalStateException.class, () -> table.get(ValueLayout.JAVA_LONG, 0)));
        assertClosedArena(assertThrows(IllegalStateException.class, () -> salt.set(ValueLayout.JAVA_LONG, 0, 1L)));

        for (RegionPlacement r : allocator.report().regions()) {
            assertFalse(r.placementKnown(), r.name());
            assertEquals("freed: its arena is closed", r.note(), r.name());
        }
    }

    @Test
    void fallbackRegionsAreTheArenasAndFreedWithIt() {
        RegionAllocator allocator =
                new RegionAllocator(Numa.load("libnuma-does-not-exist.so"), new RecordingLogger(), false);
        Arena arena = Arena.ofConfined();
        MemorySegment table = allocator.allocate(arena, "table", 8192, 128, Placement.LOCAL);
        table.set(ValueLayout.JAVA_BYTE, 8191, (byte) 7);
        arena.close();
        assertClosedArena(assertThrows(IllegalStateException.class, () -> table.get(ValueLayout.JAVA_BYTE, 8191)));
        assertClosedArena(assertThrows(IllegalStateException.class,
                () -> allocator.allocate(arena, "late", 128, 128, Placement.LOCAL)));
    }

    @Test
    void allocatingFromAClosedArenaFailsWithoutLeaking() {
        Numa numa = Numa.load(Numa.DEFAULT_LIBRARY);
        RegionAllocator allocator = new RegionAllocator(numa, new RecordingLogger(), true);
        Arena arena = Arena.ofShared();
        arena.close();
        assertClosedArena(assertThrows(IllegalStateException.class,
                () -> allocator.allocate(arena, "table", 4096, 128, Placement.node(0))));
        assertEquals(0, numa.liveAllocations());
        assertEquals(0, allocator.report().regions().size());
    }

    /** The closed arena's own exception (JDK wording), not some other IllegalStateException. */
    private static void assertClosedArena(IllegalStateException e) {
        assertEquals("Already closed", e.getMessage());
    }
}
