package io.hotkeeper.jcstress;

import io.hotkeeper.engine.stats.StatsLayout;
import io.hotkeeper.engine.stats.StatsStripes;
import io.hotkeeper.engine.worker.WorkerSpace;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

import java.lang.foreign.Arena;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * NEGATIVE CONTROL, not a test of Hotkeeper: {@link WorkerIdHandOverTest} with a copy of the id registry that
 * hands an id over when a plain flag says its thread is done, instead of when {@code isAlive()} says it has
 * terminated. The thread sets the flag at the end of its task, but it is not finished writing under its id: its
 * last stats write comes after (modelled by a short spin, as an exit path's work would). A flag covers what the
 * thread did before it in program order; termination covers everything.
 *
 * <p>R is started first and waits (spinning on an opaque read, no happens-before) until it can take an id through
 * the flag; it reads the counter before adding its own 1. If it registers between T's flag and T's last write, it
 * starts from a stale count (7 of T's 8 writes): ACCEPTABLE_INTERESTING; {@code jcstress/run --negative} fails if
 * that never shows up.
 *
 * <p>A flag stored <em>after</em> every write (the pure memory-ordering variant of this bug) is not expected to show
 * anything on x86, which keeps stores in order (only a compiler reordering could expose it); it was not tried as a
 * control. This control therefore plants the flag one write early.
 *
 * <p>Run: {@code jcstress/run --negative -- -t BrokenWorkerIdHandOver}.
 */
@JCStressTest
@Description("NEGATIVE CONTROL: an id handed over on a plain 'done' flag set before the thread's last write")
@Outcome(id = "1, 7, 9", expect = ACCEPTABLE_INTERESTING,
        desc = "R took T's id on the flag and read the count before T's last write: a stale start")
@Outcome(id = "1, 7, 8", expect = ACCEPTABLE_INTERESTING,
        desc = "As above, and R's add overlapped T's last one on the same stripe: one write lost")
@Outcome(id = "1, 8, 9", expect = ACCEPTABLE, desc = "R registered after T's last write")
@Outcome(id = ".*", expect = FORBIDDEN, desc = "Not expected even from the broken registry")
@State
public class BrokenWorkerIdHandOverTest {
    final WorkerSpace workers = new WorkerSpace(8, 1);
    final StatsStripes stats = new StatsStripes(Arena.ofAuto(), workers);
    final BrokenIds ids = new BrokenIds();
    int idT = -1;
    int idR = -2;
    long seenByR = -1;

    /** The registry with the bug: an id is free once its plain {@code done} flag is set. One id here: 0. */
    static final class BrokenIds {
        boolean taken;
        boolean done;

        synchronized int tryRegister() {
            if (!taken || done) {
                taken = true;
                done = false;
                return 0;
            }
            return -1;
        }

        void markDone() {
            done = true; // BUG: a plain flag, and set before the thread's last write under its id
        }

        synchronized boolean doneFlag() {
            return done;
        }
    }

    @Actor
    public void dyingThread(III_Result r) {
        Thread t = Thread.ofPlatform().start(() -> {
            int id = ids.tryRegister();
            long worker = workers.handleOf(id);
            for (int i = 0; i < WorkerIdHandOverTest.WRITES - 1; i++) {
                stats.add(worker, StatsLayout.REFRESHES, 1);
            }
            idT = id;
            ids.markDone();
            long until = System.nanoTime() + 2_000;
            while (System.nanoTime() < until) {
                Thread.onSpinWait();
            }
            stats.add(worker, StatsLayout.REFRESHES, 1);
        });
        WorkerIdHandOverTest.joinQuietly(t);
    }

    @Actor
    public void nextThread(III_Result r) {
        Thread next = Thread.ofPlatform().start(() -> {
            while (!ids.doneFlag()) {
                Thread.onSpinWait();
            }
            int id = ids.tryRegister();
            long worker = workers.handleOf(id);
            seenByR = stats.sum(StatsLayout.REFRESHES);
            stats.add(worker, StatsLayout.REFRESHES, 1);
            idR = id;
        });
        WorkerIdHandOverTest.joinQuietly(next);
    }

    @Arbiter
    public void arbiter(III_Result r) {
        r.r1 = idR == idT ? 1 : 0;
        r.r2 = (int) seenByR;
        r.r3 = (int) stats.sum(StatsLayout.REFRESHES);
    }
}
