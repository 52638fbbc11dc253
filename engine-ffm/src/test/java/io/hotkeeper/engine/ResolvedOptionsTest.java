package io.hotkeeper.engine;

import io.hotkeeper.engine.core.NodeTopology;
import io.hotkeeper.engine.core.Routing;
import io.hotkeeper.engine.core.TableSet;
import io.hotkeeper.engine.table.BucketTable;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The one resolution of a builder's options ({@link ResolvedOptions#of}): each partitioning's routing, the default
 * salt and combining, and that the machine's nodes are asked for only after the checks pass.
 */
class ResolvedOptionsTest {
    private static final Supplier<NodeTopology> NO_TOPOLOGY = () -> {
        throw new AssertionError("the topology is asked for only with per-node tables");
    };

    private static ResolvedOptions resolve(HotkeeperBuilder b, int processors) {
        return ResolvedOptions.of(b, processors, NO_TOPOLOGY);
    }

    @Test
    void eachPartitioningResolvesToItsRouting() {
        assertEquals(Routing.SINGLE, resolve(Hotkeeper.builder(), 4).routing());
        // perWorker(1) is one table: no worker routing, no per-table salt.
        ResolvedOptions one = resolve(Hotkeeper.builder().partitioning(Partitioning.perWorker(1)), 4);
        assertEquals(Routing.SINGLE, one.routing());
        assertEquals(SaltMode.PER_WORKER, one.salt());
        ResolvedOptions four = resolve(Hotkeeper.builder().partitioning(Partitioning.perWorker(4)), 4);
        assertEquals(new Routing.PerWorker(4), four.routing());
        assertEquals(4, four.tables());
        assertTrue(four.lookupOnObserve(), "a worker's table is found by its id");
        ResolvedOptions window = resolve(Hotkeeper.builder()
                .partitioning(Partitioning.window(Duration.ofSeconds(8), 4)), 2);
        Routing.Window w = assertInstanceOf(Routing.Window.class, window.routing());
        assertEquals(Duration.ofSeconds(8), w.span());
        assertEquals(4, window.tables());
        try (Hotkeeper hk = Hotkeeper.builder().partitioning(Partitioning.window(Duration.ofSeconds(8), 4)).build()) {
            assertTrue(hk.placement().format().contains("table[slice 3]"), hk.placement().format());
        }
    }

    @Test
    void perNodeTablesAskForTheNodesOnceTheChecksPass() {
        AtomicInteger asked = new AtomicInteger();
        NodeTopology three = new NodeTopology(new int[] {0, 1, 3}, () -> 0);
        // An option set the checks refuse: the nodes (libnuma on a real machine) are not asked for.
        HotkeeperBuilder refused = Hotkeeper.builder().partitioning(Partitioning.perNode())
                .combining(CombiningMode.OFF).combiner(64, 8);
        assertThrows(IllegalArgumentException.class, () -> ResolvedOptions.of(refused, 2, () -> {
            asked.incrementAndGet();
            return three;
        }));
        assertEquals(0, asked.get());

        ResolvedOptions r = ResolvedOptions.of(Hotkeeper.builder().partitioning(Partitioning.perNode()), 2, () -> {
            asked.incrementAndGet();
            return three;
        });
        assertEquals(1, asked.get());
        assertEquals(new Routing.PerNode(three), r.routing());
        assertEquals(3, r.tables());
        // One node: one table, as with no partitioning.
        ResolvedOptions single = ResolvedOptions.of(Hotkeeper.builder().partitioning(Partitioning.perNode()), 2,
                () -> new NodeTopology(new int[] {0}, () -> 0));
        assertEquals(Routing.SINGLE, single.routing());
    }

    @Test
    void theDefaultSaltFollowsTheWritersAndAChoiceIsKept() {
        assertEquals(SaltMode.SHARED, resolve(Hotkeeper.builder(), 1).salt());
        ResolvedOptions two = resolve(Hotkeeper.builder(), 2);
        assertEquals(SaltMode.PER_WORKER, two.salt());
        assertEquals(2, two.workerSaltCounters());
        assertEquals(SaltMode.SHARED, two.saltGranted(1), "a default per-worker salt granted one counter");
        assertEquals(SaltMode.PER_WORKER, two.saltGranted(2));
        ResolvedOptions chosen = resolve(Hotkeeper.builder().saltMode(SaltMode.PER_WORKER), 2);
        assertEquals(SaltMode.PER_WORKER, chosen.saltGranted(1), "a chosen mode is kept");
        assertEquals(SaltMode.SHARED, resolve(Hotkeeper.builder().expectedThreads(1), 8).salt());
        ResolvedOptions tables = resolve(Hotkeeper.builder().partitioning(Partitioning.perWorker(2)), 8);
        assertEquals(SaltMode.PER_TABLE, tables.salt());
        assertEquals(2, tables.saltCounters());
        ResolvedOptions sharded = resolve(Hotkeeper.builder().saltMode(SaltMode.SHARDED).saltShards(4), 2);
        assertEquals(4, sharded.saltCounters());
    }

    @Test
    void combiningAutoStaysOffWithWorkerTablesOnly() {
        assertTrue(resolve(Hotkeeper.builder(), 2).combines());
        assertFalse(resolve(Hotkeeper.builder().partitioning(Partitioning.perWorker(2)), 2).combines());
        assertTrue(resolve(Hotkeeper.builder().partitioning(Partitioning.perWorker(2))
                .combining(CombiningMode.ON), 2).combines());
        assertFalse(resolve(Hotkeeper.builder().combining(CombiningMode.OFF), 2).combines());
    }

    @Test
    void theWritersOfATableAreTheExpectedOnesSharedAmongWorkerTables() {
        ResolvedOptions r = resolve(Hotkeeper.builder().expectedThreads(6).partitioning(Partitioning.perWorker(4)),
                2);
        assertEquals(6, r.expectedWorkers());
        assertEquals(2, r.tableWriters());
        assertEquals(2, resolve(Hotkeeper.builder(), 2).expectedWorkers());
    }

    @Test
    void aTableSetHoldsAsManyTablesAsItsRouting() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new TableSet(new BucketTable[0], null, Routing.SINGLE));
        assertTrue(e.getMessage().contains("0 tables"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new Routing.PerWorker(3));
        assertThrows(IllegalArgumentException.class,
                () -> new Routing.PerNode(new NodeTopology(new int[] {0}, () -> 0)));
    }
}
