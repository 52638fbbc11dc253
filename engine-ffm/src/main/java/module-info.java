/**
 * Hotkeeper's engine: a concurrent HeavyKeeper-family heavy-hitter sketch whose state lives in native memory.
 *
 * <p>The API is two packages: {@code io.hotkeeper.engine} (the sketch, its builder, the records it reports, the
 * placement and salt choices) and {@code io.hotkeeper.engine.snapshot} (the stable snapshot format, merge
 * reports, per-key bounds). Every other package is internal and not exported: on the module path nothing outside
 * this module can reach it. The project's benchmarks and stress tests, which drive single phases in isolation,
 * run on the class path, where module boundaries do not apply (docs/architecture.md). Besides {@code java.base}
 * and the bindings, the module reads only {@code jdk.jfr} (part of the JDK), for the events of named sketches
 * (docs/operations.md).
 */
module io.hotkeeper.engine {
    requires io.hotkeeper.numa;
    // The HotKey event of named sketches (HotkeeperBuilder.name, package io.hotkeeper.engine.jfr); part of the JDK.
    requires jdk.jfr;

    exports io.hotkeeper.engine;
    exports io.hotkeeper.engine.snapshot;
}
