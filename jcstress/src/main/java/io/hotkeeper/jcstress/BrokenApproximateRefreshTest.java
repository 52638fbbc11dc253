package io.hotkeeper.jcstress;

import io.hotkeeper.engine.table.TableLayout;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJ_Result;

import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;

/**
 * NEGATIVE CONTROL for {@link ApproximateRefreshTest.BothGranted}, not a test of Hotkeeper: the same table,
 * stripes and key, but each actor runs a copy of the approximate refresh that, after a failed CAS, starts over
 * and draws a new coin (the bias the production loop's comment warns about). Its second coin denies, so the
 * granted increment is lost.
 */
@JCStressTest
@Description("NEGATIVE CONTROL: re-drawing the coin after a failed CAS loses a granted increment")
@Outcome(id = "(36, 40|40, 36), 40", expect = ACCEPTABLE, desc = "No failed CAS")
@Outcome(id = "(36, 36|36, 32|32, 36), 36", expect = ACCEPTABLE_INTERESTING,
        desc = "One CAS failed, its re-drawn coin denied: a granted 4 lost, what the production loop prevents")
@Outcome(id = ".*", expect = ACCEPTABLE, desc = "Other")
@State
public class BrokenApproximateRefreshTest extends ApproximateRefreshTest.Fixture {
    private static final VarHandle SLOT = ValueLayout.JAVA_LONG.varHandle();

    /** The bug: refresh's approximate branch with the coin inside the retry loop. */
    long refreshRedrawing(long worker) {
        long offset = TableLayout.slotOffset(table.bucketOffset(ApproximateRefreshTest.HASH_K), 0);
        while (true) {
            long word = (long) SLOT.get(table.segment(), offset);
            long count = TableLayout.count(word);
            int j = 64 - Long.numberOfLeadingZeros(count) - ApproximateRefreshTest.APPROXIMATE_BITS;
            if ((stats.random(worker) & ((1L << j) - 1)) != 0) {
                return count;
            }
            long next = count + (1L << j);
            if ((long) SLOT.compareAndExchangeRelease(table.segment(), offset, word, word - count + next) == word) {
                return next;
            }
        }
    }

    @Actor
    public void a(JJJ_Result r) {
        r.r1 = refreshRedrawing(ApproximateRefreshTest.WORKER_A);
    }

    @Actor
    public void b(JJJ_Result r) {
        r.r2 = refreshRedrawing(ApproximateRefreshTest.WORKER_B);
    }

    @Arbiter
    public void arbiter(JJJ_Result r) {
        r.r3 = table.estimate(ApproximateRefreshTest.HASH_K);
    }
}
