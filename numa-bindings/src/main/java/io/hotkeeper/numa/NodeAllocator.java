package io.hotkeeper.numa;

import io.hotkeeper.numa.generated.numa_h;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Allocates with {@code numa_alloc_*} and ties each allocation to a caller's {@link Arena}: closing the
 * arena (or, for an automatic arena, collecting it) calls {@code numa_free} exactly once. Counts the live
 * allocations so that callers and tests can see every allocation freed exactly once.
 */
final class NodeAllocator {

    private final AtomicLong liveAllocations = new AtomicLong();
    private final AtomicLong liveBytes = new AtomicLong();

    MemorySegment onNode(Arena arena, long byteSize, int node) {
        return adopt(numa_h.numa_alloc_onnode(byteSize, node), arena, byteSize,
                "numa_alloc_onnode(size=" + byteSize + ", node=" + node + ")");
    }

    MemorySegment interleaved(Arena arena, long byteSize) {
        return adopt(numa_h.numa_alloc_interleaved(byteSize), arena, byteSize,
                "numa_alloc_interleaved(size=" + byteSize + ")");
    }

    MemorySegment local(Arena arena, long byteSize) {
        return adopt(numa_h.numa_alloc_local(byteSize), arena, byteSize,
                "numa_alloc_local(size=" + byteSize + ")");
    }

    long liveAllocations() {
        return liveAllocations.get();
    }

    long liveBytes() {
        return liveBytes.get();
    }

    private MemorySegment adopt(MemorySegment raw, Arena arena, long byteSize, String call) {
        if (raw.equals(MemorySegment.NULL)) {
            throw new OutOfMemoryError(call + ": returned NULL");
        }
        liveAllocations.incrementAndGet();
        liveBytes.addAndGet(byteSize);
        // The cleanup must not capture the segment itself (it would keep an automatic arena reachable).
        Consumer<MemorySegment> free = address -> free(address, byteSize);
        try {
            return raw.reinterpret(byteSize, arena, free);
        } catch (RuntimeException e) {
            // Arena already closed, or confined to another thread: nothing owns the memory, free it now.
            free(raw, byteSize);
            throw e;
        }
    }

    private void free(MemorySegment address, long byteSize) {
        numa_h.numa_free(address, byteSize);
        liveBytes.addAndGet(-byteSize);
        liveAllocations.decrementAndGet();
    }
}
