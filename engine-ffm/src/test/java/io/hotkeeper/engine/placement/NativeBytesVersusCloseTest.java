package io.hotkeeper.engine.placement;

import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.Placement;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The process-wide native byte count ({@link NativeBytes}, what the soak's leak check reads) returns exactly to
 * where it was once an allocator's arena is closed and reported closed, even when a region's allocation races
 * the close: a region the arena handed out before its close is counted and then subtracted, or not counted at
 * all, never counted after the close's subtraction.
 */
class NativeBytesVersusCloseTest {

    /**
     * An arena that allocates from {@code real} and then, once, holds the allocating thread just after the
     * allocation succeeded (before the allocator counts it) until the test lets it go.
     */
    private static final class PausingArena implements Arena {
        final Arena real = Arena.ofShared();
        final CountDownLatch allocated = new CountDownLatch(1);
        final CountDownLatch resume = new CountDownLatch(1);

        @Override
        public MemorySegment allocate(long byteSize, long byteAlignment) {
            MemorySegment segment = real.allocate(byteSize, byteAlignment);
            allocated.countDown();
            try {
                assertTrue(resume.await(10, TimeUnit.SECONDS));
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            return segment;
        }

        @Override
        public MemorySegment.Scope scope() {
            return real.scope();
        }

        @Override
        public void close() {
            real.close();
        }
    }

    /**
     * The interleaving made certain: a thread's region is allocated, the owner closes the arena and reports it
     * closed, and only then does the allocating thread go on to count the region (which the close has freed).
     */
    @Test
    void aRegionAllocatedBeforeTheCloseAndCountedAfterItLeavesTheCountExact() throws Exception {
        long before = NativeBytes.live();
        RegionAllocator allocator = new RegionAllocator();
        PausingArena arena = new PausingArena();
        AtomicReference<MemorySegment> region = new AtomicReference<>();
        Thread worker = Thread.ofPlatform().start(
                () -> region.set(allocator.allocate(arena, "shard", 4096, 128, Placement.DEFAULT)));
        assertTrue(arena.allocated.await(10, TimeUnit.SECONDS));
        arena.close();
        allocator.arenaClosed();
        arena.resume.countDown();
        worker.join(10_000);
        assertEquals(before, NativeBytes.live(), "the closed arena's region still counted");
        // The region was freed by the close, as any region of a closed arena.
        assertThrows(IllegalStateException.class, () -> region.get().get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0));
        assertEquals(4096L, allocator.bytesByPart().get("shard"), "the report still lists what was allocated");
    }

    /**
     * Without any pause: 4 threads allocate regions until the arena is closed under them, 300 rounds (about a
     * second); after each round the count is back where it started. Bounded by the round count, not by luck.
     */
    @Test
    void threadsAllocatingWhileTheArenaClosesLeaveTheCountExact() throws Exception {
        long before = NativeBytes.live();
        for (int round = 0; round < 300; round++) {
            RegionAllocator allocator = new RegionAllocator();
            Arena arena = Arena.ofShared();
            CountDownLatch started = new CountDownLatch(4);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                threads.add(Thread.ofPlatform().start(() -> {
                    started.countDown();
                    try {
                        for (int i = 0; i < 10_000; i++) {
                            allocator.allocate(arena, "shard", 256, 128, Placement.DEFAULT);
                        }
                    } catch (IllegalStateException closed) {
                        // The arena closed under this thread: the expected end.
                    }
                }));
            }
            started.await();
            Thread.onSpinWait();
            arena.close();
            allocator.arenaClosed();
            for (Thread t : threads) {
                t.join(10_000);
            }
            assertEquals(before, NativeBytes.live(), "round " + round);
        }
    }

    /**
     * The same through a sketch: fresh workers' first observations allocate their key shards and combiners while
     * the sketch closes; once every thread is done, the count is back where it started.
     */
    @Test
    void workersPromotingWhileTheSketchClosesLeaveTheCountExact() throws Exception {
        long before = NativeBytes.live();
        for (int round = 0; round < 50; round++) {
            Hotkeeper hk = Hotkeeper.builder().memoryBytes(4096).minCount(1).build();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                long key = t;
                threads.add(Thread.ofPlatform().start(() -> {
                    try {
                        for (int i = 0; i < 1000; i++) {
                            hk.observe(key + i);
                        }
                    } catch (IllegalStateException closed) {
                        // Closed under this worker.
                    }
                }));
            }
            hk.close();
            for (Thread t : threads) {
                t.join(10_000);
            }
            assertEquals(before, NativeBytes.live(), "round " + round);
        }
    }
}
