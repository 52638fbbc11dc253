package io.hotkeeper.engine.snapshot;

import io.hotkeeper.engine.Partitioning;
import io.hotkeeper.engine.core.Internals;
import io.hotkeeper.engine.HeavyHitter;
import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.shard.ShardIntegrity;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code Builder.partitioning(Partitioning.window(span, slices))} on a controllable clock, and {@code decay}. */
class WindowTest {
    private static final long SECOND = 1_000_000_000L;

    private static List<String> top(Hotkeeper hk, int n) {
        return hk.topK(n).stream().map(HeavyHitter::keyAsString).toList();
    }

    @Test
    void keysColdForASpanLeaveTopKAndKeysHotInTheLastSliceEnterIt() {
        AtomicLong now = new AtomicLong(1_000 * SECOND);
        try (Hotkeeper hk = Hotkeeper.builder().memoryBytes(4096).seed(2)
                .partitioning(Partitioning.window(Duration.ofSeconds(60), 6))
                .clock(now::get).build()) {
            for (int i = 0; i < 500; i++) {
                hk.observe("old-hot");
                hk.observe("old-warm");
            }
            assertEquals(List.of("old-hot", "old-warm"), top(hk, 2).stream().sorted().toList());
            assertEquals(500, hk.estimate("old-hot"));
            // 50 s later (5 slices): still inside the window.
            now.addAndGet(50 * SECOND);
            assertEquals(500, hk.estimate("old-hot"));
            for (int i = 0; i < 100; i++) {
                hk.observe("new-hot");
            }
            assertEquals(1_100, hk.totalWeight());
            // One span after the old keys' last observation: they leave, without any observation to rotate.
            now.addAndGet(10 * SECOND);
            assertEquals(0, hk.estimate("old-hot"));
            assertEquals(List.of("new-hot"), top(hk, 5));
            assertFalse(hk.contains("old-hot"));
            assertEquals(100, hk.totalWeight());
            // Keys hot in the last slice only enter.
            for (int i = 0; i < 300; i++) {
                hk.observe("last-slice");
            }
            assertEquals(List.of("last-slice", "new-hot"), top(hk, 5));
            assertEquals(300, hk.estimate("last-slice"));
            // A whole idle span: everything leaves; the snapshot agrees.
            now.addAndGet(61 * SECOND);
            assertTrue(hk.topK(5).isEmpty());
            assertEquals(0, hk.snapshot().tableWeight());
            ShardIntegrity.checkAll(Internals.keyShardSets(hk));
        }
    }

    @Test
    void aSliceIsClearedOnlyWhenItsTurnComesRound() {
        AtomicLong now = new AtomicLong(0);
        try (Hotkeeper hk = Hotkeeper.builder().memoryBytes(4096).seed(3)
                .partitioning(Partitioning.window(Duration.ofSeconds(4), 4))
                .clock(now::get).build()) {
            for (int slice = 0; slice < 4; slice++) {
                hk.observe("k" + slice, 100);
                now.addAndGet(SECOND);
            }
            // Now in slice 4: slice 0's table was cleared for it, k1..k3 remain.
            assertEquals(0, hk.estimate("k0"));
            assertEquals(100, hk.estimate("k1"));
            assertEquals(100, hk.estimate("k3"));
            now.addAndGet(2 * SECOND);
            assertEquals(0, hk.estimate("k2"));
            assertEquals(100, hk.estimate("k3"));
        }
    }

    /** Rotation while threads observe and read: nobody throws or waits forever; shards stay intact. */
    @Test
    void rotationWhileThreadsObserveAndRead() throws Exception {
        AtomicLong now = new AtomicLong(0);
        long[] stream = SnapshotStreams.zipf();
        try (Hotkeeper hk = Hotkeeper.builder().memoryBytes(4096).seed(4).minCount(2)
                .partitioning(Partitioning.window(Duration.ofMillis(40), 4)).clock(now::get).build()) {
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread[] threads = new Thread[3];
            for (int t = 0; t < threads.length; t++) {
                int id = t;
                threads[t] = Thread.ofPlatform().start(() -> {
                    try {
                        int i = id * 1000;
                        while (!stop.get()) {
                            if (id == 2) {
                                hk.topK(10);
                                hk.estimate(stream[0]);
                            } else {
                                hk.observe(stream[i++ % stream.length]);
                            }
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                });
            }
            for (int step = 0; step < 400; step++) {
                now.addAndGet(3_000_000); // 3 ms a step: a rotation every few steps
                Thread.sleep(0, 100_000);
            }
            stop.set(true);
            for (Thread t : threads) {
                t.join();
            }
            assertNull(failure.get());
            ShardIntegrity.checkAll(Internals.keyShardSets(hk));
            now.addAndGet(1_000_000_000);
            assertTrue(hk.topK(10).isEmpty());
        }
    }

    @Test
    void decayHalvesEveryCountAndTheTotal() {
        try (Hotkeeper hk = Hotkeeper.builder().memoryBytes(4096).seed(5).recordStats().build()) {
            hk.observe("a", 1000);
            hk.observe("b", 301);
            hk.observe("c", 1);
            hk.decay(0.5);
            assertEquals(500, hk.estimate("a"));
            assertEquals(150, hk.estimate("b"));
            assertEquals(1, hk.estimate("c"), "never below 1: a slot is not emptied by decay");
            assertEquals(651, hk.totalWeight());
            assertEquals(List.of("a", "b"), top(hk, 2));
            assertThrows(IllegalArgumentException.class, () -> hk.decay(1.0));
            assertThrows(IllegalArgumentException.class, () -> hk.decay(0));
            ShardIntegrity.checkAll(Internals.keyShardSets(hk));
        }
    }

    @Test
    void windowParametersAreChecked() {
        assertThrows(IllegalArgumentException.class, () -> Partitioning.window(Duration.ofSeconds(1), 1));
        assertThrows(IllegalArgumentException.class, () -> Partitioning.window(Duration.ZERO, 4));
        assertThrows(NullPointerException.class, () -> Partitioning.window(null, 4));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Hotkeeper.builder().clock(() -> 0L).build());
        assertTrue(e.getMessage().startsWith("clock(...) with partitioning shared(): only a window reads the clock"),
                e.getMessage());
    }
}
