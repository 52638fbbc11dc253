package io.hotkeeper.spark;

import io.hotkeeper.engine.snapshot.HotkeeperSnapshot;
import io.hotkeeper.engine.snapshot.SnapshotFormatException;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.aggregate.ImperativeAggregate;
import org.apache.spark.sql.catalyst.expressions.aggregate.TypedImperativeAggregate;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.unsafe.types.UTF8String;
import scala.collection.immutable.IndexedSeq;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

import java.io.Serializable;
import java.util.List;
import java.util.Objects;

/**
 * The Catalyst aggregate behind the SQL functions: a {@code TypedImperativeAggregate} over a {@link SketchBuffer},
 * the kind of expression Spark's own {@code approx_top_k} is. Spark plans it into its object hash aggregate, keeps
 * one buffer object per partition and group, calls {@link #update} with each internal row and serializes the
 * buffer only at the partial/final boundary or when the aggregate spills. Each row's key is read from the row
 * itself: a {@code bigint} as a primitive long, a {@code string} as the UTF-8 bytes of its {@code UTF8String}
 * (copied into the buffer's queue, no {@code java.lang.String}), a {@code binary} value as its bytes. (A typed
 * {@code Aggregator}, what this module used before, gets each row projected into an {@code UnsafeRow} and
 * deserialized into a Java object first.)
 *
 * <p>Kinds: {@link Kind#TOP_K} ({@code hotkeeper_top_k}), {@link Kind#ACCUMULATE}
 * ({@code hotkeeper_top_k_accumulate}) and {@link Kind#ESTIMATE} ({@code hotkeeper_top_k_estimate}, whose child is
 * the stored sketch and whose {@code type} is the item type of the result).
 *
 * <p>Threads: instances are immutable and shared by every task; each buffer is confined to the task thread Spark
 * gives it to (see {@link SketchBuffer}).
 */
public final class SketchAggregate extends TypedImperativeAggregate<SketchBuffer> implements Serializable {
    private static final long serialVersionUID = 1L;

    /** What the aggregate returns. */
    public enum Kind {
        /** {@code hotkeeper_top_k}: the top k as {@code array<struct<item, estimate>>}. */
        TOP_K(HotkeeperSpark.TOP_K),
        /** {@code hotkeeper_top_k_accumulate}: the snapshot's bytes. */
        ACCUMULATE(HotkeeperSpark.ACCUMULATE),
        /** {@code hotkeeper_top_k_estimate}: stored snapshots merged, their top k. */
        ESTIMATE(EstimateAggregator.NAME);

        private final String function;

        Kind(String function) {
            this.function = function;
        }

        /** The SQL function's name. */
        public String function() {
            return function;
        }
    }

    private final Expression child;
    private final Kind kind;
    private final KeyType type;
    private final SketchSpec spec;
    private final int mutableAggBufferOffset;
    private final int inputAggBufferOffset;

    /**
     * An aggregate of {@code kind} over {@code child} (a column of {@code type}; for {@link Kind#ESTIMATE} a
     * binary column of stored sketches, and {@code type} the result's item type), with sketches of {@code spec}.
     * The offsets are Spark's (0 when built by a function builder). Threads: any.
     */
    public SketchAggregate(Expression child, Kind kind, KeyType type, SketchSpec spec, int mutableAggBufferOffset,
                           int inputAggBufferOffset) {
        this.child = Objects.requireNonNull(child, "child");
        this.kind = Objects.requireNonNull(kind, "kind");
        this.type = Objects.requireNonNull(type, "type");
        this.spec = Objects.requireNonNull(spec, "spec");
        this.mutableAggBufferOffset = mutableAggBufferOffset;
        this.inputAggBufferOffset = inputAggBufferOffset;
    }

    /** An aggregate with offsets 0, as a function builder returns it. Threads: any. */
    public SketchAggregate(Expression child, Kind kind, KeyType type, SketchSpec spec) {
        this(child, kind, type, spec, 0, 0);
    }

    // ---------------------------------------------------------------- the aggregation

    /** An empty buffer (no native memory). Threads: any. */
    @Override
    public SketchBuffer createAggregationBuffer() {
        return new SketchBuffer(spec);
    }

    /**
     * Queues the row's key (or counts a null); for {@link Kind#ESTIMATE}, merges the row's stored sketch.
     * Threads: the buffer's task thread.
     *
     * @throws IllegalArgumentException for {@link Kind#ESTIMATE}, if the row's value is not a Hotkeeper snapshot
     */
    @Override
    public SketchBuffer update(SketchBuffer buffer, InternalRow input) {
        if (kind == Kind.ESTIMATE) {
            Object value = child.eval(input);
            if (value != null) {
                buffer.merge(read((byte[]) value));
            }
            return buffer;
        }
        if (child instanceof BoundReference ref) {
            // A column: read it from the row in place (no boxing, no copy of the row).
            int ordinal = ref.ordinal();
            if (input.isNullAt(ordinal)) {
                buffer.addNull();
            } else {
                switch (type) {
                    case LONG -> buffer.add(input.getLong(ordinal));
                    case STRING -> buffer.add(input.getUTF8String(ordinal));
                    case BINARY -> buffer.add(input.getBinary(ordinal));
                }
            }
            return buffer;
        }
        Object value = child.eval(input);
        if (value == null) {
            buffer.addNull();
        } else {
            switch (type) {
                case LONG -> buffer.add((long) (Long) value);
                case STRING -> buffer.add((UTF8String) value);
                case BINARY -> buffer.add((byte[]) value);
            }
        }
        return buffer;
    }

    private static HotkeeperSnapshot read(byte[] sketch) {
        try {
            return HotkeeperSnapshot.read(sketch);
        } catch (SnapshotFormatException e) {
            throw new IllegalArgumentException(EstimateAggregator.NAME + ": a stored sketch of " + sketch.length
                    + " bytes is not a Hotkeeper snapshot (docs/format.md): " + e.getMessage(), e);
        }
    }

    /** Merges {@code other} into {@code buffer} (snapshot merge by table). Threads: the buffers' task thread. */
    @Override
    public SketchBuffer merge(SketchBuffer buffer, SketchBuffer other) {
        buffer.merge(other);
        return buffer;
    }

    /**
     * The result: for {@link Kind#ACCUMULATE} the snapshot's bytes (an empty sketch's for no rows), else the top
     * k as an array of {@code (item, estimate)} rows. Threads: the buffer's task thread.
     */
    @Override
    public Object eval(SketchBuffer buffer) {
        if (kind == Kind.ACCUMULATE) {
            return buffer.snapshot().toBytes();
        }
        List<Object[]> top = buffer.top(spec.k(), type::internalItem);
        Object[] rows = new Object[top.size()];
        for (int i = 0; i < rows.length; i++) {
            rows[i] = new GenericInternalRow(top.get(i));
        }
        return new GenericArrayData(rows);
    }

    /** The buffer's wire form (snapshot and null count, {@link SketchBuffer#toBytes()}). Threads: any. */
    @Override
    public byte[] serialize(SketchBuffer buffer) {
        return buffer.toBytes();
    }

    /** A buffer from its wire form. Threads: any. */
    @Override
    public SketchBuffer deserialize(byte[] bytes) {
        return SketchBuffer.fromBytes(bytes, spec);
    }

    // ---------------------------------------------------------------- the expression

    /** {@code array<struct<item, estimate: bigint>>}, or {@code binary} for {@link Kind#ACCUMULATE}. */
    @Override
    public DataType dataType() {
        return kind == Kind.ACCUMULATE ? DataTypes.BinaryType : SparkEncoders.resultType(type);
    }

    /** Never null: no rows give an empty array or an empty sketch. */
    @Override
    public boolean nullable() {
        return false;
    }

    @Override
    public String prettyName() {
        return kind.function();
    }

    @Override
    public Seq<Expression> children() {
        return CollectionConverters.asScala(List.of(child)).toSeq();
    }

    @Override
    public Expression withNewChildrenInternal(IndexedSeq<Expression> newChildren) {
        return new SketchAggregate(newChildren.apply(0), kind, type, spec, mutableAggBufferOffset,
                inputAggBufferOffset);
    }

    @Override
    public int mutableAggBufferOffset() {
        return mutableAggBufferOffset;
    }

    @Override
    public int inputAggBufferOffset() {
        return inputAggBufferOffset;
    }

    @Override
    public ImperativeAggregate withNewMutableAggBufferOffset(int offset) {
        return new SketchAggregate(child, kind, type, spec, offset, inputAggBufferOffset);
    }

    @Override
    public ImperativeAggregate withNewInputAggBufferOffset(int offset) {
        return new SketchAggregate(child, kind, type, spec, mutableAggBufferOffset, offset);
    }

    // The constructor's arguments, in order, as a case class has them (TreeNode copies and prints through them).

    @Override
    public int productArity() {
        return 6;
    }

    @Override
    public Object productElement(int n) {
        return switch (n) {
            case 0 -> child;
            case 1 -> kind;
            case 2 -> type;
            case 3 -> spec;
            case 4 -> mutableAggBufferOffset;
            case 5 -> inputAggBufferOffset;
            default -> throw new IndexOutOfBoundsException("productElement(" + n + ") of 6");
        };
    }

    @Override
    public boolean canEqual(Object other) {
        return other instanceof SketchAggregate;
    }

    @Override
    public boolean equals(Object other) {
        return this == other || other instanceof SketchAggregate o && child.equals(o.child) && kind == o.kind
                && type == o.type && spec.equals(o.spec) && mutableAggBufferOffset == o.mutableAggBufferOffset
                && inputAggBufferOffset == o.inputAggBufferOffset;
    }

    @Override
    public int hashCode() {
        return Objects.hash(child, kind, type, spec, mutableAggBufferOffset, inputAggBufferOffset);
    }
}
