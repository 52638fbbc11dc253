package io.hotkeeper.jcstress.shard;

import io.hotkeeper.engine.shard.ShardLayout;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJJJ_Result;
import org.openjdk.jcstress.infra.results.JJJJ_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The SIEVE visit ({@code KeyShard.visit}, called by any thread after a sampled refresh of a tracked slot)
 * against the owner's and foreign deleters' writes of the same entry state word.
 *
 * <p>Protocol: the state word packs (generation, refs, MEMBER, DEAD, VISITED). {@code visit} loads it (opaque:
 * atomic and fresh, no ordering needed because nothing else is read on its strength), checks generation, MEMBER
 * and !DEAD and !VISITED, then sets VISITED with a volatile CAS whose expected value is the word it checked. So
 * a visit can only apply to the exact state it validated: if the owner unlinked (MEMBER and VISITED cleared by a
 * volatile CAS), freed (a release store of generation + 1, flags and refs 0), reused the entry (release store of
 * the new generation with MEMBER) or a deleter marked it (volatile CAS adding DEAD and a reference) in between,
 * the CAS fails and the visit writes nothing. Conversely every owner or deleter write is a CAS on the whole word
 * (or, for free and publish, happens when no visit can validate: refs 0 / a new generation), so no one's bits
 * are lost. Atomicity of the CASes, not happens-before, is what makes it hold.
 *
 * <p>Negative controls: {@link BrokenSieveVisitTest}. Run: {@code jcstress/run -- -t SieveVisitTest}.
 */
public final class SieveVisitTest {
    private SieveVisitTest() {
    }

    /**
     * A visit against a foreign {@code markDead} + push of the same entry. r1: the deleter pushed (1); r2:
     * VISITED afterwards; r3: DEAD afterwards; r4: references (shard + pusher = 2); r5: generation change (0).
     */
    @JCStressTest
    @Description("visit vs a foreign markDead on one state word: neither loses the other's bits")
    @Outcome(id = "1, 1, 1, 2, 0", expect = ACCEPTABLE,
            desc = "The visit's CAS landed first (VISITED); markDead's CAS applied to it: DEAD, refs 2, VISITED kept")
    @Outcome(id = "1, 0, 1, 2, 0", expect = ACCEPTABLE,
            desc = "markDead first (or its CAS landed between the visit's load and CAS): the visit saw DEAD or "
                    + "failed its CAS and wrote nothing")
    @Outcome(id = ".*", expect = FORBIDDEN,
            desc = "DEAD or the pusher's reference lost under a visit, a visit that set VISITED on a dead entry, "
                    + "or a generation change")
    @State
    public static class VersusMarkDead {
        final ShardFixture f = new ShardFixture();
        final long e = f.insert((byte) 0x11, 11);

        @Actor
        public void visitor() {
            f.shard.visit(ShardLayout.linkEntry(e), ShardLayout.linkGeneration(e));
        }

        @Actor
        public void deleter(JJJJJ_Result r) {
            r.r1 = f.delete(e);
        }

        @Arbiter
        public void arbiter(JJJJJ_Result r) {
            long state = f.stateOf(e);
            r.r2 = (state & ShardLayout.VISITED) != 0 ? 1 : 0;
            r.r3 = (state & ShardLayout.DEAD) != 0 ? 1 : 0;
            r.r4 = ShardLayout.references(state);
            r.r5 = ShardLayout.generation(state) - ShardLayout.linkGeneration(e);
        }
    }

    /**
     * A visit by an old link against the owner deleting the entry and reusing it for a new key (unlink clears
     * VISITED and MEMBER, free bumps the generation, publish sets MEMBER for the new key). r1: the owner reused
     * the entry (1); r2: VISITED on the reused entry (a fresh entry is unvisited: 0); r3: MEMBER; r4: references
     * (1, the shard's).
     */
    @JCStressTest
    @Description("visit by a stale link vs the owner freeing and reusing the entry: the new entry stays unvisited")
    @Outcome(id = "1, 0, 1, 1", expect = ACCEPTABLE,
            desc = "The visit landed before the unlink (which cleared VISITED), or found a new generation or no "
                    + "MEMBER, or its CAS failed against the owner's write: the new key's entry is unvisited")
    @Outcome(id = ".*", expect = FORBIDDEN,
            desc = "An old link's visit marked the re-generated entry visited (it would shield the new key from "
                    + "SIEVE), or the entry's state is otherwise wrong")
    @State
    public static class VersusReuse {
        final ShardFixture f = new ShardFixture();
        final long e = f.insert((byte) 0x22, 22);

        @Actor
        public void visitor() {
            f.shard.visit(ShardLayout.linkEntry(e), ShardLayout.linkGeneration(e));
        }

        @Actor
        public void owner(JJJJ_Result r) {
            r.r1 = f.replaceWithNewKey(e, (byte) 0x23);
        }

        @Arbiter
        public void arbiter(JJJJ_Result r) {
            long state = f.stateOf(e);
            r.r2 = (state & ShardLayout.VISITED) != 0 ? 1 : 0;
            r.r3 = (state & ShardLayout.MEMBER) != 0 ? 1 : 0;
            r.r4 = ShardLayout.references(state);
        }
    }

    /**
     * A full shard (A, B, C, D in SIEVE order, A visited) inserts E: the hand clears A's VISITED and evicts the
     * first unvisited entry. A concurrent visit of B decides whether that is B or C. r1: E's entry (1 = B's,
     * 2 = C's); r2: entries still VISITED afterwards (the hand cleared every bit it passed; a fresh entry has
     * none: 0); r3: live entries (4); r4: the evicted entry's old link still visitable (0).
     */
    @JCStressTest
    @Description("visit of B vs the SIEVE hand of a full shard: B evicted, or B spared and C evicted; no bit left")
    @Outcome(id = "1, 0, 4, 0", expect = ACCEPTABLE,
            desc = "The hand cleared A, found B unvisited and evicted it (a visit after the hand's load was wiped "
                    + "by the unlink, or failed on the new generation); E reused B's entry")
    @Outcome(id = "2, 0, 4, 0", expect = ACCEPTABLE_INTERESTING,
            desc = "The visit landed on B before the hand reached it: the hand cleared B's VISITED by CAS and "
                    + "evicted C instead; E reused C's entry")
    @Outcome(id = ".*", expect = FORBIDDEN,
            desc = "A VISITED bit resurrected on a freed or reused entry, a bit the hand should have cleared, a "
                    + "lost entry, or an eviction of something else")
    @State
    public static class VersusSieveHand {
        final ShardFixture f = new ShardFixture();
        final long a = f.insert((byte) 0x31, 31);
        final long b = f.insert((byte) 0x32, 32);
        final long c = f.insert((byte) 0x33, 33);
        final long d = f.insert((byte) 0x34, 34);
        long fresh;

        public VersusSieveHand() {
            f.shard.visit(ShardLayout.linkEntry(a), ShardLayout.linkGeneration(a));
        }

        @Actor
        public void visitor() {
            f.shard.visit(ShardLayout.linkEntry(b), ShardLayout.linkGeneration(b));
        }

        @Actor
        public void owner() {
            fresh = f.insert((byte) 0x35, 35);
        }

        @Arbiter
        public void arbiter(JJJJ_Result r) {
            int entry = ShardLayout.linkEntry(fresh);
            r.r1 = entry == ShardLayout.linkEntry(b) ? 1 : entry == ShardLayout.linkEntry(c) ? 2 : 9;
            int visited = 0;
            for (int i = f.shard.firstEntry(); i != ShardLayout.NONE; i = f.shard.nextEntry(i)) {
                if ((f.shard.state(i) & ShardLayout.VISITED) != 0) {
                    visited++;
                }
            }
            r.r2 = visited;
            r.r3 = f.shard.live();
            long evicted = r.r1 == 1 ? b : c;
            long state = f.stateOf(evicted);
            r.r4 = ShardLayout.generation(state) == ShardLayout.linkGeneration(evicted) ? 1 : 0;
        }
    }
}
