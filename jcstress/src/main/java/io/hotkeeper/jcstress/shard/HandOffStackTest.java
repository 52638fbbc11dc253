package io.hotkeeper.jcstress.shard;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import io.hotkeeper.engine.shard.ShardLayout;
import org.openjdk.jcstress.infra.results.JJJJJ_Result;

import java.lang.foreign.ValueLayout;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The MPSC hand-off stack (one getAndSet per push, then the link; the owner takes the whole stack with one
 * getAndSet and parks a chain whose link is not written yet). Two actors per test, since jcstress schedules no
 * more actors than CPUs (2 here): producers against producers, and a producer against the consuming owner.
 *
 * <p>Run: {@code jcstress/run -- -t HandOffStackTest}.
 */
public final class HandOffStackTest {
    private HandOffStackTest() {
    }

    /** 1 if the stack reads B, A, end; 2 if A, B, end; 0 otherwise (owner-quiet read by the arbiter). */
    static long stackOrder(ShardFixture f, long a, long b) {
        java.lang.foreign.MemorySegment seg = f.shard.segment();
        long top = seg.get(ValueLayout.JAVA_LONG, ShardLayout.STACK_HEAD);
        if (top == ShardLayout.NONE) {
            return 0;
        }
        long second = f.shard.handOffNext((int) top);
        if (second == ShardLayout.NONE) {
            return 0;
        }
        long third = f.shard.handOffNext((int) second);
        if (third != ShardLayout.NONE) {
            return 0;
        }
        if (top == ShardLayout.linkEntry(b) && second == ShardLayout.linkEntry(a)) {
            return 1;
        }
        return top == ShardLayout.linkEntry(a) && second == ShardLayout.linkEntry(b) ? 2 : 0;
    }

    /**
     * r1, r2: each producer pushed; r3, r4: entry A / B freed exactly once after the arbiter's drain; r5: the
     * stack before that drain, from the top: 1 = B then A (A's getAndSet first), 2 = A then B.
     */
    @JCStressTest
    @Description("Two producers push on one owner's stack at once: both entries arrive, each reaped once")
    @Outcome(id = "1, 1, 1, 1, [12]", expect = ACCEPTABLE,
            desc = "Both getAndSets landed, in either order (r5); each push linked its predecessor; the drain "
                    + "reaped both")
    @Outcome(id = ".*", expect = FORBIDDEN,
            desc = "An entry lost on the stack (the other producer's link overwritten), reaped twice, or refused")
    @State
    public static class TwoProducers {
        final ShardFixture f = new ShardFixture();
        final long a = f.insert((byte) 0x11, 11);
        final long b = f.insert((byte) 0x22, 22);

        @Actor
        public void producerA(JJJJJ_Result r) {
            r.r1 = f.delete(a);
        }

        @Actor
        public void producerB(JJJJJ_Result r) {
            r.r2 = f.delete(b);
        }

        @Arbiter
        public void arbiter(JJJJJ_Result r) {
            r.r5 = stackOrder(f, a, b);
            f.drain();
            r.r3 = f.freedOnce(a);
            r.r4 = f.freedOnce(b);
        }
    }

    /**
     * r1, r2: the producer pushed A and B; r3, r4: A / B freed exactly once after the arbiter's drain; r5: the
     * owner's drain parked a chain (it met a NOT_YET link and left the rest in PENDING): 1, else 0.
     */
    @JCStressTest
    @Description("The owner drains while a producer pushes two entries: nothing lost, nothing doubled, no "
            + "half-written link followed")
    @Outcome(id = "1, 1, 1, 1, 0", expect = ACCEPTABLE,
            desc = "The owner took an empty stack, A alone, or A and B with their links written; every entry "
                    + "reaped exactly once")
    @Outcome(id = "1, 1, 1, 1, 1", expect = ACCEPTABLE_INTERESTING,
            desc = "The owner's getAndSet took a chain whose link was still NOT_YET (between a push's getAndSet "
                    + "and its release store of the link): the drain parked it instead of following it, and the "
                    + "arbiter's drain resumed it; every entry reaped exactly once")
    @Outcome(id = ".*", expect = FORBIDDEN,
            desc = "An entry never reaped (lost behind a parked chain or a missed push), or reaped twice")
    @State
    public static class ProducerVersusOwner {
        final ShardFixture f = new ShardFixture();
        final long a = f.insert((byte) 0x11, 11);
        final long b = f.insert((byte) 0x22, 22);

        @Actor
        public void producer(JJJJJ_Result r) {
            r.r1 = f.delete(a);
            r.r2 = f.delete(b);
        }

        @Actor
        public void owner(JJJJJ_Result r) {
            f.drain();
            // Plain read of an owner-only field by the owner, right after its own drain.
            r.r5 = f.shard.segment().get(ValueLayout.JAVA_LONG, ShardLayout.PENDING) != ShardLayout.NONE ? 1 : 0;
        }

        @Arbiter
        public void arbiter(JJJJJ_Result r) {
            f.drain();
            r.r3 = f.freedOnce(a);
            r.r4 = f.freedOnce(b);
        }
    }
}
