package io.hotkeeper.bench;

import org.apache.datasketches.frequencies.ErrorType;
import org.apache.datasketches.frequencies.FrequentLongsSketch;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Per-thread DataSketches {@code FrequentLongsSketch}es, each under its own fair lock ({@link LockedSketch}), and
 * the query that reads them while their writers run: take each lock in turn, merge that sketch into a fresh one,
 * then list the merged sketch's frequent items ({@code NO_FALSE_NEGATIVES}) and keep the first {@code k} by
 * estimate. This is the least a DataSketches user must build to answer a top-k from any thread while writers
 * update; {@code PeerBenchmark.dataSketchesLive} runs it with a {@link PeriodicReader}.
 *
 * <p>Threads: {@link #register} from each writer once; {@link #topK} from any thread. Progress: blocking.
 */
final class LiveDataSketches {
    private final int maxMapSize;
    private final List<LockedSketch> sketches = new CopyOnWriteArrayList<>();

    /** An empty registry whose sketches have {@code maxMapSize} slots each. */
    LiveDataSketches(int maxMapSize) {
        this.maxMapSize = maxMapSize;
    }

    /** A new sketch for the calling writer thread, registered so that {@link #topK} reads it. */
    LockedSketch register() {
        LockedSketch s = new LockedSketch(maxMapSize, true);
        sketches.add(s);
        return s;
    }

    /** The registered sketches merged into a fresh one (each under its lock, in turn); its top {@code k}. */
    FrequentLongsSketch.Row[] topK(int k) {
        FrequentLongsSketch merged = new FrequentLongsSketch(maxMapSize);
        for (LockedSketch s : sketches) {
            s.mergeInto(merged);
        }
        return LockedSketch.top(merged.getFrequentItems(ErrorType.NO_FALSE_NEGATIVES), k);
    }

    /** The registered sketches (for size reports after the writers stopped). */
    List<LockedSketch> sketches() {
        return sketches;
    }
}
