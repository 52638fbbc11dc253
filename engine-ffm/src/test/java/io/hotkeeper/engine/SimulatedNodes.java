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
        NodeTopology topology = new NodeTopology(new int[nodes], nodeOfCurrentThread);
        builder.partitioning(Partitioning.perNode());
        return new Hotkeeper(builder, ResolvedOptions.of(builder, Runtime.getRuntime().availableProcessors(),
                () -> topology));
    }
}
