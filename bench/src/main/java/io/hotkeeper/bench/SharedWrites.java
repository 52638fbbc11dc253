package io.hotkeeper.bench;

import io.hotkeeper.engine.CombiningMode;
import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.HotkeeperStats;

import java.util.Locale;

/**
 * Shared writes per observation, counted from {@link Hotkeeper#stats()} (docs/performance.md): the benchmark
 * streams of {@link ObserveBenchmark} (2^22 keys over 1,000,000 items, Zipf 1.0 and 1.2), observed four times
 * over at 64 KiB by 1 and 2 threads, with hot-key combining off and on, printed as a markdown table.
 *
 * <pre>
 * $J --enable-native-access=ALL-UNNAMED -cp bench/target/benchmarks.jar io.hotkeeper.bench.SharedWrites
 * </pre>
 *
 * Every refresh CAS (a combiner flush is one), claim and won draw writes a table line; with the shared salt,
 * every draw also writes the salt's line. Observations absorbed by a combiner write only their worker's block.
 */
public final class SharedWrites {
    private static final long MEMORY = 65536;
    private static final int ROUNDS = 4;

    private SharedWrites() {
    }

    public static void main(String[] args) throws InterruptedException {
        System.out.println("| stream | threads | combining | refresh CAS | salt draw | won draw CAS | absorbed | "
                + "table writes | + salt |");
        System.out.println("|---|---|---|---|---|---|---|---|---|");
        for (String stream : new String[] {"zipf1.0", "zipf1.2"}) {
            long[] keys = Workloads.zipfStream(stream, ObserveBenchmark.DISTINCT, ObserveBenchmark.STREAM_KEYS,
                    ObserveBenchmark.STREAM_SEED).keys();
            for (int threads = 1; threads <= 2; threads++) {
                for (CombiningMode mode : new CombiningMode[] {CombiningMode.OFF, CombiningMode.ON}) {
                    row(stream, keys, threads, mode);
                }
            }
        }
    }

    private static void row(String stream, long[] keys, int threads, CombiningMode mode) throws InterruptedException {
        try (Hotkeeper hk = Hotkeeper.builder().recordStats().memoryBytes(MEMORY).seed(Workloads.SKETCH_SEED).combining(mode)
                .build()) {
            Thread[] workers = new Thread[threads];
            for (int t = 0; t < threads; t++) {
                int first = t;
                int step = threads;
                workers[t] = Thread.ofPlatform().start(() -> {
                    for (int r = 0; r < ROUNDS; r++) {
                        for (int i = first; i < keys.length; i += step) {
                            hk.observe(keys[i]);
                        }
                    }
                });
            }
            for (Thread w : workers) {
                w.join();
            }
            HotkeeperStats s = hk.stats();
            double n = (double) ROUNDS * keys.length;
            long tableWrites = s.refreshes() + s.claims() + s.evictionWins();
            System.out.printf(Locale.ROOT, "| %s | %d | %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |%n", stream,
                    threads, mode, s.refreshes() / n, s.evictionAttempts() / n, s.evictionWins() / n,
                    s.combined() / n, tableWrites / n, (tableWrites + s.evictionAttempts()) / n);
        }
    }
}
