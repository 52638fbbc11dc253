package io.hotkeeper.bench;

import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.HotkeeperBuilder;
import io.hotkeeper.engine.HotkeeperInfo;

import org.apache.datasketches.frequencies.FrequentLongsSketch;
import com.clearspring.analytics.stream.StreamSummary;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Accuracy of Hotkeeper and its peers at equal TOTAL memory (docs/peers.md, "Accuracy at equal total memory").
 *
 * <pre>
 * J=$(bin/find-java)
 * $J -cp bench/target/benchmarks.jar io.hotkeeper.bench.Evaluate --zipf 0.8 --zipf 1.0 --zipf 1.2 \
 *     --file /tmp/peers/license-words.txt --words /tmp/peers/jdk-words.txt --file /tmp/peers/jdk-legal-lines.txt
 * </pre>
 *
 * Options: {@code --zipf s} (repeatable; {@code uniform} = 0) generates {@code --keys} keys (default 10,000,000)
 * over {@code --distinct} items (default 1,000,000) with {@code --seed} (default 42); {@code --file F}
 * (repeatable) reads one key per line, each line's bytes hashed to a {@code long} by {@link KeyStreams#hashLine};
 * {@code --words F} (repeatable) draws {@code --keys} keys with Zipf exponent {@code --words-exponent} (default
 * 1.0) over the lines of F ({@link KeyStreams#zipfOverLines}); {@code --memory} a comma list of total budgets in
 * bytes (default 16384,65536,262144); {@code --threads} a comma list (default 1,2); {@code --k} (default 100);
 * {@code --split memory} (default: Hotkeeper built with {@code Builder.memory(budget)} and
 * {@code expectedThreads}), {@code search} (the split {@link HotkeeperBudget} chooses), {@code links-free} (a
 * what-if over the budget: the memory split's links given to its table) or {@code links-4byte} (a what-if at the
 * budget: the table a 4-byte link would leave room for), see {@link #hotkeeperLinksWhatIf}; {@code --hotkeeper-only}
 * runs Hotkeeper alone, one line per budget and thread count (quick comparisons of the engine's own split).
 *
 * <p>Each contender ({@link Contender}) is fitted to the whole budget: Hotkeeper by {@code memory(budget)} or
 * {@link HotkeeperBudget} (every native byte, all workers' shards and combiners included), the on-heap peers by the bytes of their object
 * graph measured with JOL. After every run the held bytes are measured again and must be within the budget
 * (Hotkeeper: an exception; StreamSummary, whose buckets depend on the stream: refitted and re-run). Prints, per
 * stream, one line per run (configuration, bytes, accuracy), then a markdown summary table; at the end, the
 * summary of all streams.
 */
public final class Evaluate {
    private static final int ORDER_DEPTH = 10;
    private static final int MAX_REFITS = 6;

    private final int k;
    private final Map<String, HotkeeperBudget.Fit> hotkeeperFits = new HashMap<>();
    private final Map<Long, Integer> dataSketchesSizes = new HashMap<>();
    private final Map<Long, Integer> referenceWidths = new HashMap<>();
    private final List<String> summary = new ArrayList<>();
    private final java.util.Set<String> refused = new java.util.HashSet<>();
    /** How Hotkeeper's budget is split: "memory" (Builder.memory) or "search" (HotkeeperBudget). */
    private final String split;
    /** Instead of the peers: Hotkeeper alone, one thread, at every table size that fits each budget. */
    private boolean sweep;
    /** Hotkeeper alone at each budget and thread count (the split it chooses), for quick comparisons. */
    private boolean hotkeeperOnly;
    /** Candidate buckets per key of every Hotkeeper contender ({@code --candidate-buckets}, default 2). */
    private int candidateBuckets = Hotkeeper.DEFAULT_CANDIDATE_BUCKETS;
    /** The lottery's base of every Hotkeeper contender ({@code --decay-base}; 0: the default). */
    private double decayBase;

    private Evaluate(int k, String split) {
        this.k = k;
        this.split = split;
    }

    public static void main(String[] args) throws IOException {
        List<String> zipfs = new ArrayList<>();
        List<String> files = new ArrayList<>();
        List<String> words = new ArrayList<>();
        long[] memories = {16384, 65536, 262144};
        int[] threadCounts = {1, 2};
        int k = 100;
        int keys = 10_000_000;
        int distinct = 1_000_000;
        double wordsExponent = 1.0;
        long seed = 42;
        String split = "memory";
        boolean sweep = false;
        boolean hotkeeperOnly = false;
        int candidateBuckets = Hotkeeper.DEFAULT_CANDIDATE_BUCKETS;
        double decayBase = 0;
        for (int i = 0; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--zipf" -> zipfs.add(require(args[i], value));
                case "--file" -> files.add(require(args[i], value));
                case "--words" -> words.add(require(args[i], value));
                case "--words-exponent" -> wordsExponent = Double.parseDouble(require(args[i], value));
                case "--memory" -> memories = parseLongs(require(args[i], value));
                case "--threads" -> {
                    long[] t = parseLongs(require(args[i], value));
                    threadCounts = new int[t.length];
                    for (int j = 0; j < t.length; j++) {
                        threadCounts[j] = Math.toIntExact(t[j]);
                    }
                }
                case "--k" -> k = Integer.parseInt(require(args[i], value));
                case "--keys" -> keys = Integer.parseInt(require(args[i], value));
                case "--distinct" -> distinct = Integer.parseInt(require(args[i], value));
                case "--seed" -> seed = Long.parseLong(require(args[i], value));
                case "--sweep-splits" -> {
                    sweep = true;
                    i--;
                }
                case "--candidate-buckets" -> candidateBuckets = Integer.parseInt(require(args[i], value));
                case "--decay-base" -> decayBase = Double.parseDouble(require(args[i], value));
                case "--hotkeeper-only" -> {
                    hotkeeperOnly = true;
                    i--;
                }
                case "--split" -> {
                    split = require(args[i], value);
                    if (!split.equals("memory") && !split.equals("search") && !whatIf(split)) {
                        throw new IllegalArgumentException("--split " + split
                                + ": must be memory, search, links-free or links-4byte");
                    }
                }
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + "; usage: [--zipf s|uniform]... [--file F]... [--words F]... [--words-exponent s]"
                        + " [--memory B,B,..] [--threads T,T,..] [--k K] [--keys N] [--distinct D] [--seed S]"
                        + " [--split memory|search|links-free|links-4byte] [--sweep-splits] [--hotkeeper-only] [--candidate-buckets 1|2]"
                        + " [--decay-base B]");
            }
            i++;
        }
        if (zipfs.isEmpty() && files.isEmpty() && words.isEmpty()) {
            zipfs = List.of("0.8", "1.0", "1.2");
        }
        if (whatIf(split) && !hotkeeperOnly) {
            throw new IllegalArgumentException("--split " + split + " is a what-if, not a configuration: only with"
                    + " --hotkeeper-only, never beside the peers");
        }
        Evaluate e = new Evaluate(k, split);
        e.sweep = sweep;
        e.hotkeeperOnly = hotkeeperOnly;
        e.candidateBuckets = candidateBuckets;
        e.decayBase = decayBase;
        System.out.printf(Locale.ROOT, "# Evaluate: k %d, budgets %s B total, threads %s, Hotkeeper split %s, %s, %d processors%n", k,
                java.util.Arrays.toString(memories), java.util.Arrays.toString(threadCounts), split,
                Runtime.version(), Runtime.getRuntime().availableProcessors());
        for (String z : zipfs) {
            double s = z.equals("uniform") ? 0.0 : Double.parseDouble(z);
            String title = (s == 0 ? "uniform" : "Zipf " + z) + String.format(Locale.ROOT,
                    ", %,d keys over %,d items, seed %d", keys, distinct, seed);
            e.report(title, KeyStreams.zipf(distinct, s, keys, seed), memories, threadCounts);
        }
        for (String f : files) {
            long[] stream = KeyStreams.lines(Path.of(f));
            e.report(Path.of(f).getFileName() + String.format(Locale.ROOT, ", %,d lines", stream.length), stream,
                    memories, threadCounts);
        }
        for (String f : words) {
            long[] stream = KeyStreams.zipfOverLines(Path.of(f), wordsExponent, keys, seed);
            e.report(Path.of(f).getFileName() + String.format(Locale.ROOT, ", Zipf %s over its lines, %,d keys,"
                    + " seed %d", wordsExponent, keys, seed), stream, memories, threadCounts);
        }
        if (sweep || hotkeeperOnly) {
            return;
        }
        System.out.printf("%n## Summary: precision@%d / ARE (over the reported top %d); † Hotkeeper split by"
                + " HotkeeperBudget%n%n", k, k);
        System.out.println(tableHeader());
        e.summary.forEach(System.out::println);
    }

    private static long[] parseLongs(String list) {
        String[] parts = list.split(",");
        long[] out = new long[parts.length];
        for (int j = 0; j < parts.length; j++) {
            out[j] = Long.parseLong(parts[j].trim());
        }
        return out;
    }

    private static String require(String option, String value) {
        if (value == null) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return value;
    }

    private static String tableHeader() {
        return "| stream | budget | threads | Hotkeeper | ReferenceHeavyKeeper | DataSketches | StreamSummary"
                + " | Hotkeeper >= best peer |\n|---|---:|---:|---|---|---|---|---|";
    }

    /** One measured run. */
    private record Result(String name, long bytes, String held, ExactCounts.Accuracy accuracy) {
        String cell() {
            return String.format(Locale.ROOT, "%s%.2f / %.4f", name.contains("bench split") ? "† " : "",
                    accuracy.precision(), accuracy.are());
        }
    }

    /** Runs every contender at every budget and thread count over {@code stream}; prints and records. */
    private void report(String title, long[] stream, long[] memories, int[] threadCounts) {
        ExactCounts exact = new ExactCounts(stream);
        System.out.printf(Locale.ROOT, "%n### %s%n%n", title);
        System.out.printf(Locale.ROOT, "%,d distinct; true count at rank 1 / 10 / %d: %,d / %,d / %,d%n%n",
                exact.distinct(), k, exact.countAtRank(1), exact.countAtRank(10), exact.countAtRank(k));
        List<String> rows = new ArrayList<>();
        String shortTitle = title.replaceAll(",.*", "");
        if (sweep) {
            System.out.printf("| stream | budget | table bytes | shard entries | holds (B) | precision@%d | ARE |%n"
                    + "|---|---:|---:|---:|---:|---:|---:|%n", k);
            for (long budget : memories) {
                for (HotkeeperBudget.Fit f : HotkeeperBudget.splits(budget, k, Long.BYTES)) {
                    Result r = measure(Contender.hotkeeper("Hotkeeper", f.builder(), budget, 1), stream, exact);
                    System.out.printf(Locale.ROOT, "| %s | %d KiB | %,d | %,d | %,d | %.2f | %.4f |%n", shortTitle,
                            budget / 1024, f.tableBytes(), f.shardCapacity(), r.bytes(),
                            r.accuracy().precision(), r.accuracy().are());
                }
            }
            return;
        }
        for (long budget : memories) {
            for (int threads : threadCounts) {
                Map<String, Result> results = new LinkedHashMap<>();
                results.put("hk", measure(hotkeeper(budget, threads), stream, exact));
                if (hotkeeperOnly) {
                    Result r = results.get("hk");
                    System.out.printf(Locale.ROOT, "| %s | %d KiB | %d | %s | %,d B: %s |%n", shortTitle,
                            budget / 1024, threads, r.cell(), r.bytes(), r.held());
                    if (r.bytes() > budget && !whatIf(split)) {
                        throw new IllegalStateException(r.name() + " over budget: " + r.bytes() + " > " + budget);
                    }
                    continue;
                }
                results.put("ref", measure(Contender.referenceHeavyKeeper(referenceWidth(budget), threads,
                        k), stream, exact));
                results.put("ds", measure(Contender.dataSketches(dataSketchesMapSize(budget), threads),
                        stream, exact));
                results.put("ss", streamSummary(budget, threads, stream, exact));
                for (Result r : results.values()) {
                    ExactCounts.Accuracy a = r.accuracy();
                    String order = a.orderMatches() == a.orderDepth() ? "yes"
                            : a.orderMatches() + "/" + a.orderDepth();
                    System.out.printf(Locale.ROOT, "- %d KiB, %d thread(s), %s: p@%d %.2f, ARE %.4f (hits %.4f),"
                                    + " top-10 order %s, reported %d; holds %,d B (%.0f%% of budget): %s%n",
                            budget / 1024, threads, r.name(), k, a.precision(), a.are(), a.areHits(), order,
                            a.reported(), r.bytes(), 100.0 * r.bytes() / budget, r.held());
                    if (r.bytes() > budget) {
                        throw new IllegalStateException(r.name() + " over budget: " + r.bytes() + " > " + budget);
                    }
                }
                double best = Math.max(results.get("ref").accuracy().precision(), Math.max(
                        results.get("ds").accuracy().precision(), results.get("ss").accuracy().precision()));
                double hk = results.get("hk").accuracy().precision();
                String verdict = hk >= best ? "yes" : String.format(Locale.ROOT, "no (%.2f < %.2f)", hk, best);
                rows.add(String.format(Locale.ROOT, "| %s | %d KiB | %d | %s | %s | %s | %s | %s |", shortTitle,
                        budget / 1024, threads, results.get("hk").cell(), results.get("ref").cell(),
                        results.get("ds").cell(), results.get("ss").cell(), verdict));
            }
        }
        System.out.println();
        System.out.println(tableHeader());
        rows.forEach(System.out::println);
        summary.addAll(rows);
    }

    private Result measure(Contender c, long[] stream, ExactCounts exact) {
        try (c) {
            c.run(stream);
            List<Contender.Hit> top = c.topK(k);
            long bytes = c.heldBytes();
            return new Result(c.name(), bytes, c.held(), exact.accuracy(top, k, ORDER_DEPTH));
        }
    }

    /**
     * Hotkeeper at {@code budget} for {@code threads}: {@code memory(budget)} with {@code expectedThreads} (split
     * {@code memory}, the default), or the bench's own search ({@link HotkeeperBudget}, split {@code search}). A
     * budget that {@code memory} refuses (too small for k keys by its rule) falls back to the search, and the
     * row's name says so.
     */
    private Contender hotkeeper(long budget, int threads) {
        if (whatIf(split)) {
            return hotkeeperLinksWhatIf(budget, threads);
        }
        if (split.equals("memory")) {
            HotkeeperBuilder b = memorySplit(budget, threads);
            try {
                b.build().close();
                return Contender.hotkeeper("Hotkeeper memory(" + budget + ")", b, budget, threads);
            } catch (IllegalArgumentException e) {
                if (refused.add(budget + "/" + threads)) {
                    System.out.println("# Hotkeeper memory(" + budget + ") refused, bench split used: "
                            + e.getMessage());
                }
            }
        }
        HotkeeperBudget.Fit f = hotkeeperFit(budget, threads);
        return Contender.hotkeeper("Hotkeeper, bench split (HotkeeperBudget)",
                f.builder().candidateBuckets(candidateBuckets), budget, threads);
    }

    /** Whether {@code split} is one of the what-ifs over the links ({@link #hotkeeperLinksWhatIf}). */
    private static boolean whatIf(String split) {
        return split.equals("links-free") || split.equals("links-4byte");
    }

    /**
     * A what-if, not a configuration (issue #28 item 1): {@code memory(budget)}'s plan with the table its links'
     * bytes would allow, the same shard capacity and {@code long} keys. {@code links-free}: the links' bytes all go
     * to the table (twice the planned table); {@code links-4byte}: the table that the planned table and links
     * hold with 4-byte links (table + table / 2 = twice the planned table, so 4/3 of it, to the bucket;
     * docs/design.md, "A 4-byte link"). Each is built with today's 8-byte links, so it holds more than the budget
     * (the links of the added buckets): its row shows what the counters would buy at this budget, and the budget
     * check is lifted for it alone.
     */
    private Contender hotkeeperLinksWhatIf(long budget, int threads) {
        HotkeeperInfo plan;
        try (Hotkeeper planned = memorySplit(budget, threads).build()) {
            plan = planned.info();
        }
        long bucket = 64; // bytes of a bucket (TableLayout.BUCKET_BYTES, not exported)
        long table = split.equals("links-free") ? 2 * plan.tableBytes()
                : 4 * plan.tableBytes() / 3 / bucket * bucket;
        HotkeeperBuilder b = tuned(Hotkeeper.builder().memoryBytes(table).shardCapacity(plan.shardCapacity()));
        return Contender.hotkeeper("Hotkeeper, " + split + " (what-if: table " + table + " B)", b, Long.MAX_VALUE,
                threads);
    }

    /** Hotkeeper sized by {@code memory(budget)} for {@code threads} expected threads (the memory split). */
    private HotkeeperBuilder memorySplit(long budget, int threads) {
        return tuned(Hotkeeper.builder().memory(budget).expectedThreads(threads));
    }

    /** {@code b} with this run's k, {@code long} keys, the sketch seed, and the candidate buckets and decay base. */
    private HotkeeperBuilder tuned(HotkeeperBuilder b) {
        b.k(k).maxKeyBytes(Long.BYTES).seed(Workloads.SKETCH_SEED).candidateBuckets(candidateBuckets);
        if (decayBase > 0) {
            b.decayBase(decayBase);
        }
        return b;
    }

    /** Hotkeeper's split for a budget and thread count (stream-independent: fitted once, printed once). */
    private HotkeeperBudget.Fit hotkeeperFit(long budget, int threads) {
        return hotkeeperFits.computeIfAbsent(budget + "/" + threads, key -> {
            HotkeeperBudget.Fit f = HotkeeperBudget.fit(budget, threads, k, Long.BYTES);
            System.out.println("# Hotkeeper fit: " + f.describe());
            return f;
        });
    }

    /**
     * DataSketches' {@code maxMapSize} for {@code budget} bytes: the largest power of two whose sketch, grown to
     * its full map, measures within the budget ({@link PeerSizing#dataSketchesMaxMapSize}, the rule
     * {@code PeerBenchmark} uses too).
     */
    private int dataSketchesMapSize(long budget) {
        return dataSketchesSizes.computeIfAbsent(budget, b -> {
            int size = PeerSizing.dataSketchesMaxMapSize(b);
            System.out.printf(Locale.ROOT, "# DataSketches fit: %,d B -> maxMapSize %,d (%,d B full)%n",
                    b, size, PeerSizing.dataSketchesFootprint(size));
            return size;
        });
    }

    /** The reference HeavyKeeper's width (d = 2) whose measured heap is within {@code budget}. */
    private int referenceWidth(long budget) {
        return referenceWidths.computeIfAbsent(budget, b -> {
            long one = Contender.heapBytes(new ReferenceHeavyKeeper(2, 1, ReferenceHeavyKeeper.PAPER_BASE, k, 42));
            int width = (int) Math.max(1, (b - one) / (2L * ReferenceHeavyKeeper.BYTES_PER_BUCKET) + 1);
            while (width > 1 && Contender.heapBytes(
                    new ReferenceHeavyKeeper(2, width, ReferenceHeavyKeeper.PAPER_BASE, k, 42)) > b) {
                width--;
            }
            System.out.printf(Locale.ROOT, "# ReferenceHeavyKeeper fit: %,d B -> 2 x %,d buckets (fixed part %,d B"
                    + " at width 1)%n", b, width, one);
            return width;
        });
    }

    /**
     * StreamSummary at the budget: its bytes depend on the stream (one bucket object per distinct count), so the
     * capacity is first estimated from a measured per-counter cost, then, while the run's measured bytes exceed
     * the budget, scaled down and the run repeated.
     */
    private Result streamSummary(long budget, int threads, long[] stream, ExactCounts exact) {
        StreamSummary<Long> probe = new StreamSummary<>(1024);
        for (long key = 1; key <= 1024; key++) {
            probe.offer(key * 0x9E3779B97F4A7C15L);
        }
        double perCounter = Contender.heapBytes(probe) / 1024.0;
        // Start by assuming half the counters have a count of their own (a bucket: ~72 B each), then scale the
        // capacity by budget / measured bytes until it no longer grows; keep the largest that fitted.
        int capacity = (int) (budget / (perCounter + 36));
        Result best = null;
        int bestCapacity = 0;
        java.util.Set<Integer> tried = new java.util.HashSet<>();
        for (int attempt = 0; attempt < MAX_REFITS && capacity > bestCapacity && tried.add(capacity); attempt++) {
            Result r = measure(Contender.streamSummary(capacity, threads), stream, exact);
            System.out.printf(Locale.ROOT, "# StreamSummary fit: capacity %,d holds %,d B of %,d B%n", capacity,
                    r.bytes(), budget);
            if (r.bytes() <= budget) {
                best = r;
                bestCapacity = capacity;
                if (budget - r.bytes() < budget / 100) {
                    break; // within 1% of the budget: a counter or two more is not worth another run
                }
                capacity = (int) (capacity * (double) budget / r.bytes());
            } else {
                capacity = (int) (capacity * (double) budget / r.bytes()) - 1;
            }
        }
        if (best != null) {
            return best;
        }
        throw new IllegalStateException("StreamSummary did not fit " + budget + " B in " + MAX_REFITS + " runs");
    }
}
