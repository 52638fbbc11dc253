package io.hotkeeper.bench;

import io.hotkeeper.engine.HeavyHitter;
import io.hotkeeper.engine.Hotkeeper;

import com.clearspring.analytics.stream.Counter;
import com.clearspring.analytics.stream.StreamSummary;
import org.apache.datasketches.frequencies.ErrorType;
import org.apache.datasketches.frequencies.FrequentLongsSketch;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A heavy-hitter sketch under evaluation by {@link Evaluate}: it counts {@code long} keys and reports its top
 * {@code k}, highest estimate first. Sized by {@link PeerSizing}. Threads: one.
 */
interface TopKPeer extends AutoCloseable {
    /** A reported key and its estimate. */
    record Hit(long key, long estimate) {
    }

    /** The peer's name in the tables. */
    String name();

    /** Counts one occurrence of {@code key}. */
    void observe(long key);

    /** At most {@code k} keys, highest estimate first. */
    List<Hit> topK(int k);

    /** Bytes the peer uses beyond its budget, read after the stream (0 when it keeps within it). */
    default long bytesOutsideBudget() {
        return 0;
    }

    @Override
    default void close() {
    }

    /** Hotkeeper with its defaults (shared salt, b = 2, promotion floor 8) and a fixed seed. */
    static TopKPeer hotkeeper(long memory, int k) {
        Hotkeeper sketch = Hotkeeper.builder().memoryBytes(memory).k(k).seed(Workloads.SKETCH_SEED).build();
        return new TopKPeer() {
            public String name() {
                return "Hotkeeper";
            }

            public void observe(long key) {
                sketch.observe(key);
            }

            public List<Hit> topK(int n) {
                List<Hit> out = new ArrayList<>();
                for (HeavyHitter h : sketch.topK(n)) {
                    out.add(new Hit(h.keyAsLong(), h.estimate()));
                }
                return out;
            }

            public long bytesOutsideBudget() {
                return sketch.info().shardBytes();
            }

            public void close() {
                sketch.close();
            }
        };
    }

    /** The paper's HeavyKeeper: d = 2, b = 1.08. */
    static TopKPeer referenceHeavyKeeper(long memory, int k) {
        ReferenceHeavyKeeper sketch = new ReferenceHeavyKeeper(memory, 2, ReferenceHeavyKeeper.PAPER_BASE, k, 42);
        return new TopKPeer() {
            public String name() {
                return "ReferenceHeavyKeeper (d=2, b=1.08)";
            }

            public void observe(long key) {
                sketch.observe(key);
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
        };
    }

    /** DataSketches Misra-Gries: getFrequentItems(NO_FALSE_NEGATIVES), by estimate. */
    static TopKPeer dataSketches(long memory) {
        FrequentLongsSketch sketch = new FrequentLongsSketch(PeerSizing.dataSketchesMaxMapSize(memory));
        return new TopKPeer() {
            public String name() {
                return "DataSketches FrequentLongsSketch";
            }

            public void observe(long key) {
                sketch.update(key);
            }

            public List<Hit> topK(int n) {
                List<Hit> out = new ArrayList<>();
                for (FrequentLongsSketch.Row r : sketch.getFrequentItems(ErrorType.NO_FALSE_NEGATIVES)) {
                    out.add(new Hit(r.getItem(), r.getEstimate()));
                }
                out.sort(Comparator.comparingLong(Hit::estimate).reversed());
                return out.subList(0, Math.min(n, out.size()));
            }
        };
    }

    /** stream-lib Space-Saving. */
    static TopKPeer streamSummary(long memory) {
        StreamSummary<Long> summary = new StreamSummary<>(PeerSizing.spaceSavingCapacity(memory));
        return new TopKPeer() {
            public String name() {
                return "stream-lib StreamSummary";
            }

            public void observe(long key) {
                summary.offer(key);
            }

            public List<Hit> topK(int n) {
                List<Hit> out = new ArrayList<>();
                for (Counter<Long> c : summary.topK(n)) {
                    out.add(new Hit(c.getItem(), c.getCount()));
                }
                return out;
            }
        };
    }
}
