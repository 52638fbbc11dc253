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
 * NEGATIVE CONTROL, not a test of Hotkeeper: {@link PromotionVersusReplacementTest} with actor 1 running a copy of
 * the promotion protocol as it was before the link lock. Its claim sets only TRACKED (it neither takes nor
 * respects PROMOTING) and it stores its link unconditionally; its re-check deletes its own entry when the slot
 * holds another key, but leaves the link it stored. Actor 2 and the arbiter are the production code.
 *
 * <p>The bug: Y replaces X's slot while X copies its slow key; nothing carries a lock into Y's word, so Y's claim
 * succeeds at once and Y stores its link and settles; then X's late link store overwrites Y's, and X, seeing the
 * slot tracked by another key, deletes its own entry. Y's slot stays tracked with a link to a freed entry, Y's
 * entry is linked from nowhere, and Y's further observations are refreshes of a tracked slot: Y is never promoted
 * again and never reported. Those outcomes are ACCEPTABLE_INTERESTING; {@code jcstress/run --negative} fails if
 * they do not show up.
 *
 * <p>r1..r5 as in the real test (r3/r5 = 20: {@link LinkLockFixture#DEAD_LINK} | {@link LinkLockFixture#ORPHAN}).
 *
 * <p>Run: {@code jcstress/run --negative -- -t BrokenPromotionVersusReplacement}.
 */
@JCStressTest
@Description("NEGATIVE CONTROL: a promotion that ignores PROMOTING and stores its link unconditionally")
@Outcome(id = "-2, 1, 20, -2, 20", expect = ACCEPTABLE_INTERESTING,
        desc = "X's late link store overwrote Y's link: Y's slot tracked, linked to X's freed entry; Y's entry "
                + "orphaned; Y's next observation cannot repair it")
@Outcome(id = "2, 1, 0, 2, 0", expect = ACCEPTABLE, desc = "X settled (or was replaced and undid itself) before "
        + "Y's link store; Y tracked by shard 2")
@Outcome(id = "2, 0, 0, 2, 0", expect = ACCEPTABLE, desc = "Y took the slot before X's observe")
@Outcome(id = ".*", expect = FORBIDDEN, desc = "Not expected even from the broken promotion")
@State
public class BrokenPromotionVersusReplacementTest {
    private static final VarHandle LINK = ValueLayout.JAVA_LONG.varHandle();

    final LinkLockFixture f = new LinkLockFixture();

    public BrokenPromotionVersusReplacementTest() {
        for (int s = 0; s < PromotionVersusReplacementTest.Keys.PREFILL.length; s++) {
            f.table.putSlot(Fixtures.BUCKET, s, PromotionVersusReplacementTest.Keys.PREFILL[s]);
        }
    }

    /** The promotion before the link lock (the bug is in the claim and the unconditional link store). */
    static void brokenPromoteChars(LinkLockFixture f, int as, long hash, CharSequence key, long worker) {
        KeyShard shard = f.shards.shardFor(f.workers.handleOf(as));
        if (!shard.tryEnter()) {
            return;
        }
        try {
            long slot = -1;
            for (int attempt = 0; attempt < 4 && slot < 0; attempt++) {
                long found = f.table.findSlot(hash);
                if (found < 0) {
                    return;
                }
                long word = f.table.lvSlot(found);
                // BUG: PROMOTING is neither tested nor set.
                if (TableLayout.tracked(word) || TableLayout.count(word) < f.table.promotionFloor()
                        || TableLayout.fingerprint(word) != f.table.fingerprint(hash)) {
                    return;
                }
                if (f.table.casSlot(found, word, word | TableLayout.TRACKED)) {
                    slot = found;
                }
            }
            if (slot < 0) {
                return;
            }
            long link = shard.insertChars(hash, slot, key, TableLayout.count(f.table.lvSlot(slot)));
            if (link == 0) {
                return; // not reached here: the shard has room
            }
            // BUG: stored whatever happened to the slot since the claim (a newer promotion's link included).
            LINK.setVolatile(f.links, slot, link);
            long word = f.table.lvSlot(slot);
            if (!TableLayout.tracked(word) || TableLayout.fingerprint(word) != f.table.fingerprint(hash)
                    || (long) LINK.getVolatile(f.links, slot) != link) {
                shard.deleteOwn(ShardLayout.linkEntry(link), ShardLayout.linkGeneration(link));
            }
        } finally {
            shard.exit();
        }
    }

    @Actor
    public void promoteX(IIIII_Result r) {
        long result = f.table.observe(PromotionVersusReplacementTest.Keys.HASH_X, 1, f.worker1);
        if ((result & BucketTable.PROMOTE) != 0) {
            brokenPromoteChars(f, 1, PromotionVersusReplacementTest.Keys.HASH_X,
                    PromotionVersusReplacementTest.SLOW_X, f.worker1);
            r.r2 = 1;
        }
    }

    @Actor
    public void replaceWithY(IIIII_Result r) {
        f.observe(2, PromotionVersusReplacementTest.Keys.HASH_Y, PromotionVersusReplacementTest.KEY_Y,
                LinkLockFixture.HEAVY, f.worker2);
    }

    @Arbiter
    public void arbiter(IIIII_Result r) {
        long hashY = PromotionVersusReplacementTest.Keys.HASH_Y;
        r.r1 = (int) f.tracker(hashY);
        r.r3 = f.violations();
        f.observe(3, hashY, PromotionVersusReplacementTest.KEY_Y, 1, f.worker3);
        r.r4 = (int) f.tracker(hashY);
        r.r5 = f.violations();
    }
}
