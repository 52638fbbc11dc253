package io.hotkeeper.bench;

import io.hotkeeper.engine.CombiningMode;
import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.HotkeeperBuilder;
import io.hotkeeper.engine.HotkeeperInfo;
import io.hotkeeper.engine.shard.ShardLayout;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SortedMap;

/**
 * Fits one Hotkeeper into a TOTAL memory budget: every native byte it allocates (table, links, control, the key
 * shards of all workers, their combiner blocks, salt, stats) must stay within the budget. Until the builder can
 * split a total itself, this search chooses the split: the table size ({@code memoryBytes}), the entries per key
 * shard ({@code shardCapacity}), the longest stored key ({@code maxKeyBytes}, fixed by the caller: 8 for
 * {@code long} keys) and, with several workers, the combiner entries per worker.
 *
 * <p>It measures rather than predicts: a candidate is built and probed ({@link #probe}) by {@code workers}
 * threads that each promote keys into their own shard and engage hot-key combining, so every per-worker region
 * the evaluation will create exists; then {@code info().nativeBytes()} is read. The shard capacity is solved from
 * that measurement (one more entry costs a page's share, {@link ShardLayout#pageBytes} over the largest class's
 * {@link ShardLayout#entriesPerPage}, per worker) and verified by a second
 * probe. The caller checks {@code info().nativeBytes() <= budget} again after the real run.
 *
 * <p>Rule (fixed in advance, not tuned on accuracy): take the largest table for which the shards of all workers
 * still hold at least {@link #MIN_ENTRIES_PER_K} x k entries in total, with the largest combiner block (default
 * 256 entries, halved down to 16) that allows it; if no table allows it, the smallest table (4 KiB) with the
 * split that gives the shards the most room: with several workers, combining off if that holds more entries than
 * the smallest combiner block (since shard entries follow their keys, each per-worker shard also costs its header,
 * page map and a spare page, so at 16 KiB two workers' shards hold 18 entries each beside 32-entry combiner
 * blocks). Threads: one (the probes start their own).
 */
final class HotkeeperBudget {
    /** The rule's minimum of shard entries, in units of k, over all workers. */
    static final int MIN_ENTRIES_PER_K = 2;
    private static final int DEFAULT_COMBINER_ENTRIES = Hotkeeper.DEFAULT_COMBINER_ENTRIES;
    private static final int MIN_COMBINER_ENTRIES = 16;
    private static final int MIN_SHARD_CAPACITY = 16;
    /** {@code combinerEntries} of a split with several workers and combining off (the fallback's last resort). */
    static final int NO_COMBINING = -1;

    private HotkeeperBudget() {
    }

    /**
     * A chosen split.
     *
     * @param budget          total bytes allowed
     * @param workers         threads that will observe
     * @param tableBytes      {@code memoryBytes}
     * @param shardCapacity   entries per key shard
     * @param maxKeyBytes     longest key stored whole
     * @param combinerEntries entries per worker's combiner block (0: one worker, combining never engages;
     *                        {@link #NO_COMBINING}: several workers, combining off)
     * @param probedBytes     {@code info().nativeBytes()} after the probe
     * @param probedParts     {@code info().nativeBytesByPart()} after the probe
     */
    record Fit(long budget, int workers, int k, long tableBytes, int shardCapacity, int maxKeyBytes,
               int combinerEntries, long probedBytes, SortedMap<String, Long> probedParts) {
        /** A builder for this split, with the bench's fixed seed and the default combining mode. */
        HotkeeperBuilder builder() {
            HotkeeperBuilder b = Hotkeeper.builder().memoryBytes(tableBytes).k(k).seed(Workloads.SKETCH_SEED)
                    .shardCapacity(shardCapacity).maxKeyBytes(maxKeyBytes);
            if (combinerEntries > 0) {
                b.combiner(combinerEntries, Hotkeeper.DEFAULT_FLUSH_THRESHOLD);
            } else if (combinerEntries == NO_COMBINING) {
                b.combining(CombiningMode.OFF);
            }
            return b;
        }

        /** One line: the configuration and what the probe measured. */
        String describe() {
            return String.format(Locale.ROOT, "budget %,d B, %d thread(s): memoryBytes %,d, shardCapacity %,d"
                            + " (x %d shard(s) = %,d entries), maxKeyBytes %d, combiner %s; probed %,d B = %s",
                    budget, workers, tableBytes, shardCapacity, workers, (long) shardCapacity * workers,
                    maxKeyBytes, combinerEntries == 0 ? "none" : combinerEntries == NO_COMBINING ? "off"
                            : combinerEntries + " entries x " + workers,
                    probedBytes, probedParts);
        }
    }

    /** The split for {@code budget} bytes, {@code workers} threads, top {@code k}, keys of {@code maxKeyBytes}. */
    static Fit fit(long budget, int workers, int k, int maxKeyBytes) {
        Fit fallback = null;
        for (long table = Long.highestOneBit(budget); table >= 4096; table >>= 1) {
            for (int combiner = workers > 1 ? DEFAULT_COMBINER_ENTRIES : 0; ;
                 combiner = combiner / 2) {
                Fit f = largestShards(budget, workers, k, table, maxKeyBytes, combiner);
                if (f != null && (long) f.shardCapacity() * workers >= (long) MIN_ENTRIES_PER_K * k) {
                    return f;
                }
                if (f != null && (fallback == null
                        || (long) f.shardCapacity() * workers > (long) fallback.shardCapacity() * workers)) {
                    fallback = f;
                }
                if (combiner <= MIN_COMBINER_ENTRIES) {
                    break;
                }
            }
        }
        if (workers > 1) {
            // No split gives the shards 2k entries: the smallest table with combining off gives them the most room
            // (each shard's header, page map and spare page make per-worker shards dear at small budgets).
            Fit f = largestShards(budget, workers, k, 4096, maxKeyBytes, NO_COMBINING);
            if (f != null && (fallback == null || f.shardCapacity() > fallback.shardCapacity())) {
                fallback = f;
            }
        }
        if (fallback == null) {
            throw new IllegalArgumentException("budget=" + budget + " B: too small for a 4 KiB table, its links"
                    + " and " + workers + " key shard(s) of " + MIN_SHARD_CAPACITY + " entries");
        }
        return fallback;
    }

    /**
     * Every table size that fits {@code budget} with one worker, each with the largest shard capacity beside it
     * (no combiner: one worker never engages one), smallest table first: the splits {@code Evaluate
     * --sweep-splits} compares.
     */
    static List<Fit> splits(long budget, int k, int maxKeyBytes) {
        List<Fit> out = new ArrayList<>();
        for (long table = 4096; table <= Long.highestOneBit(budget); table <<= 1) {
            Fit f = largestShards(budget, 1, k, table, maxKeyBytes, 0);
            if (f != null) {
                out.add(f);
            }
        }
        return out;
    }

    /** The largest shard capacity that fits with this table and combiner, verified by a probe; null if none. */
    static Fit largestShards(long budget, int workers, int k, long table, int maxKeyBytes, int combiner) {
        Fit smallest = probe(new Fit(budget, workers, k, table, MIN_SHARD_CAPACITY, maxKeyBytes, combiner, 0, null));
        if (smallest.probedBytes() > budget) {
            return null;
        }
        // A shard sized by shardCapacity has pages for that many keys of the largest class (ShardLayout.shardBytes).
        int perPage = ShardLayout.entriesPerPage(ShardLayout.classes(maxKeyBytes) - 1, maxKeyBytes);
        long perEntry = (ShardLayout.pageBytes(maxKeyBytes) + perPage - 1) / perPage * workers;
        long capacity = MIN_SHARD_CAPACITY + (budget - smallest.probedBytes()) / perEntry;
        // Never more entries than the table has slots: a shard entry is tied to a slot.
        capacity = Math.min(capacity, Math.min(table / 8, ShardLayout.MAX_ENTRIES));
        while (capacity > MIN_SHARD_CAPACITY) {
            Fit f = probe(new Fit(budget, workers, k, table, (int) capacity, maxKeyBytes, combiner, 0, null));
            if (f.probedBytes() <= budget) {
                return f;
            }
            capacity--;
        }
        return smallest;
    }

    /**
     * Builds {@code candidate}'s sketch and has {@code workers} threads each promote keys of its own (a shard
     * each) and observe a hot key often enough to engage combining and create its block; the threads stay alive
     * until all have finished (a finished thread's worker slot could be reused by the next). Returns the
     * candidate with the bytes measured then.
     */
    static Fit probe(Fit candidate) {
        try (Hotkeeper hk = candidate.builder().build()) {
            int workers = candidate.workers();
            java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(workers);
            java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.CyclicBarrier phase = new java.util.concurrent.CyclicBarrier(workers);
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < workers; w++) {
                long base = (w + 1L) << 40;
                threads.add(Thread.ofPlatform().start(() -> {
                    for (int i = 0; i < 64; i++) {
                        hk.observe(base + i);
                    }
                    // Twice: combining engages when a second worker finds a key hot, so a worker that was through
                    // before that needs a second round to create its block.
                    for (int round = 0; round < 2; round++) {
                        for (int i = 0; i < 4 * Hotkeeper.DEFAULT_FLUSH_THRESHOLD * 8; i++) {
                            hk.observe(1L);
                            hk.observe(base + (i & 7));
                        }
                        try {
                            phase.await();
                        } catch (InterruptedException | java.util.concurrent.BrokenBarrierException e) {
                            throw new IllegalStateException(e);
                        }
                    }
                    done.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }));
            }
            try {
                done.await();
                release.countDown();
                for (Thread t : threads) {
                    t.join();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            HotkeeperInfo info = hk.info();
            if (workers > 1 && (info.shards() != workers || info.combining() == CombiningMode.AUTO
                    && (!info.combiningEngaged() || info.combiners() != workers))) {
                throw new IllegalStateException("probe did not create a shard and a combiner per worker: " + info);
            }
            return new Fit(candidate.budget(), candidate.workers(), candidate.k(), candidate.tableBytes(),
                    candidate.shardCapacity(), candidate.maxKeyBytes(), candidate.combinerEntries(),
                    info.nativeBytes(), info.nativeBytesByPart());
        }
    }
}
