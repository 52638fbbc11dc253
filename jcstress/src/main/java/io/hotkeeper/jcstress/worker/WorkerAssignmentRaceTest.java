package io.hotkeeper.jcstress.worker;

import io.hotkeeper.engine.worker.WorkerAssignment;
import io.hotkeeper.engine.worker.WorkerHandle;
import io.hotkeeper.engine.worker.WorkerSpace;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Two workers ask a {@link WorkerAssignment} of two choices for theirs at the same time, and the second then reads
 * the first one's entry (docs/shards.md, "Which shard a writer uses").
 *
 * <p>Protocol. {@code of} reads the stripe's entry plain; a 0 takes the assignment's lock, which counts the choices
 * of the stripes in use and writes the least used one into the entry. Both workers' ids count as in use here, so
 * whichever of them comes second under the lock sees the first one's choice and takes the other: the two get
 * different choices whatever the interleaving. The second worker's plain read of the first one's entry sees it
 * unset (-1) or its final value, never another (an entry goes from 0 to its value under the lock; only a new holder
 * of its id clears it again, which this test has none of).
 *
 * Worker 2 can only get choice 1 if it saw worker 1 holding choice 0 under the lock; its later read then happens
 * after that entry's write, so it cannot see the entry unset.
 *
 * <p>r1, r2: the choices of workers 1 and 2; r3: {@code assigned(worker 1)} as worker 2 then saw it.
 *
 * <p>Run: {@code jcstress/run --quick -- -t WorkerAssignmentRace}.
 */
@JCStressTest
@Description("Two workers that first ask at once get different choices; a reader sees an entry unset or final")
@Outcome(id = "0, 1, 0", expect = ACCEPTABLE, desc = "Worker 1 first; worker 2 took the other choice and sees 1's")
@Outcome(id = "1, 0, -1", expect = ACCEPTABLE, desc = "Worker 2 first, and read before worker 1 was given one")
@Outcome(id = "1, 0, 1", expect = ACCEPTABLE_INTERESTING,
        desc = "Worker 2 first, and read worker 1's entry after worker 1 was given the other choice")
@Outcome(id = ".*", expect = FORBIDDEN, desc = "Both workers got one choice, worker 2 saw a value never given, or "
        + "worker 2 took choice 1 because of worker 1's entry and then read that entry unset")
@State
public class WorkerAssignmentRaceTest {
    static final WorkerSpace SPACE = new WorkerSpace(8, 1);
    static final long WORKER_1 = SPACE.handleOf(WorkerHandle.exclusive(1));
    static final long WORKER_2 = SPACE.handleOf(WorkerHandle.exclusive(2));

    final WorkerAssignment assignment = WorkerAssignment.withIdsInUse(2, SPACE, id -> true);

    @Actor
    public void worker1(III_Result r) {
        r.r1 = assignment.of(WORKER_1);
    }

    @Actor
    public void worker2(III_Result r) {
        r.r2 = assignment.of(WORKER_2);
        r.r3 = assignment.assigned(WORKER_1);
    }
}
