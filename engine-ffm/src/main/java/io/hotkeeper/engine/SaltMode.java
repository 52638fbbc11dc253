package io.hotkeeper.engine;

/** How the eviction salt is kept. */
public enum SaltMode {
    /**
     * One shared counter: free until contended, ~one cache-line transfer per draw when it is. The default for a
     * single expected writer ({@code expectedThreads(1)}, or one available processor).
     */
    SHARED,
    /**
     * N counters in disjoint residue classes, picked by the challenger's spare hash bits; N = available
     * processors rounded up to a power of two, capped at 32. For eviction-heavy load on many cores.
     */
    SHARDED,
    /**
     * N counters in disjoint residue classes (counter i emits i, i + N, i + 2N, ...), the default for one table
     * written by several threads: a draw takes the counter of its worker's id modulo N (a platform thread's own
     * id, a carrier's id for its virtual threads), looked up on the draw, so hits never pay for it. N is the
     * expected writers rounded up to a power of two (2 to 64; 2 counters, 256 bytes, for 2 writers), so writers
     * with consecutive ids (threads that start together get them) draw from lines of their own and losing draws
     * make no cross-core traffic. Values stay unique
     * even where ids share a counter (atomic adds); such writers then take turns on its line, as all do under
     * {@link #SHARED}.
     */
    PER_WORKER,
    /**
     * One counter per table, table i of n emitting i, i + n, i + 2n, ... (disjoint residue classes, so values stay
     * unique across the instance): the default with one table per worker, where each table has one writer, so its
     * counter stays in that writer's cache, and 128 bytes per table. With one table it is the same as
     * {@link #SHARED}.
     */
    PER_TABLE
}
