package io.hotkeeper.engine.worker;

import io.hotkeeper.engine.stats.StatsLayout;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The encoding of a worker, in both forms: the int from {@link Workers} and the long handle. */
class WorkerHandleTest {
    private static final int EXCLUSIVE = 8;
    private static final int SHARED_MASK = 3;

    @Test
    void anIntWorkerGivesBackItsIdAndSharedFlag() {
        for (int id : new int[] {0, 1, 7, 4031, 1 << 20, (1 << 29) - 1, (1 << 29) | 0xFFFF}) {
            assertEquals(id, WorkerHandle.id(WorkerHandle.exclusive(id)));
            assertFalse(WorkerHandle.isShared(WorkerHandle.exclusive(id)));
            assertEquals(id, WorkerHandle.id(WorkerHandle.shared(id)));
            assertTrue(WorkerHandle.isShared(WorkerHandle.shared(id)));
        }
    }

    @Test
    void aHashedWorkerIsSharedAndPastEveryRegularId() {
        SplittableRandom random = new SplittableRandom(1);
        for (int i = 0; i < 10_000; i++) {
            int worker = WorkerHandle.hashed(random.nextLong());
            assertTrue(WorkerHandle.isShared(worker));
            assertTrue(WorkerHandle.id(worker) >= 1 << 29, Integer.toHexString(worker));
            assertTrue(WorkerHandle.id(worker) < (1 << 29) + (1 << 16), Integer.toHexString(worker));
        }
    }

    @Test
    void aHandleKeepsItsWorkersIdWhateverStripeItNames() {
        SplittableRandom random = new SplittableRandom(3);
        for (int i = 0; i < 10_000; i++) {
            int worker = switch (i % 3) {
                case 0 -> WorkerHandle.exclusive(i);
                case 1 -> WorkerHandle.shared(i % (EXCLUSIVE + 4));
                default -> WorkerHandle.hashed(random.nextLong());
            };
            long handle = WorkerHandle.handle(worker, EXCLUSIVE, SHARED_MASK);
            // The key shard is picked by the id, so the handle carries it: no second lookup.
            assertEquals(WorkerHandle.id(worker), WorkerHandle.id(handle), Integer.toHexString(worker));
        }
        assertEquals((1 << 30) - 1, WorkerHandle.id(WorkerHandle.handle(WorkerHandle.exclusive((1 << 30) - 1), 0, 0)));
        assertEquals(-1, WorkerHandle.id(WorkerHandle.NO_HANDLE));
    }

    @Test
    void aWorkerWithAnIdBelowTheExclusiveStripesNamesItsOwnStripeSharedAsTheWorkerIs() {
        for (int id = 0; id < EXCLUSIVE; id++) {
            for (int worker : new int[] {WorkerHandle.exclusive(id), WorkerHandle.shared(id)}) {
                long handle = WorkerHandle.handle(worker, EXCLUSIVE, SHARED_MASK);
                assertEquals(id, WorkerHandle.stripe(handle));
                assertEquals(StatsLayout.stripeOffset(id), WorkerHandle.stripeOffset(handle));
                // A carrier's own stripe is written by its virtual threads in turn: atomic updates.
                assertEquals(WorkerHandle.isShared(worker), WorkerHandle.isShared(handle));
            }
        }
    }

    @Test
    void aWorkerPastTheExclusiveStripesNamesASharedOverflowStripe() {
        SplittableRandom random = new SplittableRandom(2);
        for (int i = 0; i < 10_000; i++) {
            int worker = i % 2 == 0 ? WorkerHandle.exclusive(EXCLUSIVE + i) : WorkerHandle.hashed(random.nextLong());
            long handle = WorkerHandle.handle(worker, EXCLUSIVE, SHARED_MASK);
            int expected = EXCLUSIVE + (WorkerHandle.id(worker) & SHARED_MASK);
            assertEquals(expected, WorkerHandle.stripe(handle));
            assertEquals(StatsLayout.stripeOffset(expected), WorkerHandle.stripeOffset(handle));
            assertEquals(0, WorkerHandle.stripeOffset(handle) % StatsLayout.STRIPE_BYTES);
            assertTrue(WorkerHandle.isShared(handle));
        }
    }

    @Test
    void noHandleIsDistinctFromEveryRealHandleAndNamesNoStripeInBounds() {
        // Real handles are an id and a stripe offset, never negative: up to the largest geometry, and past it.
        int[] exclusives = {0, 1, 8, 1 << 20};
        for (int exclusive : exclusives) {
            for (int worker : new int[] {0, 5, (1 << 20) - 1, WorkerHandle.shared(3), WorkerHandle.hashed(42),
                    WorkerHandle.exclusive((1 << 29) - 1)}) {
                long handle = WorkerHandle.handle(worker, exclusive, 63);
                assertNotEquals(WorkerHandle.NO_HANDLE, handle);
                assertTrue(handle >= 0, Long.toHexString(handle));
            }
        }
        assertTrue(WorkerHandle.stripeOffset(WorkerHandle.NO_HANDLE) < 0, "fails a bounds check, writes nothing");
        assertTrue(WorkerHandle.isShared(WorkerHandle.NO_HANDLE));
    }
}
