package io.hotkeeper.engine;

import io.hotkeeper.engine.SaltMode;
import org.junit.jupiter.api.Test;

import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Options that exclude each other, or that would have no effect in the configuration given, are refused by
 * {@code build()} with a message naming them (nothing is silently ignored); their valid combinations build.
 */
class ConfigurationChecksTest {
    @Test
    void optionsWithoutEffectAreRefusedNamingThem() {
        refused(() -> Hotkeeper.builder().keepKeys(false).maxKeyBytes(32), "keepKeys(false) with maxKeyBytes");
        refused(() -> Hotkeeper.builder().keepKeys(false).minCount(4), "keepKeys(false) with minCount");
        refused(() -> Hotkeeper.builder().keepKeys(false).shardCapacity(64), "keepKeys(false) with shardCapacity");
        refused(() -> Hotkeeper.builder().keepKeys(false).expelledKeyListener(h -> { }),
                "keepKeys(false) with expelledKeyListener");
        refused(() -> Hotkeeper.builder().memory(1 << 20).expectedThreads(1).saltShards(4),
                "saltShards=4 with saltMode SHARED");
        refused(() -> Hotkeeper.builder().memory(1 << 20).expectedThreads(2).saltShards(4),
                "saltShards=4 with saltMode PER_WORKER");
        refused(() -> Hotkeeper.builder()
                .partitioning(Partitioning.perWorker(2)).saltShards(4), "saltShards=4 with saltMode PER_TABLE");
        refused(() -> Hotkeeper.builder().combining(CombiningMode.OFF).combiner(64, 16), "combiner(...) with combining OFF");
        refused(() -> Hotkeeper.builder()
                .partitioning(Partitioning.perWorker(2)).combiner(64, 16), "AUTO stays off with per-worker tables");
        refused(() -> Hotkeeper.builder().clock(System::nanoTime), "clock(...) with partitioning shared()");
    }

    /** Each option once: a second call is refused where it is made, naming both calls (Caffeine's rule). */
    @Test
    void anOptionSetTwiceIsRefusedNamingBothCalls() {
        setTwice(() -> Hotkeeper.builder().sizedFor(100).k(1000), "k was already set by sizedFor(100); k(1000)");
        setTwice(() -> Hotkeeper.builder().k(10).sizedFor(100), "k was already set by k(10); sizedFor(100)");
        setTwice(() -> Hotkeeper.builder().memory(1 << 20).sizedFor(100),
                "sizing was already set by memory(1048576); sizedFor(100)");
        setTwice(() -> Hotkeeper.builder().memoryBytes(1 << 16).memory(1 << 20),
                "sizing was already set by memoryBytes(65536); memory(1048576)");
        setTwice(() -> Hotkeeper.builder().sizing(Sizing.total(1 << 20)).memoryBytes(1 << 16),
                "sizing was already set by memory(1048576); memoryBytes(65536)");
        setTwice(() -> Hotkeeper.builder().memory(1 << 20).memory(1 << 21), "sizing was already set by memory(1048576)");
        setTwice(() -> Hotkeeper.builder().seed(1).seed(2), "seed was already set by seed(1); seed(2)");
        setTwice(() -> Hotkeeper.builder().recordStats().recordStats(), "recordStats was already set");
        setTwice(() -> Hotkeeper.builder().saltMode(SaltMode.SHARED).shardedSalt(),
                "saltMode was already set by saltMode(SHARED); saltMode(SHARDED)");
        setTwice(() -> Hotkeeper.builder().partitioning(Partitioning.perWorker(2)).partitioning(Partitioning.shared()),
                "partitioning was already set");
        setTwice(() -> Hotkeeper.builder().minCount(4).minCount(4), "minCount was already set");
        setTwice(() -> Hotkeeper.builder().combining(CombiningMode.ON).combining(CombiningMode.OFF),
                "combining was already set by combining(ON); combining(OFF)");
        setTwice(() -> Hotkeeper.builder().name("a").name("b"), "name was already set by name(a); name(b)");
    }

    /** A call refused for its value does not count as setting the option. */
    @Test
    void anInvalidValueLeavesTheOptionUnset() {
        HotkeeperBuilder b = Hotkeeper.builder();
        assertThrows(IllegalArgumentException.class, () -> b.k(0));
        assertThrows(IllegalArgumentException.class, () -> b.memory(0));
        assertThrows(IllegalArgumentException.class, () -> b.memoryBytes(100));
        assertThrows(NullPointerException.class, () -> b.partitioning(null));
        b.k(10).memory(1 << 20).partitioning(Partitioning.shared());
        try (Hotkeeper hk = b.build()) {
            org.junit.jupiter.api.Assertions.assertEquals(10, hk.info().k());
            org.junit.jupiter.api.Assertions.assertTrue(hk.info().nativeBytes() <= 1 << 20);
        }
    }

    private static void setTwice(Supplier<HotkeeperBuilder> builder, String message) {
        var e = assertThrows(IllegalStateException.class, builder::get);
        assertTrue(e.getMessage().contains(message), e.getMessage());
    }

    @Test
    void theirValidCombinationsBuild() {
        build(Hotkeeper.builder().saltMode(SaltMode.SHARDED).saltShards(4));
        build(Hotkeeper.builder().partitioning(Partitioning.perWorker(2)).saltMode(SaltMode.SHARDED).saltShards(2));
        build(Hotkeeper.builder().partitioning(Partitioning.perWorker(2)).combining(CombiningMode.ON).combiner(64, 16));
        build(Hotkeeper.builder().combiner(64, 16));
        build(Hotkeeper.builder().memory(1 << 20).expectedThreads(4));
        // Without a total budget it still picks the salt: one writer, one shared counter; more, one per worker.
        try (Hotkeeper hk = Hotkeeper.builder().expectedThreads(1).build()) {
            assertEquals(SaltMode.SHARED, hk.saltMode());
        }
        try (Hotkeeper hk = Hotkeeper.builder().expectedThreads(4).build()) {
            assertEquals(SaltMode.PER_WORKER, hk.saltMode());
            assertEquals(4, hk.info().saltShards());
            assertEquals(512L, hk.info().nativeBytesByPart().get("salt"));
        }
        build(Hotkeeper.builder().keepKeys(false).combining(CombiningMode.OFF));
    }

    private static void refused(Supplier<HotkeeperBuilder> builder, String message) {
        var e = assertThrows(IllegalArgumentException.class, () -> builder.get().build());
        assertTrue(e.getMessage().contains(message), e.getMessage());
    }

    private static void build(HotkeeperBuilder builder) {
        try (Hotkeeper hk = builder.build()) {
            hk.observe(1L);
        }
    }
}
