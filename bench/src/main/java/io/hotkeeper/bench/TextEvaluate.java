package io.hotkeeper.bench;

import io.hotkeeper.engine.HeavyHitter;
import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.HotkeeperBuilder;
import io.hotkeeper.engine.workload.ZipfKeys;

import com.clearspring.analytics.stream.Counter;
import com.clearspring.analytics.stream.StreamSummary;
import org.apache.datasketches.frequencies.ErrorType;
import org.apache.datasketches.frequencies.FrequentItemsSketch;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * {@link Evaluate} with TEXT keys: the contenders keep the words themselves, so the key bytes are in every budget.
 * Hotkeeper ({@code observe(CharSequence)}, {@code memory(budget)} with {@code --max-key-bytes}), DataSketches
 * {@code FrequentItemsSketch<String>} and stream-lib {@code StreamSummary<String>}, whose bytes (JOL) include the
 * {@code String}s they hold. The reference HeavyKeeper is left out: it keeps {@code long} keys, and a text
 * version would need its heap to hold the strings.
 *
 * <pre>
 * $J -cp bench/target/benchmarks.jar io.hotkeeper.bench.TextEvaluate --words /tmp/peers/jdk-words.txt \
 *     [--max-key-bytes 64] [--exponent 1.0] [--keys 10000000] [--seed 42] [--memory B,B] [--threads T,T]
 *     [--decay-base B]
 * $J -cp bench/target/benchmarks.jar io.hotkeeper.bench.TextEvaluate --file STREAM.txt [--memory ...] ...
 *     [--key-lengths head]
 * </pre>
 *
 * {@code --key-lengths head} (with {@code --file}) gives Hotkeeper's plan the lengths of the k heaviest lines in
 * the file's first MiB ({@code HotkeeperBuilder.expectedKeyLengths}), as {@code hotkeeper top FILE} does; without
 * it the key shards are planned for keys of up to 16 bytes.
 *
 * The stream: with {@code --words}, the word list's lines shuffled with the seed, then Zipf draws over them, exactly
 * as {@link KeyStreams#zipfOverLines} draws (the same words in the same order); with {@code --file}, the file's
 * non-empty lines in order, as {@code hotkeeper top} reads them (keys that arrive in runs stay in runs). A reported key is correct if its
 * text is a word of the true top k (a truncated Hotkeeper key never is).
 */
public final class TextEvaluate {
    private TextEvaluate() {
    }

    /** Hotkeeper's decay base ({@code --decay-base}; 0: the builder's default). */
    private static double decayBase;
    /** Hotkeeper's expected key lengths ({@code --key-lengths head}; empty: the plan's 16-byte keys). */
    private static int[] keyLengths = new int[0];

    public static void main(String[] args) throws IOException {
        String wordsFile = null;
        String streamFile = null;
        int maxKeyBytes = Hotkeeper.DEFAULT_MAX_KEY_BYTES;
        double exponent = 1.0;
        int keys = 10_000_000;
        long seed = 42;
        int k = 100;
        long[] memories = {16384, 65536, 262144};
        int[] threadCounts = {1, 2};
        String keyLengthSource = "none";
        for (int i = 0; i + 1 < args.length; i += 2) {
            String v = args[i + 1];
            switch (args[i]) {
                case "--words" -> wordsFile = v;
                case "--file" -> streamFile = v;
                case "--max-key-bytes" -> maxKeyBytes = Integer.parseInt(v);
                case "--exponent" -> exponent = Double.parseDouble(v);
                case "--keys" -> keys = Integer.parseInt(v);
                case "--seed" -> seed = Long.parseLong(v);
                case "--k" -> k = Integer.parseInt(v);
                case "--memory" -> memories = java.util.Arrays.stream(v.split(",")).mapToLong(Long::parseLong)
                        .toArray();
                case "--threads" -> threadCounts = java.util.Arrays.stream(v.split(",")).mapToInt(Integer::parseInt)
                        .toArray();
                case "--decay-base" -> decayBase = Double.parseDouble(v);
                case "--key-lengths" -> keyLengthSource = v;
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if ((wordsFile == null) == (streamFile == null)) {
            throw new IllegalArgumentException("one of --words FILE (Zipf draws over its lines) or --file FILE (its "
                    + "lines in order, the stream itself) is required");
        }
        switch (keyLengthSource) {
            case "none" -> keyLengths = new int[0];
            case "head" -> {
                if (streamFile == null) {
                    throw new IllegalArgumentException("--key-lengths head needs --file");
                }
                keyLengths = io.hotkeeper.cli.HeadKeyLengths.of(streamFile, k);
            }
            default -> throw new IllegalArgumentException("--key-lengths " + keyLengthSource + ": none or head");
        }
        String[] words;
        String[] stream;
        String name;
        if (streamFile != null) {
            // The stream as it is: every non-empty line in file order (keys that arrive in runs stay in runs).
            stream = lines(streamFile).toArray(String[]::new);
            words = new java.util.LinkedHashSet<>(java.util.Arrays.asList(stream)).toArray(String[]::new);
            name = Path.of(streamFile).getFileName().toString();
            keys = stream.length;
        } else {
            // The same lines, shuffle and draws as KeyStreams.zipfOverLines.
            String[] list = lines(wordsFile).toArray(String[]::new);
            SplittableRandom random = new SplittableRandom(seed);
            int[] order = KeyStreams.shuffled(list.length, random);
            words = new String[list.length];
            for (int i = 0; i < words.length; i++) {
                words[i] = list[order[i]];
            }
            ZipfKeys zipf = new ZipfKeys(words.length, exponent);
            stream = new String[keys];
            for (int i = 0; i < keys; i++) {
                stream[i] = words[zipf.rankOf(random.nextDouble()) - 1];
            }
            name = Path.of(wordsFile).getFileName() + ", Zipf " + exponent + " over its " + words.length + " lines";
        }
        long[] hashes = new long[keys];
        for (int i = 0; i < keys; i++) {
            hashes[i] = hash(stream[i]);
        }
        ExactCounts exact = new ExactCounts(hashes);
        System.out.printf(Locale.ROOT, "# TextEvaluate: %s, %,d keys, seed %d; k %d; Hotkeeper maxKeyBytes %d, key "
                        + "lengths %s (%d); %s%n", name, keys, seed, k, maxKeyBytes, keyLengthSource, keyLengths.length,
                Runtime.version());
        System.out.printf(Locale.ROOT, "%,d distinct; true count at rank 1 / 10 / %d: %,d / %,d / %,d%n%n",
                exact.distinct(), k, exact.countAtRank(1), exact.countAtRank(10), exact.countAtRank(k));
        List<String> rows = new ArrayList<>();
        for (long budget : memories) {
            for (int threads : threadCounts) {
                String hk = hotkeeper(stream, exact, budget, threads, k, maxKeyBytes);
                String ds = itemsSketch(stream, exact, budget, threads, k, words);
                String ss = streamSummary(stream, exact, budget, threads, k);
                rows.add(String.format(Locale.ROOT, "| %s (text, maxKeyBytes %d) | %d KiB | %d | %s | %s | %s |",
                        Path.of(streamFile != null ? streamFile : wordsFile).getFileName().toString()
                                .replace(".txt", ""), maxKeyBytes, budget / 1024,
                        threads, hk, ds, ss));
            }
        }
        System.out.println();
        System.out.println("| stream | budget | threads | Hotkeeper | DataSketches FrequentItemsSketch<String>"
                + " | StreamSummary<String> |");
        System.out.println("|---|---:|---:|---|---|---|");
        rows.forEach(System.out::println);
    }

    /** The non-empty lines of {@code file} (UTF-8, a CR before the LF dropped), in order. */
    private static List<String> lines(String file) throws IOException {
        List<String> lines = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of(file), StandardCharsets.UTF_8)) {
            String w = line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
            if (!w.isEmpty()) {
                lines.add(w);
            }
        }
        return lines;
    }

    /** The key identity for accuracy: the word's UTF-8 bytes hashed as {@link KeyStreams#hashLine} does. */
    static long hash(String word) {
        byte[] b = word.getBytes(StandardCharsets.UTF_8);
        return KeyStreams.hashLine(b, b.length);
    }

    /** Thread t's chunks of the stream, as {@link Contender#chunksOf} deals them. */
    private static void chunks(String[] stream, int t, int threads, Consumer<String> observe) {
        for (int from = t * Contender.CHUNK; from < stream.length; from += threads * Contender.CHUNK) {
            int to = Math.min(stream.length, from + Contender.CHUNK);
            for (int i = from; i < to; i++) {
                observe.accept(stream[i]);
            }
        }
    }

    private static void locked(String[] stream, int threads, Object lock, Consumer<String> observe) {
        Contender.onThreads(threads, t -> chunks(stream, t, threads, threads == 1 ? observe : w -> {
            synchronized (lock) {
                observe.accept(w);
            }
        }));
    }

    private static String line(String name, long budget, int threads, long bytes, String held,
                               ExactCounts.Accuracy a) {
        System.out.printf(Locale.ROOT, "- %d KiB, %d thread(s), %s: p@%d %.2f, ARE %.4f (hits %.4f), reported %d;"
                        + " holds %,d B (%.0f%%): %s%n", budget / 1024, threads, name, 100, a.precision(), a.are(),
                a.areHits(), a.reported(), bytes, 100.0 * bytes / budget, held);
        if (bytes > budget) {
            throw new IllegalStateException(name + " over budget: " + bytes + " > " + budget);
        }
        return String.format(Locale.ROOT, "%.2f / %.4f", a.precision(), a.are());
    }

    private static String hotkeeper(String[] stream, ExactCounts exact, long budget, int threads, int k,
                                    int maxKeyBytes) {
        HotkeeperBuilder b = Hotkeeper.builder().memory(budget).expectedThreads(threads).k(k)
                .maxKeyBytes(maxKeyBytes).seed(Workloads.SKETCH_SEED);
        if (decayBase > 0) {
            b.decayBase(decayBase);
        }
        if (keyLengths.length > 0) {
            b.expectedKeyLengths(keyLengths);
        }
        try (Hotkeeper hk = b.build()) {
            Contender.onThreads(threads, t -> chunks(stream, t, threads, hk::observe));
            List<Contender.Hit> top = new ArrayList<>();
            int truncated = 0;
            for (HeavyHitter h : hk.topK(k)) {
                truncated += h.truncated() ? 1 : 0;
                top.add(new Contender.Hit(hash(h.keyAsString()), h.estimate()));
            }
            long bytes = hk.info().nativeBytes();
            return line("Hotkeeper memory(" + budget + ")", budget, threads, bytes,
                    truncated + " truncated keys reported; " + Contender.describe(hk.info()),
                    exact.accuracy(top, k, 10));
        } catch (IllegalArgumentException e) {
            System.out.printf(Locale.ROOT, "- %d KiB, %d thread(s), Hotkeeper: refused: %s%n", budget / 1024,
                    threads, e.getMessage());
            return "refused";
        }
    }

    private static String itemsSketch(String[] stream, ExactCounts exact, long budget, int threads, int k,
                                      String[] words) {
        // Fit: the largest power-of-two map whose sketch, filled with words of the list, measures within the
        // budget; then the real run is measured again and halved if it does not fit (its Strings differ).
        int size = (int) Math.max(8, Long.highestOneBit(budget / 14));
        for (; size >= 8; size >>= 1) {
            FrequentItemsSketch<String> probe = new FrequentItemsSketch<>(size);
            for (int i = 0; i < Math.min(words.length, 4 * size); i++) {
                probe.update(words[i]);
            }
            if (Contender.heapBytes(probe) <= budget) {
                break;
            }
        }
        for (; size >= 8; size >>= 1) {
            FrequentItemsSketch<String> sketch = new FrequentItemsSketch<>(size);
            locked(stream, threads, sketch, sketch::update);
            List<Contender.Hit> top = new ArrayList<>();
            for (FrequentItemsSketch.Row<String> r : sketch.getFrequentItems(ErrorType.NO_FALSE_NEGATIVES)) {
                top.add(new Contender.Hit(hash(r.getItem()), r.getEstimate()));
            }
            top.sort(Comparator.comparingLong(Contender.Hit::estimate).reversed());
            long bytes = Contender.heapBytes(sketch);
            if (bytes > budget) {
                System.out.printf(Locale.ROOT, "# FrequentItemsSketch refit: maxMapSize %,d holds %,d B%n", size,
                        bytes);
                continue;
            }
            return line("DataSketches FrequentItemsSketch<String>" + (threads > 1 ? " (one, locked)" : ""), budget,
                    threads, bytes, "maxMapSize " + size + ", " + sketch.getNumActiveItems() + " live items",
                    exact.accuracy(top.subList(0, Math.min(k, top.size())), k, 10));
        }
        throw new IllegalStateException("FrequentItemsSketch does not fit " + budget);
    }

    private static String streamSummary(String[] stream, ExactCounts exact, long budget, int threads, int k) {
        int capacity = (int) (budget / 200);
        int best = 0;
        long bestBytes = 0;
        ExactCounts.Accuracy bestAccuracy = null;
        java.util.Set<Integer> tried = new java.util.HashSet<>();
        for (int attempt = 0; attempt < 6 && capacity > best && tried.add(capacity); attempt++) {
            StreamSummary<String> summary = new StreamSummary<>(capacity);
            locked(stream, threads, summary, summary::offer);
            long bytes = Contender.heapBytes(summary);
            System.out.printf(Locale.ROOT, "# StreamSummary<String> fit: capacity %,d holds %,d B of %,d B%n",
                    capacity, bytes, budget);
            if (bytes <= budget) {
                List<Contender.Hit> top = new ArrayList<>();
                for (Counter<String> c : summary.topK(k)) {
                    top.add(new Contender.Hit(hash(c.getItem()), c.getCount()));
                }
                best = capacity;
                bestBytes = bytes;
                bestAccuracy = exact.accuracy(top, k, 10);
                if (budget - bytes < budget / 100) {
                    break;
                }
                capacity = (int) (capacity * (double) budget / bytes);
            } else {
                capacity = (int) (capacity * (double) budget / bytes) - 1;
            }
        }
        if (bestAccuracy == null) {
            throw new IllegalStateException("StreamSummary<String> does not fit " + budget);
        }
        return line("stream-lib StreamSummary<String>" + (threads > 1 ? " (one, locked)" : ""), budget, threads,
                bestBytes, "capacity " + best, bestAccuracy);
    }
}
