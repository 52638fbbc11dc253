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
 * <p>Engagement protocol (auto): before engaging, an observation goes to the table with no worker lookup; one
 * that leaves its key hot compares the calling thread with the first thread that did so (an opaque read, then a
 * CAS from null) and, if it is another, sets the engaged flag (release). Blocks are created only after that, at a
 * worker's first admission, under the combiners' lock (array release store, volatile copy-on-write list). Every
 * unit is in the table or pending in exactly one entry.
 *
 * <p>Run: {@code jcstress/run -- -t CombinerFlushTest}.
 */
public final class CombinerFlushTest {
    private CombinerFlushTest() {
    }

    /**
     * Worker 0 (exclusive, threshold 4) has K at table 1 + pending 3 and flushes it going idle; another
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
     * Auto combining: workers 0 and 1 (two threads) each observe their hot key twice (K, L; hot from count 1).
     * The second thread to see a hot key engages combining; a worker creates its block and admits its key at its
     * first observation after that. r1, r2: K's and L's pending counts afterwards (0: admitted with its table
     * count, nothing pending yet); r3, r4: K's and L's table + pending (2 each); r5: 10 x blocks in use + engaged.
     */
    @JCStressTest
    @Description("Two threads' hot keys engage auto combining; blocks come after, no unit lost or doubled")
    @Outcome(id = "0, 0, 2, 2, 21", expect = ACCEPTABLE,
            desc = "Engaged before both second observations: both workers created their blocks and admitted")
    @Outcome(id = "0, 0, 2, 2, 11", expect = ACCEPTABLE_INTERESTING,
            desc = "One worker observed twice before the other saw a hot key: only the engaging one's block")
    @Outcome(id = ".*", expect = FORBIDDEN,
            desc = "Not engaged after two threads saw hot keys, no block, a unit lost or doubled, or a block "
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
