package io.hotkeeper.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/** Runs a body on several platform threads released together, and rethrows the first failure. */
final class Concurrently {
    /** The body of thread {@code t} of {@code threads}. */
    interface Body {
        void run(int t) throws Exception;
    }

    private Concurrently() {
    }

    static void run(int threads, Body body) throws InterruptedException {
        CountDownLatch start = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int index = t;
            Thread worker = new Thread(() -> {
                try {
                    start.await();
                    body.run(index);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            worker.start();
            workers.add(worker);
        }
        start.countDown();
        for (Thread worker : workers) {
            worker.join();
        }
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
    }
}
