package io.hotkeeper.engine;

/** How the eviction salt is kept. */
public enum SaltMode {
    /** One shared counter (the default): free until contended, ~one cache-line transfer per draw when it is. */
    SHARED,
    /**
     * N counters in disjoint residue classes, picked by the challenger's spare hash bits; N = available
     * processors rounded up to a power of two, capped at 32. For eviction-heavy load on many cores.
     */
    SHARDED,
    /**
     * One counter per worker (the stats stripes' geometry: a platform thread's own id, a carrier's id for its
     * virtual threads, overflow stripes beyond), counter i emitting i, i + N, i + 2N, ... as in the sharded
     * mode. Values stay globally unique (disjoint residue classes, atomic adds), and a draw writes only a line
     * its own core owns, so losing draws make no cross-core traffic at all.
     */
    PER_WORKER,
    /**
     * One counter per table, table i of n emitting i, i + n, i + 2n, ... (disjoint residue classes, so values stay
     * unique across the instance): the default with one table per worker, where each table has one writer, so its
     * counter stays in that writer's cache, and 128 bytes per table instead of PER_WORKER's 128 per worker stripe
     * (9,216 bytes on a 2-CPU machine). With one table it is the same as {@link #SHARED}.
     */
    PER_TABLE
}
