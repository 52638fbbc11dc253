package io.hotkeeper.engine;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code info()} reports every native byte by part, and the defaults allocate nothing for stats. */
class NativeBytesInfoTest {
    @Test
    void theDefaultsAllocateTableControlLinksSaltAndTheShardOfEachPromotingWorker() throws Exception {
        try (Hotkeeper hk = Hotkeeper.builder().memoryBytes(16 * 1024).build()) {
            Map<String, Long> before = hk.info().nativeBytesByPart();
            assertEquals(16 * 1024L, before.get("table"));
            assertEquals(16 * 1024L, before.get("links"));
            assertTrue(before.get("control") > 0 && before.get("salt") > 0, before.toString());
            assertFalse(before.containsKey("stats"), "no stats region without recordStats(): " + before);
            assertFalse(before.containsKey("shard"), "no shard before a worker promotes: " + before);
            hk.observe(42L);
            HotkeeperInfo one = hk.info();
            assertTrue(one.nativeBytesByPart().get("shard") > 0, one.toString());
            assertEquals(one.shardBytes(), one.nativeBytesByPart().get("shard") + one.nativeBytesByPart().get("links"));
            Thread other = new Thread(() -> hk.observe(43L));
            other.start();
            other.join();
            HotkeeperInfo two = hk.info();
            assertEquals(2 * one.nativeBytesByPart().get("shard"), two.nativeBytesByPart().get("shard"),
                    "a second promoting worker adds a shard of the same size");
            assertEquals(two.nativeBytesByPart().values().stream().mapToLong(Long::longValue).sum(),
                    two.nativeBytes());
        }
    }

    @Test
    void statsAndApproximateCountingAllocateTheStatsRegion() {
        try (Hotkeeper hk = Hotkeeper.builder().recordStats().build()) {
            assertTrue(hk.info().nativeBytesByPart().get("stats") > 0);
            hk.observe(1L);
            assertEquals(1, hk.stats().claims());
        }
        try (Hotkeeper hk = Hotkeeper.builder().approximateCountsAbove(16).build()) {
            assertTrue(hk.info().nativeBytesByPart().get("stats") > 0);
            for (int i = 0; i < 1000; i++) {
                hk.observe(7L);
            }
            assertTrue(hk.estimate(7L) > 500, "coins work: " + hk.estimate(7L));
        }
        try (Hotkeeper hk = Hotkeeper.builder().build()) {
            hk.observe(1L);
            assertEquals(0, hk.stats().claims(), "stats off: zeros, read without a region");
        }
    }
}
