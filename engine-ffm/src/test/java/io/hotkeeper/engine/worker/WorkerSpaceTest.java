package io.hotkeeper.engine.worker;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The workers of one sketch: the stripe geometry every per-worker part shares, the handles it gives exclusive and
 * shared workers, and the calling thread's worker on platform and virtual threads.
 */
class WorkerSpaceTest {

    @Test
    void theGeometryFollowsTheProcessors() {
        // max(64, 4p) exclusive stripes; max(8, 2p) shared ones rounded up to a power of two.
        int[][] expected = {{1, 64, 8}, {2, 64, 8}, {3, 64, 8}, {5, 64, 16}, {16, 64, 32}, {17, 68, 64},
                {32, 128, 64}, {100, 400, 256}};
        for (int[] row : expected) {
            WorkerSpace space = WorkerSpace.forProcessors(row[0]);
            assertEquals(row[1], space.exclusiveStripes(), "processors=" + row[0]);
            assertEquals(row[2], space.sharedStripes(), "processors=" + row[0]);
            assertEquals(row[1] + row[2], space.stripes());
            assertEquals((long) space.stripes() * WorkerHandle.STRIPE_BYTES, space.regionBytes());
        }
    }

    @Test
    void aBadGeometryIsRefusedNamingItsCounts() {
        for (int[] bad : new int[][] {{-1, 1}, {4, 0}, {4, 3}, {WorkerHandle.MAX_STRIPES, 1}}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> new WorkerSpace(bad[0], bad[1]));
            assertTrue(e.getMessage().startsWith("exclusiveStripes=" + bad[0] + ", sharedStripes=" + bad[1]),
                    e.getMessage());
        }
        WorkerSpace largest = new WorkerSpace(WorkerHandle.MAX_STRIPES - 1, 1);
        long last = largest.handleOf(WorkerHandle.exclusive(WorkerHandle.MAX_STRIPES - 2));
        assertEquals(WorkerHandle.MAX_STRIPES - 2, WorkerHandle.stripe(last));
        assertTrue(WorkerHandle.stripeOffset(last) + WorkerHandle.STRIPE_BYTES <= largest.regionBytes());
    }

    @Test
    void anExclusiveWorkerOwnsItsStripeAndEveryOtherSharesAtomically() {
        WorkerSpace space = new WorkerSpace(8, 4);
        for (int id = 0; id < 8; id++) {
            long own = space.handleOf(WorkerHandle.exclusive(id));
            assertEquals(id, WorkerHandle.stripe(own));
            assertFalse(WorkerHandle.isShared(own), "one writer: plain load, opaque store");
            assertEquals(id, WorkerHandle.id(own));
            long carrier = space.handleOf(WorkerHandle.shared(id));
            assertEquals(id, WorkerHandle.stripe(carrier), "a carrier's virtual threads use its own stripe");
            assertTrue(WorkerHandle.isShared(carrier), "in turn: atomic updates");
        }
        Set<Integer> overflow = new HashSet<>();
        for (int id = 8; id < 1000; id++) {
            long past = space.handleOf(WorkerHandle.exclusive(id));
            assertEquals(8 + (id & 3), WorkerHandle.stripe(past));
            assertTrue(WorkerHandle.isShared(past), "an overflow stripe has several writers");
            assertEquals(id, WorkerHandle.id(past), "the key shard still follows the id");
            overflow.add(WorkerHandle.stripe(past));
        }
        assertEquals(Set.of(8, 9, 10, 11), overflow);
        long hashed = space.handleOf(WorkerHandle.hashed(42));
        assertTrue(WorkerHandle.stripe(hashed) >= 8 && WorkerHandle.stripe(hashed) < space.stripes());
        assertTrue(WorkerHandle.isShared(hashed));
        for (int id = 0; id < 2000; id++) {
            assertTrue(WorkerHandle.stripeOffset(space.handleOf(id)) + WorkerHandle.STRIPE_BYTES
                    <= space.regionBytes(), "every worker's stripe lies in the region");
        }
    }

    /** What {@code space.current()} returned on a fresh platform thread, and that thread's int worker. */
    private static long[] onPlatformThread(WorkerSpace space) throws InterruptedException {
        long[] seen = new long[3];
        Thread t = Thread.ofPlatform().start(() -> {
            seen[0] = space.current();
            seen[1] = space.current();
            seen[2] = Workers.current();
        });
        t.join();
        return seen;
    }

    @Test
    void aPlatformThreadIsAnExclusiveWorkerWithItsOwnStripe() throws Exception {
        WorkerSpace space = new WorkerSpace(4096, 8); // room for every live thread's own stripe
        long[] seen = onPlatformThread(space);
        assertEquals(seen[0], seen[1], "one thread, one worker");
        assertEquals(space.handleOf((int) seen[2]), seen[0]);
        assertFalse(WorkerHandle.isShared(seen[0]));
        assertEquals(WorkerHandle.id((int) seen[2]), WorkerHandle.stripe(seen[0]));
        assertEquals(WorkerHandle.id((int) seen[2]), WorkerHandle.id(seen[0]));

        // Two live platform threads never share an exclusive stripe.
        CountDownLatch looked = new CountDownLatch(2);
        CountDownLatch exit = new CountDownLatch(1);
        AtomicLong first = new AtomicLong();
        AtomicLong second = new AtomicLong();
        Thread a = Thread.ofPlatform().start(() -> lookAndWait(space, first, looked, exit));
        Thread b = Thread.ofPlatform().start(() -> lookAndWait(space, second, looked, exit));
        assertTrue(looked.await(30, TimeUnit.SECONDS));
        assertNotEquals(WorkerHandle.stripe(first.get()), WorkerHandle.stripe(second.get()));
        exit.countDown();
        a.join();
        b.join();
    }

    private static void lookAndWait(WorkerSpace space, AtomicLong into, CountDownLatch looked, CountDownLatch exit) {
        into.set(space.current());
        looked.countDown();
        try {
            exit.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void aVirtualThreadIsASharedWorker() throws Exception {
        WorkerSpace space = new WorkerSpace(4096, 8); // room for every live thread's own stripe
        long[] seen = new long[2];
        Thread v = Thread.ofVirtual().start(() -> {
            seen[0] = space.current();
            seen[1] = Workers.current();
        });
        v.join();
        long worker = seen[0];
        int intWorker = (int) seen[1];
        assertTrue(WorkerHandle.isShared(worker), "virtual threads take turns on a stripe: atomic updates");
        assertEquals(WorkerHandle.id(intWorker), WorkerHandle.id(worker));
        if (Workers.carrierVisible()) {
            // Its carrier's id: a low one, so the carrier's own stripe.
            assertTrue(WorkerHandle.id(worker) < space.exclusiveStripes(), Long.toHexString(worker));
            assertEquals(WorkerHandle.id(worker), WorkerHandle.stripe(worker));
        } else {
            // Hashed from the thread id: past every exclusive stripe.
            assertTrue(WorkerHandle.stripe(worker) >= space.exclusiveStripes(), Long.toHexString(worker));
        }
        assertTrue(WorkerHandle.stripe(worker) < space.stripes());
    }
}
