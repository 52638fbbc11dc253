package io.hotkeeper.engine.placement;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The process-wide count of native bytes Hotkeeper holds: every region a {@link RegionAllocator} hands out is
 * added when it is allocated, and an allocator's whole total is subtracted when its owner reports the arena
 * closed ({@link RegionAllocator#arenaClosed()}). Sizes are the bytes asked for; the allocator's alignment
 * padding and malloc's own overhead are not included (native memory tracking sees those).
 *
 * <p>Updated only when a region is allocated (sketch construction, a worker's first shard or combiner block)
 * and at close, never on the observe path. A region allocated by a thread racing {@code close()} (which then
 * fails or is freed at once) can leave the count off by that region; the soak closes quiescent sketches.
 *
 * <p>Threads: any. Progress: wait-free.
 */
public final class NativeBytes {
    private static final AtomicLong LIVE = new AtomicLong();

    private NativeBytes() {
    }

    /** Native bytes held by Hotkeeper regions whose arena is still open. Threads: any. Progress: wait-free. */
    public static long live() {
        return LIVE.get();
    }

    static void add(long bytes) {
        LIVE.addAndGet(bytes);
    }
}
