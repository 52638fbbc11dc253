package io.hotkeeper.jcstress;

import io.hotkeeper.engine.stats.StatsLayout;
import io.hotkeeper.engine.stats.StatsStripes;
import io.hotkeeper.engine.worker.WorkerHandle;
import io.hotkeeper.engine.worker.WorkerSpace;
import io.hotkeeper.engine.worker.Workers;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

import java.lang.foreign.Arena;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * A worker id handed from a dead thread to a new one (docs/shards.md, "Dead owners"), with no edge but the one
 * {@link Workers} relies on.
 *
 * <p>Protocol. Actor 1 starts a platform thread T that registers ({@code Workers.current()}), adds 1 to the
 * REFRESHES counter of its exclusive stats stripe {@value #WRITES} times (the owner's plain load + opaque store)
 * and ends. Actor 2 waits for an opaque signal T sets after its writes (opaque: no happens-before), then starts a
 * platform thread R that registers and reads the counters (opaque) before adding its own 1 as the new owner. R
 * gets T's id only if {@code register} saw {@code T.isAlive()} false; a thread's final action synchronizes-with
 * the {@code isAlive()} that sees it terminated (JLS 17.4.4), and register runs under the registry's lock, so
 * every write of T happens-before R's first access: R must start from {@value #WRITES}. Nothing else orders T
 * before R: actor 2 never reads T's state, and the registry lock was last taken by T before its writes.
 *
 * <p>r1: 1 if R got T's id (an exclusive stripe), 0 if T was still alive at R's registration (R got another id);
 * r2: what R read before its add; r3: the counter's total at the end.
 *
 * <p>Run: {@code jcstress/run --quick -- -t WorkerIdHandOver}. The thread starts make samples slow (about 10^4
 * per quick run).
 */
@JCStressTest
@Description("A dead thread's exclusive stats stripe is continued by the next thread that registers")
@Outcome(id = "1, 8, 9", expect = ACCEPTABLE_INTERESTING,
        desc = "Handed over: R took T's id after isAlive() saw T terminated, and read all 8 of T's writes")
@Outcome(id = "0, 8, 9", expect = ACCEPTABLE,
        desc = "T was still alive when R registered: R took another id (nothing handed over)")
@Outcome(id = ".*", expect = FORBIDDEN,
        desc = "R continued T's stripe from a stale count (a write of T not visible to the new holder), or a "
                + "write was lost")
@State
public class WorkerIdHandOverTest {
    static final int WRITES = 8;
    private static final VarHandle SIGNAL;

    static {
        try {
            SIGNAL = MethodHandles.lookup().findVarHandle(WorkerIdHandOverTest.class, "signal", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final WorkerSpace workers = new WorkerSpace(8, 1);
    final StatsStripes stats = new StatsStripes(Arena.ofAuto(), workers);
    /** T's id; written by T, read by the arbiter after actor 1 joined T. */
    int idT = -1;
    /** R's id and first read; written by R, read by the arbiter after actor 2 joined R. */
    int idR = -2;
    long seenByR = -1;
    /** T's "writes done" signal: opaque on both sides, so it orders nothing. */
    int signal;

    static void joinQuietly(Thread t) {
        boolean interrupted = false;
        while (true) {
            try {
                t.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Actor
    public void dyingThread(III_Result r) {
        Thread t = Thread.ofPlatform().start(() -> {
            long worker = workers.current(); // Workers.current(): registers
            for (int i = 0; i < WRITES; i++) {
                stats.add(worker, StatsLayout.REFRESHES, 1);
            }
            idT = WorkerHandle.id(worker);
            SIGNAL.setOpaque(this, 1);
        });
        joinQuietly(t);
    }

    @Actor
    public void nextThread(III_Result r) {
        while ((int) SIGNAL.getOpaque(this) == 0) {
            Thread.onSpinWait();
        }
        Thread next = Thread.ofPlatform().start(() -> {
            long worker = workers.current();
            seenByR = stats.sum(StatsLayout.REFRESHES);
            stats.add(worker, StatsLayout.REFRESHES, 1);
            idR = WorkerHandle.id(worker);
        });
        joinQuietly(next);
    }

    @Arbiter
    public void arbiter(III_Result r) {
        r.r1 = idR == idT && idT < 8 ? 1 : 0;
        r.r2 = (int) seenByR;
        r.r3 = (int) stats.sum(StatsLayout.REFRESHES);
    }
}
