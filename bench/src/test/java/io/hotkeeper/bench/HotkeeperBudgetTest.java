package io.hotkeeper.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import java.util.List;

class HotkeeperBudgetTest {
    private static final long[] STREAM = KeyStreams.zipf(20_000, 1.0, 200_000, 7);

    @Test
    void fitStaysWithinTheBudgetAfterARunOnOneAndTwoThreads() {
        for (long budget : new long[] {16_384, 65_536}) {
            for (int threads = 1; threads <= 2; threads++) {
                HotkeeperBudget.Fit fit = HotkeeperBudget.fit(budget, threads, 100, Long.BYTES);
                assertTrue(fit.probedBytes() <= budget, fit.describe());
                try (Contender c = Contender.hotkeeper("Hotkeeper", fit.builder(), budget, threads)) {
                    c.run(STREAM);
                    List<Contender.Hit> top = c.topK(100);
                    assertTrue(c.heldBytes() <= budget, c.held()); // heldBytes itself throws when over
                    // Threads that do not overlap may share one worker, and so one shard of shardCapacity entries.
                    assertTrue(top.size() >= Math.min(100, fit.shardCapacity()), c.held());
                }
            }
        }
    }

    @Test
    void largerBudgetsGetTheLargestTableThatLeavesTheShardsTwoKEntries() {
        HotkeeperBudget.Fit fit = HotkeeperBudget.fit(262_144, 1, 100, Long.BYTES);
        assertEquals(65_536, fit.tableBytes(), fit.describe());
        assertTrue(fit.shardCapacity() >= 2 * 100, fit.describe());
    }

    @Test
    void twoWorkersAtSixteenKiBTurnCombiningOffWhenThatLeavesTheShardsMoreEntries() {
        // No split holds 2k entries here; the fallback must give the shards the most room of all it tried.
        HotkeeperBudget.Fit fit = HotkeeperBudget.fit(16_384, 2, 100, Long.BYTES);
        HotkeeperBudget.Fit smallestBlock = HotkeeperBudget.largestShards(16_384, 2, 100, 4096, Long.BYTES, 16);
        assertTrue(fit.shardCapacity() > smallestBlock.shardCapacity(), fit.describe() + " vs " + smallestBlock.describe());
        assertEquals(HotkeeperBudget.NO_COMBINING, fit.combinerEntries(), fit.describe());
        assertTrue(fit.probedBytes() <= 16_384, fit.describe());
        assertEquals(0L, fit.probedParts().getOrDefault("combiner", 0L), fit.describe());
    }

    @Test
    void heapPeersReportWhatTheirObjectGraphHolds() {
        try (Contender ds = Contender.dataSketches(512, 1)) {
            ds.run(STREAM);
            // three arrays of 512 slots (8 + 8 + 2 bytes each) and the objects around them
            assertTrue(ds.heldBytes() >= 18 * 512 && ds.heldBytes() < 18 * 512 + 1024, ds.held());
        }
        try (Contender ss = Contender.streamSummary(100, 2)) {
            ss.run(STREAM);
            // per counter at least a Counter, a list node, a map node and a boxed key
            assertTrue(ss.heldBytes() >= 100 * (40 + 24 + 32 + 16), ss.held());
        }
    }
}
