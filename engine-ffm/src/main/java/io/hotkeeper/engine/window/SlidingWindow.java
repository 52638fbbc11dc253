package io.hotkeeper.engine.window;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Objects;
import java.util.function.IntConsumer;
import java.util.function.LongSupplier;

/**
 * The time slices of a windowed sketch ({@code HotkeeperBuilder.window}): {@code slices} tables, one written at a
 * time. Time is cut into slices of {@code span / slices} nanoseconds of the clock; slice epoch {@code e} (the
 * clock's value divided by the slice length) writes table {@code e mod slices}. Queries sum every table, so they
 * cover the current slice and the {@code slices - 1} before it: between {@code span - span / slices} and
 * {@code span} of the most recent time.
 *
 * <p>Rotation happens when a caller (an observation or a query) finds the clock past the current slice: the table
 * of each new epoch is cleared (it holds the oldest slice) and then the epoch is published. One caller rotates at a
 * time, through a try-lock; every other caller, observer or reader, goes on with the epoch published so far and
 * never waits. An observation that uses a slice while it is being cleared counts toward the old or the new slice
 * (the clearing is {@code Hotkeeper.reset}'s, per table). After an idle period of a whole span, rotation clears
 * every table once and jumps to the current epoch.
 *
 * <p>Memory order: the epoch is read with an acquire load and published with a release store (a reader that sees
 * epoch e also sees the clearing of table e mod slices that came before it); the rotation lock is a volatile CAS
 * and a release store.
 *
 * <p>Threads: any. Progress: {@link #current()} is lock-free for every caller: the rotator's work is bounded
 * (at most {@code slices} table clears), and nobody waits for it.
 */
public final class SlidingWindow {
    private static final VarHandle EPOCH;
    private static final VarHandle ROTATING;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            EPOCH = lookup.findVarHandle(SlidingWindow.class, "epoch", long.class);
            ROTATING = lookup.findVarHandle(SlidingWindow.class, "rotating", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final int slices;
    private final long sliceNanos;
    private final LongSupplier clock;
    private final IntConsumer clearTable;
    @SuppressWarnings("unused") // accessed through EPOCH
    private long epoch;
    @SuppressWarnings("unused") // accessed through ROTATING
    private boolean rotating;

    /**
     * A window of {@code span} cut into {@code slices} slices, on {@code clock} (nanoseconds), clearing table
     * {@code i} through {@code clearTable}.
     *
     * @throws IllegalArgumentException if the span is shorter than one nanosecond per slice or slices is not in
     *                                  2..64
     */
    public SlidingWindow(Duration span, int slices, LongSupplier clock, IntConsumer clearTable) {
        checkWindow(span, slices);
        this.slices = slices;
        this.sliceNanos = span.toNanos() / slices;
        this.clock = Objects.requireNonNull(clock, "clock");
        this.clearTable = Objects.requireNonNull(clearTable, "clearTable");
        EPOCH.setRelease(this, Math.floorDiv(clock.getAsLong(), sliceNanos));
    }

    /**
     * Checks a window's parameters. Threads: any. Progress: wait-free.
     *
     * @throws IllegalArgumentException if {@code slices} is not in 2..64 or the span is not positive or shorter
     *                                  than one nanosecond per slice
     */
    public static void checkWindow(Duration span, int slices) {
        Objects.requireNonNull(span, "span");
        if (slices < 2 || slices > 64) {
            throw new IllegalArgumentException("slices=" + slices + ": must be in 2..64");
        }
        if (span.isNegative() || span.isZero() || span.toNanos() / slices < 1) {
            throw new IllegalArgumentException("span=" + span + ": must be at least " + slices + " ns");
        }
    }

    /** Number of slices (and tables). Threads: any. Progress: wait-free. */
    public int slices() {
        return slices;
    }

    /** Length of one slice in nanoseconds. Threads: any. Progress: wait-free. */
    public long sliceNanos() {
        return sliceNanos;
    }

    /**
     * The index of the table the current slice writes, rotating first if the clock has passed it (unless another
     * thread is rotating: then the index published so far). Threads: any. Progress: lock-free.
     */
    public int current() {
        long target = Math.floorDiv(clock.getAsLong(), sliceNanos);
        long e = (long) EPOCH.getAcquire(this);
        if (target > e) {
            e = rotate(target);
        }
        return (int) Math.floorMod(e, (long) slices);
    }

    /** Advances the epoch to {@code target}, clearing each new slice's table first; returns the epoch published. */
    private long rotate(long target) {
        if (!ROTATING.compareAndSet(this, false, true)) {
            return (long) EPOCH.getAcquire(this); // someone else rotates: go on with what is published
        }
        try {
            long e = (long) EPOCH.getAcquire(this);
            if (target - e >= slices) {
                for (int i = 0; i < slices; i++) {
                    clearTable.accept(i);
                }
                EPOCH.setRelease(this, target);
                return target;
            }
            for (long next = e + 1; next <= target; next++) {
                clearTable.accept((int) Math.floorMod(next, (long) slices));
                EPOCH.setRelease(this, next);
            }
            return Math.max(e, target);
        } finally {
            ROTATING.setRelease(this, false);
        }
    }
}
