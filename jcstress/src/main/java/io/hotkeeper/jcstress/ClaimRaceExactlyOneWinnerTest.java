package io.hotkeeper.jcstress;

import io.hotkeeper.engine.table.TableLayout;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJJJ_Result;

import java.util.SplittableRandom;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Phase 2 (claim): two observers race for one empty slot, and exactly one of them gets it.
 *
 * <p>The claim is a release CAS {@code 0 -> word}. Two racing claimants read the same empty slot; only one CAS
 * can succeed, and the loser re-scans the bucket. What it finds there decides the rest:
 * <ul>
 *   <li>{@link DifferentKeys}: the bucket is now full, so the loser goes to phase 3 against the winner's
 *       count-1 slot; its spare bits are chosen so that its first draw (salt value 0) loses, so it reports 0.</li>
 *   <li>{@link SameKey}: the loser finds its own fingerprint in the winner's word and refreshes it to 2 (slots
 *       never return to empty, which is what lets the two claimants meet in one slot).</li>
 * </ul>
 *
 * <p>Run: {@code jcstress/run -- -t ClaimRaceExactlyOneWinnerTest}. Seen (quick mode, 2 cores): both acceptable
 * outcomes of each variant (10^5 samples each or more), never a forbidden one; see jcstress/README.md.
 */
public final class ClaimRaceExactlyOneWinnerTest {
    private ClaimRaceExactlyOneWinnerTest() {
    }

    /**
     * Bucket 0 of a 4 KiB table: slots 0..6 hold fillers (count 100, which can never lose a draw), slot 7 is
     * empty. Actor 1 observes a new key A, actor 2 a new key B; both hash to bucket 0.
     *
     * <p>r1, r2: what observe returned to actors 1 and 2; r3, r4: the arbiter's estimates of A and B; r5: slots
     * of the bucket holding a word no actor could have written (a damaged filler, a torn word).
     */
    @JCStressTest
    @Description("Two different new keys race for the last empty slot of a bucket: exactly one claim wins")
    @Outcome(id = "1, 0, 1, 0, 0", expect = ACCEPTABLE,
            desc = "A claimed slot 7 (CAS 0 -> A|1). B either lost the CAS on the same slot and re-scanned, or "
                    + "scanned after A's claim; either way it found the bucket full and lost its phase-3 draw "
                    + "against A's count 1: B reports 0, A holds the slot")
    @Outcome(id = "0, 1, 0, 1, 0", expect = ACCEPTABLE,
            desc = "Mirror: B claimed slot 7 first; A lost the claim (CAS or later scan) and lost its draw")
    @Outcome(id = ".*", expect = FORBIDDEN,
            desc = "Both claims succeeded (one overwrote the other), a claim was lost, a filler changed, or the "
                    + "slot word is torn")
    @State
    public static class DifferentKeys {
        static final long HASH_A;
        static final long HASH_B;
        static final long FP_A;
        static final long FP_B;
        static final long[] FILLERS;

        static {
            SplittableRandom random = Fixtures.random("ClaimRace.DifferentKeys");
            long[] fps = Fixtures.fingerprints(random, TableLayout.SLOTS_PER_BUCKET + 1);
            FP_A = fps[0];
            FP_B = fps[1];
            // The loser makes exactly one phase-3 draw, with the fresh salt's first value 0: make it lose.
            HASH_A = Fixtures.hash(Fixtures.spareLosingFirstDraws(random, 1), FP_A);
            HASH_B = Fixtures.hash(Fixtures.spareLosingFirstDraws(random, 1), FP_B);
            long[] fillerFps = new long[TableLayout.SLOTS_PER_BUCKET - 1];
            System.arraycopy(fps, 2, fillerFps, 0, fillerFps.length);
            FILLERS = Fixtures.fillers(fillerFps, fillerFps.length);
        }

        final Fixtures.Table t = new Fixtures.Table();

        public DifferentKeys() {
            t.prefill(FILLERS);
        }

        @Actor
        public void observerA(JJJJJ_Result r) {
            r.r1 = t.table.observe(HASH_A, 1, t.worker1);
        }

        @Actor
        public void observerB(JJJJJ_Result r) {
            r.r2 = t.table.observe(HASH_B, 1, t.worker2);
        }

        @Arbiter
        public void arbiter(JJJJJ_Result r) {
            r.r3 = t.table.estimate(HASH_A);
            r.r4 = t.table.estimate(HASH_B);
            r.r5 = t.foreignWords(FILLERS, TableLayout.word(FP_A, 1), TableLayout.word(FP_B, 1));
        }
    }

    /**
     * Bucket 0 of a 4 KiB table: slots 0..4 hold fillers, slots 5..7 are empty. Both actors observe the same new
     * key K. Three empty slots give a broken claim room to place K twice.
     *
     * <p>r1, r2: what observe returned to actors 1 and 2; r3: slots holding K's fingerprint; r4: the sum of their
     * counts; r5: slots holding a word no actor could have written.
     */
    @JCStressTest
    @Description("Two observers of the same new key race to claim it: one slot, count 2")
    @Outcome(id = "1, 2, 1, 2, 0", expect = ACCEPTABLE,
            desc = "Actor 1 claimed slot 5 (CAS 0 -> K|1); actor 2 lost the CAS on slot 5 and re-scanned, or "
                    + "scanned after the claim, found K and refreshed it to 2")
    @Outcome(id = "2, 1, 1, 2, 0", expect = ACCEPTABLE,
            desc = "Mirror: actor 2 claimed, actor 1 refreshed")
    @Outcome(id = ".*", expect = FORBIDDEN,
            desc = "K claimed twice (duplicate slots), an increment lost (count 1), a filler changed, or a torn "
                    + "word")
    @State
    public static class SameKey {
        static final int FILLED = 5;
        static final long HASH_K;
        static final long FP_K;
        static final long[] FILLERS;

        static {
            SplittableRandom random = Fixtures.random("ClaimRace.SameKey");
            long[] fps = Fixtures.fingerprints(random, FILLED + 1);
            FP_K = fps[FILLED];
            HASH_K = Fixtures.hash(Fixtures.spareLosingFirstDraws(random, 1), FP_K);
            FILLERS = Fixtures.fillers(fps, FILLED);
        }

        final Fixtures.Table t = new Fixtures.Table();

        public SameKey() {
            t.prefill(FILLERS);
        }

        @Actor
        public void observer1(JJJJJ_Result r) {
            r.r1 = t.table.observe(HASH_K, 1, t.worker1);
        }

        @Actor
        public void observer2(JJJJJ_Result r) {
            r.r2 = t.table.observe(HASH_K, 1, t.worker2);
        }

        @Arbiter
        public void arbiter(JJJJJ_Result r) {
            r.r3 = t.slotsHolding(FP_K);
            r.r4 = t.countOf(FP_K);
            r.r5 = t.foreignWords(FILLERS, TableLayout.word(FP_K, 1), TableLayout.word(FP_K, 2));
        }
    }
}
