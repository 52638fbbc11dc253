package io.hotkeeper.spark;

import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code hotkeeper_top_k(column, k [, memory])}: the {@code k} heaviest values of a string, binary or bigint
 * column as {@code array<struct<item, estimate: bigint>>}, highest estimate first, with {@code (null, count of
 * nulls)} in its place by count when the column has nulls.
 *
 * <p>Threads: immutable; Spark calls it from any number of tasks, each with its own buffer.
 *
 * @param <IN> the column's Java type
 */
public final class TopKAggregator<IN> extends KeyAggregator<IN, List<Row>> {
    private final int k;

    /**
     * An aggregator over a column of {@code type} with sketches of {@code spec}, reporting {@code spec.k()} items.
     * Threads: any.
     */
    public TopKAggregator(KeyType type, SketchSpec spec) {
        super(type, spec);
        this.k = spec.k();
    }

    /** The top k of the buffer. Threads: the buffer's task thread. */
    @Override
    public List<Row> finish(SketchBuffer buffer) {
        List<Row> rows = new ArrayList<>();
        for (Object[] pair : buffer.top(k, type::item)) {
            rows.add(RowFactory.create(pair));
        }
        return rows;
    }

    /** {@code array<struct<item, estimate>>}. Threads: any. */
    @Override
    public Encoder<List<Row>> outputEncoder() {
        return SparkEncoders.result(type);
    }
}
