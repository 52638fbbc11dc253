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
 * The shared salt (one counter) never hands out a value twice: four draws by two racing threads get 0, 1, 2, 3
 * in some order, and each thread's own draws increase.
 *
 * <p>Uniqueness rests on the atomicity of {@code getAndAdd} alone (the salt promises no happens-before between
 * draws). The six acceptable outcomes are the six ways to split 0..3 into two increasing pairs, that is, the
 * six interleavings of the four atomic increments. The negative control {@link BrokenSaltUniquenessTest} shows
 * what a non-atomic read-then-write does under the same race.
 *
 * <p>r1, r2: actor 1's first and second value; r3, r4: actor 2's; r5: the counter afterwards ({@code peek(0)}).
 *
 * <p>Run: {@code jcstress/run -- -t SharedSaltUniquenessTest}. Seen (quick mode, 2 cores): all six acceptable
 * outcomes, never a forbidden one; see jcstress/README.md.
 */
@JCStressTest
@Description("Two threads draw twice each from one shared EvictionSalt: four distinct values 0..3")
@Outcome(id = "0, 1, 2, 3, 4", expect = ACCEPTABLE, desc = "Actor 1 drew both before actor 2 drew")
@Outcome(id = "2, 3, 0, 1, 4", expect = ACCEPTABLE, desc = "Actor 2 drew both before actor 1 drew")
@Outcome(id = "0, 2, 1, 3, 4", expect = ACCEPTABLE, desc = "Alternating, actor 1 first: 1, 2, 1, 2")
@Outcome(id = "1, 3, 0, 2, 4", expect = ACCEPTABLE, desc = "Alternating, actor 2 first: 2, 1, 2, 1")
@Outcome(id = "0, 3, 1, 2, 4", expect = ACCEPTABLE, desc = "Actor 2's two draws between actor 1's: 1, 2, 2, 1")
@Outcome(id = "1, 2, 0, 3, 4", expect = ACCEPTABLE, desc = "Actor 1's two draws between actor 2's: 2, 1, 1, 2")
@Outcome(id = ".*", expect = FORBIDDEN,
        desc = "A repeated value (a lost increment), a thread's values not increasing, or a counter not at 4")
@State
public class SharedSaltUniquenessTest {
    /** Any spare bits: with one shard every draw uses counter 0. */
    private static final long SPARE_1 = 0x1234_5678L;
    private static final long SPARE_2 = 0x0bad_cafeL;

    final EvictionSalt salt = new EvictionSalt(Arena.ofAuto(), 1);

    @Actor
    public void drawer1(JJJJJ_Result r) {
        r.r1 = salt.next(SPARE_1);
        r.r2 = salt.next(SPARE_1);
    }

    @Actor
    public void drawer2(JJJJJ_Result r) {
        r.r3 = salt.next(SPARE_2);
        r.r4 = salt.next(SPARE_2);
    }

    @Arbiter
    public void arbiter(JJJJJ_Result r) {
        r.r5 = salt.peek(0);
    }
}
