/**
 * Hotkeeper's engine: a concurrent HeavyKeeper-family heavy-hitter sketch whose state lives in native memory.
 *
 * <p>Only {@code io.hotkeeper.engine} and {@code io.hotkeeper.engine.snapshot} are API. The other packages are exported for the project's own
 * benchmarks and stress tests, which drive single phases in isolation; they carry no compatibility promise.
 */
module io.hotkeeper.engine {
    requires io.hotkeeper.numa;

    exports io.hotkeeper.engine;
    exports io.hotkeeper.engine.combine;
    exports io.hotkeeper.engine.hash;
    exports io.hotkeeper.engine.lottery;
    exports io.hotkeeper.engine.placement;
    exports io.hotkeeper.engine.salt;
    exports io.hotkeeper.engine.shard;
    exports io.hotkeeper.engine.snapshot;
    exports io.hotkeeper.engine.stats;
    exports io.hotkeeper.engine.table;
    exports io.hotkeeper.engine.window;
    exports io.hotkeeper.engine.worker;
}
