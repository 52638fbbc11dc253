package io.hotkeeper.engine;

import io.hotkeeper.engine.window.SlidingWindow;

import java.time.Duration;
import java.util.Objects;

/**
 * How an instance splits its bucket table: one choice among four, given to {@link HotkeeperBuilder#partitioning}.
 * Every choice answers queries ({@code estimate}, {@code topK}, {@code contains}) from any thread over all of its
 * tables; they differ in which table an observation writes and in what the memory buys.
 *
 * <ul>
 *   <li>{@link #shared()} (the default): one table written by every thread.</li>
 *   <li>{@link #perNode()}: one table per NUMA node, placed on that node and written only by threads running there,
 *       so no table line crosses nodes on the observe path; with one node (or no libnuma) it is one table.</li>
 *   <li>{@link #perWorker(int)}: {@code tables} tables, a worker writing the one it was given at its first
 *       observation (the least used); with as many tables as threads no table line is written by two cores.</li>
 *   <li>{@link #window(Duration, int)}: one table per time slice; queries cover the last {@code span} of the
 *       clock ({@link HotkeeperBuilder#clock}).</li>
 * </ul>
 *
 * Each table gets the full {@code memoryBytes}, or an equal share of {@link HotkeeperBuilder#memory(long)}.
 * Being one choice, the four cannot be combined; the contention options ({@link SaltMode},
 * {@link CombiningMode}, approximate counting) combine with any of them, and {@link HotkeeperBuilder#build()} names
 * the options that would have no effect under the choice made (for example combining {@code AUTO} never engages with
 * per-worker tables, whose lines are their own already).
 *
 * <p>Immutable values. Threads: any. Progress: every method is wait-free.
 */
public sealed interface Partitioning {
    /** One table written by every thread (the default). */
    static Partitioning shared() {
        return Shared.INSTANCE;
    }

    /**
     * One table per NUMA node (docs/deployment.md for the trade-off against one interleaved table): N nodes, N times
     * the memory of {@code memoryBytes}; {@code estimate} sums the node tables and {@code topK} merges them.
     */
    static Partitioning perNode() {
        return PerNode.INSTANCE;
    }

    /**
     * {@code tables} tables (a power of two in 1..64; 1 is one table, as {@link #shared()}), each with the full
     * {@code memoryBytes}, a worker writing the table it was given at its first observation: the one with the
     * fewest workers whose threads are alive, so that as many threads as tables get one each whatever their worker
     * ids (ids are global to the JVM and have holes wherever other threads hold or held one). With as many tables
     * as threads, observations scale with cores at the price of {@code tables} times the memory and of each table
     * seeing only its workers' share of the stream. The salt defaults to {@link SaltMode#PER_TABLE} here.
     *
     * @throws IllegalArgumentException if {@code tables} is not a power of two in 1..64
     */
    static Partitioning perWorker(int tables) {
        return new PerWorker(tables);
    }

    /**
     * A sliding window: estimates, {@code topK}, {@code contains} and {@code totalWeight} cover the last
     * {@code span} of the clock, through {@code slices} tables (2..64) that take turns: time is cut into slices of
     * {@code span / slices}, observations go to the current slice's table, queries sum all of them, and when the
     * clock passes into a new slice its table (the oldest slice) is cleared first, as by {@code reset} (its promotion
     * floor restored to the configured one). So a query covers between
     * {@code span - span / slices} and {@code span}. Rotation is done by whichever caller first sees the clock past
     * the slice, one at a time; other observers and readers never wait for it (docs/design.md). Each observation
     * reads the clock.
     *
     * @throws IllegalArgumentException if {@code slices} is not in 2..64 or {@code span} is not at least
     *                                  {@code slices} nanoseconds
     */
    static Partitioning window(Duration span, int slices) {
        return new Window(span, slices);
    }

    /** The tables this choice asks for: 1, {@code tables}, {@code slices}, or 0 for one per node (known at build). */
    int tables();

    /** One table written by every thread. */
    record Shared() implements Partitioning {
        static final Shared INSTANCE = new Shared();

        @Override
        public int tables() {
            return 1;
        }

        @Override
        public String toString() {
            return "shared()";
        }
    }

    /** One table per NUMA node. */
    record PerNode() implements Partitioning {
        static final PerNode INSTANCE = new PerNode();

        @Override
        public int tables() {
            return 0;
        }

        @Override
        public String toString() {
            return "perNode()";
        }
    }

    /**
     * {@code tables} tables, each worker writing the one it was given at its first observation.
     *
     * @param tables a power of two in 1..64
     */
    record PerWorker(int tables) implements Partitioning {
        /** @throws IllegalArgumentException if {@code tables} is not a power of two in 1..64 */
        public PerWorker {
            if (tables < 1 || tables > Hotkeeper.MAX_WORKER_TABLES || Integer.bitCount(tables) != 1) {
                throw new IllegalArgumentException("perWorker(" + tables + "): the table count must be a power of "
                        + "two in 1.." + Hotkeeper.MAX_WORKER_TABLES);
            }
        }

        @Override
        public String toString() {
            return "perWorker(" + tables + ")";
        }
    }

    /**
     * One table per time slice of a sliding window.
     *
     * @param span   the window's length
     * @param slices tables, 2..64
     */
    record Window(Duration span, int slices) implements Partitioning {
        /** @throws IllegalArgumentException if the window is invalid (see {@link Partitioning#window}) */
        public Window {
            Objects.requireNonNull(span, "span");
            SlidingWindow.checkWindow(span, slices);
        }

        @Override
        public int tables() {
            return slices;
        }

        @Override
        public String toString() {
            return "window(" + span + ", " + slices + ")";
        }
    }
}
