package io.hotkeeper.jcstress;

import io.hotkeeper.engine.salt.SaltLayout;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJ_Result;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * NEGATIVE CONTROL, not a test of Hotkeeper: a salt counter built wrong, to show that the harness and the
 * outcome checks of {@link SharedSaltUniquenessTest} can catch a repeated salt value.
 *
 * <p>The counter lives where the real one does (a 128-byte salt region in native memory) but is advanced with a
 * plain load followed by a plain store instead of an atomic {@code getAndAdd}. When both threads load before
 * either stores, both get the same value and one increment is lost. That outcome is marked
 * ACCEPTABLE_INTERESTING so that it never fails a run; {@code jcstress/run --negative} runs only the negative
 * controls and fails if they did <em>not</em> show it.
 *
 * <p>r1, r2: the values drawn by actors 1 and 2; r3: the counter afterwards.
 *
 * <p>Run: {@code jcstress/run --negative}. Seen (quick mode, 2 cores): "0, 0, 1" in about a third of all
 * samples.
 */
@JCStressTest
@Description("NEGATIVE CONTROL: a non-atomic salt counter (plain read, then plain write) repeats values")
@Outcome(id = "0, 1, 2", expect = ACCEPTABLE, desc = "Actor 1 read-and-wrote before actor 2 read")
@Outcome(id = "1, 0, 2", expect = ACCEPTABLE, desc = "Actor 2 read-and-wrote before actor 1 read")
@Outcome(id = "0, 0, 1", expect = ACCEPTABLE_INTERESTING,
        desc = "Both read 0 before either wrote: the broken counter repeats a value (and loses an increment): "
                + "this is what the real salt must never do")
@Outcome(id = ".*", expect = FORBIDDEN, desc = "Impossible even for the broken counter")
@State
public class BrokenSaltUniquenessTest {
    final MemorySegment counter = Arena.ofAuto().allocate(SaltLayout.REGION_BYTES, SaltLayout.ALIGNMENT);

    /** The bug: a read and a write where one atomic read-modify-write belongs. */
    private long brokenNext() {
        long value = counter.get(ValueLayout.JAVA_LONG, SaltLayout.counterOffset(0));
        counter.set(ValueLayout.JAVA_LONG, SaltLayout.counterOffset(0), value + 1);
        return value;
    }

    @Actor
    public void drawer1(JJJ_Result r) {
        r.r1 = brokenNext();
    }

    @Actor
    public void drawer2(JJJ_Result r) {
        r.r2 = brokenNext();
    }

    @Arbiter
    public void arbiter(JJJ_Result r) {
        r.r3 = counter.get(ValueLayout.JAVA_LONG, SaltLayout.counterOffset(0));
    }
}
