package io.hotkeeper.jcstress.worker;

import io.hotkeeper.engine.worker.WorkerHandle;
import io.hotkeeper.engine.worker.WorkerSpace;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * NEGATIVE CONTROL, not a test of Hotkeeper: {@link WorkerAssignmentRaceTest} with a copy of
 * {@code WorkerAssignment} whose first-time assignment is not under a lock. Each worker counts the choices
 * already given, then writes its own: two workers that count before either writes both see none given and take
 * the same choice, ACCEPTABLE_INTERESTING; {@code jcstress/run --negative} fails if that never shows up.
 *
 * <p>Run: {@code jcstress/run --negative -- -t BrokenWorkerAssignmentRace}.
 */
@JCStressTest
@Description("NEGATIVE CONTROL: first-time assignment without the lock gives two workers one choice")
@Outcome(id = {"0, 1", "1, 0"}, expect = ACCEPTABLE, desc = "One choice each: one worker counted after the other wrote")
@Outcome(id = {"0, 0", "1, 1"}, expect = ACCEPTABLE_INTERESTING,
        desc = "Both counted before either wrote: one choice for two workers")
@Outcome(id = ".*", expect = FORBIDDEN, desc = "Not expected even from the broken assignment")
@State
public class BrokenWorkerAssignmentRaceTest {
    static final WorkerSpace SPACE = new WorkerSpace(8, 1);

    /** WorkerAssignment's choice over two, its lock removed (the bug): count, then write, unguarded. */
    static final class BrokenAssignment {
        final byte[] choicePlusOne = new byte[SPACE.stripes()];

        int of(int id) {
            int stripe = WorkerHandle.stripe(SPACE.handleOf(WorkerHandle.exclusive(id)));
            int entry = choicePlusOne[stripe];
            if (entry != 0) {
                return entry - 1;
            }
            int[] load = new int[2];
            for (byte e : choicePlusOne) {
                if (e != 0) {
                    load[e - 1]++;
                }
            }
            int best = load[1] < load[0] ? 1 : 0;
            choicePlusOne[stripe] = (byte) (best + 1);
            return best;
        }
    }

    final BrokenAssignment assignment = new BrokenAssignment();

    @Actor
    public void worker1(II_Result r) {
        r.r1 = assignment.of(1);
    }

    @Actor
    public void worker2(II_Result r) {
        r.r2 = assignment.of(2);
    }
}
