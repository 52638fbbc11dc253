package io.hotkeeper.bench;

import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.HotkeeperBuilder;

import org.apache.datasketches.frequencies.FrequentLongsSketch;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * How each peer is sized to a memory budget, in one place so that {@link PeerBenchmark}, {@link Evaluate} and
 * docs/peers.md agree. Every rule rounds down: a peer never gets more than the budget (except Hotkeeper's
 * {@code TABLE} sizing, which budgets the table alone).
 *
 * <ul>
 *   <li><b>Hotkeeper</b> ({@link HotkeeperSizing}): {@code TOTAL} (the default of {@code PeerBenchmark}):
 *       {@code memory(budget)} with {@code expectedThreads} = the benchmark's threads, so every native byte
 *       (table, links, key shards, combiner blocks, control, salt) fits the budget; {@code TABLE}:
 *       {@code memoryBytes(budget)}, the table alone is the budget, and its links and the key shards that hold
 *       the real keys of tracked entries come on top (about 3.9x the budget at 64 KiB and one thread).</li>
 *   <li><b>DataSketches {@code FrequentLongsSketch}</b>: {@code maxMapSize} = the largest power of two whose
 *       sketch, grown to its full map, measures within the budget with JOL (every object: the sketch, its
 *       {@code ReversePurgeLongHashMap}, a {@code long[]} of keys, a {@code long[]} of values and a
 *       {@code short[]} of probe states, 8 + 8 + 2 = 18 bytes per slot, with their headers); 3/4 of the slots
 *       can be live. On JDK 25 with compressed oops a sketch measures 18 x maxMapSize + 136 bytes: 64 KiB gets
 *       2,048 slots (37,000 B); 4,096 slots need 73,864 B, 136 B over 72 KiB, so they need a budget of at least
 *       73,864 B; 16 KiB: 512 (9,352 B); 8 KiB: 256 (4,744 B); 8 MiB: 262,144 (4,718,728 B)
 *       ({@code PeerSizingTest}).</li>
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

    /** {@link #dataSketchesMaxMapSize} by budget (measuring takes a sketch filled to its full map). */
    private static final ConcurrentMap<Long, Integer> DATASKETCHES_SIZES = new ConcurrentHashMap<>();

    /**
     * DataSketches {@code maxMapSize} for {@code budget} bytes: the largest power of two (at least 8, the
     * smallest map) whose sketch, filled to its full map, measures within the budget
     * ({@link #dataSketchesFootprint}). Measured once per budget and kept.
     *
     * <p>Threads: any (the cache is concurrent; two threads may both measure a budget the first time).
     * Progress: blocking (the first call for a budget fills and measures sketches).
     *
     * @throws IllegalArgumentException if not even an 8-slot sketch fits
     */
    public static int dataSketchesMaxMapSize(long budget) {
        return DATASKETCHES_SIZES.computeIfAbsent(budget, b -> {
            // 18 bytes per slot is a lower bound of the footprint: no larger size can fit.
            for (long size = Long.highestOneBit(Math.max(1, b / DATASKETCHES_BYTES_PER_SLOT)); size >= 8;
                 size >>= 1) {
                if (dataSketchesFootprint((int) size) <= b) {
                    return (int) size;
                }
            }
            throw new IllegalArgumentException("budget=" + b + " B: too small for an 8-slot DataSketches sketch ("
                    + dataSketchesFootprint(8) + " B)");
        });
    }

    /**
     * What a {@code FrequentLongsSketch(maxMapSize)} holds once its map has grown to full size, in bytes: JOL's
     * walk of every object reachable from it, with this JVM's layout. The map grows by doubling up to
     * {@code maxMapSize} and never beyond (a purge keeps its arrays), so no later state of the sketch holds
     * more.
     *
     * <p>Threads: any. Progress: blocking (fills a fresh sketch with {@code 2 * maxMapSize} distinct keys).
     */
    static long dataSketchesFootprint(int maxMapSize) {
        FrequentLongsSketch sketch = new FrequentLongsSketch(maxMapSize);
        for (long key = 1; key <= 2L * maxMapSize; key++) {
            sketch.update(key * 0x9E37_79B9_7F4A_7C15L);
        }
        if (Math.round(sketch.getCurrentMapCapacity() / 0.75) != maxMapSize) {
            throw new IllegalStateException("the sketch's map did not grow to " + maxMapSize + " slots: capacity "
                    + sketch.getCurrentMapCapacity());
        }
        return Contender.heapBytes(sketch);
    }

    /** How {@code PeerBenchmark} fits Hotkeeper to its {@code memory} budget ({@code -p hotkeeperSizing}). */
    public enum HotkeeperSizing {
        /** {@code memoryBytes(budget)}: the table alone is the budget; links, key shards and the rest on top. */
        TABLE,
        /** {@code memory(budget)}: every native byte of the instance within the budget. */
        TOTAL;

        /**
         * The {@code -p hotkeeperSizing} value: {@code table} or {@code total}, any case.
         *
         * <p>Threads: any. Progress: wait-free.
         */
        public static HotkeeperSizing of(String name) {
            return valueOf(name.toUpperCase(java.util.Locale.ROOT));
        }
    }

    /**
     * A Hotkeeper builder sized to {@code budget} by {@code sizing}: {@code TABLE} sets {@code memoryBytes(budget)};
     * {@code TOTAL} sets {@code memory(budget)}, {@code expectedThreads(threads)} (the budget split for that many
     * observing threads) and, if {@code maxKeyBytes > 0}, {@code maxKeyBytes(maxKeyBytes)} (8 for {@code long}
     * keys: one shard size class, more of the budget for the table; docs/peers.md; 0 without key shards, which
     * refuse the option). The caller adds the rest (seed, k, modes).
     *
     * <p>Threads: any (a fresh builder per call). Progress: wait-free.
     */
    public static HotkeeperBuilder hotkeeper(HotkeeperSizing sizing, long budget, int threads, int maxKeyBytes) {
        return switch (sizing) {
            case TABLE -> Hotkeeper.builder().memoryBytes(budget);
            case TOTAL -> {
                HotkeeperBuilder b = Hotkeeper.builder().memory(budget).expectedThreads(threads);
                yield maxKeyBytes > 0 ? b.maxKeyBytes(maxKeyBytes) : b;
            }
        };
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
