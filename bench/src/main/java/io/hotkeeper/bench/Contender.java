package io.hotkeeper.bench;

import io.hotkeeper.engine.HeavyHitter;
import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.HotkeeperBuilder;
import io.hotkeeper.engine.HotkeeperInfo;

import com.clearspring.analytics.stream.Counter;
import com.clearspring.analytics.stream.StreamSummary;
import org.apache.datasketches.frequencies.ErrorType;
import org.apache.datasketches.frequencies.FrequentLongsSketch;
import org.openjdk.jol.info.GraphLayout;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A heavy-hitter sketch under {@link Evaluate} at a TOTAL memory budget: everything the instance (or, per
 * thread, all its instances) holds after the run must fit in the budget. It counts a stream of {@code long} keys
 * on one or more threads, then reports its top k, highest estimate first.
 *
 * <p>Threads split a stream into chunks of {@link #CHUNK} keys dealt round-robin: thread t observes chunks t,
 * t + T, t + 2T, ... in order (a load balancer's view of one stream). Hotkeeper is shared by the threads
 * lock-free; a peer that is not thread-safe is one instance under one lock, the arrangement that keeps its whole
 * budget in one sketch and so its accuracy (per-thread instances would each get 1/T of the budget and be merged
 * or summed at query time). Bytes of on-heap peers are measured by walking their object graph after the run with JOL
 * ({@link GraphLayout#totalSize()}: every object and array reachable from the sketch, headers, boxed keys and
 * padding included, with this JVM's real layout).
 */
interface Contender extends AutoCloseable {
    /** Keys per chunk dealt to a thread. */
    int CHUNK = 4096;

    /** A reported key and its estimate. */
    record Hit(long key, long estimate) {
    }

    /** The contender's name in the tables. */
    String name();

    /** Observes the whole stream on {@code threads} threads (or per-thread instances). */
    void run(long[] stream);

    /** At most {@code k} keys, highest estimate first. */
    List<Hit> topK(int k);

    /** Bytes held now (after {@link #run}): native bytes for Hotkeeper, the heap graph for the others. */
    long heldBytes();

    /** The configuration and what the bytes are made of. */
    String held();

    @Override
    default void close() {
    }

    /** Heap bytes of everything reachable from {@code roots}. */
    static long heapBytes(Object... roots) {
        return GraphLayout.parseInstance(roots).totalSize();
    }

    /** Runs {@code body} for thread index 0..threads-1, each on its own platform thread, and waits for all. */
    static void onThreads(int threads, java.util.function.IntConsumer body) {
        if (threads == 1) {
            body.accept(0);
            return;
        }
        List<Thread> started = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int index = t;
            started.add(Thread.ofPlatform().start(() -> body.accept(index)));
        }
        for (Thread th : started) {
            try {
                th.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    /**
     * Feeds {@code stream} to a peer that is not thread-safe: on one thread directly, on several under one lock
     * ({@code synchronized} on {@code lock}), each thread its own chunks.
     */
    static void locked(long[] stream, int threads, Object lock, java.util.function.LongConsumer observe) {
        if (threads == 1) {
            chunksOf(stream, 0, 1, observe);
            return;
        }
        onThreads(threads, t -> chunksOf(stream, t, threads, key -> {
            synchronized (lock) {
                observe.accept(key);
            }
        }));
    }

    /** Feeds thread {@code t}'s chunks of {@code stream} (of {@code threads}) to {@code observe}. */
    static void chunksOf(long[] stream, int t, int threads, java.util.function.LongConsumer observe) {
        for (int from = t * CHUNK; from < stream.length; from += threads * CHUNK) {
            int to = Math.min(stream.length, from + CHUNK);
            for (int i = from; i < to; i++) {
                observe.accept(stream[i]);
            }
        }
    }

    /**
     * Hotkeeper built by {@code builder} (a total budget, {@code memory(budget)}, or a split chosen by
     * {@link HotkeeperBudget}), one instance shared by {@code threads} threads. {@link #heldBytes()} is
     * {@code info().nativeBytes()} after the run and the query, and must be within {@code budget}.
     */
    static Contender hotkeeper(String name, HotkeeperBuilder builder, long budget, int threads) {
        Hotkeeper sketch = builder.build();
        return new Contender() {
            public String name() {
                return name;
            }

            public void run(long[] stream) {
                onThreads(threads, t -> chunksOf(stream, t, threads, sketch::observe));
            }

            public List<Hit> topK(int k) {
                List<Hit> out = new ArrayList<>();
                for (HeavyHitter h : sketch.topK(k)) {
                    out.add(new Hit(h.keyAsLong(), h.estimate()));
                }
                return out;
            }

            public long heldBytes() {
                long bytes = sketch.info().nativeBytes();
                if (bytes > budget) {
                    throw new IllegalStateException("Hotkeeper holds " + bytes + " native bytes, over the budget of "
                            + budget + ": " + sketch.info());
                }
                return bytes;
            }

            public String held() {
                return describe(sketch.info());
            }

            public void close() {
                sketch.close();
            }
        };
    }

    /** Hotkeeper's split as {@code info()} reports it: table, shards, combiners, native bytes by part. */
    static String describe(HotkeeperInfo info) {
        return String.format(Locale.ROOT, "table %,d B, %d shard(s) (limit %s) of %,d entries, maxKeyBytes %d,"
                        + " combiners %d x %d entries (%s), promotion floor %d; native %s", info.tableBytes(),
                info.shards(), info.shardLimit() == 0 ? "one per worker" : Integer.toString(info.shardLimit()),
                info.shardCapacity(), info.maxKeyBytes(), info.combiners(), info.combinerEntries(),
                info.combining() + (info.combiningEngaged() ? ", engaged" : ""), info.promotionFloor(),
                info.nativeBytesByPart());
    }

    /**
     * DataSketches {@code FrequentLongsSketch} (Misra-Gries) with {@code maxMapSize} slots, one instance; with
     * several threads they share it under one lock. {@code getFrequentItems(NO_FALSE_NEGATIVES)} by estimate.
     */
    static Contender dataSketches(int maxMapSize, int threads) {
        FrequentLongsSketch sketch = new FrequentLongsSketch(maxMapSize);
        return new Contender() {
            public String name() {
                return "DataSketches FrequentLongsSketch" + (threads == 1 ? "" : " (one, locked)");
            }

            public void run(long[] stream) {
                locked(stream, threads, sketch, sketch::update);
            }

            public List<Hit> topK(int k) {
                List<Hit> out = new ArrayList<>();
                for (FrequentLongsSketch.Row r : sketch.getFrequentItems(ErrorType.NO_FALSE_NEGATIVES)) {
                    out.add(new Hit(r.getItem(), r.getEstimate()));
                }
                out.sort(Comparator.comparingLong(Hit::estimate).reversed());
                return out.subList(0, Math.min(k, out.size()));
            }

            public long heldBytes() {
                return heapBytes(sketch);
            }

            public String held() {
                return String.format(Locale.ROOT, "maxMapSize %,d (current map capacity %,d)", maxMapSize,
                        sketch.getCurrentMapCapacity());
            }
        };
    }

    /**
     * stream-lib {@code StreamSummary} (Space-Saving) of {@code capacity} counters, one instance; with several
     * threads they share it under {@code synchronized} (it is not mergeable).
     */
    static Contender streamSummary(int capacity, int threads) {
        StreamSummary<Long> summary = new StreamSummary<>(capacity);
        return new Contender() {
            public String name() {
                return threads == 1 ? "stream-lib StreamSummary" : "stream-lib StreamSummary (one, locked)";
            }

            public void run(long[] stream) {
                locked(stream, threads, summary, summary::offer);
            }

            public List<Hit> topK(int k) {
                List<Hit> out = new ArrayList<>();
                for (Counter<Long> c : summary.topK(k)) {
                    out.add(new Hit(c.getItem(), c.getCount()));
                }
                return out;
            }

            public long heldBytes() {
                return heapBytes(summary);
            }

            public String held() {
                Set<Long> counts = new HashSet<>();
                for (Counter<Long> c : summary.topK(capacity)) {
                    counts.add(c.getCount());
                }
                return String.format(Locale.ROOT, "capacity %,d counters, %,d live, %,d buckets (distinct counts)",
                        capacity, summary.size(), counts.size());
            }
        };
    }

    /**
     * The paper's HeavyKeeper ({@link ReferenceHeavyKeeper}, d = 2, b = 1.08) with {@code width} buckets per
     * array, one instance; with several threads they share it under one lock.
     */
    static Contender referenceHeavyKeeper(int width, int threads, int k) {
        ReferenceHeavyKeeper sketch = new ReferenceHeavyKeeper(2, width, ReferenceHeavyKeeper.PAPER_BASE, k, 42);
        return new Contender() {
            public String name() {
                return "ReferenceHeavyKeeper (d=2, b=1.08)" + (threads == 1 ? "" : " (one, locked)");
            }

            public void run(long[] stream) {
                locked(stream, threads, sketch, sketch::observe);
            }

            public List<Hit> topK(int n) {
                List<Hit> out = new ArrayList<>();
                for (long[] e : sketch.topK()) {
                    if (out.size() == n) {
                        break;
                    }
                    out.add(new Hit(e[0], e[1]));
                }
                return out;
            }

            public long heldBytes() {
                return heapBytes(sketch);
            }

            public String held() {
                return String.format(Locale.ROOT, "2 x %,d buckets + heap of %d", width, k);
            }
        };
    }
}
