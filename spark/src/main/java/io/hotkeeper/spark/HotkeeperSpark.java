package io.hotkeeper.spark;

import org.apache.spark.sql.Column;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.analysis.FunctionRegistry;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.expressions.Aggregator;
import org.apache.spark.sql.expressions.UserDefinedAggregator;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.IntegralType;
import org.apache.spark.sql.types.StringType;
import scala.Function1;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

import java.util.List;

/**
 * Hotkeeper's SQL functions for Apache Spark (docs/spark.md), registered per session by
 * {@link #register(SparkSession)}, and their DataFrame forms:
 * <ul>
 *   <li>{@code hotkeeper_top_k(column, k [, memory])}: the top {@code k} of a string, binary or bigint column as
 *       {@code array<struct<item, estimate: bigint>>}, highest first; nulls are skipped and counted, and
 *       reported as {@code (null, count)} in their place by count.</li>
 *   <li>{@code hotkeeper_top_k_accumulate(column [, k [, memory]])}: the column's sketch as binary (a Hotkeeper
 *       snapshot, docs/format.md) to store and merge later.</li>
 *   <li>{@code hotkeeper_top_k_estimate(sketch, k [, item_type])}: an aggregate that merges stored sketches and
 *       returns their top {@code k}; {@code item_type} is {@code 'string'} (default), {@code 'binary'} or
 *       {@code 'bigint'}.</li>
 * </ul>
 * {@code k} (1..100,000) and {@code memory} (the total native bytes of each sketch, 4 KiB .. 256 MiB and at least
 * what k keys need; default {@link SketchSpec#defaultMemory}) must be constants. Each function is a
 * {@link SketchAggregate}, a Catalyst aggregate expression.
 *
 * <p>Threads: any; registration changes only the given session's function registry.
 */
public final class HotkeeperSpark {
    /** {@code hotkeeper_top_k}. */
    public static final String TOP_K = "hotkeeper_top_k";
    /** {@code hotkeeper_top_k_accumulate}. */
    public static final String ACCUMULATE = "hotkeeper_top_k_accumulate";
    /** {@code hotkeeper_top_k_estimate}. */
    public static final String ESTIMATE = EstimateAggregator.NAME;

    private HotkeeperSpark() {
    }

    /**
     * Registers the three functions as temporary functions of {@code spark} (a classic, not a Connect, session).
     * Idempotent. Threads: any.
     *
     * @throws IllegalArgumentException if {@code spark} is not a classic session
     */
    public static void register(SparkSession spark) {
        if (!(spark instanceof org.apache.spark.sql.classic.SparkSession classic)) {
            throw new IllegalArgumentException("Hotkeeper's Spark functions need a classic SparkSession, not "
                    + spark.getClass().getName());
        }
        FunctionRegistry registry = classic.sessionState().functionRegistry();
        registry.createOrReplaceTempFunction(TOP_K, builder(HotkeeperSpark::topK), "scala_udf");
        registry.createOrReplaceTempFunction(ACCUMULATE, builder(HotkeeperSpark::accumulate), "scala_udf");
        registry.createOrReplaceTempFunction(ESTIMATE, builder(HotkeeperSpark::estimate), "scala_udf");
    }

    // ---------------------------------------------------------------- DataFrame forms (after register)

    /**
     * {@code hotkeeper_top_k(column, k)} as a Column; the session that evaluates it must be
     * {@linkplain #register registered}. Threads: any.
     */
    public static Column hotkeeperTopK(Column column, int k) {
        return functions.call_function(TOP_K, column, functions.lit(k));
    }

    /** {@code hotkeeper_top_k(column, k, memory)} as a Column. Threads: any. */
    public static Column hotkeeperTopK(Column column, int k, long memoryBytes) {
        return functions.call_function(TOP_K, column, functions.lit(k), functions.lit(memoryBytes));
    }

    /** {@code hotkeeper_top_k_accumulate(column, k, memory)} as a Column. Threads: any. */
    public static Column hotkeeperTopKAccumulate(Column column, int k, long memoryBytes) {
        return functions.call_function(ACCUMULATE, column, functions.lit(k), functions.lit(memoryBytes));
    }

    /** {@code hotkeeper_top_k_estimate(sketch, k, itemType)} as a Column. Threads: any. */
    public static Column hotkeeperTopKEstimate(Column sketch, int k, String itemType) {
        return functions.call_function(ESTIMATE, sketch, functions.lit(k), functions.lit(itemType));
    }

    // ---------------------------------------------------------------- builders

    private interface Builder {
        Expression build(List<Expression> arguments);
    }

    private static Function1<Seq<Expression>, Expression> builder(Builder builder) {
        return arguments -> builder.build(CollectionConverters.asJava(arguments));
    }

    private static Expression topK(List<Expression> args) {
        arity(TOP_K, args, 2, 3, "(column, k [, memory])");
        KeyType type = KeyType.of(args.get(0).dataType(), TOP_K);
        int k = (int) constant(TOP_K, "k", args.get(1), 1, 100_000);
        SketchSpec spec = spec(TOP_K, k, args.size() > 2 ? args.get(2) : null);
        return new SketchAggregate(args.get(0), SketchAggregate.Kind.TOP_K, type, spec);
    }

    private static Expression accumulate(List<Expression> args) {
        arity(ACCUMULATE, args, 1, 3, "(column [, k [, memory]])");
        KeyType type = KeyType.of(args.get(0).dataType(), ACCUMULATE);
        int k = args.size() > 1 ? (int) constant(ACCUMULATE, "k", args.get(1), 1, 100_000) : 100;
        SketchSpec spec = spec(ACCUMULATE, k, args.size() > 2 ? args.get(2) : null);
        return new SketchAggregate(args.get(0), SketchAggregate.Kind.ACCUMULATE, type, spec);
    }

    private static Expression estimate(List<Expression> args) {
        arity(ESTIMATE, args, 2, 3, "(sketch, k [, item_type])");
        if (!args.get(0).dataType().equals(DataTypes.BinaryType)) {
            throw new IllegalArgumentException(ESTIMATE + ": the sketch must be binary (from " + ACCUMULATE
                    + "), not " + args.get(0).dataType().simpleString());
        }
        int k = (int) constant(ESTIMATE, "k", args.get(1), 1, 100_000);
        KeyType type = KeyType.STRING;
        if (args.size() > 2) {
            Expression name = args.get(2);
            if (!name.foldable() || !(name.dataType() instanceof StringType) || name.eval(null) == null) {
                throw new IllegalArgumentException(ESTIMATE + ": item_type must be a constant string");
            }
            type = KeyType.named(name.eval(null).toString(), ESTIMATE);
        }
        return new SketchAggregate(args.get(0), SketchAggregate.Kind.ESTIMATE, type, SketchSpec.forK(k));
    }

    private static SketchSpec spec(String function, int k, Expression memory) {
        if (memory == null) {
            return SketchSpec.forK(k);
        }
        long bytes = constant(function, "memory", memory, SketchSpec.MIN_MEMORY, SketchSpec.MAX_MEMORY);
        try {
            return SketchSpec.checked(bytes, k, SketchSpec.DEFAULT_MAX_KEY_BYTES);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(function + ": " + e.getMessage(), e);
        }
    }

    /**
     * The typed {@code Aggregator} form of {@code hotkeeper_top_k} over {@code column} (the module's first
     * implementation, kept for Dataset users and for timing against the Catalyst aggregate, see {@link Compare}):
     * the same sketches and results, each row deserialized into a Java object first. Threads: any.
     */
    public static Column typedTopK(Column column, KeyType type, SketchSpec spec) {
        @SuppressWarnings({"unchecked", "rawtypes"})
        UserDefinedAggregator udaf = (UserDefinedAggregator) functions.udaf(
                (Aggregator) new TopKAggregator<>(type, spec), type.inputEncoder()).withName(TOP_K);
        // Strings reach the typed aggregator as their UTF-8 bytes (KeyType.inputEncoder).
        return udaf.apply(type == KeyType.STRING ? column.cast(DataTypes.BinaryType) : column);
    }

    private static void arity(String function, List<Expression> args, int min, int max, String signature) {
        if (args.size() < min || args.size() > max) {
            throw new IllegalArgumentException(function + signature + ": takes " + min + ".." + max
                    + " arguments, got " + args.size());
        }
    }

    private static long constant(String function, String name, Expression e, long min, long max) {
        if (!e.foldable() || !(e.dataType() instanceof IntegralType)) {
            throw new IllegalArgumentException(function + ": " + name + " must be a constant integer, not " + e.sql());
        }
        Object value = e.eval(null);
        if (value == null) {
            throw new IllegalArgumentException(function + ": " + name + " must not be null");
        }
        long v = ((Number) value).longValue();
        if (v < min || v > max) {
            throw new IllegalArgumentException(function + ": " + name + "=" + v + " must be in " + min + ".." + max);
        }
        return v;
    }
}
