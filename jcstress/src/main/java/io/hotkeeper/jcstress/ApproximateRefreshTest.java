package io.hotkeeper.jcstress;

import io.hotkeeper.engine.salt.EvictionSalt;
import io.hotkeeper.engine.stats.StatsStripes;
import io.hotkeeper.engine.worker.WorkerHandle;
import io.hotkeeper.engine.worker.WorkerSpace;
import io.hotkeeper.engine.table.BucketTable;
import io.hotkeeper.engine.table.TableLayout;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJ_Result;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Approximate counting ({@code approximateBits} = 4): a refresh of a count {@code c >= 16} adds {@code 2^j}
 * ({@code j = floor(log2 c) - 3}) if its coin says so, and the CAS loop in {@code BucketTable.refresh} retries
 * only the CAS once the coin has granted: on a failed CAS with the same key it re-applies the granted increment
 * to the witness word; it never re-draws the coin (which would lose a granted increment) and never re-applies one
 * whose CAS succeeded (the CAS is strong, {@code compareAndExchangeRelease}, so a failure is a real one).
 *
 * <p>Memory order: the coin state is the stripe owner's (plain load, opaque store); the slot word is only
 * written by CASes, so atomicity, not happens-before, is what keeps increments: the witness of a failed CAS is
 * the current word, which the retry builds on.
 *
 * <p>Determinism: each stats stripe's coin sequence is seeded by its index, so the stripes the actors use are
 * chosen at class initialisation from the production generator: their first coin grants (the low j = 2 bits are
 * zero at c = 32..63) and their second denies. A broken loop that re-draws after a failed CAS therefore loses
 * the increment for sure ({@link BrokenApproximateRefreshTest}).
 *
 * <p>K alone in bucket 0 (slot 0) at count 32. Run: {@code jcstress/run -- -t ApproximateRefreshTest}.
 */
public final class ApproximateRefreshTest {
    private ApproximateRefreshTest() {
    }

    static final int APPROXIMATE_BITS = 4;
    static final int STRIPES = 32;
    /** {@link #STRIPES} exclusive stripes, one shared. */
    static final WorkerSpace WORKERS = new WorkerSpace(STRIPES, 1);
    static final long START = 32;
    static final long FP_K = 0x1234;
    static final long HASH_K = Fixtures.hash(0, FP_K);
    /** Workers whose stripe's first coin grants a j = 2 increment and whose second denies one. */
    static final long WORKER_A;
    static final long WORKER_B;

    static {
        long[] found = new long[2];
        int n = 0;
        StatsStripes probe = new StatsStripes(Arena.ofAuto(), WORKERS);
        for (int s = 0; s < STRIPES && n < 2; s++) {
            long worker = WORKERS.handleOf(WorkerHandle.exclusive(s));
            boolean first = (probe.random(worker) & 3) == 0;
            boolean second = (probe.random(worker) & 3) == 0;
            if (first && !second) {
                found[n++] = worker;
            }
        }
        if (n < 2) {
            throw new IllegalStateException("fixture: fewer than two stripes grant first and deny second");
        }
        WORKER_A = found[0];
        WORKER_B = found[1];
    }

    /** One state's table: approximate counting from 16, no promotion, K at count 32. */
    static class Fixture {
        final BucketTable table;
        final StatsStripes stats;

        Fixture() {
            Arena arena = Arena.ofAuto();
            stats = new StatsStripes(arena, WORKERS);
            table = Fixtures.table(Fixtures.tableSegment(arena, Fixtures.INDEX_BITS), Fixtures.INDEX_BITS,
                    Fixtures.LOTTERY, new EvictionSalt(arena, 1), stats, Long.MAX_VALUE, t -> null, APPROXIMATE_BITS);
            table.putSlot(Fixtures.BUCKET, 0, TableLayout.word(FP_K, START));
        }
    }

    /** r1, r2: each refresh's result; r3: K's count afterwards (32 + 4 + 4). */
    @JCStressTest
    @Description("Two granted approximate refreshes (+4 each) of one key: both land, neither twice")
    @Outcome(id = "36, 40, 40", expect = ACCEPTABLE,
            desc = "A's CAS first (32 -> 36); B's CAS on 32 failed or B read 36: B added its granted 4 to 36")
    @Outcome(id = "40, 36, 40", expect = ACCEPTABLE, desc = "Mirror: B first")
    @Outcome(id = ".*", expect = FORBIDDEN,
            desc = "A granted increment lost (36), applied twice (44), or a torn word")
    @State
    public static class BothGranted extends Fixture {
        @Actor
        public void a(JJJ_Result r) {
            r.r1 = table.observe(HASH_K, 1, WORKER_A);
        }

        @Actor
        public void b(JJJ_Result r) {
            r.r2 = table.observe(HASH_K, 1, WORKER_B);
        }

        @Arbiter
        public void arbiter(JJJ_Result r) {
            r.r3 = table.estimate(HASH_K);
        }
    }

    /**
     * A's granted approximate refresh (+4) against B's weighted refresh of 2 (2 is not below 32 >> 4, so B adds
     * exactly, through the plain refresh CAS). r1, r2: results; r3: K afterwards (38).
     */
    @JCStressTest
    @Description("A granted approximate refresh (+4) against an exact weighted refresh (+2) of one key")
    @Outcome(id = "36, 38, 38", expect = ACCEPTABLE, desc = "A first (32 -> 36), then B (36 -> 38)")
    @Outcome(id = "38, 34, 38", expect = ACCEPTABLE,
            desc = "B first (32 -> 34), then A's granted 4 (directly, or retried on B's witness after a failed CAS)")
    @Outcome(id = ".*", expect = FORBIDDEN, desc = "An increment lost or applied twice")
    @State
    public static class GrantedVersusExact extends Fixture {
        @Actor
        public void a(JJJ_Result r) {
            r.r1 = table.observe(HASH_K, 1, WORKER_A);
        }

        @Actor
        public void b(JJJ_Result r) {
            r.r2 = table.observe(HASH_K, 2, WORKER_B);
        }

        @Arbiter
        public void arbiter(JJJ_Result r) {
            r.r3 = table.estimate(HASH_K);
        }
    }
}
