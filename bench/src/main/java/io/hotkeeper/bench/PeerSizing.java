package io.hotkeeper.bench;

/**
 * How each peer is sized to a memory budget, in one place so that {@link PeerBenchmark}, {@link Evaluate} and
 * docs/peers.md agree. Every rule rounds down: a peer never gets more than the budget.
 *
 * <ul>
 *   <li><b>Hotkeeper</b>: {@code memoryBytes(budget)}, 64-byte buckets of 8 slots (8 bytes per slot). The key
 *       shards that hold the real keys of tracked entries come on top of the budget (as in the README).</li>
 *   <li><b>DataSketches {@code FrequentLongsSketch}</b>: {@code maxMapSize} = the largest power of two with
 *       {@code 18 * maxMapSize <= budget}. Its {@code ReversePurgeLongHashMap} holds a {@code long[]} of keys, a
 *       {@code long[]} of values and a {@code short[]} of probe states per slot: 8 + 8 + 2 = 18 bytes per slot
 *       (the DataSketches docs give the same 18 bytes); 3/4 of the slots can be live. 64 KiB: 2,048 slots
 *       (36,864 bytes, 1,536 counters); 16 KiB: 512; 8 KiB: 256; 8 MiB: 262,144.</li>
 *   <li><b>stream-lib {@code StreamSummary}</b> (Space-Saving): {@code budget / 32} counters, charging a compact
 *       implementation's 32 bytes per counter (key, count, error, one link or index). stream-lib's real on-heap
 *       footprint is about 4x that (Counter, ListNode2, boxed Long, HashMap node), which the rule ignores in the
 *       peer's favour. 64 KiB: 2,048 counters; 16 KiB: 512; 8 KiB: 256.</li>
 *   <li><b>Caffeine {@code FrequencySketch}</b>: {@code ensureCapacity(budget / 8)}: a table of that many
 *       {@code long}s (16 4-bit counters each), exactly the budget for a power-of-two budget. It has no top-k.</li>
 *   <li><b>{@link ReferenceHeavyKeeper}</b>: 8 bytes per bucket (32-bit fingerprint, 32-bit counter) and 16 bytes
 *       per heap entry (key, count); width per array = {@code (budget - 16 k) / (8 d)}. 64 KiB, k = 100, d = 2:
 *       3,996 buckets per array; 16 KiB: 924; 8 KiB: 412.</li>
 * </ul>
 */
public final class PeerSizing {
    /** Bytes per slot of DataSketches' reverse-purge long map: long key + long value + short state. */
    static final int DATASKETCHES_BYTES_PER_SLOT = 18;
    /** Bytes charged per Space-Saving counter. */
    static final int SPACE_SAVING_BYTES_PER_COUNTER = 32;
    /** Bytes per Caffeine table word. */
    static final int CAFFEINE_BYTES_PER_WORD = 8;

    private PeerSizing() {
    }

    /** DataSketches {@code maxMapSize}: largest power of two with 18 bytes per slot within the budget (min 8). */
    public static int dataSketchesMaxMapSize(long budget) {
        long slots = budget / DATASKETCHES_BYTES_PER_SLOT;
        return (int) Math.max(8, Long.highestOneBit(slots));
    }

    /** Space-Saving counters within the budget. */
    static int spaceSavingCapacity(long budget) {
        return (int) (budget / SPACE_SAVING_BYTES_PER_COUNTER);
    }

    /** Caffeine {@code maximumSize} whose table is the budget. */
    static long caffeineMaximumSize(long budget) {
        return budget / CAFFEINE_BYTES_PER_WORD;
    }
}
