package io.hotkeeper.jcstress.reset;

import io.hotkeeper.engine.core.Routing;
import io.hotkeeper.engine.core.TableSet;
import io.hotkeeper.engine.table.BucketTable;
import io.hotkeeper.engine.table.TableGeometry;
import io.hotkeeper.engine.table.TableLayout;
import io.hotkeeper.jcstress.Fixtures;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJJJ_Result;

import java.util.SplittableRandom;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * A reset against an observation of a new key K whose first bucket is full, with two candidate buckets per key:
 * the observation claims K in its second bucket, and the reset empties both. The bucket rule must survive: K is
 * never left in its second bucket while its first has room (where estimate and observe, which stop at the first
 * bucket's empty slot, never look: its unit invisible, and the key's next observation claiming a second slot).
 *
 * <p>Fixture: the smallest table (64 buckets) with two candidates per key, no key shards; K's first bucket A is
 * high (at least 48) and its second bucket is bucket 0, so the reset (buckets in ascending order) passes K's second
 * bucket long before it empties the first: an observation that scans A full before the reset reaches it and
 * claims in bucket 0 after the reset passed it is the race. A holds eight fillers (count 100), every other bucket is
 * empty. The reset is the production one ({@link TableSet#scale} with factor 0, as {@code Hotkeeper.reset}).
 * The fix: a claim in a second bucket re-checks, after a full fence, that no reset of the table is under way and
 * that the first bucket is still full without the key, and takes the claim back otherwise (BucketTable
 * claimedInSecond).
 *
 * <p>Result {@code observed, estimate, units, inFirst, inSecond}: what observe returned; the estimate of K and the
 * units of K's slots anywhere, both after the actors; then the arbiter observes K once more, and the slots holding K
 * in its first and in its second bucket. Run:
 * {@code java -jar jcstress/target/jcstress.jar -t ResetVersusSecondBucketClaimTest}. Negative control:
 * {@link BrokenResetVersusSecondBucketClaimTest}.
 */
@JCStressTest
@Description("reset() against a claim in K's second bucket: K is never left where no scan looks, nor in two slots")
@Outcome(id = "1, 0, 0, 1, 0", expect = ACCEPTABLE,
        desc = "The claim in K's second bucket came first and the reset emptied it with the rest (or reset caught a "
                + "claim in the first bucket's last slot on its second pass); the arbiter claims K in its first bucket")
@Outcome(id = "1, 1, 1, 1, 0", expect = ACCEPTABLE,
        desc = "The reset emptied K's first bucket before the observation scanned it, and K was claimed there; or the "
                + "claim in the second bucket overtook the reset, was taken back once it was over, and K observed again "
                + "in its first bucket")
@Outcome(id = "0, 0, 0, 1, 0", expect = ACCEPTABLE,
        desc = "The claim in the second bucket overtook the reset and was taken back while it was still under way: "
                + "the unit is cleared with the state before the reset")
@Outcome(id = "1, 0, 1, 2, 0", expect = ACCEPTABLE_INTERESTING,
        desc = "The documented single-bucket residual (Hotkeeper.reset): the observation claimed the last slot of K's "
                + "first bucket after the reset emptied it and before it emptied the lower ones, and landed after "
                + "the reset's last look at the bucket (a preempted observer); not the race this test is about")
@Outcome(id = ".*", expect = FORBIDDEN,
        desc = "K left in its second bucket while its first has room (estimate 0 with a unit in the table; the next "
                + "observation claims K again in its first bucket: two slots), or a unit lost or counted twice")
@State
public class ResetVersusSecondBucketClaimTest {
    /** 64 buckets, two candidates per key. */
    static final TableGeometry TWO = TableGeometry.ofIndexBits(Fixtures.INDEX_BITS).withTwoCandidates();
    /** K's fingerprint, its first bucket (high) and its second (bucket 0). */
    static final long FP_K;
    static final long FIRST;
    static final long SECOND = 0;
    static final long HASH_K;
    /** Eight fillers for K's first bucket: fingerprints other than K's, count 100. */
    static final long[] FILLERS;

    static {
        SplittableRandom random = Fixtures.random("ResetVersusSecondBucketClaim");
        long[] fps;
        do {
            fps = Fixtures.fingerprints(random, TableLayout.SLOTS_PER_BUCKET + 1);
            // alternate(0, fp) is K's first bucket whose second is bucket 0 (the map is an involution).
        } while (TWO.alternate(0, fps[TableLayout.SLOTS_PER_BUCKET]) < 48);
        FP_K = fps[TableLayout.SLOTS_PER_BUCKET];
        FIRST = TWO.alternate(0, FP_K);
        HASH_K = (random.nextLong() << TableLayout.SPARE_SHIFT) | TWO.locationAt(FIRST, FP_K);
        if (TWO.bucket(HASH_K) != FIRST || TWO.fingerprint(HASH_K) != FP_K || TWO.alternate(FIRST, FP_K) != SECOND) {
            throw new IllegalStateException("K's hash " + Long.toHexString(HASH_K) + " does not split into bucket "
                    + FIRST + ", fingerprint " + FP_K + ", second bucket " + SECOND);
        }
        FILLERS = new long[TableLayout.SLOTS_PER_BUCKET];
        for (int s = 0; s < FILLERS.length; s++) {
            FILLERS[s] = TableLayout.word(fps[s], Fixtures.FILLER_COUNT);
        }
    }

    final Fixtures.Table t = new Fixtures.Table(TWO, 2);
    /** The production reset over the fixture's one table (no key shards). */
    final TableSet sweep = tableSet(t.table);

    public ResetVersusSecondBucketClaimTest() {
        fillFirstBucket(t.table);
    }

    static TableSet tableSet(BucketTable table) {
        return new TableSet(new BucketTable[] {table}, null, Routing.SINGLE);
    }

    static void fillFirstBucket(BucketTable table) {
        for (int s = 0; s < FILLERS.length; s++) {
            table.putSlot(FIRST, s, FILLERS[s]);
        }
    }

    /** Slots of {@code bucket} holding K's fingerprint (acquire loads). */
    static long slotsOfK(BucketTable table, long bucket) {
        long n = 0;
        for (int s = 0; s < TableLayout.SLOTS_PER_BUCKET; s++) {
            long word = table.laSlot(bucket, s);
            if (word != 0 && TableLayout.fingerprint(word) == FP_K) {
                n++;
            }
        }
        return n;
    }

    /** The arbiter of both tests: estimate and units of K, then one more observation and where K is. */
    static void judge(Fixtures.Table t, JJJJJ_Result r) {
        r.r2 = t.table.estimate(HASH_K);
        r.r3 = t.countAnywhere(FP_K);
        t.table.observe(HASH_K, 1, t.worker1);
        r.r4 = slotsOfK(t.table, FIRST);
        r.r5 = slotsOfK(t.table, SECOND);
    }

    @Actor
    public void observer(JJJJJ_Result r) {
        r.r1 = t.table.observe(HASH_K, 1, t.worker1);
    }

    @Actor
    public void resetter() {
        sweep.scale(0);
    }

    @Arbiter
    public void arbiter(JJJJJ_Result r) {
        judge(t, r);
    }
}
