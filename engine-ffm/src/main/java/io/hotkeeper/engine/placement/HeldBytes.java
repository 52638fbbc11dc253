package io.hotkeeper.engine.placement;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * The native bytes one arena's regions hold, as counted in a shared total ({@link NativeBytes} for a
 * {@link RegionAllocator}): each region is added once it is allocated, and the whole is taken back once, when the
 * arena is reported closed. Internal; public for the jcstress tests.
 *
 * <p>The protocol (one word, {@code held}): {@link #add} is one volatile {@code getAndAdd}; {@link #close} one
 * volatile {@code getAndSet} to {@link #CLOSED}, a value so negative that no sum of adds makes it non-negative.
 * Both are read-modify-writes of the same variable, so they are totally ordered: an add ordered before the close
 * is in the value the close swaps out, and is subtracted from the total by it; an add ordered after the close
 * reads a negative value and does not touch the total. So the total gets back exactly what it was given, whatever
 * the interleaving. That is right for regions because the arena is closed before {@link #close} is called: a
 * region whose add comes after it was allocated before the arena closed and freed by that close (an allocation
 * after the close fails), so it must not be counted.
 *
 * <p>Happens-before: none is needed beyond the single variable's total order; the total is updated outside it
 * (another atomic), so it may briefly show an add before the matching subtraction or the reverse, and is exact
 * once every racing add and the close have returned.
 *
 * <p>Threads: any. Progress: wait-free (one atomic read-modify-write, then at most one on the total).
 */
public final class HeldBytes {
    /** {@code held} once closed: adds keep it negative (they would need 2^63 bytes to reach 0). */
    private static final long CLOSED = Long.MIN_VALUE;

    private final AtomicLong held = new AtomicLong();
    private final LongConsumer total;

    /**
     * Bytes counted into {@code total} (which receives each add, and once the negated sum).
     *
     * <p>Threads: any. Progress: wait-free.
     */
    public HeldBytes(LongConsumer total) {
        this.total = java.util.Objects.requireNonNull(total, "total");
    }

    /**
     * Counts a region of {@code bytes}, unless {@link #close} has run: then the region was freed by the arena's
     * close and is not counted. Threads: any. Progress: wait-free.
     *
     * @return whether the bytes were counted
     */
    public boolean add(long bytes) {
        // Volatile getAndAdd: ordered with close's getAndSet on the same word (see the class comment).
        if (held.getAndAdd(bytes) < 0) {
            return false;
        }
        total.accept(bytes);
        return true;
    }

    /**
     * Takes every counted byte back out of the total, once; later adds count nothing and later calls take
     * nothing. Call it after the arena has closed. Threads: any. Progress: wait-free.
     *
     * @return the bytes taken back (0 on a second call)
     */
    public long close() {
        // Volatile getAndSet: every add ordered before it is in the value swapped out (see the class comment).
        long counted = held.getAndSet(CLOSED);
        if (counted < 0) {
            return 0;
        }
        total.accept(-counted);
        return counted;
    }
}
