package io.hotkeeper.jcstress;

import io.hotkeeper.engine.table.BucketTable;
import io.hotkeeper.engine.table.TableLayout;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJJJ_Result;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * NEGATIVE CONTROL, not a test of Hotkeeper: a claim built wrong, to show that the checks of
 * {@link ClaimRaceExactlyOneWinnerTest.DifferentKeys} can catch a double claim.
 *
 * <p>Same table, same bucket, same keys A and B as the real test, but the observers below claim the empty slot
 * with a plain load and a plain store instead of the engine's CAS: both can see slot 7 empty, both store, both
 * are told "count 1", and the later store silently replaces the earlier key. Those outcomes are
 * ACCEPTABLE_INTERESTING so that they never fail a run; {@code jcstress/run --negative} runs only the negative
 * controls and fails if they did <em>not</em> show up.
 *
 * <p>r1, r2: counts returned to A and B; r3, r4: the arbiter's estimates of A and B; r5: foreign words.
 *
 * <p>Run: {@code jcstress/run --negative}. Seen (quick mode, 2 cores): both double-claim outcomes, about 5% of
 * samples each.
 */
@JCStressTest
@Description("NEGATIVE CONTROL: a claim by plain load + plain store (no CAS) lets two keys claim one slot")
@Outcome(id = "1, 0, 1, 0, 0", expect = ACCEPTABLE, desc = "A stored first; B then found the bucket full")
@Outcome(id = "0, 1, 0, 1, 0", expect = ACCEPTABLE, desc = "B stored first; A then found the bucket full")
@Outcome(id = "1, 1, 1, 0, 0", expect = ACCEPTABLE_INTERESTING,
        desc = "Both saw slot 7 empty and both stored; A's store came last and erased B, who was told 1")
@Outcome(id = "1, 1, 0, 1, 0", expect = ACCEPTABLE_INTERESTING,
        desc = "Both saw slot 7 empty and both stored; B's store came last and erased A, who was told 1")
@Outcome(id = ".*", expect = FORBIDDEN, desc = "Impossible even for the broken claim")
@State
public class BrokenClaimRaceExactlyOneWinnerTest {
    final Fixtures.Table t = new Fixtures.Table();

    public BrokenClaimRaceExactlyOneWinnerTest() {
        t.prefill(ClaimRaceExactlyOneWinnerTest.DifferentKeys.FILLERS);
    }

    /**
     * The bug: phase 2 without a CAS (and, to keep the control small, no phase 3: a full bucket reports 0).
     * Phase 1 is never reached, because neither key is in the bucket.
     */
    static long brokenObserve(BucketTable table, long hash) {
        MemorySegment segment = table.segment();
        long base = table.bucketOffset(hash);
        long fp = table.fingerprint(hash);
        for (int s = 0; s < TableLayout.SLOTS_PER_BUCKET; s++) {
            long offset = TableLayout.slotOffset(base, s);
            long word = segment.get(ValueLayout.JAVA_LONG, offset);
            if (word == 0) {
                segment.set(ValueLayout.JAVA_LONG, offset, TableLayout.word(fp, 1));
                return 1;
            }
        }
        return 0;
    }

    @Actor
    public void observerA(JJJJJ_Result r) {
        r.r1 = brokenObserve(t.table, ClaimRaceExactlyOneWinnerTest.DifferentKeys.HASH_A);
    }

    @Actor
    public void observerB(JJJJJ_Result r) {
        r.r2 = brokenObserve(t.table, ClaimRaceExactlyOneWinnerTest.DifferentKeys.HASH_B);
    }

    @Arbiter
    public void arbiter(JJJJJ_Result r) {
        r.r3 = t.table.estimate(ClaimRaceExactlyOneWinnerTest.DifferentKeys.HASH_A);
        r.r4 = t.table.estimate(ClaimRaceExactlyOneWinnerTest.DifferentKeys.HASH_B);
        r.r5 = t.foreignWords(ClaimRaceExactlyOneWinnerTest.DifferentKeys.FILLERS,
                TableLayout.word(ClaimRaceExactlyOneWinnerTest.DifferentKeys.FP_A, 1),
                TableLayout.word(ClaimRaceExactlyOneWinnerTest.DifferentKeys.FP_B, 1));
    }
}
