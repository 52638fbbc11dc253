package io.hotkeeper.jcstress.reset;

import io.hotkeeper.engine.core.Internals;
import io.hotkeeper.engine.CombiningMode;
import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.shard.KeyShards;
import io.hotkeeper.engine.shard.ShardIntegrity;
import io.hotkeeper.engine.table.BucketTable;
import io.hotkeeper.engine.table.TableLayout;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJJ_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;

/**
 * Negative control of {@link ResetVersusObserveTest}: the same race against a reset of K's slot that looks
 * plausible and is wrong. It reads the slot once, hands the tracked entry off, and then empties the slot with a
 * plain volatile store of 0 instead of a CAS against the word it read. An observation that lands in between (a
 * refresh, possibly a re-promotion of K, which stores a new link to a new entry) is wiped out with the old state;
 * if it re-promoted K, its new entry is left live with no tracked slot pointing at it: an orphan that
 * {@link ShardIntegrity} reports. The production reset's CAS fails in that case and it handles the new word.
 *
 * <p>Run: {@code jcstress/run --negative -- -t BrokenResetVersusObserveTest}. The interesting outcomes are the
 * bug: the observation lost from both states, or an orphaned entry.
 */
@JCStressTest
@Description("Broken reset (blind store of 0 after the hand-off) against observe(K): the observation can vanish")
@Outcome(id = "2, 0, 0, 0", expect = ACCEPTABLE, desc = "As in the real test: refreshed first, then cleared")
@Outcome(id = "1, 1, 1, 0", expect = ACCEPTABLE, desc = "As in the real test: cleared first, then counted anew")
@Outcome(id = ".*", expect = ACCEPTABLE_INTERESTING,
        desc = "The bug: the observation landed between the read and the blind store (count 2 or a new claim "
                + "wiped out, possibly leaving K's new entry orphaned)")
@State
public class BrokenResetVersusObserveTest {
    final Hotkeeper hk = Hotkeeper.builder().memoryBytes(4096).seed(21).minCount(1)
            .combining(CombiningMode.OFF).build();
    final KeyShards shards;
    final BucketTable table;
    /** The one occupied bucket, K's: the only one the broken clear has anything to do in. */
    final long kBucket;

    public BrokenResetVersusObserveTest() {
        hk.observe(ResetVersusObserveTest.K);
        shards = Internals.keyShards(hk);
        table = shards.table();
        long occupied = -1;
        for (long b = 0; b < table.bucketCount() && occupied < 0; b++) {
            for (int s = 0; s < TableLayout.SLOTS_PER_BUCKET; s++) {
                if (table.lvSlot(b * TableLayout.BUCKET_BYTES + (long) s * TableLayout.SLOT_BYTES) != 0) {
                    occupied = b;
                }
            }
        }
        kBucket = occupied;
    }

    @Actor
    public void observer(JJJJ_Result r) {
        r.r1 = hk.observe(ResetVersusObserveTest.K);
    }

    /**
     * The broken clear of every slot of K's bucket, the only occupied one (the other buckets are skipped so the
     * clear reaches K's word while the observation may still be running).
     */
    @Actor
    public void resetter() {
        for (int s = TableLayout.SLOTS_PER_BUCKET - 1; s >= 0; s--) {
            long offset = kBucket * TableLayout.BUCKET_BYTES + (long) s * TableLayout.SLOT_BYTES;
            long word = table.lvSlot(offset);
            if (word == 0) {
                continue;
            }
            while (TableLayout.promoting(word)) {
                Thread.onSpinWait();
                word = table.lvSlot(offset);
            }
            widenWindow();
            if (TableLayout.tracked(word)) {
                // Untrack under the lock and hand off, as production does...
                long locked = (word & ~TableLayout.TRACKED) | TableLayout.PROMOTING;
                if (table.casSlot(offset, word, locked)) {
                    shards.replaced(offset, word, true);
                }
            }
            // ...but then a blind store instead of a CAS against what was read: the bug.
            table.segment().set(java.lang.foreign.ValueLayout.JAVA_LONG, offset, 0L);
            java.lang.invoke.VarHandle.fullFence();
        }
    }

    /**
     * A pause between the read of K's word and the CAS that hands it off. The bug shows only when the
     * observation lands in that window (the CAS then fails and the blind store wipes the refreshed, still tracked
     * word); unwidened it is a few nanoseconds wide, and quick mode missed it in two runs in a row of one CI. The
     * pause makes the race likely without changing what is wrong: the store that ignores a failed CAS.
     */
    private static void widenWindow() {
        for (int i = 0; i < WINDOW_SPINS; i++) {
            Thread.onSpinWait();
        }
    }

    /** PAUSE instructions, 10 to 140 cycles each by x86 generation: about 3 to 50 microseconds in all. */
    private static final int WINDOW_SPINS = 1024;

    @Arbiter
    public void arbiter(JJJJ_Result r) {
        r.r2 = hk.estimate(ResetVersusObserveTest.K);
        r.r3 = hk.topK(4).size();
        r.r4 = ShardIntegrity.violations(shards).size();
        hk.close();
    }
}
