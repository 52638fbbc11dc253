package io.hotkeeper.jcstress.combine;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJJJ_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The combiner's virtual-thread gate: threads sharing one worker (a carrier's virtual threads, a worker flagged
 * shared) take a try-lock on their block before touching it, and bypass to the table when it is held.
 *
 * <p>Protocol: {@code compareAndExchangeAcquire(GATE, 0, 1)} enters; {@code setRelease(GATE, 0)} leaves. The
 * acquire CAS pairs with the previous holder's release store, so a holder sees every entry write of the holder
 * before it (its plain loads of the pending count then read the last value, and its opaque store builds on it);
 * the CAS's atomicity admits at most one holder at a time. A thread that finds the gate held observes through the
 * table (a CAS there), so no unit waits and none is lost. Inside, the pending increment is a plain load and an
 * opaque store: correct only because the gate makes the holder the block's sole writer, which is what the lost
 * update in the negative control {@link BrokenCombinerGateTest} shows.
 *
 * <p>Fixture (worker 0 shared, always engaged, flush threshold 16): K admitted with table count 1 and 3 pending.
 * Run: {@code jcstress/run -- -t CombinerGateTest}.
 */
public final class CombinerGateTest {
    private CombinerGateTest() {
    }

    /** K: table 1, pending 3 (true count 4), through the shared worker. */
    static class Fixture extends CombinerFixture {
        Fixture() {
            super(16, false);
            observe(K, SHARED, 4);
            check(table.estimate(K) == 1 && combiners.pending(K) == 3, "K table 1 + pending 3");
        }
    }

    /**
     * Two holders of the shared worker observe K. r1, r2: what each observe returned; r3: K's table count; r4:
     * K's pending count; r5: table + pending once quiet (the true count, 6).
     */
    @JCStressTest
    @Description("Two threads of one shared worker observe a combined key: at most one inside the block, no unit lost")
    @Outcome(id = "(5, 6|6, 5), 1, 5, 6", expect = ACCEPTABLE,
            desc = "The gate serialised them: both incremented pending in turn (3 -> 4 -> 5; each returns base 1 "
                    + "+ its pending)")
    @Outcome(id = "(5, 2|2, 5), 2, 4, 6", expect = ACCEPTABLE_INTERESTING,
            desc = "One found the gate held and bypassed to the table (1 -> 2); the holder incremented pending")
    @Outcome(id = ".*", expect = FORBIDDEN,
            desc = "Two holders inside at once (a lost pending increment: total 5), or a unit counted twice")
    @State
    public static class TwoObservers extends Fixture {
        @Actor
        public void thread1(JJJJJ_Result r) {
            r.r1 = count(combiners.observe(K, SHARED, table));
        }

        @Actor
        public void thread2(JJJJJ_Result r) {
            r.r2 = count(combiners.observe(K, SHARED, table));
        }

        @Arbiter
        public void arbiter(JJJJJ_Result r) {
            r.r3 = table.estimate(K);
            r.r4 = combiners.pending(K);
            r.r5 = estimate(K);
        }
    }

    /**
     * One holder of the shared worker flushes the block ({@code flushCurrent}, going idle) while another observes
     * K. r1: units flushed; r2: the observe's result; r3: table; r4: pending; r5: table + pending (true count 5).
     */
    @JCStressTest
    @Description("flushCurrent and observe by two threads of one shared worker: the gate keeps every unit")
    @Outcome(id = "3, 5, 4, 1, 5", expect = ACCEPTABLE,
            desc = "Flush first (3 pending -> table 4), then the observe combined (pending 1)")
    @Outcome(id = "4, 5, 5, 0, 5", expect = ACCEPTABLE,
            desc = "Observe first (pending 4), then the flush moved all 4 to the table")
    @Outcome(id = "3, [25], 5, 0, 5", expect = ACCEPTABLE_INTERESTING,
            desc = "The observe found the gate held by the flush and went to the table (before or after the "
                    + "flush's own table CAS)")
    @Outcome(id = "0, 5, 1, 4, 5", expect = ACCEPTABLE_INTERESTING,
            desc = "The flush found the gate held by the observe and skipped (documented: flushCurrent yields to "
                    + "the carrier's other virtual thread); the units stay pending, visible to estimates")
    @Outcome(id = ".*", expect = FORBIDDEN, desc = "A unit lost or counted twice")
    @State
    public static class FlushVersusObserve extends Fixture {
        @Actor
        public void flusher(JJJJJ_Result r) {
            r.r1 = combiners.flushCurrent(SHARED, table);
        }

        @Actor
        public void observer(JJJJJ_Result r) {
            r.r2 = count(combiners.observe(K, SHARED, table));
        }

        @Arbiter
        public void arbiter(JJJJJ_Result r) {
            r.r3 = table.estimate(K);
            r.r4 = combiners.pending(K);
            r.r5 = estimate(K);
        }
    }
}
