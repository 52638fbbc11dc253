package io.hotkeeper.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.LongFunction;

/**
 * Accuracy of Hotkeeper and its peers on one or more key streams, printed as markdown tables (docs/peers.md).
 *
 * <pre>
 * J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
 * $J --enable-native-access=ALL-UNNAMED -cp bench/target/benchmarks.jar io.hotkeeper.bench.Evaluate \
 *     --zipf 0.8 --zipf 1.0 --zipf 1.2 --zipf uniform
 * $J --enable-native-access=ALL-UNNAMED -cp bench/target/benchmarks.jar io.hotkeeper.bench.Evaluate --file words.txt
 * </pre>
 *
 * Options: {@code --zipf s} (repeatable; {@code uniform} = 0) generates {@code --keys} keys (default 10,000,000)
 * over {@code --distinct} items (default 1,000,000) with {@code --seed} (default 42); {@code --file F}
 * (repeatable) reads one key per line, each line's bytes hashed to a {@code long} by
 * {@link KeyStreams#hashLine}; {@code --memory} a comma list of budgets in bytes (default 8192,16384,65536);
 * {@code --k} (default 100).
 *
 * <p>For each stream and budget every peer sees the whole stream, once, on one thread, then reports its top k:
 * Hotkeeper ({@code topK(k)}), {@link ReferenceHeavyKeeper}, DataSketches {@code FrequentLongsSketch}
 * ({@code getFrequentItems(NO_FALSE_NEGATIVES)} by estimate) and stream-lib {@code StreamSummary}
 * ({@code topK(k)}), each sized by {@link PeerSizing}. Columns: precision@k (tie-aware), ARE over the correct
 * keys, the top-10 order (tie-aware: position i holds a key whose true count is the i-th largest), keys
 * reported, and memory used beyond the budget (Hotkeeper's key shards, {@code info().shardBytes()}).
 */
public final class Evaluate {
    private static final int ORDER_DEPTH = 10;

    private Evaluate() {
    }

    public static void main(String[] args) throws IOException {
        List<String> zipfs = new ArrayList<>();
        List<String> files = new ArrayList<>();
        long[] memories = {8192, 16384, 65536};
        int k = 100;
        int keys = 10_000_000;
        int distinct = 1_000_000;
        long seed = 42;
        for (int i = 0; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--zipf" -> zipfs.add(require(args[i], value));
                case "--file" -> files.add(require(args[i], value));
                case "--memory" -> {
                    String[] parts = require(args[i], value).split(",");
                    memories = new long[parts.length];
                    for (int j = 0; j < parts.length; j++) {
                        memories[j] = Long.parseLong(parts[j].trim());
                    }
                }
                case "--k" -> k = Integer.parseInt(require(args[i], value));
                case "--keys" -> keys = Integer.parseInt(require(args[i], value));
                case "--distinct" -> distinct = Integer.parseInt(require(args[i], value));
                case "--seed" -> seed = Long.parseLong(require(args[i], value));
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + "; usage: [--zipf s|uniform]... [--file F]... [--memory B,B,..] [--k K] [--keys N]"
                        + " [--distinct D] [--seed S]");
            }
            i++;
        }
        if (zipfs.isEmpty() && files.isEmpty()) {
            zipfs = List.of("0.8", "1.0", "1.2", "uniform");
        }
        for (String z : zipfs) {
            double s = z.equals("uniform") ? 0.0 : Double.parseDouble(z);
            String title = (s == 0 ? "uniform" : "Zipf " + z) + String.format(Locale.ROOT,
                    ", %,d keys over %,d items, seed %d", keys, distinct, seed);
            report(title, KeyStreams.zipf(distinct, s, keys, seed), memories, k);
        }
        for (String f : files) {
            long[] stream = KeyStreams.lines(Path.of(f));
            report(f + String.format(Locale.ROOT, ", %,d lines", stream.length), stream, memories, k);
        }
    }

    private static String require(String option, String value) {
        if (value == null) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return value;
    }

    /** Runs every peer at every budget over {@code stream} and prints one markdown table. */
    static void report(String title, long[] stream, long[] memories, int k) {
        ExactCounts exact = new ExactCounts(stream);
        System.out.printf(Locale.ROOT, "%n### %s%n%n", title);
        System.out.printf(Locale.ROOT, "%,d distinct; true count at rank 1 / 10 / %d: %,d / %,d / %,d%n%n",
                exact.distinct(), k, exact.countAtRank(1), exact.countAtRank(10), exact.countAtRank(k));
        System.out.printf("| peer | memory | precision@%d | ARE | top-10 order | reported | outside budget |%n", k);
        System.out.println("|---|---:|---:|---:|---|---:|---:|");
        final int top = k;
        List<LongFunction<TopKPeer>> peers = List.of(
                m -> TopKPeer.hotkeeper(m, top),
                m -> TopKPeer.referenceHeavyKeeper(m, top),
                TopKPeer::dataSketches,
                TopKPeer::streamSummary);
        for (long memory : memories) {
            for (LongFunction<TopKPeer> factory : peers) {
                try (TopKPeer peer = factory.apply(memory)) {
                    for (long key : stream) {
                        peer.observe(key);
                    }
                    ExactCounts.Accuracy a = exact.accuracy(peer.topK(k), k, ORDER_DEPTH);
                    String order = a.orderMatches() == a.orderDepth() ? "yes"
                            : "no (" + a.orderMatches() + "/" + a.orderDepth() + ")";
                    long outside = peer.bytesOutsideBudget();
                    System.out.printf(Locale.ROOT, "| %s | %d KiB | %.2f | %.4f | %s | %d | %s |%n",
                            peer.name(), memory / 1024, a.precision(), a.are(), order, a.reported(),
                            outside == 0 ? "-" : String.format(Locale.ROOT, "%,d KiB key shards", outside / 1024));
                }
            }
        }
    }
}
