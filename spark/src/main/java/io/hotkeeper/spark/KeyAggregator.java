package io.hotkeeper.spark;

import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.expressions.Aggregator;

/**
 * The typed aggregators over a key column: one sketch per partition (a {@link SketchBuffer}: a heap snapshot and
 * a queue of keys; no native memory between calls), merged across partitions by the snapshot merge. Null values
 * are not sketched but counted. Subclasses choose the result.
 *
 * <p>Threads: instances are immutable and shared by every task; each buffer is confined to one task thread.
 *
 * @param <IN>  the column's Java type: String, byte[] or Long
 * @param <OUT> the result
 */
abstract class KeyAggregator<IN, OUT> extends Aggregator<IN, SketchBuffer, OUT> {
    final KeyType type;
    final SketchSpec spec;

    KeyAggregator(KeyType type, SketchSpec spec) {
        this.type = type;
        this.spec = spec;
    }

    /** An empty buffer (no native memory). Threads: any. */
    @Override
    public SketchBuffer zero() {
        return new SketchBuffer(spec);
    }

    /** Queues one value (or counts a null). Threads: the buffer's task thread. */
    @Override
    public SketchBuffer reduce(SketchBuffer buffer, IN value) {
        if (value == null) {
            buffer.addNull();
        } else if (value instanceof Long key) {
            buffer.add(key.longValue());
        } else {
            buffer.add((byte[]) value);
        }
        return buffer;
    }

    /** Merges {@code b} into {@code a} (snapshot merge by table). Threads: the buffers' task thread. */
    @Override
    public SketchBuffer merge(SketchBuffer a, SketchBuffer b) {
        a.merge(b);
        return a;
    }

    /** The buffer as its bytes (snapshot and null count). Threads: any. */
    @Override
    public Encoder<SketchBuffer> bufferEncoder() {
        return SparkEncoders.buffer(spec);
    }
}
