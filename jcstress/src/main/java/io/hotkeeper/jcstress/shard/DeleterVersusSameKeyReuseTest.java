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
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * A delayed foreign deleter (a replacer that read a tracked slot's link, then was descheduled) against the owner
 * freeing that entry and promoting the same key back into the same slot, which reuses the freed entry: the
 * deleter must never delete the new incarnation (docs/design.md, "A 4-byte link": the case a link without its
 * generation cannot tell apart).
 *
 * <p>Protocol. {@code markDead(entry, generation)} CASes the state word only while it holds the link's
 * generation, MEMBER and not DEAD (volatile load, then CAS on the exact word read); the owner's free advances the
 * generation before the entry can be reused. So either the deleter marks first, and the entry stays held by its
 * hand-off reference until the owner pops it (the owner's insert drains the stack first, so it pops, frees and may
 * then reuse the entry under a new generation, or takes another entry while the push is not yet visible), or the
 * owner frees first, and the deleter's CAS finds another generation and does nothing. The entry's recorded slot
 * and hash are the same in both incarnations here, so only the generation tells them apart: the negative control
 * {@code BrokenDeleterVersusSameKeyReuseTest} checks slot and hash instead and deletes the live key.
 *
 * <p>r1: the deleter marked and pushed (1) or was refused (0); r2: the owner's reinsert reused the freed entry (1)
 * or took another (0); r3: after a drain, the reinserted key's entry is live (1) or was deleted (0).
 *
 * <p>Run: {@code jcstress/run --quick -- -t DeleterVersusSameKeyReuse}.
 */
@JCStressTest
@Description("A delayed deleter never deletes the same key promoted back into the same slot and entry")
@Outcome(id = "1, 1, 1", expect = ACCEPTABLE,
        desc = "The deleter marked first; the owner's insert drained the hand-off, freed the old incarnation and "
                + "reused the entry for the key")
@Outcome(id = "1, 0, 1", expect = ACCEPTABLE,
        desc = "The deleter marked first, its push not yet seen: the old entry stayed held, the key went to another")
@Outcome(id = "0, 1, 1", expect = ACCEPTABLE,
        desc = "The owner freed and reused the entry first: the deleter found a new generation and did nothing")
@Outcome(id = "0, 0, 1", expect = ACCEPTABLE,
        desc = "The owner freed first and the key went to another entry; the deleter did nothing")
@Outcome(id = ".*", expect = FORBIDDEN, desc = "The live key deleted (r3 = 0)")
@State
public class DeleterVersusSameKeyReuseTest {
    static final byte FILL = 0x5A;
    static final long HASH = 0x5A5A_5A5AL;

    final ShardFixture f = new ShardFixture();
    final long old = f.insert(FILL, HASH);
    long fresh;

    @Actor
    public void deleter(JJJ_Result r) {
        r.r1 = f.delete(old);
    }

    @Actor
    public void owner(JJJ_Result r) {
        fresh = f.reinsertSameKey(old, FILL, HASH);
        r.r2 = fresh != 0 && ShardLayout.linkEntry(fresh) == ShardLayout.linkEntry(old) ? 1 : 0;
    }

    @Arbiter
    public void arbiter(JJJ_Result r) {
        f.drain();
        r.r3 = f.live(fresh);
    }
}
