package io.hotkeeper.engine;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Per-node tables: each node's threads write their own table; estimates and topK combine them. */
class PerNodeTablesTest {
    private static final ThreadLocal<Integer> NODE = ThreadLocal.withInitial(() -> 0);

    @Test
    void onAOneNodeMachineItIsExactlyOneTable() {
        try (Hotkeeper hk = Hotkeeper.builder().partitioning(Partitioning.perNode()).build()) {
            hk.observe("x");
            assertEquals(1, hk.info().tables());
            assertEquals(Hotkeeper.DEFAULT_MEMORY_BYTES, hk.tableBytes());
        }
    }

    @Test
    void eachNodeWritesItsOwnTableAndQueriesCombineThem() throws Exception {
        try (Hotkeeper hk = SimulatedNodes.build(Hotkeeper.builder().memoryBytes(16384).seed(3).minCount(1),
                2, NODE::get)) {
            Thread node0 = Thread.ofPlatform().start(() -> {
                NODE.set(0);
                for (int i = 0; i < 100; i++) {
                    hk.observe("shared-key");
                }
                hk.observe("node0-only", 20);
            });
            Thread node1 = Thread.ofPlatform().start(() -> {
                NODE.set(1);
                for (int i = 0; i < 50; i++) {
                    hk.observe("shared-key");
                }
                hk.observe("node1-only", 30);
            });
            node0.join();
            node1.join();
            assertEquals(2, hk.info().tables());
            assertEquals(2 * 16384, hk.tableBytes());
            assertEquals(150, hk.estimate("shared-key"), "the estimate sums the node tables");
            assertEquals(20, hk.estimate("node0-only"));
            assertEquals(30, hk.estimate("node1-only"));
            List<HeavyHitter> top = hk.topK(10);
            assertEquals(3, top.size());
            assertEquals("shared-key", top.get(0).keyAsString());
            assertEquals(150, top.get(0).estimate());
            assertEquals("node1-only", top.get(1).keyAsString());
            assertEquals("node0-only", top.get(2).keyAsString());
            assertTrue(hk.contains("shared-key"));
            assertFalse(hk.contains("absent"));
            assertTrue(hk.placement().format().contains("table[1, node 0]"));
        }
    }
}
