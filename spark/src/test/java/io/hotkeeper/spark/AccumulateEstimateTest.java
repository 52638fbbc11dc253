package io.hotkeeper.spark;

import io.hotkeeper.engine.snapshot.HotkeeperSnapshot;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code hotkeeper_top_k_accumulate} / {@code hotkeeper_top_k_estimate}: sketches stored in a table (Parquet) and
 * merged later give what {@code hotkeeper_top_k} gives over the whole data; a stored value is a Hotkeeper
 * snapshot; a corrupt one fails the query with a message naming the function and the failed check.
 */
class AccumulateEstimateTest {
    static SparkSession spark;
    static Dataset<Row> zipf;

    @BeforeAll
    static void data() {
        spark = LocalSpark.get();
        zipf = ZipfData.generate(spark, 400_000, 8, 1.2, 100_000, 11);
    }

    @Test
    void storedSketchesMergeLaterIntoTheTopK(@TempDir Path dir) {
        String table = dir.resolve("sketches").toString();
        // One sketch per day (key % 7), stored; later merged over all days.
        zipf.withColumn("day", expr("key % 7"))
                .groupBy("day")
                .agg(HotkeeperSpark.hotkeeperTopKAccumulate(col("skey"), 50, 65536).alias("s"),
                        HotkeeperSpark.hotkeeperTopKAccumulate(col("key"), 50, 65536).alias("l"))
                .write().parquet(table);
        Dataset<Row> stored = spark.read().parquet(table);
        assertEquals(7, stored.count());
        stored.createOrReplaceTempView("sketches");

        List<Row> merged = spark.sql("SELECT hotkeeper_top_k_estimate(s, 50) FROM sketches").first().getList(0);
        List<Row> direct = zipf.select(HotkeeperSpark.hotkeeperTopK(col("skey"), 50, 65536)).first().getList(0);
        assertEquals(50, merged.size());
        assertEquals(direct.stream().map(r -> r.get(0)).toList(), merged.stream().map(r -> r.get(0)).toList());
        List<Row> exact = zipf.groupBy("skey").count().orderBy(org.apache.spark.sql.functions.desc("count"))
                .limit(50).collectAsList();
        int hits = 0;
        for (Row r : merged) {
            hits += exact.stream().anyMatch(e -> e.get(0).equals(r.get(0))) ? 1 : 0;
        }
        assertTrue(hits >= 49, "precision@50 = " + hits / 50.0);

        List<Row> longs = spark.sql("SELECT hotkeeper_top_k_estimate(l, 3, 'bigint') FROM sketches").first()
                .getList(0);
        assertEquals(List.of(1L, 2L, 3L), longs.stream().map(r -> r.getLong(0)).toList());

        // Each stored value is exactly a snapshot (docs/format.md), readable by the engine.
        byte[] bytes = (byte[]) stored.where("day = 1").first().getAs("s");
        HotkeeperSnapshot snapshot = HotkeeperSnapshot.read(bytes);
        // The budget's table (memory is the sketch's total: table, links and key shard).
        try (io.hotkeeper.engine.Hotkeeper sketch = SketchSpec.checked(65536, 50, SketchSpec.DEFAULT_MAX_KEY_BYTES)
                .open()) {
            assertEquals(sketch.tableBytes(), snapshot.tableBytes());
        }
        assertTrue(snapshot.tableBytes() < 65536, "the table is part of the budget: " + snapshot.tableBytes());
        assertEquals(stored.where("day = 1").count(), 1);
        assertTrue(snapshot.totalWeight() > 0);
    }

    @Test
    void accumulateOfNoRowsIsAnEmptySketchAndEstimatesToNothing() {
        Row row = spark.sql("SELECT hotkeeper_top_k_accumulate(skey) AS s FROM VALUES ('a') AS t(skey) "
                + "WHERE skey = 'b'").first();
        HotkeeperSnapshot empty = HotkeeperSnapshot.read((byte[]) row.get(0));
        assertEquals(0, empty.totalWeight());
        assertEquals(List.of(), empty.keys());
        assertEquals(List.of(), spark.sql("SELECT hotkeeper_top_k_estimate(s, 5) FROM (SELECT "
                + "hotkeeper_top_k_accumulate(skey) AS s FROM VALUES ('a') AS t(skey) WHERE skey = 'b')")
                .first().getList(0));
        // No rows at all, and null sketches: nothing.
        assertEquals(List.of(), spark.sql("SELECT hotkeeper_top_k_estimate(CAST(null AS BINARY), 5)").first()
                .getList(0));
    }

    @Test
    void aCorruptStoredSketchFailsWithAClearError() {
        byte[] good = (byte[]) spark.sql("SELECT hotkeeper_top_k_accumulate(x) FROM VALUES ('a'), ('b') AS t(x)")
                .first().get(0);
        byte[] bad = good.clone();
        bad[bad.length / 2] ^= 0x40;
        Dataset<Row> rows = spark.createDataFrame(List.of(org.apache.spark.sql.RowFactory.create((Object) good),
                        org.apache.spark.sql.RowFactory.create((Object) bad)),
                new org.apache.spark.sql.types.StructType().add("s", org.apache.spark.sql.types.DataTypes.BinaryType));
        Exception e = assertThrows(Exception.class,
                () -> rows.select(HotkeeperSpark.hotkeeperTopKEstimate(col("s"), 5, "string")).collect());
        String message = messages(e);
        assertTrue(message.contains("hotkeeper_top_k_estimate: a stored sketch of " + bad.length
                + " bytes is not a Hotkeeper snapshot"), message);
        assertTrue(message.contains("bad snapshot:"), message);
        // Not a sketch at all, and a sketch given the wrong type of column.
        Exception text = assertThrows(Exception.class, () -> spark.sql(
                "SELECT hotkeeper_top_k_estimate(CAST('hello' AS BINARY), 5)").collect());
        assertTrue(messages(text).contains("is not a Hotkeeper snapshot"), messages(text));
        Exception type = assertThrows(Exception.class, () -> spark.sql(
                "SELECT hotkeeper_top_k_estimate('hello', 5)").collect());
        assertTrue(messages(type).contains("the sketch must be binary"), messages(type));
        Exception name = assertThrows(Exception.class, () -> spark.sql(
                "SELECT hotkeeper_top_k_estimate(CAST(null AS BINARY), 5, 'int')").collect());
        assertTrue(messages(name).contains("item type 'int' is not one of"), messages(name));
    }

    static String messages(Throwable e) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            all.append(t.getMessage()).append('\n');
        }
        return all.toString();
    }
}
