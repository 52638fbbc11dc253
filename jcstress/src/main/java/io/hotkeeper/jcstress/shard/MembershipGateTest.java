package io.hotkeeper.jcstress.shard;

import io.hotkeeper.engine.shard.ShardLayout;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJ_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The membership gate: {@code markDead} CASes (gen, MEMBER, !DEAD) to (gen, MEMBER | DEAD, refs + 1) in one step,
 * so of any number of deleters of one entry exactly one hands it over, and a deleter that comes after the owner
 * unlinked the entry (MEMBER cleared) pushes nothing.
 *
 * <p>Run: {@code jcstress/run -- -t MembershipGateTest}.
 */
public final class MembershipGateTest {
    private MembershipGateTest() {
    }

    /** r1, r2: each deleter pushed (1) or was refused (0); r3: the entry freed exactly once after a drain. */
    @JCStressTest
    @Description("Two deleters of one tracked entry: exactly one hand-off")
    @Outcome(id = "1, 0, 1", expect = ACCEPTABLE, desc = "Deleter 1 won the gate; deleter 2 saw DEAD and pushed nothing")
    @Outcome(id = "0, 1, 1", expect = ACCEPTABLE, desc = "Deleter 2 won the gate; deleter 1 pushed nothing")
    @Outcome(id = ".*", expect = FORBIDDEN,
            desc = "A double hand-off (both pushed), no hand-off at all, or the entry not freed exactly once")
    @State
    public static class TwoDeleters {
        final ShardFixture f = new ShardFixture();
        final long e = f.insert((byte) 0x33, 33);

        @Actor
        public void deleter1(JJJ_Result r) {
            r.r1 = f.delete(e);
        }

        @Actor
        public void deleter2(JJJ_Result r) {
            r.r2 = f.delete(e);
        }

        @Arbiter
        public void arbiter(JJJ_Result r) {
            f.drain();
            r.r3 = f.freedOnce(e);
        }
    }

    /**
     * r1: the deleter pushed (1) or was refused (0); r2: references held right after both actors (before any
     * drain): the pusher's, if it pushed; r3: the entry freed exactly once after a drain.
     */
    @JCStressTest
    @Description("A foreign deleter races the owner's own unlink: never a push after unlink, freed once")
    @Outcome(id = "1, 1, 1", expect = ACCEPTABLE_INTERESTING,
            desc = "The deleter marked and pushed first (the racy path: the owner met a foreign mark); the owner's deleteOwn found DEAD, unlinked the zombie and "
                    + "dropped the shard's reference; the pusher's reference kept the entry until the drain")
    @Outcome(id = "0, 0, 1", expect = ACCEPTABLE,
            desc = "The owner marked and unlinked first (MEMBER cleared, freed at once); the deleter's gate "
                    + "refused it: no push after unlink")
    @Outcome(id = ".*", expect = FORBIDDEN,
            desc = "A push after unlink, an entry freed while a push still referenced it, or freed twice")
    @State
    public static class DeleterVersusOwner {
        final ShardFixture f = new ShardFixture();
        final long e = f.insert((byte) 0x44, 44);

        @Actor
        public void deleter(JJJ_Result r) {
            r.r1 = f.delete(e);
        }

        @Actor
        public void owner() {
            if (f.shard.tryEnter()) {
                try {
                    f.shard.deleteOwn(ShardLayout.linkEntry(e), ShardLayout.linkGeneration(e));
                } finally {
                    f.shard.exit();
                }
            }
        }

        @Arbiter
        public void arbiter(JJJ_Result r) {
            long state = f.shard.state(ShardLayout.linkEntry(e));
            // Before the drain: a pushed entry must still be held (its generation not yet advanced).
            r.r2 = ShardLayout.generation(state) == ShardLayout.linkGeneration(e) ? f.references(e) : 0;
            f.drain();
            r.r3 = f.freedOnce(e);
        }
    }
}
