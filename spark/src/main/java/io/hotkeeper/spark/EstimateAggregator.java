package io.hotkeeper.spark;

import io.hotkeeper.engine.snapshot.HotkeeperSnapshot;
import io.hotkeeper.engine.snapshot.SnapshotFormatException;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.expressions.Aggregator;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code hotkeeper_top_k_estimate(sketch, k [, item_type])}: merges the stored sketches of a group (binary
 * snapshots from {@code hotkeeper_top_k_accumulate}; null rows are skipped) and returns the top {@code k} as
 * {@code array<struct<item, estimate>>}. Sketches of equal size merge table by table, others by their keys
 * ({@code HotkeeperSnapshot.mergeAll}). A value that is not a snapshot fails the query with a message that
 * names this function and the format check that failed.
 *
 * <p>Threads: immutable; Spark calls it from any number of tasks, each with its own buffer.
 */
public final class EstimateAggregator extends Aggregator<byte[], SketchBuffer, List<Row>> {
    static final String NAME = "hotkeeper_top_k_estimate";
    private final KeyType type;
    private final int k;

    /** An aggregator returning the top {@code k} items, decoded as {@code type}. Threads: any. */
    public EstimateAggregator(KeyType type, int k) {
        this.type = type;
        this.k = k;
        SketchSpec.forK(k);
    }

    /** An empty buffer (no native memory). Threads: any. */
    @Override
    public SketchBuffer zero() {
        return new SketchBuffer(SketchSpec.forK(k));
    }

    /**
     * Merges one stored sketch.
     *
     * @throws IllegalArgumentException if {@code sketch} is not a Hotkeeper snapshot
     */
    @Override
    public SketchBuffer reduce(SketchBuffer buffer, byte[] sketch) {
        if (sketch != null) {
            HotkeeperSnapshot snapshot;
            try {
                snapshot = HotkeeperSnapshot.read(sketch);
            } catch (SnapshotFormatException e) {
                throw new IllegalArgumentException(NAME + ": a stored sketch of " + sketch.length
                        + " bytes is not a Hotkeeper snapshot (docs/format.md): " + e.getMessage(), e);
            }
            buffer.merge(snapshot);
        }
        return buffer;
    }

    /** Merges {@code b} into {@code a}. Threads: the buffers' task thread. */
    @Override
    public SketchBuffer merge(SketchBuffer a, SketchBuffer b) {
        a.merge(b);
        return a;
    }

    /** The top k of the merged sketches. Threads: the buffer's task thread. */
    @Override
    public List<Row> finish(SketchBuffer buffer) {
        List<Row> rows = new ArrayList<>();
        for (Object[] pair : buffer.top(k, type::item)) {
            rows.add(RowFactory.create(pair));
        }
        return rows;
    }

    /** The buffer as its bytes. Threads: any. */
    @Override
    public Encoder<SketchBuffer> bufferEncoder() {
        return SparkEncoders.buffer(SketchSpec.forK(k));
    }

    /** {@code array<struct<item, estimate>>}. Threads: any. */
    @Override
    public Encoder<List<Row>> outputEncoder() {
        return SparkEncoders.result(type);
    }
}
