package io.hotkeeper.jcstress;

import io.hotkeeper.engine.salt.EvictionSalt;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJJJ_Result;

import java.lang.foreign.Arena;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The sharded salt (4 counters) never hands out a value twice: racing draws on one shard get distinct values of
 * that shard's residue class, and the other shards are untouched.
 *
 * <p>Shard i of 4 emits i, i + 4, i + 8, ...; the shard is picked by the low bits of the challenger's spare.
 * Each actor draws once from shard 1 (spare bits ...01) and then once from shard 2 (...10), with different
 * spares that pick the same shards, so both shards are contended. Shard 1 must hand out {1, 5}, shard 2
 * {2, 6}; afterwards shards 0..3 must stand at 0, 9, 10, 3.
 *
 * <p>r1, r2: actor 1's shard-1 and shard-2 value; r3, r4: actor 2's; r5: shards whose next value is not the
 * expected one.
 *
 * <p>Run: {@code jcstress/run -- -t ShardedSaltUniquenessTest}. Seen (quick mode, 2 cores): all four
 * acceptable outcomes, never a forbidden one; see jcstress/README.md.
 */
@JCStressTest
@Description("Two threads draw from the same two shards of a 4-shard EvictionSalt: distinct values, each in "
        + "its shard's residue class mod 4")
@Outcome(id = "1, 2, 5, 6, 0", expect = ACCEPTABLE, desc = "Actor 1 drew first on both shards")
@Outcome(id = "5, 6, 1, 2, 0", expect = ACCEPTABLE, desc = "Actor 2 drew first on both shards")
@Outcome(id = "1, 6, 5, 2, 0", expect = ACCEPTABLE,
        desc = "Actor 1 first on shard 1, actor 2 first on shard 2 (the draws overlapped)")
@Outcome(id = "5, 2, 1, 6, 0", expect = ACCEPTABLE,
        desc = "Actor 2 first on shard 1, actor 1 first on shard 2 (the draws overlapped)")
@Outcome(id = ".*", expect = FORBIDDEN,
        desc = "A repeated value, a value outside its shard's residue class, or a shard left at the wrong value")
@State
public class ShardedSaltUniquenessTest {
    static final int SHARDS = 4;
    /** Low two bits 01: shard 1. */
    private static final long SPARE_1A = 0x0000_0011L;
    private static final long SPARE_1B = 0x7777_7705L;
    /** Low two bits 10: shard 2. */
    private static final long SPARE_2A = 0x0000_0022L;
    private static final long SPARE_2B = 0x8888_8806L;
    /** Next value of each shard after the four draws. */
    private static final long[] EXPECTED_NEXT = {0, 1 + 2 * SHARDS, 2 + 2 * SHARDS, 3};

    final EvictionSalt salt = new EvictionSalt(Arena.ofAuto(), SHARDS);

    @Actor
    public void drawer1(JJJJJ_Result r) {
        r.r1 = salt.next(SPARE_1A);
        r.r2 = salt.next(SPARE_2A);
    }

    @Actor
    public void drawer2(JJJJJ_Result r) {
        r.r3 = salt.next(SPARE_1B);
        r.r4 = salt.next(SPARE_2B);
    }

    @Arbiter
    public void arbiter(JJJJJ_Result r) {
        int wrong = 0;
        for (int shard = 0; shard < SHARDS; shard++) {
            if (salt.peek(shard) != EXPECTED_NEXT[shard]) {
                wrong++;
            }
        }
        r.r5 = wrong;
    }
}
