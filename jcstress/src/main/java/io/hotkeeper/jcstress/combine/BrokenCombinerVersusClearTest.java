package io.hotkeeper.jcstress.combine;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;

/**
 * NEGATIVE CONTROL for {@link CombinerVersusClearTest}, not a test of Hotkeeper: the same table, combiners and
 * key, but the clearer withdraws the blocks before it empties the table instead of after. An owner that drops its
 * hot set and admits its key again in between is left with the key combined and its slot cleared: the arbiter's
 * observation is only a pending count, and the table holds nothing.
 */
@JCStressTest
@Description("NEGATIVE CONTROL: blocks withdrawn before the table is cleared leave a combined key without a slot")
@Outcome(id = "0, .*", expect = ACCEPTABLE_INTERESTING,
        desc = "Re-admitted before the clear reached its slot: combined with no slot, what the real order prevents")
@Outcome(id = ".*", expect = ACCEPTABLE, desc = "Other")
@State
public class BrokenCombinerVersusClearTest extends CombinerVersusClearTest {
    public BrokenCombinerVersusClearTest() {
        super(false);
    }

    @Actor
    @Override
    public void owner() {
        super.owner();
    }

    /** The bug: HotKeyCombiners.tableCleared run before TableSet.clearSlice's sweep rather than after it. */
    @Actor
    @Override
    public void clearer() {
        combiners.tableCleared();
        tables.scale(0);
    }

    @Arbiter
    @Override
    public void arbiter(JJ_Result r) {
        super.arbiter(r);
    }
}
