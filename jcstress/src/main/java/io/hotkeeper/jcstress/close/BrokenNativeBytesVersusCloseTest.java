package io.hotkeeper.jcstress.close;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJ_Result;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;

/**
 * Negative control of {@link NativeBytesVersusCloseTest.Flag}: the count as {@code RegionAllocator} kept it
 * before {@code HeldBytes}. An allocation adds its bytes unconditionally ({@code addAndGet} on the allocator's
 * counter, then on the total); the close swaps the counter to 0 and subtracts what it held. A region allocated
 * before the close and counted after the swap is added to the total and never taken back: the total ends at 64.
 * Tests no Hotkeeper code path. Run: {@code jcstress/run --negative -- -t BrokenNativeBytesVersusClose}.
 *
 * <p>r1 1 allocated or 2 refused, r2 the bytes the close took back, r3 the total in the arbiter.
 */
@JCStressTest
@Description("Negative control: an unconditional add after the close's swap leaves the total off by the region")
@Outcome(id = "1, 64, 0", expect = ACCEPTABLE, desc = "Counted before the close; taken back")
@Outcome(id = "2, 0, 0", expect = ACCEPTABLE, desc = "The arena closed first: the allocation failed")
@Outcome(id = "1, 0, 64", expect = ACCEPTABLE_INTERESTING,
        desc = "The bug: allocated before the close, counted after its swap, never taken back")
@State
public class BrokenNativeBytesVersusCloseTest {
    final AtomicBoolean open = new AtomicBoolean(true);
    final AtomicLong allocated = new AtomicLong();
    final AtomicLong total = new AtomicLong();

    @Actor
    public void allocator(JJJ_Result r) {
        if (!open.get()) {
            r.r1 = 2;
            return;
        }
        allocated.addAndGet(NativeBytesVersusCloseTest.BYTES);
        total.addAndGet(NativeBytesVersusCloseTest.BYTES);
        r.r1 = 1;
    }

    @Actor
    public void closer(JJJ_Result r) {
        open.set(false);
        long held = allocated.getAndSet(0);
        total.addAndGet(-held);
        r.r2 = held;
    }

    @Arbiter
    public void arbiter(JJJ_Result r) {
        r.r3 = total.get();
    }
}
