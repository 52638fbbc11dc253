package io.hotkeeper.jcstress.combine;

import io.hotkeeper.engine.combine.CombinerLayout;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJ_Result;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;

/**
 * NEGATIVE CONTROL for {@link CombinerFlushTest.FlushCurrentVersusEstimate}, not a test of Hotkeeper: the same
 * block and key, but the owner runs a copy of the flush that raises the table first and zeroes pending after.
 * An estimator between the two counts the batch twice.
 */
@JCStressTest
@Description("NEGATIVE CONTROL: a flush that raises the table before zeroing pending is counted twice")
@Outcome(id = "3, [14], 4", expect = ACCEPTABLE, desc = "No overlap")
@Outcome(id = "3, 7, 4", expect = ACCEPTABLE_INTERESTING,
        desc = "The estimator read the raised table (4) and the not-yet-zeroed pending (3): what the real order prevents")
@Outcome(id = ".*", expect = ACCEPTABLE, desc = "Other")
@State
public class BrokenCombinerFlushTest extends CombinerFixture {
    private static final VarHandle WORD = ValueLayout.JAVA_LONG.varHandle();

    public BrokenCombinerFlushTest() {
        super(4, false);
        observe(K, owner(0), 4);
        check(table.estimate(K) == 1 && combiners.pending(K) == 3, "K table 1 + pending 3");
    }

    /** The bug: HotKeyCombiners.flush with its two steps swapped. */
    long flushTableFirst() {
        MemorySegment block = blocks[0];
        long offset = way0(K) + CombinerLayout.STATE;
        long state = (long) WORD.get(block, offset);
        long pending = CombinerLayout.pending(state);
        long count = count(table.observe(K, pending, owner(0)));
        WORD.setRelease(block, offset, CombinerLayout.state(count, 0));
        return pending;
    }

    @Actor
    public void flusher(JJJ_Result r) {
        r.r1 = flushTableFirst();
    }

    @Actor
    public void estimator(JJJ_Result r) {
        r.r2 = estimate(K);
    }

    @Arbiter
    public void arbiter(JJJ_Result r) {
        r.r3 = estimate(K);
    }
}
