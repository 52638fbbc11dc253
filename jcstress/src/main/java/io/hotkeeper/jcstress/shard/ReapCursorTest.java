package io.hotkeeper.jcstress.shard;

import io.hotkeeper.engine.shard.ShardLayout;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJJJ_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The reap cursor against a foreign hand-off of the entry it meets.
 *
 * <p>Protocol: a foreign deleter marks entry A dead and takes a reference in one volatile CAS
 * ({@code markDead}: MEMBER | DEAD, refs 1 -> 2), then pushes it (getAndSet of the stack head, then a release
 * store of A's link). The owner's insert first drains the stack (one getAndSet; a chain whose link is still
 * NOT_YET is parked), then advances the reap cursor over two entries: an entry it finds MEMBER | DEAD (volatile
 * load) is unlinked at once (a volatile CAS clears MEMBER and drops the shard's reference: refs 2 -> 1). The
 * later pop of A's hand-off ({@code reapHandedOver}) re-reads the state (volatile), unlinks only if MEMBER is
 * still set, and drops the pusher's reference; whoever takes refs to 0 with MEMBER clear frees the entry
 * (release store of generation + 1). So in every order the entry is unlinked once and freed once. The
 * volatile CASes on the one state word make the reference count exact; the owner-only fields (SIEVE links,
 * LIVE) are ordered by program order within the owner and by the busy word's release/CAS between owner
 * sections (the arbiter's drain enters after the owner's insert exited).
 *
 * <p>A is the only entry and the cursor starts at it, so the owner's insert always inspects A. Negative
 * control: {@link BrokenReapCursorTest}. Run: {@code jcstress/run -- -t ReapCursorTest}.
 *
 * <p>r1: the deleter pushed (1); r2: A right after both actors: 0 already freed by the owner's drain, 1 unlinked
 * by the cursor and held only by the pusher, 2 still a member (marked after the owner's insert); r3: A's
 * generation change after the arbiter's drain (exactly 1); r4: live entries (1, the new key); r5: the new key
 * readable by its link (1).
 */
@JCStressTest
@Description("The reap cursor unlinks a handed-over entry before its pop; the pop drops only the pusher's reference")
@Outcome(id = "1, 0, 1, 1, 1", expect = ACCEPTABLE,
        desc = "The push (link written) came before the owner's drain: the pop unlinked and freed A; the new key "
                + "may have reused A's entry")
@Outcome(id = "1, 2, 1, 1, 1", expect = ACCEPTABLE,
        desc = "markDead came after the cursor had passed A: A a zombie (MEMBER | DEAD, refs 2) until the "
                + "arbiter's drain unlinked and freed it")
@Outcome(id = "1, 1, 1, 1, 1", expect = ACCEPTABLE_INTERESTING,
        desc = "A was marked before the cursor but its hand-off not yet popped (pushed after the drain, or parked "
                + "behind a NOT_YET link): the cursor unlinked A (refs 2 -> 1); the arbiter's pop dropped only the "
                + "pusher's reference and freed A once")
@Outcome(id = ".*", expect = FORBIDDEN,
        desc = "A unlinked or freed twice (generation + 2, references underflowed), never freed, a live count off, "
                + "or the new key lost")
@State
public class ReapCursorTest {
    final ShardFixture f = new ShardFixture();
    final long a = f.insert((byte) 0x41, 41);
    long fresh;

    @Actor
    public void deleter(JJJJJ_Result r) {
        r.r1 = f.delete(a);
    }

    @Actor
    public void owner() {
        fresh = f.insert((byte) 0x42, 42);
    }

    @Arbiter
    public void arbiter(JJJJJ_Result r) {
        r.r2 = classify(f.stateOf(a), ShardLayout.linkGeneration(a));
        f.drain();
        r.r3 = ShardLayout.generation(f.stateOf(a)) - ShardLayout.linkGeneration(a);
        r.r4 = f.shard.live();
        r.r5 = f.shard.readKey(ShardLayout.linkEntry(fresh), ShardLayout.linkGeneration(fresh)) != null ? 1 : 0;
    }

    /** 0 freed (new generation), 1 unlinked and held by one reference, 2 member (dead or not), 9 anything else. */
    static long classify(long state, int generation) {
        if (ShardLayout.generation(state) != generation) {
            return 0;
        }
        if ((state & ShardLayout.MEMBER) == 0 && ShardLayout.references(state) == 1) {
            return 1;
        }
        return (state & ShardLayout.MEMBER) != 0 ? 2 : 9;
    }
}
