package io.hotkeeper.spark;

import io.hotkeeper.engine.Hotkeeper;

import java.io.Serializable;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What every sketch of one Spark aggregation is built with: its total native memory, k, the longest key kept
 * whole, and a fixed hash seed. The seed is the same for every sketch this module builds, so the sketches of
 * different partitions, tasks, executors and jobs hash alike, and equal specs split their memory alike (one
 * observing thread: {@code Builder.memory(total).expectedThreads(1)}), so their snapshots merge table by table
 * (docs/format.md); the price is that the seed is public (docs/spark.md, "Hash seed").
 *
 * @param memoryBytes the total native memory of one sketch ({@code Builder.memory}: table, links, control line and
 *                    key shard together), {@value #MIN_MEMORY} .. {@value #MAX_MEMORY}; the engine refuses a budget
 *                    too small for {@code k} keys of {@code maxKeyBytes}, naming the minimum ({@link #checked})
 * @param k           heavy hitters the sketch reports (1..100,000)
 * @param maxKeyBytes longest key stored whole; longer keys come back as their first {@code maxKeyBytes} bytes
 */
public record SketchSpec(long memoryBytes, int k, int maxKeyBytes) implements Serializable {
    /** The hash seed of every sketch built here (public; see the class comment). */
    public static final long SEED = 0x5EED_0F_5A_4B_4E_45L;
    /** The default {@code maxKeyBytes} of the Spark functions. */
    public static final int DEFAULT_MAX_KEY_BYTES = 128;
    /** Smallest {@code memory} argument accepted (the engine's minimum for k is usually higher). */
    public static final long MIN_MEMORY = 4096;
    /** Largest {@code memory} argument accepted: 256 MiB per sketch (a 64 MiB table, its links and shard). */
    public static final long MAX_MEMORY = 256L << 20;

    /** Entries of the key shard of each spec's sketches, found once per JVM (see {@link #shardCapacity()}). */
    private static final ConcurrentHashMap<SketchSpec, Integer> SHARD_CAPACITY = new ConcurrentHashMap<>();

    /**
     * Validates the parameters that need no allocation (the budget against k is {@link #checked}'s). Threads: any.
     *
     * @throws IllegalArgumentException if a parameter is out of range
     */
    public SketchSpec {
        if (memoryBytes < MIN_MEMORY || memoryBytes > MAX_MEMORY) {
            throw new IllegalArgumentException("memory=" + memoryBytes + " must be in " + MIN_MEMORY + ".."
                    + MAX_MEMORY);
        }
        Hotkeeper.builder().k(k).maxKeyBytes(maxKeyBytes).memory(memoryBytes).expectedThreads(1);
    }

    /**
     * A spec whose budget the engine accepts for {@code k}: builds one sketch and closes it at once (on the
     * driver, at analysis). Threads: any.
     *
     * @throws IllegalArgumentException if a parameter is out of range or {@code memoryBytes} cannot hold
     *                                  {@code k} keys (the engine's message names the minimum)
     */
    public static SketchSpec checked(long memoryBytes, int k, int maxKeyBytes) {
        SketchSpec spec = new SketchSpec(memoryBytes, k, maxKeyBytes);
        spec.shardCapacity();
        return spec;
    }

    /**
     * The default total memory for {@code k}: 8 x {@link Hotkeeper#recommendedMemoryBytes(int)} (the table the
     * engine recommends, with room for its links and a key shard), at most {@link #MAX_MEMORY}; 128 KiB for
     * k = 100. Threads: any.
     */
    public static long defaultMemory(int k) {
        return Math.min(MAX_MEMORY, 8 * Hotkeeper.recommendedMemoryBytes(k));
    }

    /** The spec the SQL functions use when no memory is given ({@link #defaultMemory}). Threads: any. */
    public static SketchSpec forK(int k) {
        return checked(defaultMemory(k), k, DEFAULT_MAX_KEY_BYTES);
    }

    /**
     * Entries of the key shard of this spec's sketches (the engine's split of the budget), from one sketch built
     * and closed the first time a JVM asks. Threads: any.
     */
    int shardCapacity() {
        return SHARD_CAPACITY.computeIfAbsent(this, spec -> {
            try (Hotkeeper sketch = spec.open(1)) {
                return sketch.info().shardCapacity();
            }
        });
    }

    /**
     * Opens a sketch with this spec. The caller owns its native memory and must close it (every caller in this
     * module does so in the same method, with try-with-resources). Threads: any.
     */
    Hotkeeper open() {
        return open(1);
    }

    /**
     * Opens a sketch whose key shard starts promoting keys at count {@code promotionFloor} (a live sketch raises
     * its floor by itself once its shard fills; a sketch reopened from a snapshot starts from the floor the
     * snapshot implies, see {@link SketchBuffer}). The caller must close it. Threads: any.
     */
    Hotkeeper open(long promotionFloor) {
        return Hotkeeper.builder()
                .memory(memoryBytes)
                // One thread observes each sketch (SketchBuffer.flush): one key shard, no combiner blocks (so
                // combining resolves to off by itself).
                .expectedThreads(1)
                .k(k)
                .maxKeyBytes(maxKeyBytes)
                .seed(SEED)
                // From 1, keys are tracked from their first occurrence: k distinct keys yield all k of them.
                .minCount(promotionFloor)
                .build();
    }
}
