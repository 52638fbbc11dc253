package io.hotkeeper.spark;

import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.encoders.AgnosticEncoder;
import org.apache.spark.sql.catalyst.encoders.AgnosticEncoders;
import org.apache.spark.sql.catalyst.encoders.Codec;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;
import scala.reflect.ClassTag$;
import scala.runtime.AbstractFunction0;

import java.io.Serializable;
import java.util.List;

/**
 * Encoders of the Spark functions: the aggregation buffer as its bytes (a {@link SketchBuffer}'s wire form, so
 * what Spark shuffles and spills is the snapshot, docs/format.md) and the result as
 * {@code array<struct<item, estimate: bigint>>}. Built on Spark's agnostic encoders (developer API).
 * Threads: any (stateless).
 */
final class SparkEncoders {
    private SparkEncoders() {
    }

    /** The element type of a result. */
    static DataType resultType(KeyType type) {
        return DataTypes.createArrayType(DataTypes.createStructType(List.of(
                DataTypes.createStructField("item", type.dataType(), true),
                DataTypes.createStructField("estimate", DataTypes.LongType, false))), false);
    }

    /** {@code List<Row>} as {@code array<struct<item, estimate>>}. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static Encoder<List<Row>> result(KeyType type) {
        AgnosticEncoder<?> item = (AgnosticEncoder<?>) type.itemEncoder();
        AgnosticEncoder<?> estimate = (AgnosticEncoder<?>) Encoders.scalaLong();
        AgnosticEncoders.RowEncoder row = new AgnosticEncoders.RowEncoder(CollectionConverters.asScala(List.of(
                new AgnosticEncoders.EncoderField("item", item, true, Metadata.empty(), Option.empty(),
                        Option.empty()),
                new AgnosticEncoders.EncoderField("estimate", estimate, false, Metadata.empty(), Option.empty(),
                        Option.empty()))).toSeq());
        return (Encoder) new AgnosticEncoders.IterableEncoder(ClassTag$.MODULE$.apply(List.class), row, false,
                false);
    }

    /** A {@link SketchBuffer} as its wire form (binary). */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static Encoder<SketchBuffer> buffer(SketchSpec spec) {
        return (Encoder) new AgnosticEncoders.TransformingEncoder(ClassTag$.MODULE$.apply(SketchBuffer.class),
                (AgnosticEncoder<?>) Encoders.BINARY(), new CodecProvider(spec), false);
    }

    /** Makes the buffer codec on the executor (a serializable Scala function). */
    private static final class CodecProvider extends AbstractFunction0<Codec<SketchBuffer, byte[]>>
            implements Serializable {
        private final SketchSpec spec;

        CodecProvider(SketchSpec spec) {
            this.spec = spec;
        }

        @Override
        public Codec<SketchBuffer, byte[]> apply() {
            return new BufferCodec(spec);
        }
    }

    /** A buffer to and from its wire form. */
    private record BufferCodec(SketchSpec spec) implements Codec<SketchBuffer, byte[]> {
        @Override
        public byte[] encode(SketchBuffer buffer) {
            return buffer.toBytes();
        }

        @Override
        public SketchBuffer decode(byte[] bytes) {
            return SketchBuffer.fromBytes(bytes, spec);
        }
    }
}
