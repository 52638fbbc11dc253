package io.hotkeeper.engine;

import io.hotkeeper.engine.SaltMode;
import org.junit.jupiter.api.Test;

import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Options that exclude each other, or that would have no effect in the configuration given, are refused by
 * {@code build()} with a message naming them (nothing is silently ignored); their valid combinations build.
 */
class ConfigurationChecksTest {
    @Test
    void optionsWithoutEffectAreRefusedNamingThem() {
        refused(() -> Hotkeeper.builder().keyShards(false).maxKeyBytes(32), "keyShards(false) with maxKeyBytes");
        refused(() -> Hotkeeper.builder().keyShards(false).promotionFloor(4), "keyShards(false) with promotionFloor");
        refused(() -> Hotkeeper.builder().keyShards(false).shardCapacity(64), "keyShards(false) with shardCapacity");
        refused(() -> Hotkeeper.builder().keyShards(false).expelledKeyListener(h -> { }),
                "keyShards(false) with expelledKeyListener");
        refused(() -> Hotkeeper.builder().saltShards(4), "saltShards=4 with saltMode SHARED");
        refused(() -> Hotkeeper.builder()
                .partitioning(Partitioning.perWorker(2)).saltShards(4), "saltShards=4 with saltMode PER_WORKER");
        refused(() -> Hotkeeper.builder().combining(CombiningMode.OFF).combiner(64, 16), "combiner(...) with combining OFF");
        refused(() -> Hotkeeper.builder()
                .partitioning(Partitioning.perWorker(2)).combiner(64, 16), "AUTO stays off with per-worker tables");
        refused(() -> Hotkeeper.builder().clock(System::nanoTime), "clock(...) with partitioning shared()");
        refused(() -> Hotkeeper.builder().expectedThreads(4), "expectedThreads=4 without memory(total)");
        refused(() -> Hotkeeper.builder().memory(1 << 20).sizedFor(100), "memoryBytes=16384 (or sizedFor)");
    }

    @Test
    void theirValidCombinationsBuild() {
        build(Hotkeeper.builder().saltMode(SaltMode.SHARDED).saltShards(4));
        build(Hotkeeper.builder().partitioning(Partitioning.perWorker(2)).saltMode(SaltMode.SHARDED).saltShards(2));
        build(Hotkeeper.builder().partitioning(Partitioning.perWorker(2)).combining(CombiningMode.ON).combiner(64, 16));
        build(Hotkeeper.builder().combiner(64, 16));
        build(Hotkeeper.builder().memory(1 << 20).expectedThreads(4));
        build(Hotkeeper.builder().keyShards(false).combining(CombiningMode.OFF));
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
