package io.hotkeeper.bench;

import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;

/**
 * A daemon thread that reads a top-k every {@code period} (fixed rate; a read that overruns its period starts the
 * next one at once), counts the reads and times them. {@code PeerBenchmark} starts one in a trial's setup and
 * stops it in the teardown, so that the update throughput of a peer that answers top-k from any thread is
 * measured while that thread reads; {@link #summary()} shows that the reader really ran.
 *
 * <p>Threads: {@link #start} and {@link #stop} from one thread; the reads run on the reader's own thread.
 * Progress: blocking.
 */
final class PeriodicReader {
    /** Reads timed by {@link #quiescentReadCost}. */
    static final int QUIESCENT_READS = 21;

    private final String name;
    private final IntFunction<Object[]> topK;
    private final int k;
    private final long periodNanos;
    private final Thread thread;
    private volatile boolean stop;
    /** The last answer, published so the reads are not dead code. */
    private volatile Object[] last;
    private long reads;
    private long readNanos;
    private long maxReadNanos;
    private int lastSize;

    /** A reader calling {@code topK.apply(k)} every {@code periodMillis}; not started. */
    PeriodicReader(String name, IntFunction<Object[]> topK, int k, long periodMillis) {
        this.name = name;
        this.topK = topK;
        this.k = k;
        this.periodNanos = TimeUnit.MILLISECONDS.toNanos(periodMillis);
        this.thread = Thread.ofPlatform().daemon().name(name + "-reader").unstarted(this::run);
    }

    void start() {
        thread.start();
    }

    /** Stops the reader and waits for it. */
    void stop() {
        stop = true;
        LockSupport.unpark(thread);
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        long next = System.nanoTime();
        while (!stop) {
            long start = System.nanoTime();
            Object[] answer = topK.apply(k);
            long took = System.nanoTime() - start;
            last = answer;
            lastSize = answer.length;
            reads++;
            readNanos += took;
            maxReadNanos = Math.max(maxReadNanos, took);
            next = Math.max(next + periodNanos, System.nanoTime());
            long wait;
            while (!stop && (wait = next - System.nanoTime()) > 0) {
                LockSupport.parkNanos(wait);
            }
        }
    }

    /** Reads made, mean and max read time, the last answer's size; call after {@link #stop()}. */
    String summary() {
        return String.format(Locale.ROOT, "%s reader: %,d reads of the top %d (every %d ms), mean %.1f us, max %.1f us,"
                        + " last answer %d keys", name, reads, k, TimeUnit.NANOSECONDS.toMillis(periodNanos),
                reads == 0 ? 0.0 : readNanos / 1e3 / reads, maxReadNanos / 1e3, lastSize);
    }

    /**
     * The cost of one top-k read with no writer running: {@value #QUIESCENT_READS} reads after one unmeasured
     * read; their median and minimum. Printed in a trial's teardown, so that every peer's read cost is stated the
     * same way, from the run's own final state.
     */
    static String quiescentReadCost(IntFunction<Object[]> topK, int k) {
        topK.apply(k);
        long[] nanos = new long[QUIESCENT_READS];
        int size = 0;
        for (int i = 0; i < nanos.length; i++) {
            long start = System.nanoTime();
            size = topK.apply(k).length;
            nanos[i] = System.nanoTime() - start;
        }
        java.util.Arrays.sort(nanos);
        return String.format(Locale.ROOT, "one top-%d read after the run (writers stopped): median %.1f us, min %.1f"
                + " us over %d reads, %d keys", k, nanos[nanos.length / 2] / 1e3, nanos[0] / 1e3, nanos.length, size);
    }
}
