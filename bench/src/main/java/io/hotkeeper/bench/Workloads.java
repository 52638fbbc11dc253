package io.hotkeeper.bench;

import io.hotkeeper.engine.Partitioning;
import io.hotkeeper.engine.SaltMode;
import io.hotkeeper.engine.Placement;
import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.HotkeeperBuilder;
import io.hotkeeper.engine.workload.ZipfKeys;

import java.util.SplittableRandom;

/**
 * Fixtures shared by the benchmarks: sketches built from {@code @Param} strings and pre-generated key streams.
 * Everything here runs in {@code @Setup}, never inside a measured method.
 */
final class Workloads {
    /** Hash seed of every benchmark sketch: fixed so that runs and forks are comparable. */
    static final long SKETCH_SEED = 0x407_6ee9e5L;

    private Workloads() {
    }

    /**
     * A seeded sketch of {@code memoryBytes} with salt {@code "shared"} or {@code "sharded"} (the builder's
     * default shard count, {@code SaltLayout.shardsFor(availableProcessors)}).
     */
    static Hotkeeper sketch(long memoryBytes, String salt) {
        return sketch(memoryBytes, salt, true, 0, "default", "auto", 1);
    }

    /**
     * As {@link #sketch(long, String)}, with key shards on or off, approximate counting from 2^approx, a NUMA
     * placement policy ({@code Placement.parse}), hot-key combining auto (the default), on or off, and
     * {@code workerTables} tables (1: one shared table). {@code salt}: shared, sharded, perWorker, or default
     * (the builder's choice: shared, or per-worker with worker tables).
     */
    static Hotkeeper sketch(long memoryBytes, String salt, boolean keyShards, int approx, String placement,
                            String combining, int workerTables) {
        return builder(memoryBytes, salt, keyShards, approx, placement, combining, workerTables).build();
    }

    /** The builder {@link #sketch(long, String, boolean, int, String, String, int)} builds, for more options. */
    static HotkeeperBuilder builder(long memoryBytes, String salt, boolean keyShards, int approx, String placement,
                                     String combining, int workerTables) {
        HotkeeperBuilder builder = Hotkeeper.builder().memoryBytes(memoryBytes).seed(SKETCH_SEED)
                .keepKeys(keyShards)
                .combining(io.hotkeeper.engine.CombiningMode.valueOf(combining.toUpperCase(java.util.Locale.ROOT)))
                .placement(io.hotkeeper.engine.Placement.parse(placement))
                .partitioning(Partitioning.perWorker(workerTables));
        if (approx != 0) {
            builder.approximateCountsAbove(1L << approx); // the parameter is the log2, as in the earlier results
        }
        switch (salt) {
            case "default" -> { }
            case "shared" -> builder.saltMode(io.hotkeeper.engine.SaltMode.SHARED);
            case "sharded" -> builder.shardedSalt();
            case "perWorker" -> builder.saltMode(io.hotkeeper.engine.SaltMode.PER_WORKER);
            case "perTable" -> builder.saltMode(io.hotkeeper.engine.SaltMode.PER_TABLE);
            default -> throw new IllegalArgumentException("salt=" + salt
                    + ": must be default, shared, sharded, perWorker or perTable");
        }
        return builder;
    }

    /** The {@code long} key of item {@code item} (0-based): the key {@link ZipfKeys} gives rank {@code item + 1}. */
    static long keyOfItem(int item) {
        return ZipfKeys.keyOfRank(item + 1L);
    }

    /** A pre-generated stream: item indexes, and the same stream as {@code long} keys. */
    record Stream(int[] items) {
        /**
         * The stream as keys; equal to {@code new ZipfKeys(distinct, s).keys(count, seed)} for the arguments of
         * {@link #zipfStream}.
         */
        long[] keys() {
            long[] keys = new long[items.length];
            for (int i = 0; i < keys.length; i++) {
                keys[i] = keyOfItem(items[i]);
            }
            return keys;
        }
    }

    /**
     * {@code count} draws over {@code distinct} items for {@code name} = {@code "zipf<s>"} (e.g. {@code zipf1.0})
     * or {@code "uniform"} (exponent 0), drawn exactly as {@link ZipfKeys#keys(int, long)} draws them.
     */
    static Stream zipfStream(String name, int distinct, int count, long seed) {
        double exponent;
        if (name.equals("uniform")) {
            exponent = 0.0;
        } else if (name.startsWith("zipf")) {
            exponent = Double.parseDouble(name.substring("zipf".length()));
        } else {
            throw new IllegalArgumentException("stream=" + name + ": must be zipf<exponent> or uniform");
        }
        ZipfKeys zipf = new ZipfKeys(distinct, exponent);
        SplittableRandom random = new SplittableRandom(seed);
        int[] items = new int[count];
        for (int i = 0; i < count; i++) {
            items[i] = zipf.rankOf(random.nextDouble()) - 1;
        }
        return new Stream(items);
    }
}
