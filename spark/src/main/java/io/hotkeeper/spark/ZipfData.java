package io.hotkeeper.spark;

import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;

import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Zipf-distributed test data for the Spark functions: {@code rows} draws of ranks 1..{@code universe} with
 * P(rank r) proportional to 1/r^{@code exponent}, as columns {@code key} (bigint, the rank) and {@code skey}
 * (string, {@code "key-" + rank}). Each partition draws from its own seeded generator, so a dataset is the same
 * every time it is computed. Threads: any.
 */
public final class ZipfData {
    private static final Map<String, double[]> CDFS = new ConcurrentHashMap<>();

    private ZipfData() {
    }

    /**
     * The dataset ({@code rows} rows in {@code partitions} partitions).
     *
     * @throws IllegalArgumentException if a count is not positive or the exponent is not
     */
    public static Dataset<Row> generate(SparkSession spark, long rows, int partitions, double exponent, int universe,
                                        long seed) {
        if (rows < 1 || partitions < 1 || universe < 1 || !(exponent > 0)) {
            throw new IllegalArgumentException("rows, partitions, universe and exponent must be positive");
        }
        MapPartitionsFunction<Long, Long> draw = ids -> new Iterator<>() {
            SplittableRandom random;
            double[] cdf;

            @Override
            public boolean hasNext() {
                return ids.hasNext();
            }

            @Override
            public Long next() {
                long id = ids.next();
                if (random == null) {
                    random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + id);
                    cdf = cdf(exponent, universe);
                }
                int i = Arrays.binarySearch(cdf, random.nextDouble());
                return (long) (i >= 0 ? i + 1 : Math.min(-i - 1, universe - 1) + 1);
            }
        };
        Dataset<Long> keys = spark.range(0, rows, 1, partitions).mapPartitions(draw, Encoders.LONG());
        return keys.toDF("key").withColumn("skey", functions.concat(functions.lit("key-"),
                functions.col("key").cast("string")));
    }

    /** Cumulative probabilities of ranks 1..universe, cached per JVM. */
    static double[] cdf(double exponent, int universe) {
        return CDFS.computeIfAbsent(exponent + "/" + universe, name -> {
            double[] cdf = new double[universe];
            double sum = 0;
            for (int r = 1; r <= universe; r++) {
                sum += Math.pow(r, -exponent);
                cdf[r - 1] = sum;
            }
            for (int r = 0; r < universe; r++) {
                cdf[r] /= sum;
            }
            return cdf;
        });
    }
}
