package io.hotkeeper.jcstress;

import io.hotkeeper.engine.salt.EvictionSalt;
import io.hotkeeper.engine.salt.SaltLayout;
import io.hotkeeper.engine.worker.WorkerHandle;
import io.hotkeeper.engine.worker.WorkerSpace;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJJJ_Result;

import java.lang.foreign.Arena;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The per-worker salt, in the case where two threads share one worker's counter (two virtual threads of one
 * carrier, a shared worker, id 1): the counter emits 1, 1 + N, 1 + 2N, ... (residue class 1 of
 * N = 4 counters) and, advanced by an atomic add even here, never twice the same value. Counter 2, which no
 * actor's id picks, stays untouched.
 *
 * <p>r1, r2: actor 1's values; r3, r4: actor 2's (expressed as (value - 1) / 4, so 0..3); r5: the untouched
 * counter 2's next value (2).
 *
 * <p>Run: {@code jcstress/run -- -t PerWorkerSaltUniquenessTest}.
 */
@JCStressTest
@Description("Two threads sharing one per-worker salt counter: four distinct values of its residue class")
@Outcome(id = "0, 1, 2, 3, 2", expect = ACCEPTABLE, desc = "Actor 1 drew both before actor 2 drew")
@Outcome(id = "2, 3, 0, 1, 2", expect = ACCEPTABLE, desc = "Actor 2 drew both before actor 1 drew")
@Outcome(id = "0, 2, 1, 3, 2", expect = ACCEPTABLE, desc = "Alternating, actor 1 first")
@Outcome(id = "1, 3, 0, 2, 2", expect = ACCEPTABLE, desc = "Alternating, actor 2 first")
@Outcome(id = "0, 3, 1, 2, 2", expect = ACCEPTABLE, desc = "Actor 2's two draws between actor 1's")
@Outcome(id = "1, 2, 0, 3, 2", expect = ACCEPTABLE, desc = "Actor 1's two draws between actor 2's")
@Outcome(id = ".*", expect = FORBIDDEN,
        desc = "A repeated value, a value outside residue class 1 (encoded as a non-integer step), a thread's "
                + "values not increasing, or another worker's counter touched")
@State
public class PerWorkerSaltUniquenessTest {
    private static final WorkerSpace WORKERS = new WorkerSpace(2, 1);
    /** Counters of the salt: worker id i draws from counter i mod 4. */
    private static final int STRIPES = 4;
    /** Worker 1, shared: several threads take turns on its counter. */
    private static final long SHARED_WORKER = WORKERS.handleOf(WorkerHandle.shared(1));

    final EvictionSalt salt = EvictionSalt.perWorker(
            Arena.ofAuto().allocate(SaltLayout.segmentBytes(1) * STRIPES, SaltLayout.ALIGNMENT), STRIPES);

    private static long step(long value) {
        return (value - 1) % STRIPES == 0 ? (value - 1) / STRIPES : -100;
    }

    @Actor
    public void drawer1(JJJJJ_Result r) {
        r.r1 = step(salt.next(0, SHARED_WORKER));
        r.r2 = step(salt.next(0, SHARED_WORKER));
    }

    @Actor
    public void drawer2(JJJJJ_Result r) {
        r.r3 = step(salt.next(0, SHARED_WORKER));
        r.r4 = step(salt.next(0, SHARED_WORKER));
    }

    @Arbiter
    public void arbiter(JJJJJ_Result r) {
        r.r5 = salt.peek(2);
    }
}
