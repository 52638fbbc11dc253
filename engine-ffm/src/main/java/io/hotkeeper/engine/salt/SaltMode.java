package io.hotkeeper.engine.salt;

/** How the eviction salt is kept. */
public enum SaltMode {
    /** One shared counter (the default): free until contended, ~one cache-line transfer per draw when it is. */
    SHARED,
    /**
     * N counters in disjoint residue classes, picked by the challenger's spare hash bits; N = available
     * processors rounded up to a power of two, capped at 32. For eviction-heavy load on many cores.
     */
    SHARDED
}
