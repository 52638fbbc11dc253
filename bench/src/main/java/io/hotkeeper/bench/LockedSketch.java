package io.hotkeeper.bench;

import org.apache.datasketches.frequencies.ErrorType;
import org.apache.datasketches.frequencies.FrequentLongsSketch;

import java.util.Arrays;
import java.util.Comparator;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One DataSketches {@code FrequentLongsSketch} and the {@link ReentrantLock} that guards it: the least a
 * DataSketches user adds to make the (not thread-safe) sketch readable from another thread while it is updated.
 *
 * <p>Why a {@code ReentrantLock} and not {@code synchronized} on the sketch: in a JMH loop of back-to-back updates
 * C2 may coarsen adjacent {@code synchronized} regions on the same object (after inlining and unrolling), so an
 * update would no longer pay one acquire and one release, as it does in an application with other work between
 * updates. C2 does not coarsen {@code ReentrantLock}: every update pays its CAS to lock and its release store.
 * Fairness is the caller's choice: {@link LiveDataSketches} uses fair locks (each lock has one writer; a reader
 * asking for it gets it at the writer's next release instead of losing to the writer's next barge), the one
 * shared lock of {@code PeerBenchmark.dataSketchesOneLock} a non-fair one (fairness among writers that contend on
 * every update would force a park/unpark hand-off per update).
 *
 * <p>Threads: any, each call under the lock. Progress: blocking.
 */
final class LockedSketch {
    private final FrequentLongsSketch sketch;
    private final ReentrantLock lock;

    /** An empty sketch of {@code maxMapSize} slots under a fair or non-fair lock. */
    LockedSketch(int maxMapSize, boolean fair) {
        this.sketch = new FrequentLongsSketch(maxMapSize);
        this.lock = new ReentrantLock(fair);
    }

    /** Counts one occurrence of {@code key}, under the lock. */
    void update(long key) {
        lock.lock();
        try {
            sketch.update(key);
        } finally {
            lock.unlock();
        }
    }

    /** Merges this sketch into {@code target}, under this sketch's lock ({@code target} is the caller's). */
    void mergeInto(FrequentLongsSketch target) {
        lock.lock();
        try {
            target.merge(sketch);
        } finally {
            lock.unlock();
        }
    }

    /** The top {@code k} of this sketch alone, listed under the lock. */
    FrequentLongsSketch.Row[] topK(int k) {
        FrequentLongsSketch.Row[] rows;
        lock.lock();
        try {
            rows = sketch.getFrequentItems(ErrorType.NO_FALSE_NEGATIVES);
        } finally {
            lock.unlock();
        }
        return top(rows, k);
    }

    /** The sketch itself, for size reports once its writers have stopped (not for reads while they run). */
    FrequentLongsSketch sketch() {
        return sketch;
    }

    /** The first {@code k} of {@code rows} by estimate, highest first. */
    static FrequentLongsSketch.Row[] top(FrequentLongsSketch.Row[] rows, int k) {
        Arrays.sort(rows, Comparator.comparingLong(FrequentLongsSketch.Row::getEstimate).reversed());
        return rows.length <= k ? rows : Arrays.copyOf(rows, k);
    }
}
