package io.hotkeeper.jcstress.shard;

import io.hotkeeper.engine.shard.ShardLayout;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJJJ_Result;
import org.openjdk.jcstress.infra.results.JJJJ_Result;

import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;

/**
 * NEGATIVE CONTROLS for {@link SieveVisitTest}, not tests of Hotkeeper: the production shard and owner/deleter
 * paths, but the visit is a copy of {@code KeyShard.visit} with a planted bug. Excluded from normal runs;
 * {@code jcstress/run --negative} fails unless each shows its ACCEPTABLE_INTERESTING outcome.
 */
public final class BrokenSieveVisitTest {
    private BrokenSieveVisitTest() {
    }

    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    static long stateOffset(int entry) {
        return ShardLayout.entryOffset(entry) + ShardLayout.STATE;
    }

    /** The bug: the visit's checked word is written back with VISITED by a store, not a CAS. */
    static void visitByStore(ShardFixture f, long link) {
        long offset = stateOffset(ShardLayout.linkEntry(link));
        long state = (long) LONG.getOpaque(f.shard.segment(), offset);
        if (ShardLayout.generation(state) == ShardLayout.linkGeneration(link)
                && (state & (ShardLayout.MEMBER | ShardLayout.DEAD | ShardLayout.VISITED)) == ShardLayout.MEMBER) {
            LONG.setOpaque(f.shard.segment(), offset, state | ShardLayout.VISITED);
        }
    }

    /** The bug: the check is right, but the bit is then OR-ed into whatever the word holds by now. */
    static void visitByUncheckedOr(ShardFixture f, long link) {
        long offset = stateOffset(ShardLayout.linkEntry(link));
        long state = (long) LONG.getOpaque(f.shard.segment(), offset);
        if (ShardLayout.generation(state) == ShardLayout.linkGeneration(link)
                && (state & (ShardLayout.MEMBER | ShardLayout.DEAD | ShardLayout.VISITED)) == ShardLayout.MEMBER) {
            LONG.getAndBitwiseOr(f.shard.segment(), offset, ShardLayout.VISITED);
        }
    }

    /** As {@link SieveVisitTest.VersusMarkDead}, with the store-back visit. */
    @JCStressTest
    @Description("NEGATIVE CONTROL: a visit that stores its checked word back erases a concurrent markDead")
    @Outcome(id = "1, [01], 1, 2, 0", expect = ACCEPTABLE, desc = "No overlap: as in the real test")
    @Outcome(id = "1, 1, 0, 1, 0", expect = ACCEPTABLE_INTERESTING,
            desc = "markDead's CAS landed between the visit's load and its store: DEAD and the pusher's reference "
                    + "erased (the entry would be freed under the pusher); what the CAS in visit prevents")
    @Outcome(id = ".*", expect = ACCEPTABLE, desc = "Other damage")
    @State
    public static class VersusMarkDead {
        final ShardFixture f = new ShardFixture();
        final long e = f.insert((byte) 0x11, 11);

        @Actor
        public void visitor() {
            visitByStore(f, e);
        }

        @Actor
        public void deleter(JJJJJ_Result r) {
            r.r1 = f.delete(e);
        }

        @Arbiter
        public void arbiter(JJJJJ_Result r) {
            long state = f.stateOf(e);
            r.r2 = (state & ShardLayout.VISITED) != 0 ? 1 : 0;
            r.r3 = (state & ShardLayout.DEAD) != 0 ? 1 : 0;
            r.r4 = ShardLayout.references(state);
            r.r5 = ShardLayout.generation(state) - ShardLayout.linkGeneration(e);
        }
    }

    /** As {@link SieveVisitTest.VersusReuse}, with the unchecked-OR visit. */
    @JCStressTest
    @Description("NEGATIVE CONTROL: a visit that ORs VISITED in after its check marks the reused entry")
    @Outcome(id = "1, 0, 1, 1", expect = ACCEPTABLE, desc = "No overlap: as in the real test")
    @Outcome(id = "1, 1, 1, 1", expect = ACCEPTABLE_INTERESTING,
            desc = "The owner freed and reused the entry between the visit's check and its OR: the new key's entry "
                    + "is marked visited by an old link; what the CAS on the checked word prevents")
    @Outcome(id = ".*", expect = ACCEPTABLE, desc = "Other damage")
    @State
    public static class VersusReuse {
        final ShardFixture f = new ShardFixture();
        final long e = f.insert((byte) 0x22, 22);

        @Actor
        public void visitor() {
            visitByUncheckedOr(f, e);
        }

        @Actor
        public void owner(JJJJ_Result r) {
            r.r1 = f.replaceWithNewKey(e, (byte) 0x23);
        }

        @Arbiter
        public void arbiter(JJJJ_Result r) {
            long state = f.stateOf(e);
            r.r2 = (state & ShardLayout.VISITED) != 0 ? 1 : 0;
            r.r3 = (state & ShardLayout.MEMBER) != 0 ? 1 : 0;
            r.r4 = ShardLayout.references(state);
        }
    }
}
