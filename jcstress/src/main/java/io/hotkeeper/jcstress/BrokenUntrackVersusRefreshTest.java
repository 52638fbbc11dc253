package io.hotkeeper.jcstress;

import io.hotkeeper.engine.shard.KeyShard;
import io.hotkeeper.engine.shard.ShardLayout;
import io.hotkeeper.engine.table.BucketTable;
import io.hotkeeper.engine.table.TableLayout;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIIII_Result;

import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * NEGATIVE CONTROL, not a test of Hotkeeper: {@link UntrackVersusRefreshAndReplaceTest.Refresh} with actor 1
 * evicting K0 through a copy of untrack that takes no link lock. It checks the slot and the link, clears the link,
 * and only then CASes TRACKED off; when that CAS fails it re-reads, finds the link no longer its own (it cleared
 * it) and gives up, as a bounded untrack loop without the lock would. Actor 2 is the production observe.
 *
 * <p>The bug: a refresh of K0 that lands between untrack's read of the slot and its CAS makes the CAS fail; the
 * slot is left TRACKED with link 0 while the owner deletes K0's entry: a tracked key nobody can report, and whose
 * observations never promote it again. That outcome is ACCEPTABLE_INTERESTING; {@code jcstress/run --negative}
 * fails if it does not show up.
 *
 * <p>r1: K0's tracker (-2 = tracked, bad link; 0 = untracked, link cleared; -3 untracked, link left); r2: K0's
 * count; r3: 0 (this control promotes no candidate); r4: violations ({@link LinkLockFixture#NO_LINK} = 2);
 * r5: whether actor 2's observe said PROMOTE.
 *
 * <p>Run: {@code jcstress/run --negative -- -t BrokenUntrackVersusRefresh}.
 */
@JCStressTest
@Description("NEGATIVE CONTROL: untrack without the link lock, clearing the link before its CAS on the slot")
@Outcome(id = "-2, 2, 0, 2, 0", expect = ACCEPTABLE_INTERESTING,
        desc = "The refresh failed untrack's CAS after it had cleared the link: K0 stays tracked with link 0")
@Outcome(id = "0, 2, 0, 0, 0", expect = ACCEPTABLE, desc = "The refresh came before untrack read the slot")
@Outcome(id = "2, 2, 0, 0, 1", expect = ACCEPTABLE, desc = "The refresh came after untrack: K0 promoted again")
@Outcome(id = ".*", expect = FORBIDDEN, desc = "Not expected even from the broken untrack")
@State
public class BrokenUntrackVersusRefreshTest {
    private static final VarHandle LINK = ValueLayout.JAVA_LONG.varHandle();

    final LinkLockFixture f = UntrackVersusRefreshAndReplaceTest.fullShard();
    final long linkK0 = f.shards.linkWord(UntrackVersusRefreshAndReplaceTest.SLOT_K0);

    /** Untrack without the lock (the bug: the link is cleared before the slot CAS, and a lost CAS gives up). */
    static void brokenUntrack(LinkLockFixture f, long slot, long hash, long link) {
        for (int attempt = 0; attempt < 16; attempt++) {
            long word = f.table.lvSlot(slot);
            if (!TableLayout.tracked(word) || TableLayout.fingerprint(word) != f.table.fingerprint(hash)) {
                return;
            }
            if ((long) LINK.getVolatile(f.links, slot) != link) {
                return;
            }
            LINK.setVolatile(f.links, slot, 0L);
            if (f.table.casSlot(slot, word, word & ~TableLayout.TRACKED)) {
                return;
            }
        }
    }

    @Actor
    public void evict(IIIII_Result r) {
        // The owner's eviction of its SIEVE victim K0: untrack (broken), then the production deleteOwn.
        KeyShard shard = f.shards.shardFor(f.worker1);
        if (!shard.tryEnter()) {
            throw new IllegalStateException("shard 1 busy");
        }
        try {
            brokenUntrack(f, UntrackVersusRefreshAndReplaceTest.SLOT_K0,
                    UntrackVersusRefreshAndReplaceTest.Keys.HASH_K[0], linkK0);
            shard.deleteOwn(ShardLayout.linkEntry(linkK0), ShardLayout.linkGeneration(linkK0));
        } finally {
            shard.exit();
        }
    }

    @Actor
    public void refresh(IIIII_Result r) {
        long result = f.observe(2, UntrackVersusRefreshAndReplaceTest.Keys.HASH_K[0], 0, 1, f.worker2);
        r.r5 = (result & BucketTable.PROMOTE) != 0 ? 1 : 0;
    }

    @Arbiter
    public void arbiter(IIIII_Result r) {
        r.r1 = UntrackVersusRefreshAndReplaceTest.k0State(f);
        r.r2 = (int) f.table.estimate(UntrackVersusRefreshAndReplaceTest.Keys.HASH_K[0]);
        r.r3 = (int) f.tracker(UntrackVersusRefreshAndReplaceTest.Keys.HASH_C);
        r.r4 = f.violations();
    }
}
