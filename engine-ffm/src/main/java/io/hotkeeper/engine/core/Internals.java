package io.hotkeeper.engine.core;

import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.shard.KeyShards;

import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * The way from an instance to its internals, for the project's own diagnostics, integrity checks, stress tests
 * and benchmarks, which run on the class path. It lives in a package the module does not export, so on the module
 * path no application reaches it; the API ({@link Hotkeeper}) has no method that returns an internal type.
 *
 * <p>{@link Hotkeeper} installs the one accessor from its static initialiser (the JDK's "shared secrets"
 * pattern); an instance exists only after that, so every method here finds it installed. Thread-safety: any
 * thread. Progress: wait-free.
 */
public final class Internals {
    /** Set once, by Hotkeeper's class initialisation, before any instance exists; volatile for safe publication. */
    private static volatile Function<Hotkeeper, TableSet> tables;

    private Internals() {
    }

    /**
     * Installs the accessor; called once by {@link Hotkeeper}'s static initialiser.
     *
     * @throws IllegalStateException if an accessor is installed already
     */
    public static synchronized void install(Function<Hotkeeper, TableSet> accessor) {
        if (tables != null) {
            throw new IllegalStateException("Hotkeeper internals are installed already");
        }
        tables = Objects.requireNonNull(accessor, "accessor");
    }

    /**
     * The table set of {@code hotkeeper}.
     *
     * @throws IllegalStateException if the instance is closed
     */
    public static TableSet tables(Hotkeeper hotkeeper) {
        return tables.apply(Objects.requireNonNull(hotkeeper, "hotkeeper"));
    }

    /**
     * The key shards of the first table; null when key shards are disabled.
     *
     * @throws IllegalStateException if the instance is closed
     */
    public static KeyShards keyShards(Hotkeeper hotkeeper) {
        return tables(hotkeeper).shards(0);
    }

    /**
     * The key shards of every table, in table order: one set, or one per table with per-node, worker or windowed
     * tables; empty when key shards are disabled.
     *
     * @throws IllegalStateException if the instance is closed
     */
    public static List<KeyShards> keyShardSets(Hotkeeper hotkeeper) {
        return tables(hotkeeper).shardSets();
    }
}
