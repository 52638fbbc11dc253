package io.hotkeeper.jcstress;

import io.hotkeeper.engine.table.BucketTable;
import io.hotkeeper.engine.table.TableLayout;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIIII_Result;

import java.util.SplittableRandom;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The link lock on the production path: a promotion of key X races a replacement of X's slot by key Y and Y's own
 * promotion (docs/shards.md, "The link lock").
 *
 * <p>Protocol. Bucket 0 of a 4 KiB table holds seven fillers (count 100, untracked) and X (count 1, untracked) in slot
 * 7; the promotion floor is 1, combining is off. Actor 1 does what the facade does for X: {@code observe} (X 1 -> 2,
 * PROMOTE), then {@code shardFor(worker 1).promote(...)} of a text key: claim (volatile CAS setting TRACKED and
 * PROMOTING), insert into shard 1 (X's characters are {@linkplain LinkLockFixture.SlowKey slow}, ~2 us, so the claim is
 * held long enough for actor 2 to act inside it), volatile link store, settle (volatile re-read; clear PROMOTING if the
 * claim is intact, else CAS the link back to 0, clear PROMOTING and delete the entry). Actor 2 observes Y with weight
 * 2^20 (phase 3 against the weakest slot, X's: surely won; the volatile CAS that hands the slot to Y keeps PROMOTING,
 * and the replacer reads the link (volatile) and deletes what it names), then, as the facade does on PROMOTE,
 * {@code shardFor(worker 2).promote(...)}, whose claim refuses a slot carrying PROMOTING.
 *
 * <p>Why it holds. Only the PROMOTING holder writes the link: a replacement carries the bit into Y's word, so Y's
 * claim cannot start while X's promotion is between claim and settle, and X's late link store can never land on
 * Y's. Dekker pair (all volatile, sequentially consistent): X stores its link then re-reads the slot; the
 * replacer CASes the slot then reads the link; at least one sees the other, so X's entry is deleted (by the
 * replacer's mark + hand-off or by X's settle; the membership gate makes it once).
 *
 * <p>r1: Y's tracker after the actors (2 = linked from a live entry of shard 2; 0 = untracked: its promotion was
 * refused; -2 = tracked with a bad link); r2: 1 if actor 1's observe found X (and so attempted the promotion), 0
 * if Y had taken the slot first; r3: {@link LinkLockFixture#violations() invariant violations} after the actors;
 * r4: Y's tracker after the arbiter observed Y once more (weight 1) and promoted it as worker 3 when told to;
 * r5: violations after that.
 *
 * <p>Run: {@code jcstress/run --quick -- -t PromotionVersusReplacement}.
 */
@JCStressTest
@Description("Promotion of X (slow key copy) against a weighted replacement of X's slot by Y and Y's promotion")
@Outcome(id = "2, 1, 0, 2, 0", expect = ACCEPTABLE,
        desc = "X claimed first; Y replaced the slot before or during X's promotion and Y's claim came after X "
                + "settled (PROMOTING clear): X's entry deleted, Y tracked by shard 2")
@Outcome(id = "0, 1, 0, 3, 0", expect = ACCEPTABLE_INTERESTING,
        desc = "Y replaced X's slot while X's promotion held PROMOTING: Y's claim was refused; X's settle found its "
                + "slot untracked, took its link back and deleted its entry; Y's next observation (the arbiter's) "
                + "promoted it into shard 3")
@Outcome(id = "2, 0, 0, 2, 0", expect = ACCEPTABLE,
        desc = "Y took the slot before X's observe: X's observe lost its draw against a filler, no promotion; Y "
                + "tracked by shard 2")
@Outcome(id = ".*", expect = FORBIDDEN,
        desc = "A slot left with PROMOTING, a tracked slot whose link names a dead or foreign entry, a live entry "
                + "nobody links, or Y not tracked after its next observation")
@State
public class PromotionVersusReplacementTest {
    /** The crafted keys: X in slot 7 of bucket 0 among seven fillers, Y a new key of bucket 0. */
    static final class Keys {
        static final long HASH_X;
        static final long HASH_Y;
        static final long[] PREFILL;

        static {
            SplittableRandom random = Fixtures.random("PromotionVersusReplacement");
            long[] fps = Fixtures.fingerprints(random, TableLayout.SLOTS_PER_BUCKET + 1);
            HASH_X = Fixtures.hash(random.nextLong() >>> TableLayout.SPARE_SHIFT, fps[0]);
            HASH_Y = Fixtures.hash(random.nextLong() >>> TableLayout.SPARE_SHIFT, fps[1]);
            long[] fillerFps = new long[TableLayout.SLOTS_PER_BUCKET - 1];
            System.arraycopy(fps, 2, fillerFps, 0, fillerFps.length);
            long[] words = new long[TableLayout.SLOTS_PER_BUCKET];
            System.arraycopy(Fixtures.fillers(fillerFps, fillerFps.length), 0, words, 0, fillerFps.length);
            words[TableLayout.SLOTS_PER_BUCKET - 1] = TableLayout.word(fps[0], 1);
            PREFILL = words;
        }

        private Keys() {
        }
    }

    /** X's characters: 8 of them at ~250 ns each. */
    static final CharSequence SLOW_X = new LinkLockFixture.SlowKey("key-of-X", 250);
    static final long KEY_Y = 0x5959_5959L;

    final LinkLockFixture f = new LinkLockFixture();

    public PromotionVersusReplacementTest() {
        for (int s = 0; s < Keys.PREFILL.length; s++) {
            f.table.putSlot(Fixtures.BUCKET, s, Keys.PREFILL[s]);
        }
    }

    @Actor
    public void promoteX(IIIII_Result r) {
        long result = f.table.observe(Keys.HASH_X, 1, f.worker1);
        if ((result & BucketTable.PROMOTE) != 0) {
            f.shards.shardFor(f.worker1).promote(Keys.HASH_X, 0, null, 0, 0, SLOW_X, f.worker1);
            r.r2 = 1;
        }
    }

    @Actor
    public void replaceWithY(IIIII_Result r) {
        f.observe(2, Keys.HASH_Y, KEY_Y, LinkLockFixture.HEAVY, f.worker2);
    }

    @Arbiter
    public void arbiter(IIIII_Result r) {
        r.r1 = (int) f.tracker(Keys.HASH_Y);
        r.r3 = f.violations();
        f.observe(3, Keys.HASH_Y, KEY_Y, 1, f.worker3);
        r.r4 = (int) f.tracker(Keys.HASH_Y);
        r.r5 = f.violations();
    }
}
