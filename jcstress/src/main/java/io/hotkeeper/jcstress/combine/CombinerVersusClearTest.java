package io.hotkeeper.jcstress.combine;

import io.hotkeeper.engine.core.Routing;
import io.hotkeeper.engine.core.TableSet;
import io.hotkeeper.engine.table.BucketTable;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * A table clear (reset, a window's new slice) against the owner of a combined key ({@code
 * HotKeyCombiners.tableCleared}, called by {@code TableSet.clearSlice} after the table's last slot).
 *
 * <p>Protocol: the clearer empties the table (volatile CASes), then increments the clear count and writes null
 * (volatile) over every published block. The owner's hit path loads its block reference (opaque); on null it drops
 * its hot set (pending counts to the table), republishes the block with a volatile CAS from null, and only then
 * reads the table for the observation that may admit the key again. All volatile: a clear that empties the slot
 * after that read nulls the block after the CAS, and the owner drops again at its next call. So after an
 * observation that begins once the clear has returned, the key is in the table: never combined without a slot.
 * Negative control: {@link BrokenCombinerVersusClearTest} (the blocks withdrawn before the table is cleared).
 *
 * <p>Run: {@code jcstress/run -- -t CombinerVersusClearTest}.
 */
@JCStressTest
@Description("reset against an owner observing its combined key: afterwards the key is in the table again")
@Outcome(id = "1, 2", expect = ACCEPTABLE,
        desc = "The owner observed after the clear: its unit claimed the slot afresh, the arbiter's is pending")
@Outcome(id = "2, 2", expect = ACCEPTABLE,
        desc = "The owner's unit was pending across the clear: the drop handed it to the new table")
@Outcome(id = ".*", expect = FORBIDDEN,
        desc = "The key combined with no table slot (table 0), or a unit lost or counted twice")
@State
public class CombinerVersusClearTest extends CombinerFixture {
    /** A key in the table's last bucket (swept last), in K's combiner set. */
    static final long Z = K | ((1L << CombinerVersusEstimateTest.INDEX_BITS) - 1);

    final TableSet tables;

    public CombinerVersusClearTest() {
        this(true);
    }

    CombinerVersusClearTest(boolean hooked) {
        super(4, false);
        tables = new TableSet(new BucketTable[] {table}, null, Routing.SINGLE,
                hooked ? combiners::tableCleared : null);
        observe(Z, owner(0), 1); // claimed (count 1), admitted at once (admitFrom 1)
        check(table.estimate(Z) == 1 && combiners.pending(Z) == 0 && combiners.activeBlocks() == 1,
                "Z admitted with table 1");
    }

    @Actor
    public void owner() {
        combiners.observe(Z, owner(0), table);
    }

    @Actor
    public void clearer() {
        tables.scale(0);
    }

    /** r1: Z's table count after one more observation by its owner; r2: table + pending. */
    @Arbiter
    public void arbiter(JJ_Result r) {
        combiners.observe(Z, owner(0), table);
        r.r1 = table.estimate(Z);
        r.r2 = estimate(Z);
    }
}
