package io.hotkeeper.spark;

import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The side-by-side run of docs/spark.md and {@code spark/run-example}: on one dataset in one local session, the
 * top k of {@code hotkeeper_top_k}, Spark's {@code approx_top_k} and an exact {@code groupBy().count()}, with
 * precision@k against the exact answer, items returned, sketch bytes and wall times (median of the timed runs
 * after one untimed warm-up). Prints one Markdown table row per function, and with {@code --print} the top k
 * themselves.
 *
 * <pre>
 * Compare [--file PATH | --zipf S] [--rows N] [--universe U] [--partitions P] [--column key|skey]
 *         [--k K] [--memory BYTES] [--max-items N] [--runs R] [--print]
 * </pre>
 * {@code --max-items} (approx_top_k's maxItemsTracked) defaults to memory / 8: as many tracked items as Hotkeeper
 * has 8-byte table slots. Threads: a command-line program.
 */
public final class Compare {
    private Compare() {
    }

    /** Runs the comparison; see the class comment. */
    public static void main(String[] args) {
        String file = null;
        double zipf = 1.0;
        long rows = 10_000_000;
        int universe = 1_000_000;
        int partitions = 16;
        String column = "skey";
        int k = 100;
        long memory = 64 * 1024;
        int maxItems = -1;
        int runs = 3;
        boolean print = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--file" -> file = args[++i];
                case "--zipf" -> zipf = Double.parseDouble(args[++i]);
                case "--rows" -> rows = Long.parseLong(args[++i]);
                case "--universe" -> universe = Integer.parseInt(args[++i]);
                case "--partitions" -> partitions = Integer.parseInt(args[++i]);
                case "--column" -> column = args[++i];
                case "--k" -> k = Integer.parseInt(args[++i]);
                case "--memory" -> memory = Long.parseLong(args[++i]);
                case "--max-items" -> maxItems = Integer.parseInt(args[++i]);
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--print" -> print = true;
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (maxItems < 0) {
            maxItems = (int) Math.min(1_000_000, Math.max(k, memory / 8));
        }
        SparkSession spark = SparkSession.builder().appName("hotkeeper-compare")
                .master(System.getProperty("spark.master", "local[2]"))
                .config("spark.ui.enabled", "false")
                .config("spark.sql.shuffle.partitions", "4")
                .getOrCreate();
        spark.sparkContext().setLogLevel("WARN");
        HotkeeperSpark.register(spark);

        Dataset<Row> data;
        String dataName;
        if (file != null) {
            data = spark.read().text(file).repartition(partitions).withColumnRenamed("value", "skey");
            column = "skey";
            dataName = file;
        } else {
            data = ZipfData.generate(spark, rows, partitions, zipf, universe, 42);
            dataName = String.format(Locale.ROOT, "Zipf %.1f, %,d rows, %,d ranks, %s", zipf, rows, universe,
                    column);
        }
        Dataset<Row> cached = data.select(column).cache();
        long count = cached.count();
        Column c = functions.col(column);
        data = cached;
        int topK = k;
        long memoryBytes = memory;
        int items = maxItems;

        List<Job> jobs = List.of(
                () -> cached.groupBy(c).count().orderBy(functions.desc("count")).limit(topK).collectAsList(),
                () -> cached.select(HotkeeperSpark.hotkeeperTopK(c, topK, memoryBytes)).collectAsList(),
                () -> cached.select(functions.call_function("approx_top_k", c, functions.lit(topK),
                        functions.lit(items))).collectAsList());
        Object[][] results = timed(runs, jobs);
        Object[] exactRun = results[0];
        Object[] hk = results[1];
        Object[] approx = results[2];
        @SuppressWarnings("unchecked")
        List<Row> exact = (List<Row>) exactRun[0];
        long kth = exact.isEmpty() ? 0 : exact.getLast().getLong(1);
        // Every item tied with the k-th count is a correct answer.
        Set<Object> correct = new HashSet<>();
        for (Row r : cached.groupBy(c).count().where(functions.col("count").geq(kth)).collectAsList()) {
            correct.add(r.get(0));
        }
        long hkBytes = data.select(functions.length(HotkeeperSpark.hotkeeperTopKAccumulate(c, k, memory)))
                .first().getInt(0);
        long approxBytes = data.select(functions.length(functions.call_function("approx_top_k_accumulate", c,
                functions.lit(maxItems)).getField("sketch"))).first().getInt(0);

        System.out.printf(Locale.ROOT, "%n%s: %,d rows, %,d distinct, %d partitions, k=%d%n", dataName, count,
                data.distinct().count(), data.rdd().getNumPartitions(), k);
        System.out.println("| function | parameters | precision@" + k + " | items | sketch bytes | wall ms"
                + " (median of " + runs + ") |");
        System.out.println("|---|---|---|---|---|---|");
        row("exact groupBy().count()", "-", exact.size(), exact.size(), correct, exactRun[0], "-", exactRun[1], k);
        row("hotkeeper_top_k", "memory=" + memory, -1, -1, correct, topList(hk[0]), String.valueOf(hkBytes), hk[1],
                k);
        row("approx_top_k", "maxItemsTracked=" + maxItems, -1, -1, correct, topList(approx[0]),
                String.valueOf(approxBytes), approx[1], k);
        if (print) {
            print("exact", exact);
            print("hotkeeper_top_k", topList(hk[0]));
            print("approx_top_k", topList(approx[0]));
        }
        spark.stop();
    }

    @SuppressWarnings("unchecked")
    private static List<Row> topList(Object collected) {
        List<Row> rows = (List<Row>) collected;
        return rows.getFirst().getList(0);
    }

    @SuppressWarnings("unchecked")
    private static void row(String name, String params, int items, int hits, Set<Object> correct, Object result,
                            String bytes, Object millis, int k) {
        List<Row> list = (List<Row>) result;
        int found = 0;
        for (Row r : list) {
            if (correct.contains(r.get(0))) {
                found++;
            }
        }
        System.out.printf(Locale.ROOT, "| %s | %s | %.2f | %d | %s | %d |%n", name, params, (double) found / k,
                list.size(), bytes, (long) millis);
    }

    private static void print(String name, List<Row> rows) {
        System.out.println();
        System.out.println(name + ":");
        int rank = 1;
        for (Row r : rows) {
            Object item = r.get(0);
            System.out.printf(Locale.ROOT, "%4d  %12d  %s%n", rank++, r.getLong(1),
                    item instanceof byte[] b ? Arrays.toString(b) : item);
        }
    }

    private interface Job {
        Object run();
    }

    /**
     * Per job {result, median ms}: one untimed warm-up round, then {@code runs} rounds that each run every job
     * once, the first job of a round rotating, so a change in the machine's load falls on all jobs alike.
     */
    private static Object[][] timed(int runs, List<Job> jobs) {
        Object[][] out = new Object[jobs.size()][2];
        List<List<Long>> times = new ArrayList<>();
        for (int j = 0; j < jobs.size(); j++) {
            out[j][0] = jobs.get(j).run();
            times.add(new ArrayList<>());
        }
        for (int round = 0; round < runs; round++) {
            for (int i = 0; i < jobs.size(); i++) {
                int j = (round + i) % jobs.size();
                long t0 = System.nanoTime();
                out[j][0] = jobs.get(j).run();
                times.get(j).add((System.nanoTime() - t0) / 1_000_000);
            }
        }
        for (int j = 0; j < jobs.size(); j++) {
            List<Long> t = times.get(j);
            t.sort(null);
            out[j][1] = t.isEmpty() ? 0L : t.get(t.size() / 2);
            System.out.println("times " + j + ": " + t);
        }
        return out;
    }
}
