package io.hotkeeper.bench;

import io.hotkeeper.engine.Hotkeeper;

import com.clearspring.analytics.stream.StreamSummary;
import org.apache.datasketches.common.ArrayOfStringsSerDe;
import org.apache.datasketches.frequencies.ErrorType;
import org.apache.datasketches.frequencies.FrequentItemsSketch;
import org.apache.datasketches.frequencies.FrequentLongsSketch;

import java.util.Collection;
import java.util.Locale;
import java.util.Map;

/**
 * What each peer of {@link PeerBenchmark} holds at the end of a trial, in bytes, stated the same way for all of
 * them: one line, total first, then the parts. Read from the peers' own state after the run (native bytes by
 * part, the object graph, current map lengths, entry counts), never from the sizing rule alone. On-heap peers
 * are measured with JOL ({@link Contender#heapBytes}: every reachable object, headers, boxed keys and padding,
 * with this JVM's layout); the parts after it are layout arithmetic (12-byte header, 4-byte references, 8-byte
 * alignment, array header 16 bytes), {@code ~} where small parts are left out. The exact map is estimated only
 * (walking a million entries would take longer than the trial's teardown should).
 *
 * <p>Threads: call after the writers stopped. Progress: blocking (the heap walks).
 */
final class PeerMemory {
    /** DataSketches' reverse-purge maps fill to 3/4 of their length. */
    private static final double LOAD_FACTOR = 0.75;

    private PeerMemory() {
    }

    /**
     * Hotkeeper: every native byte of the sketch, by part ({@code info().nativeBytesByPart()}: table, links,
     * control, key shards of all workers, combiner blocks, salt, stats).
     */
    static String hotkeeper(Hotkeeper hk) {
        var info = hk.info();
        return String.format(Locale.ROOT, "Hotkeeper: %,d native bytes = %s; nothing on the heap per key",
                info.nativeBytes(), info.nativeBytesByPart());
    }

    /**
     * DataSketches {@code FrequentLongsSketch}es (one per thread): each holds a {@code long[]} of keys, a
     * {@code long[]} of counts and a {@code short[]} of states of the map's current length, 18 bytes per slot.
     */
    static String longsSketches(String name, Collection<FrequentLongsSketch> sketches) {
        long arrays = 0;
        long serialized = 0;
        long active = 0;
        for (FrequentLongsSketch s : sketches) {
            long length = Math.round(s.getCurrentMapCapacity() / LOAD_FACTOR);
            arrays += PeerSizing.DATASKETCHES_BYTES_PER_SLOT * length + 3 * 16;
            serialized += s.getStorageBytes();
            active += s.getNumActiveItems();
        }
        return String.format(Locale.ROOT, "%s: %,d heap bytes measured (JOL, every object) = %d sketch(es) x map"
                        + " arrays (18 B x map length + 3 array headers: %,d) + sketch and map objects; %,d counters"
                        + " live; getStorageBytes %,d", name, Contender.heapBytes(sketches.toArray()), sketches.size(),
                arrays, active, serialized);
    }

    /**
     * DataSketches {@code FrequentItemsSketch<String>}s (one per thread): per slot a reference (4), a count (8) and
     * a state (2), plus the {@code String} of every live item: 24 bytes of {@code String} and a
     * {@code byte[]} of 16 + length rounded up to 8 (Latin-1 strings).
     */
    static String itemsSketches(String name, Collection<FrequentItemsSketch<String>> sketches) {
        long arrays = 0;
        long keys = 0;
        long serialized = 0;
        long active = 0;
        ArrayOfStringsSerDe serDe = new ArrayOfStringsSerDe();
        for (FrequentItemsSketch<String> s : sketches) {
            long length = Math.round(s.getCurrentMapCapacity() / LOAD_FACTOR);
            arrays += (4 + 8 + 2) * length + 3 * 16;
            for (FrequentItemsSketch.Row<String> r : s.getFrequentItems(0, ErrorType.NO_FALSE_NEGATIVES)) {
                keys += stringBytes(r.getItem());
            }
            serialized += s.toByteArray(serDe).length;
            active += s.getNumActiveItems();
        }
        return String.format(Locale.ROOT, "%s: %,d heap bytes measured (JOL, every object) ~ %d sketch(es) x (map"
                        + " arrays: 14 B x map length + 3 array headers) %,d + the live keys' Strings %,d; %,d counters"
                        + " live; toByteArray %,d", name, Contender.heapBytes(sketches.toArray()), sketches.size(),
                arrays, keys, active, serialized);
    }

    /** The paper's HeavyKeeper (one per thread): {@link ReferenceHeavyKeeper#heldBytes()}. */
    static String referenceHeavyKeeper(Collection<ReferenceHeavyKeeper> sketches) {
        long total = 0;
        for (ReferenceHeavyKeeper s : sketches) {
            total += s.heldBytes();
        }
        return String.format(Locale.ROOT, "ReferenceHeavyKeeper: %,d heap bytes measured (JOL, every object); arrays"
                + " %,d = %d x (buckets + heap of k + its index + the decay table)",
                Contender.heapBytes(sketches.toArray()), total, sketches.size());
    }

    /**
     * stream-lib {@code StreamSummary}, measured with JOL (every object); per counter: {@code Counter} (40), its
     * list node (24), the {@code HashMap.Node} (32), the boxed key (16), and 4 bytes per slot of the map's table;
     * plus one bucket per distinct count (a {@code Bucket}, its list and a node).
     */
    static String streamSummary(StreamSummary<Long> summary) {
        long counters = summary.size();
        long table = tableLength(counters);
        long bytes = counters * (40 + 24 + 32 + 16) + 16 + 4 * table;
        return String.format(Locale.ROOT, "StreamSummary: %,d heap bytes measured (JOL, every object, buckets"
                + " included); counters alone ~%,d = %,d counters x 112 + map table %,d slots x 4",
                Contender.heapBytes(summary), bytes, counters, table);
    }

    /**
     * The exact map, per key: {@code ConcurrentHashMap.Node} (32), the boxed key (16), a {@code LongAdder} (24),
     * and 4 bytes per slot of the table; not counted: {@code LongAdder} cells created under contention.
     */
    static String exactMap(Map<Long, ?> map) {
        long keys = map.size();
        long table = tableLength(keys);
        return String.format(Locale.ROOT, "exactMap: ~%,d heap bytes = %,d keys x 72 + table %,d slots x 4 (adder"
                + " cells not counted)", keys * 72 + 16 + 4 * table, keys, table);
    }

    /** Caffeine's {@code FrequencySketch}: its {@code long[]} table. */
    static String caffeine(long tableBytes) {
        return String.format(Locale.ROOT, "Caffeine FrequencySketch: %,d heap bytes (the long[] table)", tableBytes);
    }

    /** Heap bytes of a Latin-1 {@code String} of {@code s.length()} characters, its {@code byte[]} included. */
    static long stringBytes(String s) {
        return 24 + ((16 + s.length() + 7) & ~7L);
    }

    /** The table length of a {@code HashMap} or {@code ConcurrentHashMap} grown to {@code entries} (load 3/4). */
    private static long tableLength(long entries) {
        long needed = Math.max(16, (long) Math.ceil(entries / LOAD_FACTOR));
        return Long.highestOneBit(needed - 1) << 1;
    }
}
