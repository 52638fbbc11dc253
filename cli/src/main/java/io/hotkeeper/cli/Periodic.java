package io.hotkeeper.cli;

import java.time.Duration;

/**
 * Runs a task every period on a daemon thread until stopped ({@code --every}). Threads: {@link #start} and
 * {@link #stop} from one thread. Progress: blocking.
 */
final class Periodic {
    private final Duration period;
    private final Runnable task;
    private Thread thread;

    Periodic(Duration period, Runnable task) {
        this.period = period;
        this.task = task;
    }

    void start() {
        thread = Thread.ofPlatform().daemon().name("hotkeeper-every").start(() -> {
            long next = System.nanoTime() + period.toNanos();
            while (true) {
                try {
                    long wait = next - System.nanoTime();
                    if (wait > 0) {
                        Thread.sleep(Duration.ofNanos(wait));
                    }
                } catch (InterruptedException e) {
                    return;
                }
                task.run();
                next = Math.max(next + period.toNanos(), System.nanoTime());
            }
        });
    }

    /** Stops the task and waits for a run in progress to end. */
    void stop() throws InterruptedException {
        if (thread != null) {
            thread.interrupt();
            thread.join();
        }
    }
}
