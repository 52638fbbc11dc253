package io.hotkeeper.engine.shard;

import io.hotkeeper.engine.CombiningMode;
import io.hotkeeper.engine.HeavyHitter;
import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.Partitioning;
import io.hotkeeper.engine.core.Internals;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A size class's own promotion floor (docs/shards.md, "A class with no room keeps its floor to itself") with the
 * paths it meets in a whole sketch: the table-wide floor beside it, {@code decay}, {@code reset}, a window's
 * recycled slice and a second writer.
 * The sketch is starved on purpose: ten-byte keys seen once take every page, so the 50-byte keys that come next
 * have the largest class's first page alone (five entries) and the rest of them are turned away.
 */
class ClassFloorTest {
    private static final int LONG_KEYS = 20;
    private static final int ROUNDS = 40;

    private static String shortKey(int i) {
        return String.format("s%09d", i);
    }

    private static String longKey(int i) {
        StringBuilder key = new StringBuilder("long/").append(i).append('/');
        while (key.length() < 50) {
            key.append((char) ('a' + key.length() % 26));
        }
        return key.toString();
    }

    private static Hotkeeper starved() {
        Hotkeeper hk = Hotkeeper.builder().memory(24576).maxKeyBytes(64).seed(1).combining(CombiningMode.OFF)
                .build();
        starve(hk);
        return hk;
    }

    private static void starve(Hotkeeper hk) {
        for (int i = 0; i < 3000; i++) {
            hk.observe(shortKey(i));
        }
        for (int round = 0; round < ROUNDS; round++) {
            for (int j = 0; j < LONG_KEYS; j++) {
                hk.observe(longKey(j));
            }
        }
    }

    private static KeyShard shardOf(Hotkeeper hk) {
        List<KeyShard> shards = Internals.keyShards(hk).shards();
        assertTrue(shards.size() == 1, "one writer, one shard: " + shards.size());
        return shards.getFirst();
    }

    /** Observes a long key not seen before {@code ROUNDS - 10} times; whether {@code topK(100)} then lists it. */
    private static boolean lateLongKeyListed(Hotkeeper hk) {
        String late = longKey(LONG_KEYS);
        for (int i = 0; i < ROUNDS - 10; i++) {
            hk.observe(late);
        }
        return listed(hk, late);
    }

    private static boolean listed(Hotkeeper hk, String key) {
        return hk.topK(100).stream().map(HeavyHitter::keyAsString).anyMatch(key::equals);
    }

    @Test
    void theLongKeysClassKeepsItsFloorAndTheTableFloorStaysWithTheLightKeys() {
        try (Hotkeeper hk = starved()) {
            KeyShard shard = shardOf(hk);
            assertTrue(shard.belowClassFloor(50, ROUNDS - 5), "the 50-byte class is starved at about " + ROUNDS);
            assertFalse(shard.belowClassFloor(10, 2), "the ten-byte keys' class is not held back by it");
            long floor = hk.info().promotionFloor();
            assertTrue(floor <= 2, "the table floor follows the light keys, not the long ones: " + floor);
            // A ten-byte key seen twice takes a light entry: the long keys' rejections did not keep it out.
            String newcomer = shortKey(1_000_000);
            hk.observe(newcomer);
            hk.observe(newcomer);
            assertTrue(listed(hk, newcomer), "a short key at 2 is tracked");
            // A fresh long key below the class's floor is not tracked.
            assertFalse(lateLongKeyListed(hk), "below its class's floor, with every entry of the class heavier");
            ShardIntegrity.check(Internals.keyShards(hk));
        }
    }

    @Test
    void afterDecayTheClassFloorNoLongerStands() {
        try (Hotkeeper hk = starved()) {
            KeyShard shard = shardOf(hk);
            assertTrue(shard.belowClassFloor(50, ROUNDS - 5));
            hk.decay(0.5);
            assertFalse(shard.belowClassFloor(50, ROUNDS - 5), "decided from counts that decay has replaced");
            // The tracked long keys now count about 20: a fresh one observed 30 times takes one's entry.
            assertTrue(lateLongKeyListed(hk), "heavier than the decayed long keys: tracked");
            ShardIntegrity.check(Internals.keyShards(hk));
        }
    }

    @Test
    void afterResetTheSketchTracksALongKeyAsAFreshOneWould() {
        try (Hotkeeper hk = starved()) {
            KeyShard shard = shardOf(hk);
            hk.reset();
            assertFalse(shard.belowClassFloor(50, 1));
            String late = longKey(LONG_KEYS);
            hk.observe(late);
            assertTrue(listed(hk, late), "tracked at its first observation, as in a fresh sketch");
            ShardIntegrity.check(Internals.keyShards(hk));
        }
    }

    @Test
    void aRecycledWindowSliceStartsWithoutTheClassFloor() {
        AtomicLong now = new AtomicLong(0);
        try (Hotkeeper hk = Hotkeeper.builder().memory(98304).maxKeyBytes(64).seed(1).combining(CombiningMode.OFF)
                .partitioning(Partitioning.window(Duration.ofSeconds(4), 4)).clock(now::get).build()) {
            starve(hk); // slice 0: table 0 and its shard
            KeyShard first = Internals.keyShardSets(hk).getFirst().shards().getFirst();
            assertTrue(first.belowClassFloor(50, ROUNDS - 5), "slice 0's 50-byte class is starved");
            for (int slice = 1; slice <= 4; slice++) {
                now.addAndGet(1_000_000_000L);
                hk.totalWeight(); // a query rotates
            }
            // Slice 4 writes table 0 again, cleared for it: its shard's class floor no longer stands.
            assertFalse(first.belowClassFloor(50, 1));
            String late = longKey(LONG_KEYS);
            hk.observe(late);
            assertTrue(listed(hk, late), "tracked at its first observation in the recycled slice");
            ShardIntegrity.checkAll(Internals.keyShardSets(hk));
        }
    }

    @Test
    void anotherThreadsShortKeyIsNotKeptOutByTheLongKeysRejections() throws InterruptedException {
        try (Hotkeeper hk = starved()) {
            // Another writer of the same table (its promotions go to this shard or to one of its own): the
            // table-wide floor it meets follows the light entries, so a short key it sees twice is tracked.
            String newcomer = shortKey(2_000_000);
            Thread other = Thread.ofPlatform().start(() -> {
                hk.observe(newcomer);
                hk.observe(newcomer);
            });
            other.join();
            assertTrue(listed(hk, newcomer), "tracked, whichever shard took it");
            ShardIntegrity.check(Internals.keyShards(hk));
        }
    }
}
