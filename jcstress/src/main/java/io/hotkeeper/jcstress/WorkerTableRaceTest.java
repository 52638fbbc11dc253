package io.hotkeeper.jcstress;

import io.hotkeeper.engine.core.Routing;
import io.hotkeeper.engine.core.TableSet;
import io.hotkeeper.engine.table.BucketTable;
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
 * Two threads observe into worker tables for the first time at once (docs/design.md, "Worker tables").
 *
 * <p>Protocol. {@code TableSet.tableFor} reads the stripe's remembered table plain ({@code tableOfStripe}); null
 * takes {@code WorkerAssignment.of}, whose lock gives the least used table among live workers, then stores that
 * table plain. While both actors' threads are alive they get different tables whatever the interleaving; but
 * jcstress ends an actor's thread when its batch of samples is done, and a worker whose thread has ended no longer
 * counts, so the other actor, still working through the batch, may then be given the same (first) table: that is
 * the assignment freeing an ended thread's table, not a race. Whatever the order, a second call returns the first
 * call's table (the remembered entry, or the same assignment), and table 1 is only given while table 0 is held. A
 * new actor thread that takes over an ended one's worker id forgets that id's table before its first call
 * ({@code WorkerAssignment.forget}, run by {@code Workers} as it hands the id out) and asks afresh: the same
 * outcomes.
 * The negative control of the assignment itself is {@code worker.BrokenWorkerAssignmentRaceTest}.
 *
 * <p>r1, r2: the table index each actor got (0 or 1), or 9 if its second call returned another table.
 *
 * <p>Run: {@code jcstress/run --quick -- -t WorkerTableRace}.
 */
@JCStressTest
@Description("Two threads that first observe at once get a worker table each while both live, and keep it")
@Outcome(id = {"0, 1", "1, 0"}, expect = ACCEPTABLE, desc = "A table each")
@Outcome(id = "0, 0", expect = ACCEPTABLE_INTERESTING,
        desc = "One actor's thread had ended (its batch done) before the other asked: its table was free again")
@Outcome(id = ".*", expect = FORBIDDEN, desc = "Table 1 for both, or a thread's table changed between calls")
@State
public class WorkerTableRaceTest {
    final Fixtures.Table first = new Fixtures.Table();
    final Fixtures.Table second = new Fixtures.Table();
    final WorkerSpace workers = WorkerSpace.forProcessors(2);
    final TableSet tables = new TableSet(new BucketTable[] {first.table, second.table}, null,
            new Routing.PerWorker(2), workers, null);

    int mine() {
        BucketTable table = tables.tableFor(workers.current());
        if (tables.tableFor(workers.current()) != table) {
            return 9;
        }
        return table == first.table ? 0 : 1;
    }

    @Actor
    public void actor1(II_Result r) {
        r.r1 = mine();
    }

    @Actor
    public void actor2(II_Result r) {
        r.r2 = mine();
    }
}
