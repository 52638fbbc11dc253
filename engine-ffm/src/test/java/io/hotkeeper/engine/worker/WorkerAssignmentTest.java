package io.hotkeeper.engine.worker;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Workers get their choice in arrival order, balanced over the ids in use, whatever their ids. */
class WorkerAssignmentTest {
    private static final WorkerSpace SPACE = new WorkerSpace(64, 8);

    private static long worker(int id) {
        return SPACE.handleOf(WorkerHandle.exclusive(id));
    }

    @Test
    void writersWhoseIdsAreEqualModuloTheChoicesGetOneEach() {
        WorkerAssignment two = WorkerAssignment.withIdsInUse(2, SPACE, id -> true);
        assertEquals(-1, two.assigned(worker(5)), "none before it asks");
        assertEquals(0, two.of(worker(5)));
        assertEquals(1, two.of(worker(7)), "id % 2 would have given 1 to both");
        assertEquals(0, two.of(worker(5)), "it keeps its choice");
        assertEquals(1, two.assigned(worker(7)));
        WorkerAssignment four = WorkerAssignment.withIdsInUse(4, SPACE, id -> true);
        Set<Integer> given = new HashSet<>();
        for (int id : new int[] {4, 8, 12, 16}) {
            given.add(four.of(worker(id)));
        }
        assertEquals(Set.of(0, 1, 2, 3), given);
        assertEquals(0, four.of(worker(20)), "a fifth writer shares the first choice with the fewest");
    }

    @Test
    void idsNoLongerInUseLeaveTheirChoiceToNewWriters() {
        boolean[] live = new boolean[64];
        WorkerAssignment two = WorkerAssignment.withIdsInUse(2, SPACE, id -> live[id]);
        live[3] = live[4] = true;
        assertEquals(0, two.of(worker(3)));
        assertEquals(1, two.of(worker(4)));
        live[4] = false; // the thread of id 4 ended; a new writer with another id gets its choice
        live[9] = true;
        assertEquals(1, two.of(worker(9)));
        live[3] = false;
        live[10] = true;
        assertEquals(0, two.of(worker(10)));
        live[3] = true; // a thread that takes over id 3 while it is still in the table keeps id 3's choice
        assertEquals(0, two.of(worker(3)));
    }

    @Test
    void anIdThatChangesHandsChoosesAfresh() {
        // Id 2 is given choice 0 and its thread ends; id 1, held all along by a thread that had not asked yet,
        // then asks and is given choice 0 too (id 2 no longer counts). A new thread takes over id 2: keeping id 2's
        // choice would put it beside id 1 with choice 1 unused. Forgotten, it takes choice 1.
        boolean[] live = new boolean[64];
        WorkerAssignment two = WorkerAssignment.withIdsInUse(2, SPACE, id -> live[id]);
        live[1] = live[2] = true;
        assertEquals(0, two.of(worker(2)));
        live[2] = false;
        assertEquals(0, two.of(worker(1)));
        live[2] = true;
        two.forget(2);
        assertEquals(-1, two.assigned(worker(2)), "forgotten");
        assertEquals(1, two.of(worker(2)), "the new holder of id 2 takes the unused choice");
        assertEquals(0, two.of(worker(1)), "the other writer keeps its own");
    }

    @Test
    void forgettingTellsTheCacheOnlyForExclusiveStripesThatHadAChoice() {
        java.util.List<Integer> told = new java.util.ArrayList<>();
        WorkerAssignment two = new WorkerAssignment(2, SPACE, id -> false, told::add);
        two.forget(5); // never asked: nothing to forget
        long shared = worker(64 + 3);
        assertEquals(0, two.of(shared));
        two.forget(64 + 3); // an id past the exclusive stripes: its shared stripe keeps its choice
        assertEquals(0, two.assigned(shared));
        assertEquals(1, two.of(worker(5)));
        two.forget(5);
        assertEquals(-1, two.assigned(worker(5)));
        assertEquals(java.util.List.of(5), told);
    }

    @Test
    void sharedStripesCountAsInUseAndShareTheirChoice() {
        WorkerAssignment two = WorkerAssignment.withIdsInUse(2, SPACE, id -> false);
        long past = worker(64 + 3); // past the exclusive stripes: shared stripe 3
        assertEquals(0, two.of(past));
        assertEquals(1, two.of(worker(5)), "the shared stripe holds choice 0 whatever the ids in use");
        assertEquals(0, two.of(worker(64 + 8 + 3)), "the same shared stripe, the same choice");
        assertEquals(1, two.of(WorkerHandle.NO_HANDLE), "no worker: stripe 0, given like any other (id 5 is not"
                + " in use, so choice 1 has none)");
        assertThrows(IllegalArgumentException.class, () -> WorkerAssignment.withIdsInUse(0, SPACE, id -> true));
        assertThrows(IllegalArgumentException.class, () -> WorkerAssignment.withIdsInUse(128, SPACE, id -> true));
    }

    @Test
    void writersArrivingTogetherAreSpreadEvenly() throws Exception {
        // 64 threads ask for ids 0..63 at once, 10 rounds: each of 8 choices is given to exactly 8 of them.
        for (int round = 0; round < 10; round++) {
            WorkerAssignment eight = WorkerAssignment.withIdsInUse(8, SPACE, id -> true);
            AtomicIntegerArray load = new AtomicIntegerArray(8);
            CountDownLatch start = new CountDownLatch(1);
            Thread[] threads = new Thread[64];
            for (int i = 0; i < threads.length; i++) {
                int id = i;
                threads[i] = Thread.ofPlatform().start(() -> {
                    try {
                        start.await();
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                    load.incrementAndGet(eight.of(worker(id)));
                });
            }
            start.countDown();
            for (Thread t : threads) {
                t.join();
            }
            for (int c = 0; c < 8; c++) {
                assertEquals(8, load.get(c), "choice " + c + ", round " + round);
                assertEquals(eight.of(worker(c)), eight.assigned(worker(c)), "stable");
            }
        }
    }
}
