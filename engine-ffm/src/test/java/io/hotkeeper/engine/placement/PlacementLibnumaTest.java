package io.hotkeeper.engine.placement;

import io.hotkeeper.engine.Placement;
import io.hotkeeper.engine.PlacementReport;
import io.hotkeeper.engine.RegionPlacement;
import io.hotkeeper.numa.Numa;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The libnuma path ({@code numa_alloc_onnode}, {@code numa_alloc_interleaved}), forced on the one-node CI
 * machine through the package-private constructor: placement is applied and verified by the page query.
 */
class PlacementLibnumaTest {

    private static Numa numa;
    private static long pageSize;

    @BeforeAll
    static void available() {
        numa = Numa.system();
        assertTrue(numa.isAvailable(), numa::toString);
        pageSize = numa.pageSize();
    }

    private static RegionAllocator forced() {
        return new RegionAllocator(numa, new RecordingLogger(), true);
    }

    @Test
    void nodeZeroPagesAreUntouchedUntilWrittenThenOnNodeZero() {
        RegionAllocator allocator = forced();
        long bytes = 16 * pageSize;
        try (Arena arena = Arena.ofShared()) {
            MemorySegment table = allocator.allocate(arena, "table", bytes, 128, Placement.node(0));
            assertEquals(bytes, table.byteSize());
            assertEquals(0, table.address() % pageSize, "numa_alloc is page aligned");

            RegionPlacement before = allocator.report().region("table");
            assertEquals(Placement.node(0), before.effective());
            assertEquals(16, before.pages());
            assertEquals(16, before.untouchedPages());
            assertTrue(before.pagesPerNode().isEmpty());
            assertEquals("", before.note());

            Pages.touch(table, pageSize);
            RegionPlacement after = allocator.report().region("table");
            assertEquals(Map.of(0, 16L), after.pagesPerNode());
            assertEquals(0, after.untouchedPages());
        }
    }

    @Test
    void localResolvesToTheNodeOfTheCallingThread() {
        RegionAllocator allocator = forced();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment stats = allocator.allocate(arena, "stats", 3 * 128, 128, Placement.LOCAL);
            assertTrue(Pages.allZero(stats));
            Pages.touch(stats, pageSize);
            RegionPlacement r = allocator.report().region("stats");
            assertEquals(Placement.LOCAL, r.requested());
            assertEquals(Placement.node(0), r.effective());
            assertEquals(Map.of(0, 1L), r.pagesPerNode());
        }
    }

    @Test
    void interleaveSpreadsOverTheOneNode() {
        RegionAllocator allocator = forced();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment table = allocator.allocate(arena, "table", 8 * pageSize, 128, Placement.INTERLEAVE);
            assertTrue(Pages.allZero(table), "zero-filled");
            Pages.touch(table, pageSize);
            RegionPlacement r = allocator.report().region("table");
            assertEquals(Placement.INTERLEAVE, r.effective());
            assertEquals(Map.of(0, 8L), r.pagesPerNode());
        }
    }

    @Test
    void alignmentAboveThePageSizeIsMet() {
        RegionAllocator allocator = forced();
        long alignment = 64 * pageSize;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment table = allocator.allocate(arena, "table", 3 * pageSize, alignment, Placement.node(0));
            assertEquals(0, table.address() % alignment);
            assertEquals(3 * pageSize, table.byteSize());
            Pages.touch(table, pageSize);
            assertEquals(Map.of(0, 3L), allocator.report().region("table").pagesPerNode());
        }
    }

    @Test
    void perThreadShardsLandOnTheirThreadsNode() throws Exception {
        RegionAllocator allocator = forced();
        Map<String, MemorySegment> shards = new ConcurrentHashMap<>();
        try (Arena arena = Arena.ofShared()) {
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                String name = "shard-" + i;
                Runnable owner = () -> {
                    MemorySegment shard = allocator.allocateOnCurrentNode(arena, name, 2 * pageSize, 128);
                    Pages.touch(shard, pageSize);
                    shards.put(name, shard);
                };
                threads.add(i % 2 == 0 ? Thread.ofVirtual().start(owner) : Thread.ofPlatform().start(owner));
            }
            for (Thread t : threads) {
                t.join();
            }
            PlacementReport report = allocator.report();
            assertEquals(8, report.regions().size());
            for (int i = 0; i < 8; i++) {
                RegionPlacement r = report.region("shard-" + i);
                assertEquals(Placement.LOCAL, r.requested());
                assertEquals(Placement.node(0), r.effective());
                assertEquals(Map.of(0, 2L), r.pagesPerNode(), r::toString);
            }
        }
    }
}
