package io.hotkeeper.engine.shard;

import io.hotkeeper.engine.core.Internals;
import io.hotkeeper.engine.CombiningMode;
import io.hotkeeper.engine.HeavyHitter;
import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.HotkeeperBuilder;
import io.hotkeeper.engine.hash.KeyHasher;
import io.hotkeeper.engine.table.TableGeometry;
import io.hotkeeper.engine.table.TableLayout;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The ways a tracked slot could lose its key for good (issue "no heavy key lost"), each reproduced
 * deterministically: latches instead of sleeps, seeded hashes, keys picked to share a bucket.
 */
class NoHeavyKeyLostTest {
    private static final long SEED = 4242;
    private static final int INDEX_BITS = 6; // a 4 KiB table: 64 buckets

    /** Text keys of bucket {@code bucket} in a 4 KiB table, distinct fingerprints, from {@code prefix + i}. */
    private static List<String> textKeysInBucket(String prefix, int bucket, int count, Set<Long> fingerprints) {
        KeyHasher hasher = KeyHasher.seeded(SEED);
        List<String> keys = new ArrayList<>();
        for (int i = 0; keys.size() < count; i++) {
            long h = hasher.hash(prefix + i);
            TableGeometry geometry = TableGeometry.ofIndexBits(INDEX_BITS);
            if (geometry.bucket(h) == bucket && fingerprints.add(geometry.fingerprint(h))) {
                keys.add(prefix + i);
            }
        }
        return keys;
    }

    private static int bucketOf(String key) {
        return (int) (KeyHasher.seeded(SEED).hash(key) & 63);
    }

    private static HotkeeperBuilder small() {
        return Hotkeeper.builder().memoryBytes(4096).seed(SEED).minCount(1).combining(CombiningMode.OFF);
    }

    /** Every tracked slot links a live entry that names it back (the invariant the holes broke), and more. */
    static void assertEveryTrackedSlotLinked(Hotkeeper hk) {
        ShardIntegrity.check(Internals.keyShards(hk));
    }

    /**
     * A key whose second pass over its characters (inside the shard, before the copy) runs {@code onPause}: for
     * instance {@link #pauseHere}, which waits at a latch (PromotionInboxTest uses it too).
     */
    static final class PausingChars implements CharSequence {
        private final String s;
        final CountDownLatch inside = new CountDownLatch(1);
        final CountDownLatch resume = new CountDownLatch(1);
        private final Runnable onPause;
        private int calls;

        PausingChars(String s, Runnable onPause) {
            this.s = s;
            this.onPause = onPause;
        }

        /** A key that pauses itself there until {@link #resume} is counted down. */
        static PausingChars pausing(String s) {
            PausingChars[] self = new PausingChars[1];
            self[0] = new PausingChars(s, () -> self[0].pauseHere());
            return self[0];
        }

        @Override
        public char charAt(int index) {
            if (++calls == s.length() + 1) { // the first character of the second pass
                onPause.run();
            }
            return s.charAt(index);
        }

        void pauseHere() {
            inside.countDown();
            try {
                assertTrue(resume.await(30, TimeUnit.SECONDS));
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }

        @Override
        public int length() {
            return s.length();
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            return s.subSequence(start, end);
        }

        @Override
        public String toString() {
            return s;
        }
    }

    /** Fills the bucket of {@code key} with 7 heavy keys, so that {@code key}'s slot is the weakest. */
    private static List<String> fillBucket(Hotkeeper hk, String key, Set<Long> fingerprints) {
        List<String> heavy = textKeysInBucket("heavy-", bucketOf(key), 7, fingerprints);
        for (String h : heavy) {
            hk.observe(h, 1L << 30);
        }
        return heavy;
    }

    @Test
    void aLatePromoterNeverOverwritesANewerPromotionsLink() throws Exception {
        Set<Long> fps = new HashSet<>();
        String a = textKeysInBucket("a-", 5, 1, fps).getFirst();
        String b = textKeysInBucket("b-", 5, 1, fps).getFirst();
        try (Hotkeeper hk = small().build()) {
            fillBucket(hk, a, fps);
            AtomicReference<PausingChars> holder = new AtomicReference<>();
            PausingChars slowA = new PausingChars(a, () -> holder.get().pauseHere());
            holder.set(slowA);
            Thread promoterA = Thread.ofPlatform().start(() -> hk.observe(slowA));
            assertTrue(slowA.inside.await(30, TimeUnit.SECONDS), "A reached its copy");
            // A holds its claim on the bucket's empty eighth slot... the bucket has 7 heavy keys and A (count 1):
            // B's weighted challenge takes A's slot (probability of keeping it is 2^-(2^20)), B asks to be promoted.
            assertTrue(hk.observe(b, 1 << 20) > (1 << 19));
            slowA.resume.countDown();
            promoterA.join();
            assertEveryTrackedSlotLinked(hk);
            // B's promotion waited for A's claim to end; B's next observation promotes it.
            hk.observe(b);
            HeavyHitter top = hk.topK(10).stream().filter(h -> h.keyAsString().equals(b)).findFirst()
                    .orElseThrow(() -> new AssertionError("B is missing from topK: " + hk.topK(10)));
            assertEquals(hk.estimate(b), top.estimate());
            assertTrue(hk.contains(b));
            assertEveryTrackedSlotLinked(hk);
        }
    }

    @Test
    void aKeyWhoseCharactersThrowLeavesNoTrackedSlotBehind() {
        Set<Long> fps = new HashSet<>();
        String key = textKeysInBucket("t-", 9, 1, fps).getFirst();
        try (Hotkeeper hk = small().build()) {
            IllegalArgumentException thrown = new IllegalArgumentException("charAt failed");
            PausingChars failing = new PausingChars(key, () -> {
                throw thrown;
            });
            assertSame(thrown, assertThrows(IllegalArgumentException.class, () -> hk.observe(failing)));
            assertEveryTrackedSlotLinked(hk);
            assertEquals(0, Internals.keyShards(hk).shards().getFirst().live(), "the half-made entry went back");
            // The count stayed in the table; the key's next observation promotes it.
            assertEquals(2, hk.observe(key));
            assertEquals(List.of(key), hk.topK(5).stream().map(HeavyHitter::keyAsString).toList());
            assertEveryTrackedSlotLinked(hk);
        }
    }

    @Test
    void charAtThatCallsBackIntoTheSketchDuringItsPromotionIsSafe() {
        Set<Long> fps = new HashSet<>();
        String a = textKeysInBucket("r-", 11, 1, fps).getFirst();
        String b = textKeysInBucket("s-", 11, 1, fps).getFirst();
        String other = textKeysInBucket("o-", 12, 1, fps).getFirst();
        try (Hotkeeper hk = small().build()) {
            fillBucket(hk, a, fps);
            List<HeavyHitter> seenInside = new ArrayList<>();
            PausingChars reentrant = new PausingChars(a, () -> {
                // Inside A's promotion, on A's thread: take A's slot, promote another key, read, reap.
                hk.observe(b, 1 << 20);
                hk.observe(other);
                seenInside.addAll(hk.topK(20));
                hk.reap();
            });
            hk.observe(reentrant);
            assertEveryTrackedSlotLinked(hk);
            assertFalse(seenInside.isEmpty());
            // The nested promotions found the shard busy and were skipped; the next observations make them.
            hk.observe(b);
            hk.observe(other);
            List<String> top = hk.topK(20).stream().map(HeavyHitter::keyAsString).toList();
            assertTrue(top.contains(b) && top.contains(other), top.toString());
            assertEveryTrackedSlotLinked(hk);
        }
    }

    @Test
    void aStaleHeavyEntryDoesNotTurnAwayHeavierNewKeys() {
        try (Hotkeeper hk = Hotkeeper.builder().memoryBytes(1 << 20).seed(SEED).minCount(1)
                .shardCapacity(16).k(16).combining(CombiningMode.OFF).build()) {
            hk.observe("stale", 1_000_000);
            for (int i = 0; i < 15; i++) {
                hk.observe("light-" + i, 2);
            }
            List<String> rising = new ArrayList<>();
            for (long w = 10; w <= 900_000; w *= 3) {
                String key = "new-" + w;
                rising.add(key);
                hk.observe(key, w);
            }
            List<String> top = hk.topK(16).stream().map(HeavyHitter::keyAsString).toList();
            assertTrue(top.containsAll(rising), "newer, heavier keys reach topK: " + top);
            assertTrue(top.contains("stale"), "the stale key still counts 10^6: " + top);
            assertEveryTrackedSlotLinked(hk);
        }
    }

    @Test
    void thePromotionFloorFallsWhenShardsMakeRoom() {
        try (Hotkeeper hk = Hotkeeper.builder().memoryBytes(4096).seed(SEED).minCount(4)
                .combining(CombiningMode.OFF).build()) {
            var table = Internals.keyShards(hk);
            table.rejected(1000);
            assertEquals(1001, hk.info().promotionFloor());
            table.roomMade();
            assertEquals(1001 - (1001 - 4) / 4, hk.info().promotionFloor());
            for (int i = 0; i < 100; i++) {
                table.roomMade();
            }
            assertEquals(4, hk.info().promotionFloor(), "never below the configured floor");
        }
    }

    @Test
    void threadsThatEndGiveTheirIdAndShardToTheNext() throws Exception {
        try (Hotkeeper hk = Hotkeeper.builder().seed(SEED).minCount(1).build()) {
            for (int i = 0; i < 5_000; i++) {
                int key = i;
                Thread t = Thread.ofPlatform().start(() -> hk.observe(key));
                t.join();
            }
            // Without garbage collection: each thread's id goes to the next one once it has ended.
            int shards = Internals.keyShards(hk).shardCount();
            assertTrue(shards < 64, shards + " shards after 5,000 short-lived threads");
            assertEveryTrackedSlotLinked(hk);
        }
    }

    @Test
    void theListenerRunsOutsideTheCombinerAndMayObserveAgain() {
        List<String> framesInside = new ArrayList<>();
        AtomicReference<Hotkeeper> self = new AtomicReference<>();
        long[] listenerObservations = {0};
        try (Hotkeeper hk = Hotkeeper.builder().memoryBytes(4096).seed(SEED).minCount(1)
                .combining(CombiningMode.ON).combiner(16, 4).expelledKeyListener(expelled -> {
                    for (StackTraceElement f : Thread.currentThread().getStackTrace()) {
                        if (f.getClassName().endsWith("HotKeyCombiners") || f.getClassName().endsWith("BucketTable")) {
                            framesInside.add(f.toString());
                        }
                    }
                    self.get().observe(7L); // re-entrant: a combined hot key of this thread
                    listenerObservations[0]++;
                }).build()) {
            self.set(hk);
            long own = 0;
            for (int round = 0; round < 2_000; round++) {
                hk.observe(7L);
                own++;
                for (int k = 0; k < 40; k++) {
                    hk.observe(1000L + (round * 40 + k) % 3000);
                }
            }
            hk.flush();
            assertTrue(listenerObservations[0] > 0, "keys were expelled");
            assertNull(framesInside.isEmpty() ? null : framesInside.getFirst(),
                    "the listener ran inside the table or a combiner");
            assertEquals(own + listenerObservations[0], hk.estimate(7L),
                    "every observation of the hot key, the listener's included, is counted once");
            assertEveryTrackedSlotLinked(hk);
        }
    }
}
