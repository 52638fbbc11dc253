package io.hotkeeper.cli;

import io.hotkeeper.engine.HeavyHitter;
import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.HotkeeperBuilder;
import io.hotkeeper.engine.HotkeeperInfo;
import io.hotkeeper.engine.workload.ZipfKeys;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;

/**
 * The demo on an embedded default: a generated Zipf stream, observed at 1 thread and at N threads (N = available
 * processors); prints throughput, the heavy hitters the sketch reports with {@code topK} (real keys from its key
 * shards) with estimate and exact count side by side, precision@k and the memory used.
 */
@Command(name = "demo", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false,
        description = "Runs Hotkeeper on a generated Zipf stream and compares its top-k with exact counts.")
final class DemoCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;
    @Option(names = "--keys", description = "Stream length (default: ${DEFAULT-VALUE}).")
    int length = 10_000_000;
    @Option(names = "--distinct", description = "Distinct keys (default: ${DEFAULT-VALUE}).")
    int distinct = 1_000_000;
    @Option(names = "--zipf", description = "Zipf exponent (default: ${DEFAULT-VALUE}).")
    double exponent = 1.0;
    @Option(names = "--memory", converter = Converters.Size.class, defaultValue = "256KiB",
            description = "Total native memory of the sketch, e.g. 256KiB (default: ${DEFAULT-VALUE}).")
    long memory;
    @Option(names = "--k", description = "Keys for precision@k (default: ${DEFAULT-VALUE}).")
    int k = 100;
    @Option(names = "--top", description = "Rows to print (default: ${DEFAULT-VALUE}).")
    int top = 20;
    @Option(names = "--seed", description = "Seed of the stream and of the sketch (default: ${DEFAULT-VALUE}).")
    long seed = 42;

    @Override
    public Integer call() throws Exception {
        if (length < 1 || distinct < 1 || k < 1 || k > 100_000 || top < 0 || !(exponent >= 0 && exponent <= 10)
                || k > distinct) {
            throw new ParameterException(spec.commandLine(), "need --keys >= 1, --distinct >= 1, "
                    + "1 <= --k <= min(100000, --distinct), --top >= 0, 0 <= --zipf <= 10");
        }
        HotkeeperBuilder builder = Hotkeeper.builder().k(Math.max(k, top)).seed(seed);
        try {
            builder.memory(memory);
            builder.build().close(); // the budget against k: a budget too small exits 2 before the stream is made
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "Invalid value for option '--memory': " + e.getMessage());
        }
        PrintWriter out = spec.commandLine().getOut();
        out.printf("Hotkeeper demo: %,d Zipf(s=%.1f) keys over %,d distinct, %s of memory%n", length, exponent,
                distinct, bytes(memory));
        out.flush();
        ZipfKeys zipf = new ZipfKeys(distinct, exponent);
        long[] stream = new long[length];
        SplittableRandom random = new SplittableRandom(seed);
        long[] exact = new long[distinct + 1];
        for (int i = 0; i < length; i++) {
            int rank = zipf.rankOf(random.nextDouble());
            stream[i] = ZipfKeys.keyOfRank(rank);
            exact[rank]++;
        }
        int processors = Runtime.getRuntime().availableProcessors();
        out.println();
        out.println("threads  M observes/s");
        Hotkeeper last = null;
        for (int threads : processors == 1 ? new int[] {1} : new int[] {1, processors}) {
            if (last != null) {
                last.close();
            }
            last = builder.build();
            double rate = ingest(last, stream, threads);
            out.printf("%7d  %11.1f%n", threads, rate / 1e6);
            out.flush();
        }
        try (Hotkeeper hk = last) {
            List<HeavyHitter> reported = hk.topK(Math.max(k, top));
            out.println();
            out.printf("top %d as reported by topK() after the %d-thread run (real keys from the key shards):%n",
                    Math.min(top, reported.size()), processors);
            out.printf("%4s  %20s  %12s  %12s  %7s%n", "rank", "key", "estimate", "exact", "error");
            for (int i = 0; i < Math.min(top, reported.size()); i++) {
                HeavyHitter h = reported.get(i);
                long key = h.keyAsLong();
                long count = exactCount(exact, key);
                out.printf("%4d  %20d  %,12d  %,12d  %6.2f%%%n", i + 1, key, h.estimate(), count,
                        count == 0 ? 100.0 : 100.0 * (h.estimate() - count) / count);
            }
            long[] sorted = Arrays.copyOfRange(exact, 1, exact.length);
            Arrays.sort(sorted);
            long kth = sorted[sorted.length - k];
            long hits = reported.stream().limit(k).filter(h -> exactCount(exact, h.keyAsLong()) >= kth).count();
            HotkeeperInfo info = hk.info();
            out.println();
            out.printf("precision@%d: %.3f (tie-aware: a reported key counts if its exact count >= %,d, the exact "
                    + "count at rank %d)%n", k, hits / (double) k, kth, k);
            out.printf("memory: %s of a %s budget (table %s, %,d buckets x 8 slots; links and key shards %s, %d shards),"
                    + " off-heap%n", bytes(info.nativeBytes()), bytes(info.memoryBudget()), bytes(info.tableBytes()),
                    info.buckets(), bytes(info.shardBytes()), info.shards());
            out.println();
            out.println("Try it on your own data (one key per line, or --field N -d ' ' for a column):");
            out.println("  ./hotkeeper top -k 20 FILE");
        }
        return 0;
    }

    /** The exact count of {@code key} in the stream: keys are a bijective scramble of the Zipf rank. */
    private static long exactCount(long[] exact, long key) {
        long rank = rankOfKey(key);
        return rank >= 1 && rank < exact.length ? exact[(int) rank] : 0;
    }

    private static final long M1_INVERSE = inverse(0x9e3779b97f4a7c15L);
    private static final long M2_INVERSE = inverse(0xd6e8feb86659fd93L);

    /** The inverse of {@link ZipfKeys#keyOfRank}: undoes its xor-shifts (self-inverse) and odd multiplications. */
    static long rankOfKey(long key) {
        long z = key ^ (key >>> 32);
        z *= M2_INVERSE;
        z ^= z >>> 32;
        return z * M1_INVERSE;
    }

    /** The multiplicative inverse of odd {@code x} modulo 2^64 (Newton's iteration, 3 -> 96 correct bits). */
    private static long inverse(long x) {
        long y = x;
        for (int i = 0; i < 5; i++) {
            y *= 2 - x * y;
        }
        return y;
    }

    private static double ingest(Hotkeeper hk, long[] stream, int threads) throws InterruptedException {
        Thread[] workers = new Thread[threads];
        int chunk = (stream.length + threads - 1) / threads;
        long start = System.nanoTime();
        for (int t = 0; t < threads; t++) {
            int from = Math.min(stream.length, t * chunk);
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

    static String bytes(long n) {
        if (n % (1 << 20) == 0 && n > 0) {
            return (n >> 20) + " MiB";
        }
        if (n % 1024 == 0 && n > 0) {
            return (n >> 10) + " KiB";
        }
        if (n >= 10 << 10) {
            return String.format("%.1f KiB", n / 1024.0);
        }
        return n + " B";
    }
}
