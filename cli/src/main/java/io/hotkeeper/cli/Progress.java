package io.hotkeeper.cli;

import java.io.PrintWriter;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A progress bar on stderr, redrawn four times a second from a daemon thread, erased at the end. Disabled
 * instances cost one atomic add per chunk. Threads: any ({@link #advance}); {@link #start} and {@link #finish}
 * from one. Progress: wait-free.
 */
final class Progress {
    private static final int WIDTH = 30;

    private final PrintWriter err;
    private final long total;
    private final boolean enabled;
    private final AtomicLong done = new AtomicLong();
    private volatile boolean finished;
    private Thread painter;
    private long startNanos;

    Progress(PrintWriter err, long total, boolean enabled) {
        this.err = err;
        this.total = total;
        this.enabled = enabled && total > 0;
    }

    boolean enabled() {
        return enabled;
    }

    void advance(long bytes) {
        done.addAndGet(bytes);
    }

    void start() {
        startNanos = System.nanoTime();
        if (!enabled) {
            return;
        }
        painter = Thread.ofPlatform().daemon().name("hotkeeper-progress").start(() -> {
            while (!finished) {
                paint();
                try {
                    Thread.sleep(250);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
    }

    void finish() {
        finished = true;
        if (painter != null) {
            painter.interrupt();
            try {
                painter.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            synchronized (err) {
                err.print("\r" + " ".repeat(WIDTH + 50) + "\r");
                err.flush();
            }
        }
    }

    /** Draws the bar once (the painter thread calls it every 250 ms; tests call it directly). */
    void paint() {
        long d = Math.min(done.get(), total);
        double fraction = d / (double) total;
        int filled = (int) (fraction * WIDTH);
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        double mibPerSecond = seconds > 0 ? d / seconds / (1 << 20) : 0;
        String line = String.format("\r[%s%s] %3d%% %,d/%,d MiB %,.0f MiB/s", "#".repeat(filled),
                " ".repeat(WIDTH - filled), (int) (fraction * 100), d >> 20, total >> 20, mibPerSecond);
        synchronized (err) {
            err.print(line);
            err.flush();
        }
    }
}
