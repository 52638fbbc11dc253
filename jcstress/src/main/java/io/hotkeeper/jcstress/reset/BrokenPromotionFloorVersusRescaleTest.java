package io.hotkeeper.jcstress.reset;

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
 * Negative control of {@link PromotionFloorVersusRescaleTest.Reset}: the owner reads the rescale count before its
 * counts, as the real one does, but then raises the floor as if its counts had been read at the raise
 * ({@code KeyShards.rejected(count)}, which takes the rescale count only then). A reset that runs whole between the
 * owner's counts and its raise is missed: the floor stays at 1,001 over an empty table, and no key below 1,001
 * would be tracked again until a shard reaps.
 *
 * <p>Run: {@code jcstress/run --negative -- -t BrokenPromotionFloorVersusRescaleTest}. The interesting outcome is
 * the bug: {@code 0, 1001}.
 */
@JCStressTest
@Description("Broken floor raise (rescale count taken at the raise, not before the counts) against reset()")
@Outcome(id = {"0, 4", "1, 4", "1, 1001"}, expect = ACCEPTABLE, desc = "As in the real test")
@Outcome(id = "0, 1001", expect = ACCEPTABLE_INTERESTING,
        desc = "The bug: reset ran between the owner's counts and its raise, which outlived it")
@State
public class BrokenPromotionFloorVersusRescaleTest extends PromotionFloorVersusRescaleTest.Fixture {
    @Actor
    public void owner(JJ_Result r) {
        r.r1 = reject(false);
    }

    @Actor
    public void rescaler() {
        hk.reset();
    }

    @Arbiter
    public void arbiter(JJ_Result r) {
        readFloor(r);
    }
}
