package io.hotkeeper.engine.shard;

import io.hotkeeper.engine.worker.WorkerHandle;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Threads for tests that need two writers on two different key shards. A worker uses shard {@code id % shardLimit}
 * and ids go lowest-free-first, so ids freed by earlier tests' threads can give two new threads the same shard.
 */
public final class ShardThreads {
    private ShardThreads() {
    }

    /**
     * Starts a platform thread whose key shard in {@code shards} is not {@code avoid} and runs {@code work} on it.
     * Threads that got {@code avoid}'s shard hold their ids (so that the next one gets another) until the chosen
     * one has its own, then end; this returns once they have.
     *
     * @throws AssertionError if 16 threads in a row got {@code avoid}'s shard
     */
    public static Thread startOnAnotherShard(KeyShards shards, KeyShard avoid, Runnable work) throws Exception {
        CountDownLatch chosen = new CountDownLatch(1);
        List<Thread> holding = new ArrayList<>();
        try {
            for (int i = 0; i < 16; i++) {
                CompletableFuture<Boolean> other = new CompletableFuture<>();
                Thread t = Thread.ofPlatform().start(() -> {
                    boolean own = shards.shardFor(WorkerHandle.NO_HANDLE) != avoid;
                    other.complete(own);
                    if (own) {
                        work.run();
                    } else {
                        awaitQuietly(chosen);
                    }
                });
                if (other.get(30, TimeUnit.SECONDS)) {
                    return t;
                }
                holding.add(t);
            }
            throw new AssertionError("16 threads in a row got the shard to avoid");
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
