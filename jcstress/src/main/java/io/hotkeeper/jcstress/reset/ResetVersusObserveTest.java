package io.hotkeeper.jcstress.reset;

import io.hotkeeper.engine.core.Internals;
import io.hotkeeper.engine.CombiningMode;
import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.shard.ShardIntegrity;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJJ_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * {@code Hotkeeper.reset()} against an observation of a tracked key, through the production facade: the
 * observation counts toward the state before the reset (and is cleared with it) or after it (and stays, tracked
 * again), never both, never lost from the new state, and the key shards keep every invariant (a tracked slot
 * links a live entry, every live entry is linked from its tracked slot; {@link ShardIntegrity}).
 *
 * <p>Fixture: 4 KiB, seed 21, promotion floor 1, combining off; key K observed once by the state's constructor,
 * so it holds a tracked slot with count 1. The reset takes K's link lock to untrack the slot and hand its entry
 * off, then empties it with a CAS; an observation that refreshes the slot in between (even one that re-promotes
 * K) makes that CAS fail, and reset handles the new word.
 *
 * <p>Result {@code observed, estimate, tracked, violations}: what observe returned, the estimate of K, the number
 * of tracked keys, and the integrity violations, the last three read by the arbiter. Run:
 * {@code jcstress/run -- -t ResetVersusObserveTest}. Negative control: {@link BrokenResetVersusObserveTest}.
 */
@JCStressTest
@Description("reset() against observe(K) of a tracked key: K counts toward one side only; shards stay intact")
@Outcome(id = "2, 0, 0, 0", expect = ACCEPTABLE,
        desc = "The observation refreshed K's slot (count 2) before reset emptied it: cleared with the old state")
@Outcome(id = "1, 1, 1, 0", expect = ACCEPTABLE,
        desc = "Reset emptied the slot first; the observation claimed a new one (count 1) and promoted K again")
@Outcome(id = ".*", expect = FORBIDDEN,
        desc = "Reset missed a unit or kept the old count, the observation was lost from the new state, or a key "
                + "shard invariant broke (a tracked slot without a live entry, an orphaned entry)")
@State
public class ResetVersusObserveTest {
    static final long K = 0x5EED_0001L;

    final Hotkeeper hk = Hotkeeper.builder().memoryBytes(4096).seed(21).minCount(1)
            .combining(CombiningMode.OFF).build();

    public ResetVersusObserveTest() {
        hk.observe(K);
    }

    @Actor
    public void observer(JJJJ_Result r) {
        r.r1 = hk.observe(K);
    }

    @Actor
    public void resetter() {
        hk.reset();
    }

    @Arbiter
    public void arbiter(JJJJ_Result r) {
        r.r2 = hk.estimate(K);
        r.r3 = hk.topK(4).size();
        r.r4 = ShardIntegrity.violations(Internals.keyShards(hk)).size();
        hk.close();
    }
}
