package io.hotkeeper.cli;

import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.workload.ZipfKeys;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;

/**
 * The demo on an embedded default: a generated Zipf stream, observed at 1..N threads; prints throughput, the top
 * keys with estimate and exact count side by side, and precision@k.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Runs Hotkeeper on a generated Zipf stream and compares it with exact counts.")
final class DemoCommand implements Callable<Integer> {
    @Option(names = "--keys", description = "Stream length (default: ${DEFAULT-VALUE}).")
    int length = 10_000_000;
    @Option(names = "--distinct", description = "Distinct keys (default: ${DEFAULT-VALUE}).")
    int distinct = 1_000_000;
    @Option(names = "--zipf", description = "Zipf exponent (default: ${DEFAULT-VALUE}).")
    double exponent = 1.0;
    @Option(names = "--memory", description = "Table bytes (default: ${DEFAULT-VALUE}).")
    long memory = 64 * 1024;
    @Option(names = "--k", description = "Keys for precision@k (default: ${DEFAULT-VALUE}).")
    int k = 100;
    @Option(names = "--top", description = "Rows to print (default: ${DEFAULT-VALUE}).")
    int top = 20;

    @Override
    public Integer call() throws Exception {
        PrintStream out = System.out;
        out.printf("Hotkeeper demo: %,d Zipf(s=%.1f) keys over %,d distinct, %s table%n", length, exponent, distinct,
                bytes(memory));
        ZipfKeys zipf = new ZipfKeys(distinct, exponent);
        int[] ranks = new int[length];
        long[] stream = new long[length];
        SplittableRandom random = new SplittableRandom(42);
        long[] exact = new long[distinct + 1];
        for (int i = 0; i < length; i++) {
            int rank = zipf.rankOf(random.nextDouble());
            ranks[i] = rank;
            stream[i] = ZipfKeys.keyOfRank(rank);
            exact[rank]++;
        }
        int processors = Runtime.getRuntime().availableProcessors();
        out.println();
        out.println("threads  M observes/s");
        Hotkeeper last = null;
        for (int threads = 1; threads <= processors; threads++) {
            if (last != null) {
                last.close();
            }
            last = Hotkeeper.builder().memoryBytes(memory).build();
            double rate = ingest(last, stream, threads);
            out.printf("%7d  %11.1f%n", threads, rate / 1e6);
        }
        try (Hotkeeper hk = last) {
            Integer[] byEstimate = rankByEstimate(hk, distinct, Math.max(k, top));
            out.println();
            out.printf("%4s  %20s  %12s  %12s  %7s%n", "rank", "key", "estimate", "exact", "error");
            for (int i = 0; i < Math.min(top, byEstimate.length); i++) {
                int rank = byEstimate[i];
                long key = ZipfKeys.keyOfRank(rank);
                long est = hk.estimate(key);
                out.printf("%4d  %20d  %,12d  %,12d  %6.2f%%%n", i + 1, key, est, exact[rank],
                        100.0 * (est - exact[rank]) / exact[rank]);
            }
            long[] sorted = Arrays.copyOfRange(exact, 1, exact.length);
            Arrays.sort(sorted);
            long kth = sorted[sorted.length - k];
            long hits = Arrays.stream(byEstimate).limit(k).filter(r -> exact[r] >= kth).count();
            out.println();
            out.printf("precision@%d: %.3f (tie-aware against exact counts)%n", k, hits / (double) k);
            out.printf("memory: %s table (%,d buckets x 8 slots), off-heap%n", bytes(hk.tableBytes()),
                    hk.bucketCount());
            out.printf("stats: %s%n", hk.stats());
        }
        return 0;
    }

    private static double ingest(Hotkeeper hk, long[] stream, int threads) throws InterruptedException {
        Thread[] workers = new Thread[threads];
        int chunk = (stream.length + threads - 1) / threads;
        long start = System.nanoTime();
        for (int t = 0; t < threads; t++) {
            int from = t * chunk;
            int to = Math.min(stream.length, from + chunk);
            workers[t] = Thread.ofPlatform().start(() -> {
                for (int i = from; i < to; i++) {
                    hk.observe(stream[i]);
                }
            });
        }
        for (Thread w : workers) {
            w.join();
        }
        return stream.length / ((System.nanoTime() - start) / 1e9);
    }

    /** Ranks of the {@code n} items with the highest estimates. */
    private static Integer[] rankByEstimate(Hotkeeper hk, int distinct, int n) {
        long[] estimates = new long[distinct + 1];
        for (int r = 1; r <= distinct; r++) {
            estimates[r] = hk.estimate(ZipfKeys.keyOfRank(r));
        }
        Integer[] ranks = new Integer[distinct];
        for (int r = 1; r <= distinct; r++) {
            ranks[r - 1] = r;
        }
        Arrays.sort(ranks, (a, b) -> Long.compare(estimates[b], estimates[a]));
        return Arrays.copyOf(ranks, n);
    }

    static String bytes(long n) {
        if (n % (1 << 20) == 0) {
            return (n >> 20) + " MiB";
        }
        if (n % 1024 == 0) {
            return (n >> 10) + " KiB";
        }
        return n + " B";
    }
}
