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
 * precision@k against the exact answer, items returned, memory, sketch bytes and wall times (median of the timed
 * runs after one untimed warm-up). Prints one Markdown table row per function, and with {@code --print} the top k
 * themselves. {@code --typed} also times {@link HotkeeperSpark#typedTopK}, the typed-{@code Aggregator} form.
 *
 * <pre>
 * Compare [--file PATH | --zipf S] [--rows N] [--universe U] [--partitions P] [--column key|skey]
 *         [--k K] [--memory BYTES] [--max-items N] [--runs R] [--print] [--typed]
 * </pre>
 * Equal memory: {@code --memory} is each Hotkeeper sketch's total native memory; {@code --max-items}
 * (approx_top_k's maxItemsTracked) defaults to the most items whose {@code ItemsSketch} fits in the same bytes of
 * heap ({@link #itemsSketchBytes}). Threads: a command-line program.
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
        boolean typed = false;
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
                case "--typed" -> typed = true;
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        SparkSession spark = SparkSession.builder().appName("hotkeeper-compare")
                .master(System.getProperty("spark.master", "local[2]"))
                .config("spark.ui.enabled", "false")
                .config("spark.sql.shuffle.partitions", "4")
                .getOrCreate();
        spark.sparkContext().setLogLevel("WARN");
        HotkeeperSpark.register(spark);
        spark.sparkContext().addSparkListener(TASK_CPU);

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
        boolean strings = "skey".equals(column) || file != null;
        // A key's heap bytes in an ItemsSketch: a boxed Long, or a String (Latin-1) of the column's mean length.
        double meanLength = strings ? cached.select(functions.avg(functions.length(c))).first().getDouble(0) : 0;
        long keyHeap = strings ? 24 + ((16 + (long) Math.ceil(meanLength) + 7) & ~7L) : 16;
        if (maxItems < 0) {
            maxItems = (int) Math.max(k, maxItemsWithin(memory, keyHeap));
        }
        int items = maxItems;
        SketchSpec spec = SketchSpec.checked(memory, k, SketchSpec.DEFAULT_MAX_KEY_BYTES);
        long hkNative;
        try (io.hotkeeper.engine.Hotkeeper sketch = spec.open()) {
            sketch.observe(1L);
            hkNative = sketch.info().nativeBytes();
        }

        List<Job> jobs = new ArrayList<>(List.of(
                () -> cached.groupBy(c).count().orderBy(functions.desc("count")).limit(topK).collectAsList(),
                () -> cached.select(HotkeeperSpark.hotkeeperTopK(c, topK, memoryBytes)).collectAsList(),
                () -> cached.select(functions.call_function("approx_top_k", c, functions.lit(topK),
                        functions.lit(items))).collectAsList()));
        if (typed) {
            KeyType type = strings ? KeyType.STRING : KeyType.LONG;
            jobs.add(() -> cached.select(HotkeeperSpark.typedTopK(c, type, spec)).collectAsList());
        }
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
        System.out.println("| function | parameters | precision@" + k + " | items | sketch bytes | wall ms (median of "
                + runs + ") | memory bytes | wall ms, min | task CPU ms, median |");
        System.out.println("|---|---|---|---|---|---|---|---|---|");
        row("exact groupBy().count()", "-", "-", correct, exactRun[0], "-", exactRun, k);
        row("hotkeeper_top_k", "memory=" + memory, hkNative + " native", correct, topList(hk[0]),
                String.valueOf(hkBytes), hk, k);
        row("approx_top_k", "maxItemsTracked=" + maxItems, itemsSketchBytes(maxItems, keyHeap) + " heap", correct,
                topList(approx[0]), String.valueOf(approxBytes), approx, k);
        if (typed) {
            Object[] t = results[3];
            row("hotkeeper_top_k, typed Aggregator", "memory=" + memory, hkNative + " native", correct,
                    topList(t[0]), String.valueOf(hkBytes), t, k);
        }
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
    private static void row(String name, String params, String memory, Set<Object> correct, Object result,
                            String bytes, Object[] timing, int k) {
        List<Row> list = (List<Row>) result;
        int found = 0;
        for (Row r : list) {
            if (correct.contains(r.get(0))) {
                found++;
            }
        }
        System.out.printf(Locale.ROOT, "| %s | %s | %.2f | %d | %s | %d | %s | %d | %d |%n", name, params,
                (double) found / k, list.size(), bytes, (long) timing[1], memory, (long) timing[2], (long) timing[3]);
    }

    /**
     * The heap of an {@code ItemsSketch} holding as many items as {@code approx_top_k(..., maxItemsTracked)} lets
     * it: Spark gives it a map of {@code 2^ceil(log2(ceil(maxItemsTracked / 0.75)))} slots, each a key reference
     * (4 bytes, compressed oops), a {@code long} count and a {@code short} state (14 bytes), and the map holds up to
     * 0.75 x slots keys before it purges, each {@code keyHeap} bytes (a {@code Long}: 16; a {@code String}: 24 plus
     * its Latin-1 byte array, 16 + length rounded up to 8). Array headers and the sketch object are left out.
     */
    static long itemsSketchBytes(int maxItemsTracked, long keyHeap) {
        long slots = Long.highestOneBit((long) Math.ceil(maxItemsTracked / 0.75) - 1) << 1;
        return 14 * slots + (long) (0.75 * slots) * keyHeap;
    }

    /** The largest maxItemsTracked (0.75 x a power of two) whose {@link #itemsSketchBytes} is within {@code memory}. */
    static long maxItemsWithin(long memory, long keyHeap) {
        long slots = 4;
        while (itemsSketchBytes((int) (0.75 * slots * 2), keyHeap) <= memory) {
            slots *= 2;
        }
        return (long) (0.75 * slots);
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

    /** The executor CPU time of the tasks that ended (ns): what a job cost, whatever else the machine ran. */
    private static final class TaskCpu extends org.apache.spark.scheduler.SparkListener {
        final java.util.concurrent.atomic.AtomicLong nanos = new java.util.concurrent.atomic.AtomicLong();

        @Override
        public void onTaskEnd(org.apache.spark.scheduler.SparkListenerTaskEnd end) {
            if (end.taskMetrics() != null) {
                nanos.addAndGet(end.taskMetrics().executorCpuTime() + end.taskMetrics().executorDeserializeCpuTime());
            }
        }
    }

    private static final TaskCpu TASK_CPU = new TaskCpu();

    /** The task CPU time so far, once the listener bus has delivered every event posted before the call. */
    private static long taskCpuNanos() {
        try {
            SparkSession.active().sparkContext().listenerBus().waitUntilEmpty();
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("listener bus did not drain", e);
        }
        return TASK_CPU.nanos.get();
    }

    /**
     * Per job {result, median wall ms, min wall ms, median task CPU ms}: one untimed warm-up round, then
     * {@code runs} rounds that each run every job once, the first job of a round rotating, so a change in the
     * machine's load falls on all jobs alike. Task CPU time (executor CPU of the job's tasks, from a listener) is
     * what the job cost the executors, which other processes on the machine inflate far less than wall time.
     */
    private static Object[][] timed(int runs, List<Job> jobs) {
        Object[][] out = new Object[jobs.size()][4];
        List<List<Long>> times = new ArrayList<>();
        List<List<Long>> cpus = new ArrayList<>();
        for (int j = 0; j < jobs.size(); j++) {
            out[j][0] = jobs.get(j).run();
            times.add(new ArrayList<>());
            cpus.add(new ArrayList<>());
        }
        for (int round = 0; round < runs; round++) {
            for (int i = 0; i < jobs.size(); i++) {
                int j = (round + i) % jobs.size();
                long cpu0 = taskCpuNanos();
                long t0 = System.nanoTime();
                out[j][0] = jobs.get(j).run();
                times.get(j).add((System.nanoTime() - t0) / 1_000_000);
                cpus.get(j).add((taskCpuNanos() - cpu0) / 1_000_000);
            }
        }
        for (int j = 0; j < jobs.size(); j++) {
            List<Long> t = times.get(j);
            List<Long> c = cpus.get(j);
            t.sort(null);
            c.sort(null);
            out[j][1] = t.isEmpty() ? 0L : t.get(t.size() / 2);
            out[j][2] = t.isEmpty() ? 0L : t.getFirst();
            out[j][3] = c.isEmpty() ? 0L : c.get(c.size() / 2);
            System.out.println("wall ms " + j + ": " + t + ", task cpu ms: " + c);
        }
        return out;
    }
}
