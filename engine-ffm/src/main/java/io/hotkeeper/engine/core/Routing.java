package io.hotkeeper.engine.core;

import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * How many tables an instance has and how a thread finds its own: the builder's
 * {@link io.hotkeeper.engine.Partitioning} resolved against the machine (its NUMA nodes) once, before anything is
 * allocated. {@link TableSet} routes by it; the instance allocates {@link #tables()} tables for it.
 *
 * <pre>
 *  routing     tables   a thread's table
 *  Single      1        the table
 *  PerNode     nodes    its current node's ({@link NodeTopology#currentIndex()}); two or more nodes
 *  PerWorker   2..64    the least used when its worker first observed (WorkerAssignment)
 *  Window      slices   the current time slice's, on {@code clock}
 * </pre>
 *
 * A partitioning that comes to one table (per node on a machine of one node, {@code perWorker(1)}) resolves to
 * {@link Single}. Thread-safety: immutable.
 */
public sealed interface Routing {
    /** One table. */
    Routing SINGLE = new Single();

    /** The number of tables, at least one. */
    int tables();

    /** One table, written by every thread. */
    record Single() implements Routing {
        @Override
        public int tables() {
            return 1;
        }
    }

    /**
     * One table per NUMA node of {@code topology}, placed on it.
     *
     * @param topology the nodes (two or more) and the calling thread's index among them
     */
    record PerNode(NodeTopology topology) implements Routing {
        /** Checks the node count. */
        public PerNode {
            if (topology.nodes().length < 2) {
                throw new IllegalArgumentException("per-node routing needs two or more nodes: one is Single");
            }
        }

        @Override
        public int tables() {
            return topology.nodes().length;
        }
    }

    /**
     * {@code tables} tables, each written by the workers given it at their first observation.
     *
     * @param tables a power of two in 2..64
     */
    record PerWorker(int tables) implements Routing {
        /** Checks the count. */
        public PerWorker {
            if (tables < 2 || Integer.bitCount(tables) != 1) {
                throw new IllegalArgumentException("worker tables=" + tables + ": a power of two >= 2");
            }
        }
    }

    /**
     * One table per time slice of a sliding window of {@code span}; a new slice clears its table.
     *
     * @param span   the window's length
     * @param slices the tables, 2..64
     * @param clock  nanoseconds, read by observations and queries to find the current slice
     */
    record Window(Duration span, int slices, LongSupplier clock) implements Routing {
        /** Checks the components. */
        public Window {
            Objects.requireNonNull(span, "span");
            Objects.requireNonNull(clock, "clock");
        }

        @Override
        public int tables() {
            return slices;
        }
    }
}
