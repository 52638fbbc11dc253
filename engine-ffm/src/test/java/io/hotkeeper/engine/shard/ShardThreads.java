package io.hotkeeper.engine.shard;

import io.hotkeeper.engine.worker.WorkerHandle;
import io.hotkeeper.engine.worker.Workers;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Threads for tests of a table with fewer key shards than workers. Ids are global and go lowest-free-first, so a
 * test cannot choose its threads' ids; this picks a thread whose id collides with the caller's: the two ids are
 * equal modulo the number of shards, which under a fixed {@code id % shards} put both writers on one shard
 * (see {@link io.hotkeeper.engine.worker.WorkerAssignment}).
 */
public final class ShardThreads {
    private ShardThreads() {
    }

    /** The worker id of the calling thread. */
    public static int currentId() {
        return WorkerHandle.id(Workers.current());
    }

    /**
     * Starts a platform thread whose worker id equals the caller's modulo {@code shards} and runs {@code work} on
     * it. Threads with other ids hold them (so that the next one gets another) until the chosen one has its own,
     * then end; this returns once they have.
     *
     * @throws AssertionError if 4 x {@code shards} + 4 threads in a row had other ids
     */
    public static Thread startColliding(int shards, Runnable work) throws Exception {
        int residue = currentId() % shards;
        CountDownLatch chosen = new CountDownLatch(1);
        List<Thread> holding = new ArrayList<>();
        try {
            for (int i = 0; i < 4 * shards + 4; i++) {
                CompletableFuture<Boolean> colliding = new CompletableFuture<>();
                Thread t = Thread.ofPlatform().start(() -> {
                    boolean mine = currentId() % shards == residue;
                    colliding.complete(mine);
                    if (mine) {
                        work.run();
                    } else {
                        awaitQuietly(chosen);
                    }
                });
                if (colliding.get(30, TimeUnit.SECONDS)) {
                    return t;
                }
                holding.add(t);
            }
            throw new AssertionError(4 * shards + 4 + " threads in a row got other ids");
        } finally {
            chosen.countDown();
            for (Thread t : holding) {
                t.join();
            }
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
