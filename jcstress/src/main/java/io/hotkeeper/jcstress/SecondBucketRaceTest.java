package io.hotkeeper.jcstress;

import io.hotkeeper.engine.table.TableGeometry;
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
 * Two candidate buckets per key (TableGeometry#alternate): a new key goes to its second bucket only while its
 * first is full, and concurrent observers of one key still meet in one slot.
 *
 * <p>The argument: slots never return to empty, so a first bucket seen full stays full, and the claim in either
 * bucket is a release CAS {@code 0 -> word} whose loser re-scans both buckets in order. Two observers of a new key
 * can therefore only disagree about the first bucket's last empty slot, and that disagreement is settled by the
 * CAS on it.
 *
 * <p>Run: {@code jcstress/run -- -t SecondBucketRaceTest}. The keys' fingerprints are chosen so that their second
 * buckets are distinct and not bucket 0 (TableGeometry#alternate of bucket 0 is {@code d(fp)}).
 */
public final class SecondBucketRaceTest {
    /** 64 buckets, two candidates per key. */
    static final TableGeometry TWO = TableGeometry.ofIndexBits(Fixtures.INDEX_BITS).withTwoCandidates();

    private SecondBucketRaceTest() {
    }

    /** {@code n} distinct fingerprints whose second buckets (from bucket 0) are distinct and not bucket 0. */
    static long[] fingerprintsWithDistinctSeconds(SplittableRandom random, int n) {
        while (true) {
            long[] fps = Fixtures.fingerprints(random, n);
            java.util.Set<Long> seconds = new java.util.HashSet<>();
            boolean ok = true;
            for (long fp : fps) {
                long second = TWO.alternate(Fixtures.BUCKET, fp);
                ok &= second != Fixtures.BUCKET && seconds.add(second);
            }
            if (ok) {
                return fps;
            }
        }
    }

    /**
     * Bucket 0 is full of fillers (count 100, never the loser of a draw, and their second buckets are irrelevant:
     * nobody observes them). Both actors observe the same new key K, whose first bucket is 0: both must go to its
     * second bucket and meet there.
     *
     * <p>r1, r2: what observe returned to actors 1 and 2; r3: slots of the table holding K's fingerprint; r4: the
     * bucket holding it, minus K's second bucket (0: the second); r5: words of bucket 0 that changed.
     */
    @JCStressTest
    @Description("Two observers of a new key whose first bucket is full: one slot in its second bucket, count 2")
    @Outcome(id = "1, 2, 1, 0, 0", expect = ACCEPTABLE,
            desc = "Actor 1 claimed slot 0 of K's second bucket; actor 2 lost the CAS there (or scanned after it), "
                    + "re-scanned both buckets and refreshed K to 2")
    @Outcome(id = "2, 1, 1, 0, 0", expect = ACCEPTABLE, desc = "Mirror: actor 2 claimed, actor 1 refreshed")
    @Outcome(id = ".*", expect = FORBIDDEN,
            desc = "K claimed twice (in one bucket or in both), an increment lost, K in its full first bucket (a "
                    + "filler evicted), or a torn word")
    @State
    public static class FullFirstBucket {
        static final long HASH_K;
        static final long FP_K;
        static final long SECOND_K;
        static final long[] FILLERS;

        static {
            SplittableRandom random = Fixtures.random("SecondBucketRace.FullFirstBucket");
            long[] fps = fingerprintsWithDistinctSeconds(random, TableLayout.SLOTS_PER_BUCKET + 1);
            FP_K = fps[TableLayout.SLOTS_PER_BUCKET];
            SECOND_K = TWO.alternate(Fixtures.BUCKET, FP_K);
            HASH_K = Fixtures.hash(Fixtures.spareLosingFirstDraws(random, 1), FP_K);
            FILLERS = Fixtures.fillers(fps, TableLayout.SLOTS_PER_BUCKET);
        }

        final Fixtures.Table t = new Fixtures.Table(TWO, 2);

        public FullFirstBucket() {
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
            r.r3 = t.slotsHoldingAnywhere(FP_K);
            r.r4 = t.bucketHolding(FP_K) - SECOND_K;
            r.r5 = t.foreignWords(FILLERS);
        }
    }

    /**
     * Bucket 0: slots 0..6 hold fillers, slot 7 is empty. Actor 1 observes a new key K; actor 2 observes a new
     * key X, then K. Both keys' first bucket is 0. Whoever claims slot 7 first keeps it; the other key goes to its
     * own second bucket. K's two observations may see slot 7 differently (empty, or taken by X: actor 1 may read it
     * empty and lose the CAS to X), yet must meet in one slot. (Two actors: jcstress skips a test with more actors
     * than the machine has CPUs.)
     *
     * <p>r1: slots holding K; r2: K's total count; r3: slots holding X; r4: where K is (0: bucket 0, 1: its second
     * bucket); r5: 1 if bucket 0 holds a word no actor could have written there.
     */
    @JCStressTest
    @Description("A new key K races a new key X for the last slot of their common first bucket; K is observed twice")
    @Outcome(id = "1, 2, 1, 0, 0", expect = ACCEPTABLE,
            desc = "Actor 1 claimed slot 7 for K; X found bucket 0 full and claimed its own second bucket; actor 2's "
                    + "K refreshed slot 7")
    @Outcome(id = "1, 2, 1, 1, 0", expect = ACCEPTABLE,
            desc = "X claimed slot 7; both observations of K found bucket 0 full (actor 1's possibly after losing the "
                    + "CAS on slot 7) and met in K's second bucket: one claim, one refresh")
    @Outcome(id = ".*", expect = FORBIDDEN,
            desc = "K in two slots (slot 7 and its second bucket), an increment lost, X lost or duplicated, a filler "
                    + "changed, or a torn word")
    @State
    public static class LastSlotOfFirstBucket {
        static final long HASH_X;
        static final long HASH_K;
        static final long FP_X;
        static final long FP_K;
        static final long SECOND_K;
        static final long[] FILLERS;

        static {
            SplittableRandom random = Fixtures.random("SecondBucketRace.LastSlot");
            long[] fps = fingerprintsWithDistinctSeconds(random, TableLayout.SLOTS_PER_BUCKET + 1);
            FP_X = fps[TableLayout.SLOTS_PER_BUCKET - 1];
            FP_K = fps[TableLayout.SLOTS_PER_BUCKET];
            SECOND_K = TWO.alternate(Fixtures.BUCKET, FP_K);
            HASH_X = Fixtures.hash(Fixtures.spareLosingFirstDraws(random, 1), FP_X);
            HASH_K = Fixtures.hash(Fixtures.spareLosingFirstDraws(random, 1), FP_K);
            FILLERS = Fixtures.fillers(fps, TableLayout.SLOTS_PER_BUCKET - 1);
        }

        final Fixtures.Table t = new Fixtures.Table(TWO, 2);

        public LastSlotOfFirstBucket() {
            t.prefill(FILLERS);
        }

        @Actor
        public void observerK() {
            t.table.observe(HASH_K, 1, t.worker1);
        }

        @Actor
        public void observerXThenK() {
            t.table.observe(HASH_X, 1, t.worker2);
            t.table.observe(HASH_K, 1, t.worker2);
        }

        @Arbiter
        public void arbiter(JJJJJ_Result r) {
            r.r1 = t.slotsHoldingAnywhere(FP_K);
            r.r2 = t.countAnywhere(FP_K);
            r.r3 = t.slotsHoldingAnywhere(FP_X);
            long at = t.bucketHolding(FP_K);
            r.r4 = at == Fixtures.BUCKET ? 0 : at == SECOND_K ? 1 : -1;
            // Slots 0..6 unchanged, slot 7 empty or one of the words an actor may have written there.
            r.r5 = t.foreignWords(FILLERS, TableLayout.word(FP_K, 1), TableLayout.word(FP_K, 2),
                    TableLayout.word(FP_X, 1)) == 0 ? 0 : 1;
        }
    }
}
