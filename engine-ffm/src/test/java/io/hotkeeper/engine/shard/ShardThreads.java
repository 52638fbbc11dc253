package io.hotkeeper.engine.shard;

import io.hotkeeper.engine.worker.WorkerHandle;
import io.hotkeeper.engine.worker.Workers;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;

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
        return startWhere(id -> id % shards == residue, 4 * shards + 4, work);
    }

    /**
     * Starts a platform thread whose worker id is {@code id} (one freed by an ended thread, or never used) and
     * runs {@code work} on it, holding the lower free ids meanwhile as {@link #startColliding} does.
     *
     * @throws AssertionError if {@code id} + 8 threads in a row had other ids
     */
    public static Thread startWithId(int id, Runnable work) throws Exception {
        return startWhere(given -> given == id, id + 8, work);
    }

    /**
     * An id changing hands between two writers while a third lives: writer 1's thread takes an id and waits;
     * writer 2's thread runs {@code second} and ends; writer 1 then runs {@code first}; a new thread that takes over
     * writer 2's id ({@link #startWithId}) runs {@code third} while writer 1 still lives. Returns once all three
     * threads have ended.
     */
    public static void idChangesHands(Runnable first, Runnable second, Runnable third) throws Exception {
        CountDownLatch holds1 = new CountDownLatch(1);
        CountDownLatch go1 = new CountDownLatch(1);
        CountDownLatch done1 = new CountDownLatch(1);
        CountDownLatch end1 = new CountDownLatch(1);
        Thread writer1 = Thread.ofPlatform().start(() -> {
            currentId(); // holds an id from now on
            holds1.countDown();
            awaitQuietly(go1);
            first.run();
            done1.countDown();
            awaitQuietly(end1);
        });
        try {
            holds1.await(); // before writer 2 starts, so that writer 1 cannot take writer 2's id once it ends
            int[] id2 = new int[1];
            Thread writer2 = Thread.ofPlatform().start(() -> {
                id2[0] = currentId();
                second.run();
            });
            writer2.join();
            go1.countDown();
            if (!done1.await(30, TimeUnit.SECONDS)) {
                throw new AssertionError("writer 1 did not finish");
            }
            startWithId(id2[0], third).join();
        } finally {
            go1.countDown();
            end1.countDown();
            writer1.join();
        }
    }

    private static Thread startWhere(IntPredicate wanted, int attempts, Runnable work) throws Exception {
        CountDownLatch chosen = new CountDownLatch(1);
        List<Thread> holding = new ArrayList<>();
        try {
            for (int i = 0; i < attempts; i++) {
                CompletableFuture<Boolean> found = new CompletableFuture<>();
                Thread t = Thread.ofPlatform().start(() -> {
                    boolean mine = wanted.test(currentId());
                    found.complete(mine);
                    if (mine) {
                        work.run();
                    } else {
                        awaitQuietly(chosen);
                    }
                });
                if (found.get(30, TimeUnit.SECONDS)) {
                    return t;
                }
                holding.add(t);
            }
            throw new AssertionError(attempts + " threads in a row got other ids");
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
