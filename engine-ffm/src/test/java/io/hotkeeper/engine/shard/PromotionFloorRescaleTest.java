package io.hotkeeper.engine.shard;

import io.hotkeeper.engine.CombiningMode;
import io.hotkeeper.engine.HeavyHitter;
import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.HotkeeperBuilder;
import io.hotkeeper.engine.Partitioning;
import io.hotkeeper.engine.core.Internals;
import io.hotkeeper.engine.table.BucketTable;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The promotion floor follows the counts both ways (issue #26, item 2): {@code reset()} and a recycled window slice
 * restore it to its configured value, {@code decay(f)} scales it with the counts, and a raise computed from counts
 * read before such a rescale does not outlive it.
 */
class PromotionFloorRescaleTest {
    private static final long SECOND = 1_000_000_000L;
    private static final long X = 1_000_000L;

    private static HotkeeperBuilder sixteenPerShard() {
        return Hotkeeper.builder().memoryBytes(16384).seed(1).shardCapacity(16).combining(CombiningMode.OFF);
    }

    /** 100 keys of 1,000 each from one thread: its shard of 16 fills and turns the rest away, floor 1,001. */
    private static void fillAndRaise(Hotkeeper hk) {
        for (long i = 0; i < 100; i++) {
            hk.observe(i, 1000);
        }
        assertEquals(1001, hk.info().promotionFloor(), "the floor rose above the turned-away keys");
    }

    private static List<Long> topKeys(Hotkeeper hk, int n) {
        return hk.topK(n).stream().map(HeavyHitter::keyAsLong).toList();
    }

    @Test
    void afterResetTheSketchTracksExactlyAsAFreshOne() {
        try (Hotkeeper hk = sixteenPerShard().build()) {
            fillAndRaise(hk);
            hk.reset();
            assertEquals(1, hk.info().promotionFloor(), "reset restores the configured floor");
            for (int i = 0; i < 500; i++) {
                hk.observe(X);
            }
            assertEquals(500, hk.estimate(X));
            List<HeavyHitter> top = hk.topK(5);
            assertEquals(1, top.size(), "only X: " + top);
            assertEquals(X, top.getFirst().keyAsLong());
            assertEquals(500, top.getFirst().estimate());
            ShardIntegrity.check(Internals.keyShards(hk));
        }
    }

    @Test
    void afterDecayAKeyThatBecomesHeavyAgainIsTracked() {
        try (Hotkeeper hk = sixteenPerShard().build()) {
            fillAndRaise(hk);
            Set<Long> tracked = hk.topK(100).stream().map(HeavyHitter::keyAsLong).collect(Collectors.toSet());
            long again = 0;
            while (tracked.contains(again)) {
                again++;
            }
            hk.decay(0.01);
            // The counts went from 1,000 to 10; the floor with them, from 1,001 to floor(1,001 x 0.01).
            assertEquals(10, hk.info().promotionFloor(), "decay scales the floor with the counts");
            for (int i = 0; i < 500; i++) {
                hk.observe(again);
            }
            assertEquals(510, hk.estimate(again));
            assertEquals(again, topKeys(hk, 1).getFirst(), "the key heavy again is tracked and on top");
            assertEquals(510, hk.topK(1).getFirst().estimate());
            ShardIntegrity.check(Internals.keyShards(hk));
        }
    }

    @Test
    void aRecycledWindowSliceStartsAgainFromTheConfiguredFloor() {
        AtomicLong now = new AtomicLong(0);
        try (Hotkeeper hk = sixteenPerShard().partitioning(Partitioning.window(Duration.ofSeconds(4), 4))
                .clock(now::get).build()) {
            fillAndRaise(hk); // slice 0: table 0, whose floor info() reports
            for (int slice = 1; slice <= 4; slice++) {
                now.addAndGet(SECOND);
                hk.totalWeight(); // a query rotates
            }
            // Slice 4 writes table 0 again: cleared for it, floor and all.
            assertEquals(1, hk.info().promotionFloor(), "the recycled table's floor is its initial value");
            for (int i = 0; i < 500; i++) {
                hk.observe(X);
            }
            assertEquals(List.of(X), topKeys(hk, 5));
            assertEquals(500, hk.topK(5).getFirst().estimate());
            ShardIntegrity.checkAll(Internals.keyShardSets(hk));
        }
    }

    @Test
    void aRaiseFromCountsReadBeforeAResetDoesNotOutliveIt() {
        try (Hotkeeper hk = sixteenPerShard().minCount(4).build()) {
            BucketTable table = Internals.tables(hk).table(0);
            KeyShards shards = Internals.keyShards(hk);
            // An owner reads the rescale count, then the counts that turn a candidate of 1,000 away...
            long before = shards.rescales();
            // ...a reset runs meanwhile and restores the floor...
            hk.reset();
            // ...and the owner's raise lands after it: taken back, since the counts it came from are gone.
            shards.rejected(1000, before);
            assertEquals(4, table.promotionFloor(), "the stale raise was given back");
            // A raise from counts read after the reset stands.
            shards.rejected(1000, shards.rescales());
            assertEquals(1001, table.promotionFloor());
        }
    }

    @Test
    void aRaiseThatLandsBeforeADecayIsScaledWithTheCounts() {
        try (Hotkeeper hk = sixteenPerShard().build()) {
            KeyShards shards = Internals.keyShards(hk);
            long before = shards.rescales();
            shards.rejected(1000, before);
            assertEquals(1001, hk.info().promotionFloor());
            hk.decay(0.5);
            assertEquals(500, hk.info().promotionFloor());
            assertFalse(before == shards.rescales(), "a decay counts as a rescale");
            // A floor never falls below the configured one, however small the factor.
            hk.decay(0.0001);
            assertEquals(1, hk.info().promotionFloor());
            assertTrue(shards.rescales() - before == 2);
        }
    }
}
