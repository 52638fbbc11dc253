package io.hotkeeper.spark;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.apache.spark.sql.functions.col;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code hotkeeper_top_k} on a local[2] session: precision@100 against an exact {@code groupBy().count()} on a
 * Zipf 1.0 dataset (2,000,000 rows in 16 partitions here, to keep the test to seconds on a 2-core machine; the
 * 10,000,000-row run is in docs/spark.md), string and bigint columns, SQL and DataFrame forms, binary columns,
 * nulls, empty input, k distinct keys, and argument checks.
 */
class HotkeeperTopKTest {
    static final long ROWS = 2_000_000;
    static final int K = 100;
    /** Each sketch's total native memory: a 64 KiB table, its links and a key shard of about 800 keys. */
    static final long MEMORY = 256 * 1024;
    static SparkSession spark;
    static Dataset<Row> zipf;

    @BeforeAll
    static void data() {
        spark = LocalSpark.get();
        zipf = ZipfData.generate(spark, ROWS, 16, 1.0, 1_000_000, 7).cache();
        assertEquals(ROWS, zipf.count());
        zipf.createOrReplaceTempView("zipf");
    }

    @AfterAll
    static void release() {
        zipf.unpersist(true);
    }

    /** Precision@k of {@code result} against the exact counts of {@code column} (ties at the k-th count count). */
    static double precision(List<Row> result, String column, int k) {
        List<Row> exact = zipf.groupBy(column).count().orderBy(functions.desc("count")).limit(k).collectAsList();
        long kth = exact.getLast().getLong(1);
        Set<Object> correct = new HashSet<>();
        for (Row r : zipf.groupBy(column).count().where(col("count").geq(kth)).collectAsList()) {
            correct.add(r.get(0));
        }
        int hits = 0;
        for (Row r : result) {
            hits += correct.contains(r.get(0)) ? 1 : 0;
        }
        return (double) hits / k;
    }

    static void assertSorted(List<Row> result) {
        for (int i = 1; i < result.size(); i++) {
            assertTrue(result.get(i - 1).getLong(1) >= result.get(i).getLong(1), "sorted by estimate: " + result);
        }
    }

    @Test
    void stringColumnInSqlFindsTheTop100() {
        Dataset<Row> out = spark.sql("SELECT hotkeeper_top_k(skey, 100, 262144) AS top FROM zipf");
        StructType element = (StructType) ((org.apache.spark.sql.types.ArrayType) out.schema().fields()[0]
                .dataType()).elementType();
        assertEquals(DataTypes.StringType, element.apply("item").dataType());
        assertEquals(DataTypes.LongType, element.apply("estimate").dataType());
        List<Row> top = out.first().getList(0);
        assertEquals(K, top.size());
        assertSorted(top);
        double precision = precision(top, "skey", K);
        assertTrue(precision >= 0.99, "precision@100 = " + precision);
        assertEquals("key-1", top.getFirst().getString(0));
    }

    @Test
    void longColumnInTheDataFrameApiFindsTheTop100() {
        List<Row> top = zipf.select(HotkeeperSpark.hotkeeperTopK(col("key"), K, MEMORY)).first().getList(0);
        assertEquals(K, top.size());
        assertSorted(top);
        double precision = precision(top, "key", K);
        assertTrue(precision >= 0.99, "precision@100 = " + precision);
        assertEquals(1L, top.getFirst().getLong(0));
        // The heaviest key's estimate is close to its exact count (HeavyKeeper's counts err low, and little here).
        long exact = zipf.where(col("key").equalTo(1L)).count();
        long estimate = top.getFirst().getLong(1);
        assertTrue(estimate <= exact && estimate >= exact * 0.99, estimate + " vs exact " + exact);
    }

    @Test
    void defaultMemoryPerGroupInSql() {
        // GROUP BY: one sketch per group and partition (default memory: 160 bytes per key).
        List<Row> rows = spark.sql("SELECT key % 2 AS parity, hotkeeper_top_k(key, 3) AS top FROM zipf "
                + "GROUP BY key % 2 ORDER BY parity").collectAsList();
        assertEquals(2, rows.size());
        List<Row> even = rows.get(0).getList(1);
        List<Row> odd = rows.get(1).getList(1);
        assertEquals(List.of(2L, 4L, 6L), even.stream().map(r -> r.getLong(0)).toList());
        assertEquals(List.of(1L, 3L, 5L), odd.stream().map(r -> r.getLong(0)).toList());
    }

    @Test
    void binaryColumnsCountTheirBytes() {
        List<Row> top = spark.sql("SELECT hotkeeper_top_k(b, 2) FROM VALUES (X'00ff'), (X'01'), (X'00ff'), "
                + "(X''), (X'00ff'), (X'01') AS t(b)").first().getList(0);
        assertEquals(2, top.size());
        assertArrayEquals(new byte[] {0, (byte) 0xff}, (byte[]) top.get(0).get(0));
        assertEquals(3L, top.get(0).getLong(1));
        assertArrayEquals(new byte[] {1}, (byte[]) top.get(1).get(0));
        assertEquals(2L, top.get(1).getLong(1));
    }

    @Test
    void nullsAreSkippedAndCountedInTheirPlace() {
        List<Row> top = spark.sql("SELECT hotkeeper_top_k(x, 3) FROM VALUES ('a'), (null), ('a'), (null), "
                + "('a'), ('b'), (null), ('c'), (null), ('a'), ('a') AS t(x)").first().getList(0);
        assertEquals(3, top.size());
        assertEquals("a", top.get(0).getString(0));
        assertEquals(5L, top.get(0).getLong(1));
        assertNull(top.get(1).get(0));
        assertEquals(4L, top.get(1).getLong(1));
        assertEquals(1L, top.get(2).getLong(1));
        // Nulls only: just the null entry; nulls never reach the sketch.
        List<Row> onlyNulls = spark.sql("SELECT hotkeeper_top_k(CAST(x AS BIGINT), 5) FROM VALUES (null), (null) "
                + "AS t(x)").first().getList(0);
        assertEquals(1, onlyNulls.size());
        assertNull(onlyNulls.getFirst().get(0));
        assertEquals(2L, onlyNulls.getFirst().getLong(1));
    }

    @Test
    void emptyInputGivesAnEmptyArray() {
        assertEquals(List.of(), spark.sql("SELECT hotkeeper_top_k(skey, 10) FROM zipf WHERE key < 0").first()
                .getList(0));
        assertEquals(List.of(), spark.sql("SELECT hotkeeper_top_k(key, 10, 16384) FROM zipf WHERE key < 0").first()
                .getList(0));
    }

    @Test
    void kDistinctKeysGiveAllKWithTheirCounts() {
        // 500 distinct keys, key i occurring 1 + i % 7 times, across 16 partitions: all 500 come back, exactly.
        List<Row> rows = new ArrayList<>();
        Map<String, Long> counts = new HashMap<>();
        for (int i = 0; i < 500; i++) {
            for (int j = 0; j <= i % 7; j++) {
                rows.add(org.apache.spark.sql.RowFactory.create("w" + i));
            }
            counts.put("w" + i, 1L + i % 7);
        }
        Dataset<Row> data = spark.createDataFrame(rows, new StructType().add("w", DataTypes.StringType))
                .repartition(16);
        List<Row> top = data.select(HotkeeperSpark.hotkeeperTopK(col("w"), 500)).first().getList(0);
        assertEquals(500, top.size());
        assertSorted(top);
        for (Row r : top) {
            assertEquals(counts.get(r.getString(0)), r.getLong(1), r.getString(0));
        }
        assertEquals(500, top.stream().map(r -> r.getString(0)).distinct().count());
        // k above the distinct count: every key, no more.
        assertEquals(500, data.select(HotkeeperSpark.hotkeeperTopK(col("w"), 800)).first().getList(0).size());
    }

    @Test
    void longStringsComeBackAsTheirFirst128Bytes() {
        String long200 = "x".repeat(200);
        List<Row> top = spark.sql("SELECT hotkeeper_top_k(s, 1) FROM VALUES ('" + long200 + "'), ('" + long200
                + "'), ('y') AS t(s)").first().getList(0);
        assertEquals("x".repeat(128), top.getFirst().getString(0));
        assertEquals(2L, top.getFirst().getLong(1));
        assertEquals(128, top.getFirst().getString(0).getBytes(StandardCharsets.UTF_8).length);
    }

    @Test
    void badArgumentsFailAtAnalysisWithTheirReason() {
        Exception e = assertThrows(Exception.class,
                () -> spark.sql("SELECT hotkeeper_top_k(skey, key) FROM zipf").collect());
        assertTrue(e.getMessage().contains("k must be a constant integer"), e.getMessage());
        e = assertThrows(Exception.class, () -> spark.sql("SELECT hotkeeper_top_k(1.5D, 3)").collect());
        assertTrue(e.getMessage().contains("double columns are not supported"), e.getMessage());
        e = assertThrows(Exception.class, () -> spark.sql("SELECT hotkeeper_top_k(skey, 0) FROM zipf").collect());
        assertTrue(e.getMessage().contains("k=0 must be in 1..100000"), e.getMessage());
        e = assertThrows(Exception.class, () -> spark.sql("SELECT hotkeeper_top_k(skey, 5, 100) FROM zipf")
                .collect());
        assertTrue(e.getMessage().contains("memory=100 must be in 4096.."), e.getMessage());
        // A budget too small for k keys of up to 128 bytes: the engine's reason, with the minimum.
        e = assertThrows(Exception.class, () -> spark.sql("SELECT hotkeeper_top_k(skey, 200, 16384) FROM zipf")
                .collect());
        assertTrue(e.getMessage().contains("hotkeeper_top_k: memory=16384: too small for k=200"), e.getMessage());
        assertTrue(e.getMessage().contains("the minimum is"), e.getMessage());
        e = assertThrows(Exception.class, () -> spark.sql("SELECT hotkeeper_top_k(skey) FROM zipf").collect());
        assertTrue(e.getMessage().contains("takes 2..3 arguments, got 1"), e.getMessage());
    }
    @Test
    void memoryIsTheTotalNativeMemoryOfEachSketch() {
        // Whatever is observed, a sketch's native bytes (table, links, control line, key shard) stay within memory.
        for (long memory : new long[] {49_152, MEMORY, 1 << 20}) {
            SketchSpec spec = SketchSpec.checked(memory, K, SketchSpec.DEFAULT_MAX_KEY_BYTES);
            try (io.hotkeeper.engine.Hotkeeper sketch = spec.open()) {
                for (int i = 0; i < 200_000; i++) {
                    sketch.observe(("key-" + i % 50_000).getBytes(StandardCharsets.UTF_8));
                }
                long used = sketch.info().nativeBytes();
                assertTrue(used <= memory && used > memory / 2, memory + ": " + used + " native bytes");
                assertEquals(memory, sketch.info().memoryBudget());
            }
        }
        // A bigger budget is a bigger table and a fuller answer, in the same query.
        Row row = spark.sql("SELECT hotkeeper_top_k_accumulate(skey, 100, 49152) AS small, "
                + "hotkeeper_top_k_accumulate(skey, 100, 1048576) AS big FROM zipf").first();
        long small = io.hotkeeper.engine.snapshot.HotkeeperSnapshot.read((byte[]) row.get(0)).tableBytes();
        long big = io.hotkeeper.engine.snapshot.HotkeeperSnapshot.read((byte[]) row.get(1)).tableBytes();
        assertTrue(small < big && big <= (1 << 20) / 2, small + " vs " + big);
    }

    @Test
    void theTypedAggregatorFormGivesTheSameAnswer() {
        SketchSpec spec = SketchSpec.checked(MEMORY, 20, SketchSpec.DEFAULT_MAX_KEY_BYTES);
        Dataset<Row> head = zipf.limit(200_000);
        List<Row> catalyst = head.select(HotkeeperSpark.hotkeeperTopK(col("skey"), 20, MEMORY)).first().getList(0);
        List<Row> typed = head.select(HotkeeperSpark.typedTopK(col("skey"), KeyType.STRING, spec)).first()
                .getList(0);
        assertEquals(20, catalyst.size());
        assertEquals(catalyst.stream().map(r -> r.getString(0)).toList(),
                typed.stream().map(r -> r.getString(0)).toList());
    }
}
