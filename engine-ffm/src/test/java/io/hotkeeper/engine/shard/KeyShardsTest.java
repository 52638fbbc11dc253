package io.hotkeeper.engine.shard;

import io.hotkeeper.engine.core.Internals;
import io.hotkeeper.engine.HeavyHitter;
import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.HotkeeperInfo;
import io.hotkeeper.engine.hash.KeyHasher;
import io.hotkeeper.engine.table.TableGeometry;
import io.hotkeeper.engine.table.TableLayout;
import io.hotkeeper.engine.worker.WorkerHandle;
import io.hotkeeper.engine.worker.Workers;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Promotion, foreign deletion through the hand-off, SIEVE, and the queries, driven deterministically. */
class KeyShardsTest {
    private static final long SEED = 99;

    /**
     * Keys landing in bucket 0 of a 64-bucket table, with distinct fingerprints: eight, then keys whose second
     * candidate bucket is bucket 0 too (one bucket each), so that they face bucket 0's lottery once it is full.
     */
    private static List<Long> keysInBucketZero(int count) {
        KeyHasher hasher = KeyHasher.seeded(SEED);
        TableGeometry geometry = TableGeometry.of(64, 2);
        List<Long> keys = new ArrayList<>();
        java.util.Set<Long> fps = new java.util.HashSet<>();
        for (long k = 1; keys.size() < count; k++) {
            long h = hasher.hash(k);
            long fp = geometry.fingerprint(h);
            if (geometry.bucket(h) == 0 && (keys.size() < 8 || geometry.alternate(0, fp) == 0) && fps.add(fp)) {
                keys.add(k);
            }
        }
        return keys;
    }

    @Test
    void keysReachingTheFloorArePromotedAndReportedWithTheirBytes() {
        try (Hotkeeper hk = Hotkeeper.builder().recordStats().memoryBytes(1 << 16).seed(SEED).minCount(3).k(3).build()) {
            for (int i = 0; i < 10; i++) {
                hk.observe("alpha");
            }
            for (int i = 0; i < 5; i++) {
                hk.observe("beta".getBytes(StandardCharsets.UTF_8));
            }
            hk.observe(42L, 7);
            hk.observe("gamma"); // below the floor: not tracked
            List<HeavyHitter> top = hk.topK(10);
            assertEquals(3, top.size());
            assertEquals("alpha", top.get(0).keyAsString());
            assertEquals(10, top.get(0).estimate());
            assertEquals(42L, top.get(1).keyAsLong());
            assertEquals(7, top.get(1).estimate());
            assertEquals("beta", top.get(2).keyAsString());
            assertTrue(hk.contains("alpha"));
            assertTrue(hk.contains(42L));
            assertFalse(hk.contains("gamma"));
            assertEquals(3, hk.stats().promotions());
            HotkeeperInfo info = hk.info();
            assertEquals(1, info.shards());
            assertEquals(3, info.k());
            assertTrue(info.shardBytes() > info.tableBytes());
        }
    }

    @Test
    void textKeysAreCutAtACharacterBoundaryNeverInsideOne() {
        String[] keys = {"abcd\u00e9", "ab\uD83D\uDE00", "\u65e5\u672c", "ok\uD800z", "abcde"};
        String[] stored = {"abcd", "ab", "\u65e5", "ok?z", "abcde"};
        for (int i = 0; i < keys.length; i++) {
            try (Hotkeeper hk = Hotkeeper.builder().maxKeyBytes(5).minCount(1).build()) {
                hk.observe(keys[i]);
                HeavyHitter h = hk.topK(1).getFirst();
                assertEquals(stored[i], h.keyAsString(), keys[i]);
                assertEquals(!keys[i].equals(stored[i]) && !keys[i].contains("\uD800"), h.truncated(), keys[i]);
            }
        }
    }

    @Test
    void longKeysAreStoredTruncatedAndSaySo() {
        try (Hotkeeper hk = Hotkeeper.builder().recordStats().maxKeyBytes(8).minCount(1).build()) {
            String longKey = "GET /api/v1/orders/12345?verbose=true";
            hk.observe(longKey);
            hk.observe("short");
            List<HeavyHitter> top = hk.topK(2);
            HeavyHitter truncated = top.stream().filter(HeavyHitter::truncated).findFirst().orElseThrow();
            assertEquals("GET /api", truncated.keyAsString());
            assertEquals(1, hk.estimate(longKey), "counting uses every byte of the key");
            assertTrue(top.stream().anyMatch(h -> !h.truncated() && h.keyAsString().equals("short")));
        }
    }

    @Test
    void aReplacedTrackedKeyIsHandedToItsOwnersShardReapedAndExpelled() throws Exception {
        List<Long> keys = keysInBucketZero(9);
        List<HeavyHitter> expelled = new CopyOnWriteArrayList<>();
        try (Hotkeeper hk = Hotkeeper.builder().recordStats().memoryBytes(4096).seed(SEED).minCount(1)
                .expelledKeyListener(expelled::add).build()) {
            // Thread A promotes eight keys into its shard: each claims a slot of bucket 0 with count 1.
            Thread a = Thread.ofPlatform().start(() -> keys.subList(0, 8).forEach(hk::observe));
            a.join();
            assertEquals(8, hk.stats().promotions());
            KeyShard shardA = Internals.keyShards(hk).shards().getFirst();
            assertEquals(8, shardA.live());
            // This thread challenges until it wins: a count of 1 falls to a won draw, the slot changes hands and
            // A's entry is marked dead and pushed on A's stack by this (foreign) thread.
            long challenger = keys.get(8);
            while (hk.estimate(challenger) == 0) {
                hk.observe(challenger);
            }
            assertEquals(1, hk.stats().handOffs());
            assertEquals(1, expelled.size());
            assertTrue(keys.subList(0, 8).contains(expelled.getFirst().keyAsLong()));
            long dead = keys.stream().filter(k -> k.equals(expelled.getFirst().keyAsLong())).findFirst().orElseThrow();
            assertEquals(0, hk.estimate(dead));
            // Not reaped yet: the owner has not operated. Its live count still includes the zombie.
            assertEquals(8, shardA.live());
            assertFalse(hk.topK(20).stream().anyMatch(h -> h.keyAsLong() == dead), "a dead key is never reported");
            // The owner's next operation drains its stack; A is dead, so a new thread (which may get A's worker id
            // back and adopt its shard) promotes something.
            Thread again = Thread.ofPlatform().start(() -> hk.observe(123_456_789L));
            again.join();
            // A's thread is dead; the new platform thread got A's worker id back or a new one. Either way the
            // entry handed to A's shard is reaped by the shard's next owner operation.
            long live = Internals.keyShards(hk).shards().stream().mapToLong(KeyShard::live).sum();
            long tracked = hk.topK(100).size();
            assertTrue(live >= tracked);
        }
    }

    @Test
    void anIdleOwnerReapsWhatWasHandedToItWhenItAsks() throws Exception {
        List<Long> keys = keysInBucketZero(9);
        try (Hotkeeper hk = Hotkeeper.builder().recordStats().memoryBytes(4096).seed(SEED).minCount(1).build()) {
            java.util.concurrent.CountDownLatch promoted = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.CountDownLatch evicted = new java.util.concurrent.CountDownLatch(1);
            int[] ownerShard = new int[1];
            long[] liveAfterReap = new long[1];
            Thread owner = Thread.ofPlatform().start(() -> {
                keys.subList(0, 8).forEach(hk::observe);
                ownerShard[0] = WorkerHandle.id(Workers.current());
                promoted.countDown();
                try {
                    evicted.await();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                hk.reap(); // idle owner: no promotion coming, so it reaps by hand
                liveAfterReap[0] = shardOf(hk, ownerShard[0]).live();
            });
            promoted.await();
            while (hk.estimate(keys.get(8)) == 0) {
                hk.observe(keys.get(8)); // a foreign eviction: hands one of the owner's entries over
            }
            assertEquals(8, shardOf(hk, ownerShard[0]).live(), "not reaped until the owner acts");
            evicted.countDown();
            owner.join();
            assertEquals(7, liveAfterReap[0], "the handed-over entry was unlinked by the owner's reap()");
        }
    }

    private static KeyShard shardOf(Hotkeeper hk, int id) {
        return Internals.keyShards(hk).shards().stream().filter(s -> s.id() == id).findFirst().orElseThrow();
    }

    @Test
    void aFullShardEvictsItsOwnUnvisitedLighterEntriesWithSieve() {
        try (Hotkeeper hk = Hotkeeper.builder().recordStats().memoryBytes(1 << 20).seed(SEED).minCount(1)
                .shardCapacity(16).build()) {
            // One heavy key, observed often enough to be visited; then ever heavier one-off keys, each of which
            // beats the (unvisited, lighter) SIEVE victim and takes its entry.
            for (int round = 0; round < 200; round++) {
                for (int i = 0; i < 64; i++) {
                    hk.observe("heavy");
                }
                hk.observe("light-" + round, round + 2);
            }
            KeyShard shard = Internals.keyShards(hk).shards().getFirst();
            assertTrue(shard.live() <= 16);
            List<HeavyHitter> top = hk.topK(16);
            assertEquals("heavy", top.getFirst().keyAsString(), "SIEVE kept the visited heavy key");
            assertEquals(200 * 64, top.getFirst().estimate());
            assertEquals("light-199", top.get(1).keyAsString(), "the newest, heaviest light key was admitted");
            assertTrue(hk.stats().promotions() > 150, "light keys were admitted, evicting lighter ones");
        }
    }

    @Test
    void aFullShardTurnsAwayLighterCandidatesAndTheFloorRisesAboveThem() {
        try (Hotkeeper hk = Hotkeeper.builder().recordStats().memoryBytes(1 << 20).seed(SEED).minCount(1)
                .shardCapacity(16).build()) {
            for (int i = 0; i < 16; i++) {
                hk.observe("resident-" + i, 100);
            }
            hk.observe("newcomer", 5);
            assertFalse(hk.topK(100).stream().anyMatch(h -> h.keyAsString().equals("newcomer")));
            assertEquals(6, hk.info().promotionFloor(), "the floor rose just above the turned-away candidate");
            assertEquals(16, hk.topK(100).size(), "every resident kept its entry");
            hk.observe("newcomer", 200); // now heavier than a resident: admitted, the victim evicted
            assertTrue(hk.topK(100).stream().anyMatch(h -> h.keyAsString().equals("newcomer")));
        }
    }

    @Test
    void queriesNeedKeyShardsAndRejectBadArguments() {
        try (Hotkeeper hk = Hotkeeper.builder().recordStats().keepKeys(false).build()) {
            hk.observe(1L);
            assertThrows(UnsupportedOperationException.class, hk::topK);
            assertFalse(hk.info().keepsKeys());
        }
        try (Hotkeeper hk = Hotkeeper.builder().recordStats().build()) {
            assertThrows(IllegalArgumentException.class, () -> hk.topK(-1));
            assertEquals(List.of(), hk.topK(0));
        }
        assertEquals("k=0: must be >= 1 and <= 100000",
                assertThrows(IllegalArgumentException.class, () -> Hotkeeper.builder().recordStats().k(0)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> Hotkeeper.builder().recordStats().maxKeyBytes(0));
        assertThrows(IllegalArgumentException.class, () -> Hotkeeper.builder().recordStats().shardCapacity(3));
        assertThrows(IllegalArgumentException.class, () -> Hotkeeper.builder().recordStats().minCount(0));
    }
}
