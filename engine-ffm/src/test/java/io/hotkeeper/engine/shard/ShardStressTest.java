package io.hotkeeper.engine.shard;

import io.hotkeeper.engine.core.Internals;
import io.hotkeeper.engine.HeavyHitter;
import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.HotkeeperStats;
import io.hotkeeper.engine.table.TableGeometry;
import io.hotkeeper.engine.table.TableLayout;
import io.hotkeeper.engine.workload.ZipfKeys;
import io.hotkeeper.engine.worker.Workers;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Real threads (more than cores) churning a tiny table so that tracked slots change hands all the time: every
 * replacement of a tracked slot is a foreign deletion through the hand-off.
 */
class ShardStressTest {

    @org.junit.jupiter.params.ParameterizedTest(name = "shard capacity {0}")
    @org.junit.jupiter.params.provider.ValueSource(ints = {1024, 64})
    void heavyChurnKeepsEveryInvariantAndBoundsZombies(int capacity) throws Exception {
        int threads = 4;
        int perThread = 2_500_000; // 10M observes in all
        long[] keys = new ZipfKeys(200_000, 0.8).keys(1 << 20, 5);
        // Capacity 1024 > 512 slots: the floor never rises, light tracked keys keep losing their slots, and
        // every such loss is a foreign deletion. Capacity 64 x 4 shards < 512 slots: full shards, SIEVE, and
        // candidates turned away as well.
        try (Hotkeeper hk = Hotkeeper.builder().recordStats().memoryBytes(4096).minCount(2).shardCapacity(capacity)
                .seed(17).build()) {
            CyclicBarrier start = new CyclicBarrier(threads);
            // Halfway through, the writers wait until the reader has read 10 times: reads overlap the churn
            // however the scheduler runs the threads.
            java.util.concurrent.CountDownLatch readsDone = new java.util.concurrent.CountDownLatch(10);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread[] workers = new Thread[threads];
            for (int t = 0; t < threads; t++) {
                int id = t;
                workers[t] = Thread.ofPlatform().start(() -> {
                    try {
                        start.await();
                        int mask = keys.length - 1;
                        for (int i = 0; i < perThread; i++) {
                            if (i == perThread / 2 && !readsDone.await(60, java.util.concurrent.TimeUnit.SECONDS)) {
                                throw new AssertionError("the reader made no progress");
                            }
                            hk.observe(keys[(i * 7 + id * 104_729) & mask]);
                        }
                        Internals.keyShards(hk).drainCurrent();
                    } catch (Throwable e) {
                        failure.set(e);
                    }
                });
            }
            // A reader runs topK against the churn the whole time: every key it reports must be one of the stream's
            // (a torn or reused entry would show another), distinct, ranked, and never above all observations.
            java.util.Set<Long> streamKeys = new java.util.HashSet<>();
            for (long k : keys) {
                streamKeys.add(k);
            }
            AtomicLong reads = new AtomicLong();
            Thread reader = Thread.ofPlatform().start(() -> {
                while (workers[0].isAlive() && failure.get() == null) {
                    List<HeavyHitter> top = hk.topK(20);
                    java.util.Set<Long> seen = new java.util.HashSet<>();
                    long previous = Long.MAX_VALUE;
                    for (HeavyHitter h : top) {
                        if (h.key().length != 8 || h.estimate() <= 0 || h.estimate() > (long) threads * perThread
                                || !streamKeys.contains(h.keyAsLong()) || !seen.add(h.keyAsLong())
                                || h.estimate() > previous) {
                            failure.set(new AssertionError("bad topK entry " + h + " in " + top));
                        }
                        previous = h.estimate();
                    }
                    reads.incrementAndGet();
                    readsDone.countDown();
                }
            });
            for (Thread w : workers) {
                w.join();
            }
            reader.join();
            assertNull(failure.get());
            assertTrue(reads.get() >= 10, "reads: " + reads.get());
            ShardIntegrity.checkAll(Internals.keyShardSets(hk));
            HotkeeperStats stats = hk.stats();
            assertTrue(capacity < 512 || stats.handOffs() > 1000, "the workload must churn tracked slots: " + stats);
            assertTrue(capacity >= 512 || stats.promotionsMissed() > 0, "full shards must turn candidates away");

            // Quiescent now: every tracked slot links a live entry holding a key of that slot.
            KeyShards shards = Internals.keyShards(hk);
            long tracked = 0;
            long validated = 0;
            for (HeavyHitter h : hk.topK(Integer.MAX_VALUE / 2)) {
                validated++;
                assertEquals(h.estimate(), hk.estimate(h.keyAsLong()), "a reported key's estimate is its slot's");
            }
            for (long i = 0; i < 64 * 8; i++) {
                if (TableLayout.tracked(hkSlot(hk, i))) {
                    tracked++;
                }
            }
            assertEquals(tracked, validated, "every tracked slot resolves to its key");
            long maxZombies = shards.shards().stream().mapToLong(KeyShard::maxZombies).max().orElse(0);
            long live = shards.shards().stream().mapToLong(KeyShard::live).sum();
            System.out.printf("stress (capacity %d): %s; topK reads=%d; shards=%d live=%d tracked=%d "
                    + "maxZombies=%d floor=%d%n", capacity, stats, reads.get(), shards.shardCount(), live, tracked,
                    maxZombies, hk.info().promotionFloor());
            assertTrue(maxZombies <= capacity, "zombies stay below a shard's capacity: " + maxZombies);
            // Against exact counts of the (deterministic) stream: an estimate counts only observations whose hash
            // has its slot's bucket and fingerprint, so it is at most their exact total; and the heaviest key
            // (~1.7% of the stream, over 300x the promotion floor) holds its slot and is reported.
            io.hotkeeper.engine.hash.KeyHasher hasher = io.hotkeeper.engine.hash.KeyHasher.seeded(17);
            java.util.Map<Long, Long> exact = new java.util.HashMap<>();
            java.util.Map<Long, Long> sameSlotKey = new java.util.HashMap<>();
            TableGeometry geometry = TableGeometry.of(hk.bucketCount());
            for (int t = 0; t < threads; t++) {
                for (int i = 0; i < perThread; i++) {
                    long key = keys[(i * 7 + t * 104_729) & (keys.length - 1)];
                    exact.merge(key, 1L, Long::sum);
                    long h = hasher.hash(key);
                    long group = geometry.location(h); // the bits that decide bucket and fingerprint
                    sameSlotKey.merge(group, 1L, Long::sum);
                }
            }
            List<HeavyHitter> finalTop = hk.topK(20);
            for (HeavyHitter h : finalTop) {
                long hash = hasher.hash(h.keyAsLong());
                long group = geometry.location(hash);
                assertTrue(h.estimate() <= sameSlotKey.get(group), h + " above every observation of its slot's "
                        + "bucket and fingerprint (" + sameSlotKey.get(group) + ")");
            }
            long heaviest = exact.entrySet().stream().max(java.util.Map.Entry.comparingByValue()).orElseThrow().getKey();
            assertTrue(finalTop.stream().anyMatch(h -> h.keyAsLong() == heaviest),
                    "the heaviest key " + heaviest + " (" + exact.get(heaviest) + ") is reported: " + finalTop);
        }
    }

    private static long hkSlot(Hotkeeper hk, long slotIndex) {
        return Internals.keyShards(hk).slotWord(slotIndex * TableLayout.SLOT_BYTES);
    }

    @Test
    void closingUnderLoadNeverCrashesAndReturnsEveryRegion() throws Exception {
        for (int round = 0; round < 10; round++) {
            Hotkeeper hk = Hotkeeper.builder().recordStats().memoryBytes(4096).minCount(1).shardCapacity(32).build();
            int threads = 4;
            // Each worker counts down once it has made 10,000 observations: closing then races real work.
            CountDownLatch running = new CountDownLatch(threads);
            AtomicReference<Throwable> unexpected = new AtomicReference<>();
            Thread[] workers = new Thread[threads];
            for (int t = 0; t < threads; t++) {
                long seed = t * 1_000_003L;
                workers[t] = Thread.ofPlatform().start(() -> {
                    try {
                        for (long k = seed; ; k++) {
                            if (k == seed + 10_000) {
                                running.countDown();
                            }
                            hk.observe("key-" + (k % 5000));
                            if ((k & 1023) == 0) {
                                hk.topK(10);
                            }
                        }
                    } catch (IllegalStateException closed) {
                        // Expected once the instance is closed, and only with the closed message.
                        if (!Hotkeeper.CLOSED_MESSAGE.equals(closed.getMessage())) {
                            unexpected.set(closed);
                        }
                    } catch (Throwable e) {
                        unexpected.set(e);
                    }
                });
            }
            running.await();
            List<java.lang.foreign.MemorySegment> regions = Internals.keyShards(hk).regions();
            hk.close();
            for (Thread w : workers) {
                w.join(10_000);
                assertTrue(!w.isAlive());
            }
            assertNull(unexpected.get());
            for (java.lang.foreign.MemorySegment region : regions) {
                assertTrue(!region.scope().isAlive(), "every native region was freed with the arena");
            }
        }
    }

    @Test
    void aHundredThousandVirtualThreadsDoNotMultiplyShards() throws Exception {
        assertTrue(Workers.carrierVisible(), "tests run with jdk.internal.misc exported (see the root pom)");
        try (Hotkeeper hk = Hotkeeper.builder().recordStats().memoryBytes(1 << 16).minCount(1).build();
             var executor = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 100_000; i++) {
                long key = i % 1000;
                executor.submit(() -> {
                    hk.observe(key);
                    Thread.yield(); // unmount and maybe move to another carrier
                    hk.observe(key);
                });
            }
            executor.shutdown();
            assertTrue(executor.awaitTermination(2, TimeUnit.MINUTES));
            int carriers = Runtime.getRuntime().availableProcessors() + 2;
            int shards = Internals.keyShards(hk).shardCount();
            System.out.printf("100,000 virtual threads -> %d key shards%n", shards);
            assertTrue(shards >= 1 && shards <= carriers, "shards=" + shards);
            assertEquals(1000, hk.topK(2000).size());
            for (HeavyHitter h : hk.topK(2000)) {
                assertEquals(200, h.estimate());
            }
        }
    }
}
