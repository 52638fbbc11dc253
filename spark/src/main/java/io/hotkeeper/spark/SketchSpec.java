package io.hotkeeper.spark;

import io.hotkeeper.engine.CombiningMode;
import io.hotkeeper.engine.Hotkeeper;

import java.io.Serializable;

/**
 * What every sketch of one Spark aggregation is built with: the table memory, k, the longest key kept whole,
 * and a fixed hash seed. The seed is the same for every sketch this module builds, so the sketches of different
 * partitions, tasks, executors and jobs hash alike and their snapshots merge table by table (docs/format.md);
 * the price is that the seed is public (docs/spark.md, "Hash seed").
 *
 * @param memoryBytes table bytes ({@code Builder.memoryBytes}: 4 KiB .. 64 MiB)
 * @param k           heavy hitters the sketch reports (1..100,000)
 * @param maxKeyBytes longest key stored whole; longer keys come back as their first {@code maxKeyBytes} bytes
 */
public record SketchSpec(long memoryBytes, int k, int maxKeyBytes) implements Serializable {
    /** The hash seed of every sketch built here (public; see the class comment). */
    public static final long SEED = 0x5EED_0F_5A_4B_4E_45L;
    /** The default {@code maxKeyBytes} of the Spark functions. */
    public static final int DEFAULT_MAX_KEY_BYTES = 128;

    /**
     * Validates the parameters with the engine builder's own checks (nothing is built). Threads: any.
     *
     * @throws IllegalArgumentException if a parameter is out of range
     */
    public SketchSpec {
        Hotkeeper.builder().k(k).maxKeyBytes(maxKeyBytes).memoryBytes(memoryBytes);
    }

    /**
     * The spec the SQL functions use when no memory is given: {@link Hotkeeper#recommendedMemoryBytes(int)}
     * for {@code k}, which is at least 4 KiB and 160 bytes per key. Threads: any.
     */
    public static SketchSpec forK(int k) {
        return new SketchSpec(Hotkeeper.recommendedMemoryBytes(k), k, DEFAULT_MAX_KEY_BYTES);
    }

    /**
     * Opens a sketch with this spec. The caller owns its native memory and must close it (every caller in this
     * module does so in the same method, with try-with-resources). Threads: any.
     */
    Hotkeeper open() {
        return open(1);
    }

    /**
     * Opens a sketch whose key shards start promoting keys at count {@code promotionFloor} (a live sketch raises
     * its floor by itself once its shards fill; a sketch reopened from a snapshot starts from the floor the
     * snapshot implies, see {@link SketchBuffer}). The caller must close it. Threads: any.
     */
    Hotkeeper open(long promotionFloor) {
        return Hotkeeper.builder()
                .memoryBytes(memoryBytes)
                .k(k)
                .maxKeyBytes(maxKeyBytes)
                .seed(SEED)
                // From 1, keys are tracked from their first occurrence: k distinct keys yield all k of them.
                .promotionFloor(promotionFloor)
                // One thread observes each sketch (SketchBuffer.flush): no hot-key combining.
                .combining(CombiningMode.OFF)
                .build();
    }
}
