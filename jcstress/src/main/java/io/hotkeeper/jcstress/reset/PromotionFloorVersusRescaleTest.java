package io.hotkeeper.jcstress.reset;

import io.hotkeeper.engine.CombiningMode;
import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.core.Internals;
import io.hotkeeper.engine.shard.KeyShards;
import io.hotkeeper.engine.table.BucketTable;
import io.hotkeeper.engine.table.TableLayout;
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
 * A shard owner's raise of the promotion floor against a rescale of the counts, through the production facade
 * and {@code KeyShards}: the owner reads the table's rescale count, then (in the real protocol, {@code
 * KeyShard.sieveEvict}) the counts that turn a candidate of 1,000 away (here: every slot's, a walk as long as
 * reset's), and raises the floor to 1,001
 * ({@code KeyShards.rejected(count, rescales)}). The rescaler runs {@code reset()} or {@code decay(0.5)}. A raise
 * decided from counts read before the rescale must not outlive it: once both actors are done, the floor is the
 * rescale's (the configured 4 after reset; 4, or the raise scaled to 500, after decay), never 1,001.
 *
 * <p>Result {@code seen, floor}: the rescale count the owner read (0: before the rescale counted up, so its counts
 * may be the old ones; 1: after, so they are the new ones and its raise may stand) and the floor the arbiter reads.
 * Run: {@code jcstress/run -- -t PromotionFloorVersusRescaleTest}. Negative control:
 * {@link BrokenPromotionFloorVersusRescaleTest}.
 */
public class PromotionFloorVersusRescaleTest {
    private PromotionFloorVersusRescaleTest() {
    }

    /** A 4 KiB sketch with promotion floor 4; nothing observed (the actors drive the floor directly). */
    public abstract static class Fixture {
        final Hotkeeper hk = Hotkeeper.builder().memoryBytes(4096).seed(26).minCount(4)
                .combining(CombiningMode.OFF).build();
        final KeyShards shards = Internals.keyShards(hk);
        /** Where the owner leaves what it read, so that the reads stay. */
        long counted;

        /**
         * The owner's rejection: the rescale count, then the counts (every slot, acquire loads, as long a walk as
         * reset's: it stands for SIEVE's reads of its entries' counts), then the raise above a candidate of 1,000.
         */
        long reject(boolean countFirst) {
            long seen = shards.rescales();
            BucketTable table = shards.table();
            long sum = 0;
            for (long b = 0; b < table.bucketCount(); b++) {
                for (int s = 0; s < TableLayout.SLOTS_PER_BUCKET; s++) {
                    sum += TableLayout.count(table.laSlot(b, s));
                }
            }
            counted = sum;
            if (countFirst) {
                shards.rejected(1000, seen);
            } else {
                shards.rejected(1000);
            }
            return seen;
        }

        void readFloor(JJ_Result r) {
            r.r2 = shards.table().promotionFloor();
            hk.close();
        }
    }

    @JCStressTest
    @Description("A floor raise from counts read before reset() against the reset: the raise never outlives it")
    @Outcome(id = "0, 4", expect = ACCEPTABLE,
            desc = "The owner read its counts before reset: its raise was overwritten by reset, or given back")
    @Outcome(id = "1, 4", expect = ACCEPTABLE,
            desc = "The owner read its counts after reset counted up; reset's floor store came after its raise")
    @Outcome(id = "1, 1001", expect = ACCEPTABLE,
            desc = "The owner read its counts after reset counted up; its raise came after reset's floor store")
    @Outcome(id = ".*", expect = FORBIDDEN,
            desc = "A raise from counts read before reset outlived it (0, 1001), or another floor")
    @State
    public static class Reset extends Fixture {
        @Actor
        public void owner(JJ_Result r) {
            r.r1 = reject(true);
        }

        @Actor
        public void rescaler() {
            hk.reset();
        }

        @Arbiter
        public void arbiter(JJ_Result r) {
            readFloor(r);
        }
    }

    @JCStressTest
    @Description("A floor raise from counts read before decay(0.5) against the decay: scaled with it or given back")
    @Outcome(id = "0, 4", expect = ACCEPTABLE,
            desc = "The owner read its counts before the decay; its raise landed after the decay counted up: given "
                    + "back")
    @Outcome(id = "0, 500", expect = ACCEPTABLE,
            desc = "The owner read its counts before the decay, and its raise was done before: scaled with the counts")
    @Outcome(id = "1, 500", expect = ACCEPTABLE,
            desc = "The owner read its counts after the decay counted up; the decay's floor CAS scaled its raise")
    @Outcome(id = "1, 1001", expect = ACCEPTABLE,
            desc = "The owner read its counts after the decay counted up; its raise came after the decay's floor CAS")
    @Outcome(id = ".*", expect = FORBIDDEN,
            desc = "A raise from counts read before the decay outlived it unscaled (0, 1001), or another floor")
    @State
    public static class Decay extends Fixture {
        @Actor
        public void owner(JJ_Result r) {
            r.r1 = reject(true);
        }

        @Actor
        public void rescaler() {
            hk.decay(0.5);
        }

        @Arbiter
        public void arbiter(JJ_Result r) {
            readFloor(r);
        }
    }
}
