package io.hotkeeper.engine.placement;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The process-wide count of native bytes Hotkeeper holds: every region a {@link RegionAllocator} hands out is
 * added when it is allocated, and an allocator's whole total is subtracted when its owner reports the arena
 * closed ({@link RegionAllocator#arenaClosed()}). Sizes are the bytes asked for; the allocator's alignment
 * padding and malloc's own overhead are not included (native memory tracking sees those).
 *
 * <p>Updated only when a region is allocated (sketch construction, a worker's first shard or combiner block)
 * and at close, never on the observe path. Exact when an allocation races {@code close()}: a region the arena
 * handed out before its close is either counted and then subtracted by {@link RegionAllocator#arenaClosed()}, or,
 * when the allocating thread gets to count it only after that call, not counted at all ({@link HeldBytes}); an
 * allocation after the close fails and counts nothing. So once the racing threads have returned, the count is
 * back where it was before the sketch was built.
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
