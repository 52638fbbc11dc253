package io.hotkeeper.jcstress.shard;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJJ_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
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

    /** r1, r2: each producer pushed; r3, r4: entry A / B freed exactly once after the arbiter's drain. */
    @JCStressTest
    @Description("Two producers push on one owner's stack at once: both entries arrive, each reaped once")
    @Outcome(id = "1, 1, 1, 1", expect = ACCEPTABLE,
            desc = "Both getAndSets landed in some order; each push linked its predecessor; the drain reaped both")
    @Outcome(id = ".*", expect = FORBIDDEN,
            desc = "An entry lost on the stack (the other producer's link overwritten), reaped twice, or refused")
    @State
    public static class TwoProducers {
        final ShardFixture f = new ShardFixture();
        final long a = f.insert((byte) 0x11, 11);
        final long b = f.insert((byte) 0x22, 22);

        @Actor
        public void producerA(JJJJ_Result r) {
            r.r1 = f.delete(a);
        }

        @Actor
        public void producerB(JJJJ_Result r) {
            r.r2 = f.delete(b);
        }

        @Arbiter
        public void arbiter(JJJJ_Result r) {
            f.drain();
            r.r3 = f.freedOnce(a);
            r.r4 = f.freedOnce(b);
        }
    }

    /**
     * r1, r2: the producer pushed A and B; r3, r4: A / B freed exactly once after the arbiter's drain.
     */
    @JCStressTest
    @Description("The owner drains while a producer pushes two entries: nothing lost, nothing doubled, no "
            + "half-written link followed")
    @Outcome(id = "1, 1, 1, 1", expect = ACCEPTABLE,
            desc = "The owner took an empty stack, A alone, A and B, or a chain whose link was still NOT_YET "
                    + "(parked, resumed by the arbiter's drain); every entry reaped exactly once")
    @Outcome(id = ".*", expect = FORBIDDEN,
            desc = "An entry never reaped (lost behind a parked chain or a missed push), or reaped twice")
    @State
    public static class ProducerVersusOwner {
        final ShardFixture f = new ShardFixture();
        final long a = f.insert((byte) 0x11, 11);
        final long b = f.insert((byte) 0x22, 22);

        @Actor
        public void producer(JJJJ_Result r) {
            r.r1 = f.delete(a);
            r.r2 = f.delete(b);
        }

        @Actor
        public void owner() {
            f.drain();
        }

        @Arbiter
        public void arbiter(JJJJ_Result r) {
            f.drain();
            r.r3 = f.freedOnce(a);
            r.r4 = f.freedOnce(b);
        }
    }
}
