package io.hotkeeper.jcstress.close;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.I_Result;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;

/**
 * Negative control for {@link CloseVersusCallsTest}: a facade that guards its memory with a plain
 * {@code closed} flag checked before each call, instead of the shared arena's liveness check. Its close sets the
 * flag and then "frees" the memory; freeing is simulated by overwriting it with a poison value, as a reused
 * block would read (the segment comes from an automatic arena and is never really freed, so the bug cannot
 * crash the test VM). A call that checked the flag before the close and reads afterwards returns a result made
 * of freed memory, without any exception: exactly what the shared arena's handshake rules out for Hotkeeper.
 * Any flag, volatile or not, has this check-then-use gap. Tests no Hotkeeper code path. Excluded from the
 * normal run; {@code jcstress/run --negative} expects the interesting outcome to show.
 *
 * <p>r1: 1 the right sum, 2 the closed exception, 3 a sum that read freed (poisoned) memory.
 */
@JCStressTest
@Description("Negative control: a plain closed flag, checked then used, lets a racing call read freed memory")
@Outcome(id = "1", expect = ACCEPTABLE, desc = "The call read the live memory before the close")
@Outcome(id = "2", expect = ACCEPTABLE, desc = "The call saw the flag set and threw the closed exception")
@Outcome(id = "3", expect = ACCEPTABLE_INTERESTING,
        desc = "The call passed the flag check, then read freed memory and returned it as a normal result")
@State
public class BrokenCloseVersusCallsTest {
    static final int WORDS = 32;
    static final long LIVE = 3;
    static final long POISON = 0xDEAD_DEAD_DEAD_DEADL;

    final MemorySegment table = Arena.ofAuto().allocate(WORDS * Long.BYTES, 64);
    /** Plain: the broken part (volatile would still leave the check-then-use gap). */
    boolean closed;

    public BrokenCloseVersusCallsTest() {
        for (int i = 0; i < WORDS; i++) {
            table.setAtIndex(ValueLayout.JAVA_LONG, i, LIVE);
        }
    }

    @Actor
    public void caller(I_Result r) {
        try {
            long sum = estimate();
            r.r1 = sum == WORDS * LIVE ? 1 : 3;
        } catch (IllegalStateException e) {
            r.r1 = 2;
        }
    }

    @Actor
    public void closer() {
        closed = true;
        // The "free": the memory now holds whatever its next owner writes.
        for (int i = 0; i < WORDS; i++) {
            table.setAtIndex(ValueLayout.JAVA_LONG, i, POISON);
        }
    }

    private long estimate() {
        if (closed) {
            throw new IllegalStateException("Hotkeeper is closed");
        }
        long sum = 0;
        for (int i = 0; i < WORDS; i++) {
            sum += table.getAtIndex(ValueLayout.JAVA_LONG, i);
        }
        return sum;
    }
}
