package io.hotkeeper.jcstress.reset;

import io.hotkeeper.engine.core.TableSet;
import io.hotkeeper.engine.table.BucketTable;
import io.hotkeeper.engine.table.TableLayout;
import io.hotkeeper.jcstress.Fixtures;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJJJ_Result;

import static io.hotkeeper.jcstress.reset.ResetVersusSecondBucketClaimTest.FIRST;
import static io.hotkeeper.jcstress.reset.ResetVersusSecondBucketClaimTest.FP_K;
import static io.hotkeeper.jcstress.reset.ResetVersusSecondBucketClaimTest.SECOND;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;

/**
 * Negative control of {@link ResetVersusSecondBucketClaimTest}: the same race, with the observation as it was
 * before the fix, written out here (the production reset is unchanged). It scans K's first bucket, finds it full,
 * and claims the lowest empty slot of K's second bucket, and there it stops: no re-check that a reset has not
 * emptied the first bucket since the scan. A reset that passed the second bucket before the claim and empties the
 * first after the scan leaves K in its second bucket with an empty first: estimate 0 with a unit in the table, and
 * the next observation claims K again in its first bucket.
 *
 * <p>Run: {@code jcstress/run --negative -- -t BrokenResetVersusSecondBucketClaimTest}. The interesting outcome
 * {@code 1, 0, 1, 1, 1} is the bug.
 */
@JCStressTest
@Description("Claim in the second bucket without the re-check, against reset(): K left where no scan looks")
@Outcome(id = "1, 0, 0, 1, 0", expect = ACCEPTABLE, desc = "As in the real test: claimed first, then emptied")
@Outcome(id = "1, 1, 1, 1, 0", expect = ACCEPTABLE, desc = "As in the real test: reset first, K in its first bucket")
@Outcome(id = "1, 0, 1, 1, 1", expect = ACCEPTABLE_INTERESTING,
        desc = "The bug: K's unit left in its second bucket while the first is empty, invisible (estimate 0), and "
                + "the next observation claimed K again in its first bucket: two slots")
@Outcome(id = ".*", expect = ACCEPTABLE_INTERESTING, desc = "Another outcome of the planted bug")
@State
public class BrokenResetVersusSecondBucketClaimTest {
    final Fixtures.Table t = new Fixtures.Table(ResetVersusSecondBucketClaimTest.TWO, 2);
    final TableSet sweep = ResetVersusSecondBucketClaimTest.tableSet(t.table);

    public BrokenResetVersusSecondBucketClaimTest() {
        ResetVersusSecondBucketClaimTest.fillFirstBucket(t.table);
    }

    /**
     * The observation before the fix, for this fixture (no lottery: K's second bucket always has room): the first
     * bucket, then the second, each slot a volatile load; a match is refreshed, the lowest empty slot claimed, a
     * lost CAS scans again.
     */
    static long observeWithoutRecheck(BucketTable table) {
        scan:
        while (true) {
            for (long bucket : new long[] {FIRST, SECOND}) {
                for (int s = 0; s < TableLayout.SLOTS_PER_BUCKET; s++) {
                    long offset = (bucket << TableLayout.BUCKET_SHIFT) + (long) s * TableLayout.SLOT_BYTES;
                    long word = table.lvSlot(offset);
                    if (word == 0) {
                        if (table.casSlot(offset, 0L, TableLayout.word(FP_K, 1))) {
                            return 1; // the planted bug: no re-check of the first bucket after a claim in the second
                        }
                        continue scan;
                    }
                    if (TableLayout.fingerprint(word) == FP_K) {
                        if (table.casSlot(offset, word, word + 1)) {
                            return TableLayout.count(word) + 1;
                        }
                        continue scan;
                    }
                }
            }
            return 0;
        }
    }

    @Actor
    public void observer(JJJJJ_Result r) {
        r.r1 = observeWithoutRecheck(t.table);
    }

    @Actor
    public void resetter() {
        sweep.scale(0);
    }

    @Arbiter
    public void arbiter(JJJJJ_Result r) {
        ResetVersusSecondBucketClaimTest.judge(t, r);
    }
}
