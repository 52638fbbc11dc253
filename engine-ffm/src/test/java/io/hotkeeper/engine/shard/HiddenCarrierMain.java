package io.hotkeeper.engine.shard;

import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.worker.Workers;

import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/** The child JVM of {@link HiddenCarrierTest}: 10,000 virtual threads observe one hot key twice each. */
public final class HiddenCarrierMain {
    private HiddenCarrierMain() {
    }

    public static void main(String[] args) throws Exception {
        try (Hotkeeper hk = Hotkeeper.builder().minCount(1).build();
             var executor = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 10_000; i++) {
                executor.submit(() -> {
                    hk.observe("hot");
                    Thread.yield();
                    hk.observe("hot");
                });
            }
            executor.shutdown();
            executor.awaitTermination(1, TimeUnit.MINUTES);
            var top = hk.topK(1);
            String first = top.isEmpty() ? "none" : top.getFirst().keyAsString() + ":" + top.getFirst().estimate();
            System.out.println("result carrierVisible=" + Workers.carrierVisible() + " top=" + first
                    + " shards<=64=" + (hk.info().shards() <= 64));
        }
    }
}
