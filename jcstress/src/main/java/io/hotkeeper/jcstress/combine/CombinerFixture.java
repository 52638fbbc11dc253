package io.hotkeeper.jcstress.combine;

import io.hotkeeper.jcstress.Fixtures;
import io.hotkeeper.engine.combine.CombinerLayout;
import io.hotkeeper.engine.combine.HotKeyCombiners;
import io.hotkeeper.engine.lottery.DecayLottery;
import io.hotkeeper.engine.salt.EvictionSalt;
import io.hotkeeper.engine.stats.StatsStripes;
import io.hotkeeper.engine.worker.WorkerHandle;
import io.hotkeeper.engine.worker.WorkerSpace;
import io.hotkeeper.engine.table.BucketTable;
import io.hotkeeper.engine.table.TableLayout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One state's table and combiners (all in one automatic arena), for the gate, flush and engagement tests: a
 * 4 KiB table, 2 workers with blocks of 16 entries, admitting from count 1, with the flush threshold given. The
 * allocator hands out zeroed, 128-byte aligned blocks as production's does, and remembers them, so negative
 * controls can run a planted-bug copy of an owner path on the very block the combiners use.
 */
class CombinerFixture {
    static final int ENTRIES = 16;
    /** Two exclusive stripes (one per worker) and one shared. */
    static final WorkerSpace WORKERS = new WorkerSpace(2, 1);
    /** Worker 0, shared: two virtual threads of one carrier taking turns on it. */
    static final long SHARED = WORKERS.handleOf(WorkerHandle.shared(0));
    /** Keys in bucket 0 with distinct fingerprints (no eviction); K and L share a combiner set. */
    static final long K = CombinerVersusEstimateTest.hash(21, 3);
    static final long L = CombinerVersusEstimateTest.hash(22, 4);

    final BucketTable table;
    final HotKeyCombiners combiners;
    final StatsStripes stats;
    final MemorySegment[] blocks = new MemorySegment[2];
    private int allocated;

    CombinerFixture(int flushThreshold, boolean auto) {
        Arena arena = Arena.ofAuto();
        stats = new StatsStripes(arena, WORKERS);
        table = Fixtures.table(Fixtures.tableSegment(arena, CombinerVersusEstimateTest.INDEX_BITS),
                CombinerVersusEstimateTest.INDEX_BITS, new DecayLottery(DecayLottery.REFERENCE_BASE, 1),
                new EvictionSalt(arena, 1), stats, Long.MAX_VALUE, t -> null, 0);
        combiners = new HotKeyCombiners(WORKERS, stats, 2, ENTRIES, flushThreshold, 1, bytes -> {
            MemorySegment block = arena.allocate(bytes, CombinerLayout.ALIGNMENT);
            blocks[allocated++] = block;
            return block;
        }, auto);
    }

    /** Worker {@code w}, exclusive. */
    long owner(int w) {
        return WORKERS.handleOf(w);
    }

    /** table + pending: the estimate Hotkeeper reports (table read first, with acquire). */
    long estimate(long hash) {
        return table.estimate(hash) + combiners.pending(hash);
    }

    /** Offset of way 0 of {@code hash}'s set in a block. */
    static long way0(long hash) {
        return CombinerLayout.setOffset(hash, ENTRIES / CombinerLayout.WAYS - 1);
    }

    /**
     * {@code n} observations of {@code hash} by {@code worker}, each as the facade makes it
     * ({@code Hotkeeper.observeOne}): through the combiners once engaged, else to the table and then
     * {@link HotKeyCombiners#unengaged}, the check that engages auto combining.
     */
    void observe(long hash, long worker, int n) {
        for (int i = 0; i < n; i++) {
            if (combiners.engaged()) {
                combiners.observe(hash, worker, table);
            } else {
                combiners.unengaged(table.observe(hash, 1, worker));
            }
        }
    }

    /** Checks a precondition of a fixture (a failed one is a broken fixture, not an outcome). */
    static void check(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException("fixture: " + what);
        }
    }

    static long count(long result) {
        return result & TableLayout.COUNT_MASK;
    }
}
