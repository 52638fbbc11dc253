package io.hotkeeper.spark;

import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;

/**
 * {@code hotkeeper_top_k_accumulate(column [, k [, memory]])}: the sketch of a column as binary, exactly the bytes
 * of a Hotkeeper snapshot (docs/format.md), to store in a table and merge later with
 * {@code hotkeeper_top_k_estimate}. Nulls are not in it (a snapshot has no place for them).
 *
 * <p>Threads: immutable; Spark calls it from any number of tasks, each with its own buffer.
 *
 * @param <IN> the column's Java type
 */
public final class AccumulateAggregator<IN> extends KeyAggregator<IN, byte[]> {
    /** An aggregator over a column of {@code type} with sketches of {@code spec}. Threads: any. */
    public AccumulateAggregator(KeyType type, SketchSpec spec) {
        super(type, spec);
    }

    /** The snapshot's bytes (an empty sketch's for no rows). Threads: the buffer's task thread. */
    @Override
    public byte[] finish(SketchBuffer buffer) {
        return buffer.snapshot().toBytes();
    }

    /** {@code binary}. Threads: any. */
    @Override
    public Encoder<byte[]> outputEncoder() {
        return Encoders.BINARY();
    }
}
