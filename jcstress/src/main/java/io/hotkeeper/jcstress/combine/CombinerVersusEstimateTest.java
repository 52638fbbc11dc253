package io.hotkeeper.jcstress.combine;

import io.hotkeeper.jcstress.Fixtures;
import io.hotkeeper.engine.combine.HotKeyCombiners;
import io.hotkeeper.engine.lottery.DecayLottery;
import io.hotkeeper.engine.salt.EvictionSalt;
import io.hotkeeper.engine.stats.StatsStripes;
import io.hotkeeper.engine.worker.WorkerSpace;
import io.hotkeeper.engine.table.BucketTable;
import io.hotkeeper.engine.table.TableLayout;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;

import java.lang.foreign.Arena;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * A hot-key combiner's owner hands pending counts to the table while another thread estimates the key: the
 * estimate (table count read with acquire, then the combiners' pending counts) never counts a unit twice.
 *
 * <p>Fixture: a 4 KiB table, a combiner block of 16 entries (8 sets of 2) with flush threshold 4, admitting from
 * count 1, owned by stats stripe 0. Keys are crafted hashes in bucket 0 (distinct fingerprints, so no eviction
 * ever happens) whose high bits put them in the same combiner set. r1: what the owner's observation returned;
 * r2: the estimator's table + pending sum.
 *
 * <p>Run: {@code jcstress/run -- -t CombinerVersusEstimate}.
 */
public final class CombinerVersusEstimateTest {
    private CombinerVersusEstimateTest() {
    }

    static final int INDEX_BITS = 6;
    static final long THRESHOLD = 4;

    /** A hash in bucket 0 with fingerprint {@code fp} and combiner set {@code set} (spare bits = set). */
    static long hash(long fp, long set) {
        return (set << TableLayout.SPARE_SHIFT) | (fp << INDEX_BITS);
    }

    static final long K = hash(11, 5);
    static final long M = hash(12, 5);
    static final long L = hash(13, 5);

    /** One state's table and combiners, all in an automatic arena. */
    static class Fixture {
        final BucketTable table;
        final HotKeyCombiners combiners;
        final long owner;

        Fixture() {
            Arena arena = Arena.ofAuto();
            WorkerSpace workers = new WorkerSpace(2, 1);
            StatsStripes stats = new StatsStripes(arena, workers);
            this.table = Fixtures.table(Fixtures.tableSegment(arena, INDEX_BITS), INDEX_BITS,
                    new DecayLottery(DecayLottery.REFERENCE_BASE, 1), new EvictionSalt(arena, 1), stats,
                    Long.MAX_VALUE, t -> null, 0);
            this.combiners = new HotKeyCombiners(workers, stats, 2, 16, (int) THRESHOLD, 1,
                    bytes -> arena.allocate(bytes, 128), false);
            this.owner = workers.handleOf(0);
            // K: claimed (count 1) and admitted at once (admitFrom 1), then 3 observations pending: true count 4.
            for (int i = 0; i < 4; i++) {
                combiners.observe(K, owner, table);
            }
        }

        long estimate(long hash) {
            return table.estimate(hash) + combiners.pending(hash);
        }
    }

    @JCStressTest
    @Description("The owner's threshold flush (pending 3 + 1 -> table) against an estimate of the same key")
    @Outcome(id = "5, 4", expect = ACCEPTABLE, desc = "Estimate before the flush: table 1 + pending 3")
    @Outcome(id = "5, 5", expect = ACCEPTABLE, desc = "Estimate after the flush: table 5, pending 0")
    @Outcome(id = "5, 1", expect = ACCEPTABLE_INTERESTING,
            desc = "Mid-flush: pending already zeroed, table not yet raised (low by up to the threshold, as "
                    + "documented)")
    @Outcome(id = ".*", expect = FORBIDDEN, desc = "Counted twice (5 + 3 = 8) or anything else")
    @State
    public static class Flush extends Fixture {
        @Actor
        public void owner(JJ_Result r) {
            r.r1 = combiners.observe(K, owner, table) & TableLayout.COUNT_MASK;
        }

        @Actor
        public void estimator(JJ_Result r) {
            r.r2 = estimate(K);
        }
    }

    @JCStressTest
    @Description("A hotter key displaces K from its set (K's pending 3 -> table) against an estimate of K")
    @Outcome(id = "6, 4", expect = ACCEPTABLE, desc = "K's estimate before or after: 1 + 3 pending, or 4 in the table")
    @Outcome(id = "6, 1", expect = ACCEPTABLE_INTERESTING,
            desc = "Mid-displacement: K's entry already emptied, its 3 not yet in the table")
    @Outcome(id = ".*", expect = FORBIDDEN, desc = "Counted twice (4 + 3 = 7) or anything else")
    @State
    public static class Displace extends Fixture {
        public Displace() {
            // M fills the set's other way (base 11); L has count 5 in the table, not combined.
            table.observe(M, 10, owner);
            combiners.observe(M, owner, table);
            table.observe(L, 5, owner);
        }

        @Actor
        public void owner(JJ_Result r) {
            // L's count 6 passes K's base 1: K (the weaker way) is displaced and its pending 3 go to the table.
            r.r1 = combiners.observe(L, owner, table) & TableLayout.COUNT_MASK;
        }

        @Actor
        public void estimator(JJ_Result r) {
            r.r2 = estimate(K);
        }
    }
}
