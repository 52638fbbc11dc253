package io.hotkeeper.engine.core;

import io.hotkeeper.numa.Numa;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.IntSupplier;

/**
 * The NUMA nodes per-node tables are made for, and which of them the calling thread runs on.
 *
 * @param nodes        the node ids, one table each (at least one)
 * @param currentIndex the index into {@code nodes} of the calling thread's node; called on every observation
 *                     of a sketch with per-node tables, from any thread
 */
public record NodeTopology(int[] nodes, IntSupplier currentIndex) {
    /** Checks the components. */
    public NodeTopology {
        if (nodes.length == 0) {
            throw new IllegalArgumentException("nodes: at least one");
        }
        Objects.requireNonNull(currentIndex, "currentIndex");
    }

    /**
     * This machine's nodes, from libnuma ({@link Numa#system()}): node 0 alone without libnuma. The current
     * index reads the calling thread's node (a thread on an unknown node counts as the first). Threads: any.
     * Progress: blocking (loads libnuma on first use).
     */
    public static NodeTopology system() {
        Numa numa = Numa.system();
        List<Integer> list = numa.isAvailable() ? numa.nodes() : List.of(0);
        int[] nodes = list.stream().mapToInt(Integer::intValue).toArray();
        int[] indexOfNode = new int[Arrays.stream(nodes).max().orElse(0) + 1];
        for (int i = 0; i < nodes.length; i++) {
            indexOfNode[nodes[i]] = i;
        }
        return new NodeTopology(nodes, () -> {
            int node = numa.currentNode();
            return node >= 0 && node < indexOfNode.length ? indexOfNode[node] : 0;
        });
    }
}
