package io.hotkeeper.jcstress.combine;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJJJ_Result;
import org.openjdk.jcstress.infra.results.JJJ_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * A worker going idle hands its pending counts to the table ({@code HotKeyCombiners.flushCurrent}) while another
 * thread estimates, and the engagement of combining when the second worker creates its block.
 *
 * <p>Flush protocol: the owner zeroes the entry's pending count with a release store, then adds the units to the
 * table with one release CAS, then writes the new base (release). An estimator loads the table slot with acquire
 * ({@code estimate}), then the entry's hash, state and hash again with acquire ({@code pending}). If its acquire
 * load of the slot sees the flushed count, it happens-after the CAS and so after the zeroing store (program order
 * before the release CAS): it reads pending 0, never the old 3. If it misses the CAS it may read pending 3 or 0:
 * the estimate is right or low by the batch for a moment, never high. Negative control:
 * {@link BrokenCombinerFlushTest} (table first, then zero).
 *
 * <p>Engagement protocol (auto): a worker's first hot key creates its block under the combiners' lock (block
 * published by an array release store and a volatile copy-on-write list); the second block's creation sets the
 * engaged flag (release) inside the same critical section. The worker then reads the flag (opaque) in program
 * order after its own activation: the worker that engages always sees it, so its key is admitted at once; the
 * other sees it at some later observation. Every unit is in the table or pending in exactly one entry.
 *
 * <p>Run: {@code jcstress/run -- -t CombinerFlushTest}.
 */
public final class CombinerFlushTest {
    private CombinerFlushTest() {
    }

    /**
     * Worker 0 (exclusive ticket, threshold 4) has K at table 1 + pending 3 and flushes it going idle; another
     * thread estimates K. r1: units flushed; r2: the estimate; r3: table + pending once quiet.
     */
    @JCStressTest
    @Description("flushCurrent (pending 3 -> table) against an estimate of the key: never counted twice, none lost")
    @Outcome(id = "3, 4, 4", expect = ACCEPTABLE, desc = "Estimate before or after the flush: 1 + 3, or 4 + 0")
    @Outcome(id = "3, 1, 4", expect = ACCEPTABLE_INTERESTING,
            desc = "Mid-flush: pending already zeroed, the table's CAS not yet seen (low by the batch, as documented)")
    @Outcome(id = ".*", expect = FORBIDDEN, desc = "A unit counted twice (7), lost once quiet, or not flushed")
    @State
    public static class FlushCurrentVersusEstimate extends CombinerFixture {
        public FlushCurrentVersusEstimate() {
            super(4, false);
            observe(K, owner(0), 4);
            check(table.estimate(K) == 1 && combiners.pending(K) == 3, "K table 1 + pending 3");
        }

        @Actor
        public void flusher(JJJ_Result r) {
            r.r1 = combiners.flushCurrent(owner(0), table);
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

    /**
     * Auto combining: workers 0 and 1 each observe their first hot key twice (K, L; admitted from count 1), so
     * both create their blocks at once and the second creation engages combining. r1, r2: K's and L's pending
     * counts afterwards (1: the worker's key was admitted at its first observation, which saw the flag); r3, r4:
     * K's and L's table + pending (2 each); r5: 10 x blocks in use + engaged (21).
     */
    @JCStressTest
    @Description("Two workers create their blocks at once (auto): the engaging one combines at once, no unit lost")
    @Outcome(id = "1, 0, 2, 2, 21", expect = ACCEPTABLE,
            desc = "Worker 0 engaged (its activation was second) and admitted K at once; worker 1 had read the flag "
                    + "before that and observed L through the table both times (or admitted it at the second)")
    @Outcome(id = "0, 1, 2, 2, 21", expect = ACCEPTABLE, desc = "Mirror: worker 1 engaged")
    @Outcome(id = "1, 1, 2, 2, 21", expect = ACCEPTABLE_INTERESTING,
            desc = "The first activator read the flag after the second had engaged: both admitted at once")
    @Outcome(id = ".*", expect = FORBIDDEN,
            desc = "Neither worker saw the engagement its own activation made, a unit lost or doubled, or a block "
                    + "missing from the estimators' list")
    @State
    public static class Engage extends CombinerFixture {
        public Engage() {
            super(4, true);
        }

        @Actor
        public void worker0(JJJJJ_Result r) {
            observe(K, owner(0), 2);
        }

        @Actor
        public void worker1(JJJJJ_Result r) {
            observe(L, owner(1), 2);
        }

        @Arbiter
        public void arbiter(JJJJJ_Result r) {
            r.r1 = combiners.pending(K);
            r.r2 = combiners.pending(L);
            r.r3 = estimate(K);
            r.r4 = estimate(L);
            r.r5 = combiners.activeBlocks() * 10L + (combiners.engaged() ? 1 : 0);
        }
    }
}
