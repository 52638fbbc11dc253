package io.hotkeeper.engine.shard;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Workers get shards in arrival order, balanced over the ids in use, whatever their ids. */
class ShardAssignmentTest {
    @Test
    void writersWhoseIdsAreEqualModuloTheShardsGetOneEach() {
        ShardAssignment two = new ShardAssignment(2, id -> true);
        assertEquals(-1, two.assigned(5), "none before it asks");
        assertEquals(0, two.shardOf(5));
        assertEquals(1, two.shardOf(7), "id % 2 would have given shard 1 to both");
        assertEquals(0, two.shardOf(5), "it keeps its shard");
        assertEquals(1, two.assigned(7));
        ShardAssignment four = new ShardAssignment(4, id -> true);
        Set<Integer> given = new HashSet<>();
        for (int id : new int[] {4, 8, 12, 16}) {
            given.add(four.shardOf(id));
        }
        assertEquals(Set.of(0, 1, 2, 3), given);
        assertEquals(0, four.shardOf(20), "a fifth writer shares the first shard with the fewest");
    }

    @Test
    void idsNoLongerInUseLeaveTheirShardsToNewWriters() {
        boolean[] live = new boolean[64];
        ShardAssignment two = new ShardAssignment(2, id -> live[id]);
        live[3] = live[4] = true;
        assertEquals(0, two.shardOf(3));
        assertEquals(1, two.shardOf(4));
        live[4] = false; // the thread of id 4 ended; a new writer with another id gets its shard
        live[9] = true;
        assertEquals(1, two.shardOf(9));
        live[3] = false;
        live[10] = true;
        assertEquals(0, two.shardOf(10));
        live[3] = true; // a thread that takes over id 3 keeps id 3's shard
        assertEquals(0, two.shardOf(3));
    }

    @Test
    void idsPastTheRegularShardsUseTheirResidue() {
        ShardAssignment three = new ShardAssignment(3, id -> true);
        int past = ShardAssignment.MAPPED_IDS + 7;
        assertEquals(past % 3, three.shardOf(past));
        assertEquals(past % 3, three.assigned(past));
        assertThrows(IllegalArgumentException.class, () -> new ShardAssignment(0, id -> true));
    }

    @Test
    void writersArrivingTogetherAreSpreadEvenly() throws Exception {
        // 64 threads ask for ids 0..63 at once, 10 rounds: each of 8 shards is given to exactly 8 of them.
        for (int round = 0; round < 10; round++) {
            ShardAssignment eight = new ShardAssignment(8, id -> true);
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
                    load.incrementAndGet(eight.shardOf(id));
                });
            }
            start.countDown();
            for (Thread t : threads) {
                t.join();
            }
            for (int s = 0; s < 8; s++) {
                assertEquals(8, load.get(s), "shard " + s + ", round " + round);
                assertEquals(eight.shardOf(s), eight.assigned(s), "stable");
            }
        }
    }
}
