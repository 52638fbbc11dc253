package io.hotkeeper.jcstress.combine;

import io.hotkeeper.engine.combine.CombinerLayout;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJJJ_Result;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;

/**
 * NEGATIVE CONTROL for {@link CombinerGateTest.TwoObservers}, not a test of Hotkeeper: the same block, key and
 * shared worker, but each thread runs a copy of the combiner's pending increment (plain load, opaque store)
 * without taking the gate. Two threads inside at once lose an increment.
 */
@JCStressTest
@Description("NEGATIVE CONTROL: the pending increment without the gate loses units when two threads share a worker")
@Outcome(id = "(5, 6|6, 5), 1, 5, 6", expect = ACCEPTABLE, desc = "No overlap")
@Outcome(id = "5, 5, 1, 4, 5", expect = ACCEPTABLE_INTERESTING,
        desc = "Both loaded pending 3 and both stored 4: a unit lost, what the gate prevents")
@Outcome(id = ".*", expect = ACCEPTABLE, desc = "Other")
@State
public class BrokenCombinerGateTest extends CombinerGateTest.Fixture {
    private static final VarHandle WORD = ValueLayout.JAVA_LONG.varHandle();

    /** The bug: HotKeyCombiners.combine's hit path, minus the gate around it. */
    long observeUngated() {
        MemorySegment block = blocks[0];
        long offset = way0(K) + CombinerLayout.STATE;
        long state = (long) WORD.get(block, offset) + 1;
        WORD.setOpaque(block, offset, state);
        return CombinerLayout.base(state) + CombinerLayout.pending(state);
    }

    @Actor
    public void thread1(JJJJJ_Result r) {
        r.r1 = observeUngated();
    }

    @Actor
    public void thread2(JJJJJ_Result r) {
        r.r2 = observeUngated();
    }

    @Arbiter
    public void arbiter(JJJJJ_Result r) {
        r.r3 = table.estimate(K);
        r.r4 = combiners.pending(K);
        r.r5 = estimate(K);
    }
}
