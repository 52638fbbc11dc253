package io.hotkeeper.spark;

import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.placement.NativeBytes;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Executors never keep Hotkeeper's native memory: over many partitions, tasks and aggregation buffers (per-group
 * sketches, the object hash aggregate falling back to sort-based aggregation, which serializes buffers and drops
 * them, and a job that fails midway), the process-wide native byte count ({@link NativeBytes}, local mode runs
 * the executors in this JVM) returns exactly to its baseline, with no GC needed, and while the jobs run it never
 * exceeds one open sketch per task slot.
 */
class NativeMemoryTest {
    @Test
    void nativeBytesReturnToBaselineOverManyPartitionsAndTasks() throws Exception {
        SparkSession spark = LocalSpark.get();
        long baseline = NativeBytes.live();
        long perSketch;
        try (Hotkeeper one = new SketchSpec(20 * 1024, 20, SketchSpec.DEFAULT_MAX_KEY_BYTES).open()) {
            // A sketch's table, plus the links and key shard its observing thread allocates.
            for (int i = 0; i < 100_000; i++) {
                one.observe("key-" + (i % 5000));
                one.observe(i % 5000L);
            }
            one.flush();
            perSketch = NativeBytes.live() - baseline;
        }
        assertEquals(baseline, NativeBytes.live());
        // memory is the sketch's total native memory: table, links, control line and key shard stay within it.
        assertTrue(perSketch > 8 * 1024 && perSketch <= 20 * 1024, "a sketch holds at most its budget: " + perSketch);

        AtomicLong peak = new AtomicLong();
        AtomicBoolean running = new AtomicBoolean(true);
        Thread sampler = Thread.ofPlatform().daemon().start(() -> {
            while (running.get()) {
                peak.accumulateAndGet(NativeBytes.live() - baseline, Math::max);
                java.util.concurrent.locks.LockSupport.parkNanos(200_000);
            }
        });
        String fallback = "spark.sql.objectHashAggregate.sortBased.fallbackThreshold";
        String old = spark.conf().get(fallback);
        try {
            Dataset<Row> data = ZipfData.generate(spark, 200_000, 64, 1.1, 50_000, 3);
            // 64 partitions, 100 groups: thousands of buffers; with a fallback threshold of 8 buffers per task,
            // most are serialized to their bytes and dropped by Spark mid-task.
            spark.conf().set(fallback, "8");
            data.createOrReplaceTempView("many");
            List<Row> groups = spark.sql("SELECT key % 100 AS g, hotkeeper_top_k(skey, 20, 20480) AS t, "
                    + "hotkeeper_top_k_accumulate(key, 20, 20480) AS s FROM many GROUP BY key % 100").collectAsList();
            assertEquals(100, groups.size());
            for (Row g : groups) {
                assertTrue(!g.getList(1).isEmpty(), "every group has a top");
            }
            spark.conf().set(fallback, old);
            for (int i = 0; i < 3; i++) {
                assertEquals(20, data.select(HotkeeperSpark.hotkeeperTopK(
                        org.apache.spark.sql.functions.col("key"), 20, 20480)).first().getList(0).size());
            }
            // A job that fails midway: a task that throws drops its buffers.
            assertThrows(Exception.class, () -> spark.sql("SELECT hotkeeper_top_k(CASE WHEN key = 7 THEN "
                    + "CAST(raise_error('boom') AS STRING) ELSE skey END, 20) FROM many").collect());
        } finally {
            spark.conf().set(fallback, old);
            running.set(false);
            sampler.join();
        }
        System.out.printf("NativeMemoryTest: baseline %d, peak %d above it, one sketch %d%n", baseline, peak.get(),
                perSketch);
        assertEquals(baseline, NativeBytes.live(), "native bytes after the jobs");
        // At most one open sketch per running task: 2 task slots (merges of buffers need none).
        assertTrue(peak.get() > 0, "the sampler saw sketches open");
        assertTrue(peak.get() <= 2 * perSketch, "peak " + peak.get() + " > 2 sketches of " + perSketch);
    }
}
