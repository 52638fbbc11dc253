package io.hotkeeper.numa;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every numa_alloc_* allocation is freed exactly once, by its arena. Uses its own facade for exact counts. */
class NumaLifetimeTest {

    private final Numa numa = Numa.load(Numa.DEFAULT_LIBRARY);

    @Test
    void closingTheArenaFreesEachAllocationExactlyOnce() {
        assertTrue(numa.isAvailable(), numa::toString);
        long pageSize = numa.pageSize();
        Arena arena = Arena.ofConfined();
        MemorySegment onNode = numa.allocateOnNode(arena, pageSize, 0);
        MemorySegment interleaved = numa.allocateInterleaved(arena, 3 * pageSize);
        numa.allocateLocal(arena, 100);
        assertEquals(3, numa.liveAllocations());
        assertEquals(4 * pageSize + 100, numa.liveBytes());
        onNode.set(ValueLayout.JAVA_LONG, 0, 42);

        arena.close();
        assertEquals(0, numa.liveAllocations());
        assertEquals(0, numa.liveBytes());

        assertThrows(IllegalStateException.class, () -> onNode.get(ValueLayout.JAVA_LONG, 0));
        assertThrows(IllegalStateException.class, () -> interleaved.set(ValueLayout.JAVA_BYTE, 0, (byte) 1));
        assertThrows(IllegalStateException.class, arena::close, "a second close is refused, frees nothing");
        assertEquals(0, numa.liveAllocations(), "no double free");
        assertThrows(IllegalStateException.class, () -> numa.nodesOfPages(onNode));
    }

    @Test
    void allocatingInAClosedArenaFreesAtOnce() {
        Arena arena = Arena.ofConfined();
        arena.close();
        assertThrows(IllegalStateException.class, () -> numa.allocateOnNode(arena, 4096, 0));
        assertEquals(0, numa.liveAllocations());
    }

    @Test
    void allocatingInAnotherThreadsConfinedArenaFreesAtOnce() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            CompletableFuture<Void> other = CompletableFuture.runAsync(() -> numa.allocateLocal(arena, 4096));
            ExecutionException e = assertThrows(ExecutionException.class, other::get);
            assertInstanceOf(WrongThreadException.class, e.getCause());
            assertEquals(0, numa.liveAllocations());
        }
    }

    @Test
    void sharedArenaAllocationsFromManyThreadsAreAllFreed() throws Exception {
        int threads = 4;
        int perThread = 50;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try (Arena arena = Arena.ofShared()) {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                futures.add(pool.submit(() -> {
                    for (int i = 0; i < perThread; i++) {
                        MemorySegment segment = numa.allocateOnNode(arena, 4096, 0);
                        segment.set(ValueLayout.JAVA_INT, 0, i);
                    }
                }));
            }
            for (Future<?> future : futures) {
                future.get();
            }
            assertEquals(threads * perThread, numa.liveAllocations());
        } finally {
            pool.shutdown();
        }
        assertEquals(0, numa.liveAllocations());
        assertEquals(0, numa.liveBytes());
    }
}
