package io.hotkeeper.engine;

import io.hotkeeper.engine.core.NodeTopology;

import java.util.function.IntSupplier;

/**
 * Per-node tables on a one-node machine: {@code nodes} pretend nodes, all placed on node 0, the calling thread's
 * one chosen by {@code nodeOfCurrentThread} (an index into 0..nodes-1). Placement stays as configured.
 */
final class SimulatedNodes {
    private SimulatedNodes() {
    }

    static Hotkeeper build(HotkeeperBuilder builder, int nodes, IntSupplier nodeOfCurrentThread) {
        builder.partitioning(Partitioning.perNode()).checkOptions();
        NodeTopology topology = new NodeTopology(new int[nodes], nodeOfCurrentThread);
        return new Hotkeeper(builder, () -> topology);
    }
}
