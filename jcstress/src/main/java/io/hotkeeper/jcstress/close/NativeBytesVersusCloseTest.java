package io.hotkeeper.jcstress.close;

import io.hotkeeper.engine.placement.HeldBytes;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJ_Result;

import java.lang.foreign.Arena;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The native byte count against an allocation racing the close: the production {@link HeldBytes} (what
 * {@code RegionAllocator} counts its regions with, into {@code NativeBytes}), counting into a total of its own
 * per state. One actor allocates a 64-byte region and counts it, as {@code RegionAllocator.allocate} does; the
 * other closes the arena and then reports it closed, as {@code Hotkeeper.close()} does. The arbiter reads the
 * total: it must be back at 0 whatever the interleaving.
 *
 * <p>Result {@code allocated, takenBack, total}: the allocating actor's 1 (allocated and counted), 0 (allocated
 * before the close but counted only after the close was reported: not counted, the close freed it) or 2 (the
 * arena was closed: the allocation failed); the bytes the close took back; the total in the arbiter.
 *
 * <p>{@code .Flag} models the arena by a flag (allocation succeeds while it is set; the closer clears it): the
 * window between a successful allocation and its count is a few instructions against the closer's two, so the
 * interesting interleaving shows often. {@code .SharedArena} uses a real shared arena (a close is a handshake with
 * every thread), so it shows rarely. Run: {@code jcstress/run -- -t '\.NativeBytesVersusCloseTest'}; negative
 * control {@link BrokenNativeBytesVersusCloseTest}.
 */
public final class NativeBytesVersusCloseTest {
    private NativeBytesVersusCloseTest() {
    }

    static final long BYTES = 64;

    @JCStressTest
    @Description("A region allocated while the arena closes is counted and taken back, or not counted at all")
    @Outcome(id = "1, 64, 0", expect = ACCEPTABLE, desc = "Allocated and counted before the close; taken back")
    @Outcome(id = "2, 0, 0", expect = ACCEPTABLE, desc = "The arena closed first: the allocation failed")
    @Outcome(id = "0, 0, 0", expect = ACCEPTABLE_INTERESTING,
            desc = "Allocated before the close, counted after it was reported: not counted (the close freed it)")
    @Outcome(id = ".*", expect = FORBIDDEN, desc = "The total left off by the region: a leak in the count")
    @State
    public static class Flag {
        final AtomicBoolean open = new AtomicBoolean(true);
        final AtomicLong total = new AtomicLong();
        final HeldBytes held = new HeldBytes(total::addAndGet);

        @Actor
        public void allocator(JJJ_Result r) {
            // Volatile read: the allocation succeeds only if it is ordered before the closer's volatile store.
            if (!open.get()) {
                r.r1 = 2;
                return;
            }
            r.r1 = held.add(BYTES) ? 1 : 0;
        }

        @Actor
        public void closer(JJJ_Result r) {
            open.set(false);
            r.r2 = held.close();
        }

        @Arbiter
        public void arbiter(JJJ_Result r) {
            r.r3 = total.get();
        }
    }

    @JCStressTest
    @Description("As .Flag, with a real shared arena: allocate then count, against close then report")
    @Outcome(id = "1, 64, 0", expect = ACCEPTABLE, desc = "Allocated and counted before the close; taken back")
    @Outcome(id = "2, 0, 0", expect = ACCEPTABLE, desc = "The arena closed first: the allocation failed")
    @Outcome(id = "0, 0, 0", expect = ACCEPTABLE_INTERESTING,
            desc = "Allocated before the close, counted after it was reported: not counted (the close freed it)")
    @Outcome(id = ".*", expect = FORBIDDEN, desc = "The total left off by the region: a leak in the count")
    @State
    public static class SharedArena {
        final Arena arena = Arena.ofShared();
        final AtomicLong total = new AtomicLong();
        final HeldBytes held = new HeldBytes(total::addAndGet);

        @Actor
        public void allocator(JJJ_Result r) {
            try {
                arena.allocate(BYTES, 8);
            } catch (IllegalStateException closed) {
                r.r1 = 2;
                return;
            }
            r.r1 = held.add(BYTES) ? 1 : 0;
        }

        @Actor
        public void closer(JJJ_Result r) {
            arena.close();
            r.r2 = held.close();
        }

        @Arbiter
        public void arbiter(JJJ_Result r) {
            r.r3 = total.get();
        }
    }
}
