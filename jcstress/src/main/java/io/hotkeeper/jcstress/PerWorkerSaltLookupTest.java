package io.hotkeeper.jcstress;

import io.hotkeeper.engine.salt.EvictionSalt;
import io.hotkeeper.engine.salt.SaltLayout;
import io.hotkeeper.engine.worker.WorkerHandle;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJ_Result;

import java.lang.foreign.Arena;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The per-worker salt's draw without a worker ({@link WorkerHandle#NO_HANDLE}, what an observation carries when
 * nothing else it does is per worker): the salt looks the calling thread's worker up itself and draws from the
 * counter of its id. With one counter, every id picks it, so two threads with distinct ids meet on it through the
 * lookup path, as writers whose ids collide do on a salt of several counters: the atomic add still hands them
 * distinct values. {@link BrokenSaltUniquenessTest} is the negative control of this outcome shape (a counter
 * advanced by a plain read and write repeats a value, and the harness catches it).
 *
 * <p>r1, r2: the values drawn by actors 1 and 2; r3: the counter afterwards.
 *
 * <p>Run: {@code jcstress/run -- -t PerWorkerSaltLookupTest}.
 */
@JCStressTest
@Description("Two threads draw from a one-counter per-worker salt through its worker lookup: distinct values")
@Outcome(id = "0, 1, 2", expect = ACCEPTABLE, desc = "Actor 1 drew first")
@Outcome(id = "1, 0, 2", expect = ACCEPTABLE, desc = "Actor 2 drew first")
@Outcome(id = ".*", expect = FORBIDDEN, desc = "A repeated value, or a draw lost or taken from another counter")
@State
public class PerWorkerSaltLookupTest {
    final EvictionSalt salt = EvictionSalt.perWorker(
            Arena.ofAuto().allocate(SaltLayout.segmentBytes(1), SaltLayout.ALIGNMENT), 1);

    @Actor
    public void drawer1(JJJ_Result r) {
        r.r1 = salt.next(0, WorkerHandle.NO_HANDLE);
    }

    @Actor
    public void drawer2(JJJ_Result r) {
        r.r2 = salt.next(0, WorkerHandle.NO_HANDLE);
    }

    @Arbiter
    public void arbiter(JJJ_Result r) {
        r.r3 = salt.peek(0);
    }
}
