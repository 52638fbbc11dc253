package com.github.benmanes.caffeine.cache;

/**
 * A public handle on Caffeine's package-private {@code FrequencySketch} (the 4-bit count-min sketch of W-TinyLFU),
 * for the peer benchmarks only.
 *
 * <p>It works because the benchmarks run from the shaded {@code benchmarks.jar} on the class path: there every
 * class, this one and Caffeine's, is in the unnamed module, and a package may be split across jars. On the module
 * path ({@code com.github.benmanes.caffeine} is a named module) this class would be refused as a split package;
 * the workaround there is {@code --patch-module com.github.benmanes.caffeine=<this class's jar>}.
 *
 * <p>Threads: one. Caffeine itself only calls the sketch under its eviction lock; concurrent increments race
 * benignly (lost updates) but are not what Caffeine does.
 */
public final class FrequencySketchAccess {
    private final FrequencySketch sketch = new FrequencySketch();

    /**
     * A sketch whose table is {@code ceilingPowerOfTwo(maximumSize)} longs (8 bytes each), as Caffeine sizes it
     * for a cache of {@code maximumSize} entries.
     */
    public FrequencySketchAccess(long maximumSize) {
        sketch.ensureCapacity(maximumSize);
    }

    /** Counts one occurrence of {@code key} (hashes {@code key.hashCode()}). */
    public void increment(Object key) {
        sketch.increment(key);
    }

    /** The estimated frequency of {@code key}, 0..15. */
    public int frequency(Object key) {
        return sketch.frequency(key);
    }

    /** Bytes of the counter table. */
    public long tableBytes() {
        return 8L * sketch.table.length;
    }
}
