package io.hotkeeper.engine.jfr;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Percentage;
import jdk.jfr.Period;
import jdk.jfr.StackTrace;

/**
 * One hot key of one named sketch, as JFR records it: {@code io.hotkeeper.HotKey}, a periodic event (every second
 * by default; the recording's {@code period} setting changes it), <b>off</b> unless a recording enables it
 * (docs/operations.md). Every period, each open named sketch ({@code HotkeeperBuilder.name}) emits one event per
 * key of its {@code topK()}, ranked from 1; the sketch-wide fields (total weight, fill, native bytes) repeat on each
 * of them, so that one event type, one setting to enable, carries the whole picture. A sketch with no tracked key
 * emits nothing that period.
 *
 * <p>The field names are the event's schema (what {@code jfr print}, {@code RecordingFile} and JDK Mission Control
 * show): renaming one is an incompatible change for operators' scripts.
 *
 * <p>Threads: created and committed by {@link HotKeyEvents}'s hook only, on JFR's periodic thread.
 */
@Name(HotKeyEvent.NAME)
@Label("Hot Key")
@Category({"Hotkeeper"})
@Description("A heavy hitter of a named Hotkeeper sketch (one event per key of topK(), every period)")
@Enabled(false)
@Period("1 s")
@StackTrace(false)
public final class HotKeyEvent extends Event {
    /** The event's name in recordings and settings. */
    public static final String NAME = "io.hotkeeper.HotKey";

    @Label("Sketch")
    @Description("The sketch's name (HotkeeperBuilder.name)")
    public String sketch;

    @Label("Rank")
    @Description("1 for the highest estimate of the period")
    public int rank;

    @Label("Key")
    @Description("The key as HeavyHitter.keyAsString() prints it (a long as a number, text as text, other bytes "
            + "escaped)")
    public String key;

    @Label("Truncated")
    @Description("The key was longer than maxKeyBytes: Key is its prefix")
    public boolean truncated;

    @Label("Estimate")
    @Description("The sketch's estimate, as topK() reported it")
    public long estimate;

    @Label("Lower Bound")
    @Description("Lower bound on the true count at 99% confidence (KeyBounds)")
    public long lower;

    @Label("Upper Bound")
    @Description("Upper bound on the true count at 99% confidence (KeyBounds); at most Total Weight when that is "
            + "exact")
    public long upper;

    @Label("Total Weight")
    @Description("The stream length, Hotkeeper.totalWeight()")
    public long totalWeight;

    @Label("Total Weight Exact")
    @Description("Whether Total Weight is exact (recordStats) or a lower bound derived from the table")
    public boolean totalWeightExact;

    @Label("Fill")
    @Description("Fraction of the table's slots in use (sampled over at most 4096 buckets per table)")
    @Percentage
    public double fill;

    @Label("Native Memory")
    @Description("Native bytes the sketch has allocated (HotkeeperInfo.nativeBytes)")
    @DataAmount
    public long nativeBytes;
}
