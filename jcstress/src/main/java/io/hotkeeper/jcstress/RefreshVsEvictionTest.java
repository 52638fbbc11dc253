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
 * Phase 1 (refresh) against phase 3 (a won eviction draw) on the same slot: no update is lost, no count goes
 * below zero, no word is torn.
 *
 * <p>Bucket 0 of a 4 KiB table is full: slots 0..6 hold fillers (count 100, which no draw can beat) and slot 7
 * holds key K, the weakest occupant. Actor 1 observes K (a refresh: CAS count -> count + 1). Actor 2 is a
 * challenger C running {@code challengeWeakest} with a salt value picked at class initialisation so that its
 * draw beats every count from 1 to 3: whenever it runs, it wins the lottery, and only the CAS decides. Both
 * writes are CASes on the same word, so each either applies to the other's result or fails and says so:
 * the refresh re-scans; the challenger reports -1 (its caller, observe, would re-scan and draw again).
 *
 * <p>r1: what K's observe returned; r2: what the challenge returned (1 = took the slot, 0 = chipped the count
 * or lost, -1 = CAS lost); r3: the arbiter's estimate of K; r4: of C; r5: slots holding a word neither actor
 * could have written (a damaged filler, a torn word, a count that wrapped below zero into the fingerprint).
 *
 * <p>Run: {@code jcstress/run -- -t RefreshVsEvictionTest}. Seen (quick mode, 2 cores): all three acceptable
 * outcomes of each variant (the failed-CAS one about 500 times in 4 x 10^5), never a forbidden one; see
 * jcstress/README.md.
 */
public final class RefreshVsEvictionTest {
    private RefreshVsEvictionTest() {
    }

    /** The shared crafted keys: K (slot 7) loses its own first draw; C's salt value wins up to count 3. */
    static final class Keys {
        static final long FP_K;
        static final long FP_C;
        static final long HASH_K;
        static final long SPARE_C;
        static final long SALT_WIN;
        static final long[] FILLERS;

        static {
            SplittableRandom random = Fixtures.random("RefreshVsEviction");
            long[] fps = Fixtures.fingerprints(random, TableLayout.SLOTS_PER_BUCKET + 1);
            FP_K = fps[0];
            FP_C = fps[1];
            // If C takes K's slot first, K's observe challenges C's count 1 with the salt's first value, 0: lose.
            HASH_K = Fixtures.hash(Fixtures.spareLosingFirstDraws(random, 1), FP_K);
            SPARE_C = random.nextLong() >>> TableLayout.SPARE_SHIFT;
            SALT_WIN = Fixtures.saltWinningUpTo(SPARE_C, 3);
            long[] fillerFps = new long[TableLayout.SLOTS_PER_BUCKET - 1];
            System.arraycopy(fps, 2, fillerFps, 0, fillerFps.length);
            FILLERS = Fixtures.fillers(fillerFps, fillerFps.length);
        }

        private Keys() {
        }

        static long[] allowedWords() {
            return new long[] {TableLayout.word(FP_K, 1), TableLayout.word(FP_K, 2), TableLayout.word(FP_K, 3),
                    TableLayout.word(FP_C, 1)};
        }
    }

    /** K starts at count 1: a won draw takes its slot, so the refresh may find K gone. */
    @JCStressTest
    @Description("Refresh of K (count 1, weakest) races a challenger whose draw wins: +1 -1, a takeover, or a "
            + "failed challenger CAS")
    @Outcome(id = "2, 0, 1, 0, 0", expect = ACCEPTABLE,
            desc = "Refresh first (K 1 -> 2); the challenger then read K|2 and chipped it to 1: +1 -1")
    @Outcome(id = "0, 1, 0, 1, 0", expect = ACCEPTABLE,
            desc = "Challenger first: K 1 -> 0 in the same CAS that hands slot 7 to C|1. K's observe (by a later "
                    + "scan, or after its refresh CAS failed and it re-scanned) no longer finds K, challenges C's "
                    + "count 1 and loses its draw: 0")
    @Outcome(id = "2, -1, 2, 0, 0", expect = ACCEPTABLE,
            desc = "The challenger read K|1, the refresh CAS landed (K|2) before the challenger's CAS, which "
                    + "failed and reported -1 (retry): the refresh is kept, the decrement is not applied")
    @Outcome(id = ".*", expect = FORBIDDEN,
            desc = "A lost update (both CASes took effect on the same old word), a count below zero, a torn "
                    + "word, or a changed filler")
    @State
    public static class LastUnit {
        final Fixtures.Table t = new Fixtures.Table();

        public LastUnit() {
            t.prefill(Keys.FILLERS);
            t.table.putSlot(Fixtures.BUCKET, TableLayout.SLOTS_PER_BUCKET - 1, TableLayout.word(Keys.FP_K, 1));
        }

        @Actor
        public void refresher(JJJJJ_Result r) {
            r.r1 = t.table.observe(Keys.HASH_K, 1, t.handle1);
        }

        @Actor
        public void challenger(JJJJJ_Result r) {
            r.r2 = t.table.challengeWeakest(t.table.bucketOffset(Keys.HASH_K), Keys.FP_C, Keys.SPARE_C,
                    Keys.SALT_WIN, t.handle2);
        }

        @Arbiter
        public void arbiter(JJJJJ_Result r) {
            r.r3 = t.table.estimate(Keys.HASH_K);
            r.r4 = t.countOf(Keys.FP_C);
            r.r5 = t.foreignWords(Keys.FILLERS, Keys.allowedWords());
        }
    }

    /** K starts at count 2: a won draw chips it to 1, so both orders end at 2. */
    @JCStressTest
    @Description("Refresh of K (count 2, weakest) races a challenger whose draw wins: the count ends at 2 in "
            + "either order, or 3 if the challenger's CAS failed")
    @Outcome(id = "3, 0, 2, 0, 0", expect = ACCEPTABLE,
            desc = "Refresh first (K 2 -> 3); the challenger then read K|3 and chipped it to 2: +1 -1")
    @Outcome(id = "2, 0, 2, 0, 0", expect = ACCEPTABLE,
            desc = "Challenger first (K 2 -> 1), then the refresh (K 1 -> 2), directly or after its CAS on "
                    + "K|2 failed and it re-scanned: -1 +1")
    @Outcome(id = "3, -1, 3, 0, 0", expect = ACCEPTABLE,
            desc = "The challenger read K|2, the refresh CAS landed (K|3) first, the challenger's CAS failed "
                    + "and reported -1 (retry): nothing lost, the decrement not applied")
    @Outcome(id = ".*", expect = FORBIDDEN,
            desc = "A lost increment (count 1) or lost decrement (count 3 with r2 = 0), a count below zero, a "
                    + "torn word, or a changed filler")
    @State
    public static class Decrement {
        final Fixtures.Table t = new Fixtures.Table();

        public Decrement() {
            t.prefill(Keys.FILLERS);
            t.table.putSlot(Fixtures.BUCKET, TableLayout.SLOTS_PER_BUCKET - 1, TableLayout.word(Keys.FP_K, 2));
        }

        @Actor
        public void refresher(JJJJJ_Result r) {
            r.r1 = t.table.observe(Keys.HASH_K, 1, t.handle1);
        }

        @Actor
        public void challenger(JJJJJ_Result r) {
            r.r2 = t.table.challengeWeakest(t.table.bucketOffset(Keys.HASH_K), Keys.FP_C, Keys.SPARE_C,
                    Keys.SALT_WIN, t.handle2);
        }

        @Arbiter
        public void arbiter(JJJJJ_Result r) {
            r.r3 = t.table.estimate(Keys.HASH_K);
            r.r4 = t.countOf(Keys.FP_C);
            r.r5 = t.foreignWords(Keys.FILLERS, Keys.allowedWords());
        }
    }
}
