package io.hotkeeper.engine;

import io.hotkeeper.engine.core.NodeTopology;
import io.hotkeeper.engine.core.Routing;
import io.hotkeeper.engine.salt.SaltLayout;
import io.hotkeeper.engine.worker.WorkerSpace;

import java.util.function.Supplier;

/**
 * What a builder's options come to on this machine, resolved once, before anything is allocated: every choice the
 * engine makes from the user's (a default salt, whether it combines, how many tables and how a thread finds its
 * own, which writers the budget is split for). {@link HotkeeperBuilder#build()} makes it ({@link #of}, with the
 * checks that span options in the middle, on the salt and combining it resolved); the {@link Hotkeeper}
 * constructor allocates from it, {@code info()} reports the salt it grants, and the instance's {@code TableSet}
 * routes by its {@link #routing}. Nothing else derives these from the builder's fields.
 *
 * <p>Only the per-worker salt's counters are not final here: a total budget's plan may grant fewer
 * ({@link #saltGranted}).
 *
 * @param salt               the salt mode wanted: the one chosen; else per-table with worker tables; else per-worker
 *                           where more than one writer is expected; else shared
 * @param saltChosen         whether {@link HotkeeperBuilder#saltMode} chose it (a default may narrow, a choice never)
 * @param saltShards         the sharded salt's counters ({@link SaltMode#SHARDED}); 1 otherwise
 * @param workerSaltCounters the per-worker salt's counters wanted ({@link SaltMode#PER_WORKER}); 1 otherwise
 * @param combines           whether the instance has hot-key combiners: {@code ON}, or {@code AUTO} without worker
 *                           tables (a worker's table is its own already)
 * @param routing            the tables and how a thread finds its own
 * @param workers            the worker geometry every per-worker part shares
 * @param expectedWorkers    the writers a total budget is split for (the key shards and combiner blocks it plans)
 * @param tableWriters       the writers of one table: {@code expectedWorkers} shared among worker tables
 * @param statsRegion        whether a stats region exists: recorded stats, or approximate counting's coins
 * @param lookupOnObserve    whether every observation needs its worker: recorded stats or worker tables (the
 *                           rest look it up only where they need it: a promotion, engaged combining, a
 *                           per-worker salt's draw, an approximate count's coin)
 */
record ResolvedOptions(SaltMode salt, boolean saltChosen, int saltShards, int workerSaltCounters, boolean combines,
                       Routing routing, WorkerSpace workers, int expectedWorkers, int tableWriters,
                       boolean statsRegion, boolean lookupOnObserve) {

    /** The number of tables. */
    int tables() {
        return routing.tables();
    }

    /**
     * The salt mode once the per-worker salt's counters are known ({@code workerCounters}, what a total budget's
     * plan granted): {@link #salt}, except that a default per-worker salt granted one counter is the shared salt
     * (the same counter, without a worker lookup on each draw). A chosen mode is kept.
     */
    SaltMode saltGranted(int workerCounters) {
        return salt == SaltMode.PER_WORKER && workerCounters == 1 && !saltChosen ? SaltMode.SHARED : salt;
    }

    /** The salt counters the wanted mode allocates (one per table with {@code PER_TABLE}), before any plan's grant. */
    int saltCounters() {
        return switch (salt) {
            case PER_WORKER -> workerSaltCounters;
            case PER_TABLE -> tables();
            default -> saltShards;
        };
    }

    /**
     * The resolution of {@code b}'s choices on a machine of {@code processors} processors. The salt and combining
     * come first, then {@link HotkeeperBuilder#checkOptions} runs on them, then the rest; {@code topology} is asked
     * for only with per-node tables, and only once the checks have passed (it may load libnuma). Salt: the one
     * chosen; else per-table with worker tables (each table's own counter); else per-worker where more than one
     * thread is expected to write ({@link HotkeeperBuilder#expectedThreads}, by default the processors), so that
     * two writers' draws never take turns on one line; shared for a single writer, where one counter is as cheap
     * and needs no lookup of the worker.
     *
     * @throws IllegalArgumentException if the options do not fit together (see checkOptions)
     */
    static ResolvedOptions of(HotkeeperBuilder b, int processors, Supplier<NodeTopology> topology) {
        int workerTableCount = b.partitioning instanceof Partitioning.PerWorker w ? w.tables() : 1;
        boolean workerTables = workerTableCount > 1;
        int expectedWriters = b.expectedThreads > 0 ? b.expectedThreads : processors;
        SaltMode salt = b.saltMode != null ? b.saltMode
                : workerTables ? SaltMode.PER_TABLE
                : expectedWriters > 1 ? SaltMode.PER_WORKER : SaltMode.SHARED;
        boolean combines = b.combining == CombiningMode.ON || b.combining == CombiningMode.AUTO && !workerTables;
        b.checkOptions(salt, combines);

        Routing routing = switch (b.partitioning) {
            case Partitioning.Shared s -> Routing.SINGLE;
            case Partitioning.PerWorker w -> workerTables ? new Routing.PerWorker(w.tables()) : Routing.SINGLE;
            case Partitioning.Window w -> new Routing.Window(w.span(), w.slices(), b.clock);
            case Partitioning.PerNode n -> {
                NodeTopology nodes = topology.get();
                yield nodes.nodes().length > 1 ? new Routing.PerNode(nodes) : Routing.SINGLE;
            }
        };
        int saltShards = salt == SaltMode.SHARDED
                ? (b.saltShards > 0 ? b.saltShards : SaltLayout.shardsFor(processors)) : 1;
        int workerSaltCounters = salt == SaltMode.PER_WORKER ? SaltLayout.workerCountersFor(expectedWriters) : 1;
        WorkerSpace workers = WorkerSpace.forProcessors(processors);
        // A total budget plans shards and combiner blocks for these writers: the ones declared, else no more than
        // the processors and the exclusive stripes. With worker tables a table's shards serve its share of them.
        int expectedWorkers = b.expectedThreads > 0 ? b.expectedThreads
                : Math.min(processors, workers.exclusiveStripes());
        int tableWriters = (expectedWorkers + workerTableCount - 1) / workerTableCount;
        boolean statsRegion = b.recordStats || b.approximateBits != 0;
        // Approximate counting's coins look the worker up where one is flipped (StatsStripes.random), not here.
        boolean lookupOnObserve = b.recordStats || workerTables;
        return new ResolvedOptions(salt, b.saltMode != null, saltShards, workerSaltCounters, combines, routing,
                workers, expectedWorkers, tableWriters, statsRegion, lookupOnObserve);
    }
}
