package io.hotkeeper.engine.jfr;

import io.hotkeeper.engine.HeavyHitter;
import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.HotkeeperInfo;
import io.hotkeeper.engine.core.Internals;
import io.hotkeeper.engine.core.TableSet;
import io.hotkeeper.engine.snapshot.KeyBounds;
import io.hotkeeper.engine.table.BucketTable;
import io.hotkeeper.engine.table.TableLayout;
import jdk.jfr.FlightRecorder;

import java.util.List;
import java.util.Objects;

/**
 * Registers a named sketch with Java Flight Recorder: a periodic hook for {@link HotKeyEvent} that reads the
 * sketch's top k when, and only when, a recording has the event enabled. JFR calls the hook on its own periodic
 * thread; it reads the sketch through the public read methods ({@code topK}, {@code totalWeight}, {@code info})
 * and the table's slot words (acquire loads), like any other reader, so the observe path does not change at all:
 * no flag is tested there, nothing is counted for JFR.
 *
 * <p>{@link Hotkeeper} calls {@link #register} last in its constructor (for a sketch built with
 * {@code HotkeeperBuilder.name}) and {@link #unregister} first in {@code close()}. A hook that JFR is running while
 * the sketch closes sees {@link IllegalStateException} from the read and emits nothing that period.
 *
 * <p>Threads: any. Progress: {@code register} and {@code unregister} are blocking (JFR's task list lock); the
 * hook is wait-free apart from JFR's own buffers (the reads it makes are).
 */
public final class HotKeyEvents {
    /** The confidence of the bounds the events carry (KeyBounds). */
    public static final double CONFIDENCE = 0.99;
    /** The most buckets per table the fill is sampled over (evenly spaced), to keep a period's cost bounded. */
    public static final int SAMPLED_BUCKETS = 4096;

    private HotKeyEvents() {
    }

    /**
     * Adds the periodic hook of the sketch {@code hot}, named {@code name}; {@code exactWeight} says whether its
     * {@code totalWeight()} is exact (stats recorded, no window). Returns the hook, for {@link #unregister}.
     * Registration publishes {@code hot} to JFR's periodic thread through the lock of JFR's task list, so the
     * hook sees the sketch fully built.
     */
    public static Runnable register(String name, Hotkeeper hot, boolean exactWeight) {
        Runnable hook = new Hook(Objects.requireNonNull(name, "name"), Objects.requireNonNull(hot, "hot"),
                exactWeight);
        FlightRecorder.addPeriodicEvent(HotKeyEvent.class, hook);
        return hook;
    }

    /** Removes a hook {@link #register} returned; a period that is running may still finish. */
    public static void unregister(Runnable hook) {
        FlightRecorder.removePeriodicEvent(hook);
    }

    /**
     * The fraction of slots in use (a non-zero word: occupied slots are a prefix of their bucket, but every slot is
     * looked at) over every table, each sampled at {@link #SAMPLED_BUCKETS} evenly spaced buckets at most (all of
     * a smaller table). Keys hash uniformly to buckets, so the sample estimates the whole. Acquire loads of slot
     * words, which pair with the writers' release CASes; the figure is not a snapshot. Progress: wait-free.
     *
     * @throws IllegalStateException if the sketch is closed
     */
    public static double fill(TableSet tables) {
        long used = 0;
        long seen = 0;
        for (int i = 0; i < tables.count(); i++) {
            BucketTable table = tables.table(i);
            long buckets = table.bucketCount();
            long step = Math.max(1, buckets / SAMPLED_BUCKETS);
            for (long b = 0; b < buckets; b += step) {
                for (int s = 0; s < TableLayout.SLOTS_PER_BUCKET; s++) {
                    if (table.laSlot(b, s) != 0) {
                        used++;
                    }
                }
                seen += TableLayout.SLOTS_PER_BUCKET;
            }
        }
        return seen == 0 ? 0 : (double) used / seen;
    }

    /** The events of one sketch for one period. */
    private record Hook(String name, Hotkeeper hot, boolean exactWeight) implements Runnable {
        @Override
        public void run() {
            List<HeavyHitter> top;
            long total;
            double fill;
            HotkeeperInfo info;
            int fingerprintBits;
            try {
                top = hot.topK();
                if (top.isEmpty()) {
                    return;
                }
                total = hot.totalWeight();
                TableSet tables = Internals.tables(hot);
                fill = fill(tables);
                info = hot.info();
                fingerprintBits = tables.table(0).geometry().fingerprintBits();
            } catch (IllegalStateException closed) {
                return; // closed during the period: nothing to report
            }
            int rank = 0;
            for (HeavyHitter h : top) {
                // The bounds Hotkeeper.bounds gives, from topK's estimate (the event's estimate is topK's).
                KeyBounds bounds = KeyBounds.of(h.estimate(), total, info.buckets(), info.candidateBuckets(),
                        fingerprintBits, CONFIDENCE);
                HotKeyEvent event = new HotKeyEvent();
                event.sketch = name;
                event.rank = ++rank;
                event.key = h.keyAsString();
                event.truncated = h.truncated();
                event.estimate = h.estimate();
                event.lower = bounds.lower();
                // No key can have counted more than the whole stream: an exact total caps the upper bound.
                event.upper = exactWeight ? Math.min(bounds.upper(), Math.max(total, h.estimate())) : bounds.upper();
                event.totalWeight = total;
                event.totalWeightExact = exactWeight;
                event.fill = fill;
                event.nativeBytes = info.nativeBytes();
                event.commit();
            }
        }

        @Override
        public String toString() {
            return "HotKeyEvents.Hook[" + name + "]";
        }
    }
}
