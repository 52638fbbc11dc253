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
    PER_WORKER
}
