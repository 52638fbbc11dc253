package io.hotkeeper.spark;

import io.hotkeeper.engine.HeavyHitter;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

import java.util.Locale;

/**
 * The column types the Spark functions count, and how a key of each type is the key bytes of a Hotkeeper sketch:
 * a string is its UTF-8 bytes, a binary value its bytes, a long its 8 little-endian bytes (as
 * {@code Hotkeeper.observe(long)} records it). Threads: any (constants).
 */
public enum KeyType {
    /** {@code string} columns. */
    STRING(DataTypes.StringType),
    /** {@code binary} columns. */
    BINARY(DataTypes.BinaryType),
    /** {@code bigint} columns. */
    LONG(DataTypes.LongType);

    private final DataType dataType;

    KeyType(DataType dataType) {
        this.dataType = dataType;
    }

    /** The Spark type of the column and of the {@code item} field in results. Threads: any. */
    public DataType dataType() {
        return dataType;
    }

    /**
     * The encoder of what the aggregators receive: bytes for strings too (the builder casts a string column to
     * binary, its UTF-8 bytes, which spares decoding every value into a {@code String}), a boxed long for
     * bigint. Threads: any.
     */
    @SuppressWarnings("unchecked")
    <T> Encoder<T> inputEncoder() {
        return (Encoder<T>) (this == LONG ? Encoders.LONG() : Encoders.BINARY());
    }

    /** The encoder of the {@code item} field of results. Threads: any. */
    @SuppressWarnings("unchecked")
    <T> Encoder<T> itemEncoder() {
        return (Encoder<T>) switch (this) {
            case STRING -> Encoders.STRING();
            case BINARY -> Encoders.BINARY();
            case LONG -> Encoders.LONG();
        };
    }

    /** The column value a tracked key stands for. Threads: any. */
    Object item(HeavyHitter hitter) {
        return switch (this) {
            case STRING -> hitter.keyAsString();
            case BINARY -> hitter.key();
            case LONG -> hitter.keyAsLong();
        };
    }

    /** The value a tracked key stands for in Spark's internal form (UTF8String, byte[], Long). Threads: any. */
    Object internalItem(HeavyHitter hitter) {
        return switch (this) {
            case STRING -> org.apache.spark.unsafe.types.UTF8String.fromBytes(hitter.key());
            case BINARY -> hitter.key();
            case LONG -> hitter.keyAsLong();
        };
    }

    /**
     * The key type of a Spark column type: string (any collation's values are counted as their bytes), binary or
     * bigint. Threads: any.
     *
     * @throws IllegalArgumentException for any other type
     */
    public static KeyType of(DataType type, String function) {
        if (type instanceof org.apache.spark.sql.types.StringType) {
            return STRING;
        }
        if (type instanceof org.apache.spark.sql.types.BinaryType) {
            return BINARY;
        }
        if (type instanceof org.apache.spark.sql.types.LongType) {
            return LONG;
        }
        throw new IllegalArgumentException(function + ": " + type.simpleString()
                + " columns are not supported (string, binary and bigint are; cast other integral types to bigint)");
    }

    /**
     * The key type named {@code 'string'}, {@code 'binary'} or {@code 'bigint'} (also {@code 'long'}), as
     * {@code hotkeeper_top_k_estimate} takes it. Threads: any.
     *
     * @throws IllegalArgumentException for any other name
     */
    public static KeyType named(String name, String function) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "string" -> STRING;
            case "binary" -> BINARY;
            case "bigint", "long" -> LONG;
            default -> throw new IllegalArgumentException(function + ": item type '" + name
                    + "' is not one of 'string', 'binary', 'bigint'");
        };
    }
}
