package io.hotkeeper.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.HotkeeperInfo;
import io.hotkeeper.engine.shard.ShardLayout;

import org.apache.datasketches.frequencies.FrequentLongsSketch;
import org.junit.jupiter.api.Test;

/**
 * Each side of {@code PeerBenchmark} gets its largest configuration within the budget: what it measurably holds
 * is at most the budget, and its next larger configuration would hold more than the budget.
 */
class PeerSizingTest {
    /** The budgets of PeerBenchmark and docs/peers.md, and 72 KiB (73,728) beside DataSketches' 4,096 slots. */
    private static final long[] BUDGETS = {8_192, 16_384, 65_536, 73_728, 73_864, 262_144, 8_388_608};
    private static final long[] STREAM = KeyStreams.zipf(100_000, 1.0, 400_000, 11);

    @Test
    void dataSketchesGetsTheLargestMapWhoseMeasuredSketchFitsAndDoublingWouldNot() {
        for (long budget : BUDGETS) {
            int size = PeerSizing.dataSketchesMaxMapSize(budget);
            long held = PeerSizing.dataSketchesFootprint(size);
            long doubled = PeerSizing.dataSketchesFootprint(2 * size);
            System.out.printf("# DataSketches at %,d B: maxMapSize %,d holds %,d B; %,d would hold %,d B%n",
                    budget, size, held, 2 * size, doubled);
            assertTrue(held <= budget, budget + ": " + size + " slots hold " + held + " B");
            assertTrue(doubled > budget, budget + ": " + 2 * size + " slots would hold only " + doubled + " B");
        }
    }

    @Test
    void sixtyFourKiBHoldsTwoThousandSlotsAndFourThousandNeedMoreThanSeventyTwoKiB() {
        // The figures of docs/peers.md: 2,048 slots at 64 KiB, and the 18-byte rule's 4,096 at 72 KiB would not
        // fit there (the sketch and map objects and three array headers come on top of 18 B a slot).
        assertEquals(2_048, PeerSizing.dataSketchesMaxMapSize(65_536));
        assertEquals(2_048, PeerSizing.dataSketchesMaxMapSize(73_728));
        assertEquals(4_096, PeerSizing.dataSketchesMaxMapSize(73_864));
    }

    @Test
    void theFootprintIsEighteenBytesASlotPlusAFixedPart() {
        // Measured, and exactly the arrays: doubling the map adds 18 B per added slot, nothing else.
        long fixed = PeerSizing.dataSketchesFootprint(8) - 18 * 8;
        for (int size = 16; size <= 1 << 16; size <<= 1) {
            assertEquals(18L * size + fixed, PeerSizing.dataSketchesFootprint(size), "maxMapSize " + size);
        }
        System.out.printf("# DataSketches: 18 B x maxMapSize + %d B%n", fixed);
    }

    @Test
    void aSketchThatRanAStreamHoldsNoMoreThanItsMeasuredFootprint() {
        int size = PeerSizing.dataSketchesMaxMapSize(65_536);
        FrequentLongsSketch sketch = new FrequentLongsSketch(size);
        for (long key : STREAM) {
            sketch.update(key);
        }
        long held = Contender.heapBytes(sketch);
        assertTrue(held <= PeerSizing.dataSketchesFootprint(size), held + " B after the stream");
        assertTrue(held <= 65_536, held + " B after the stream");
    }

    @Test
    void aBudgetBelowTheSmallestSketchIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> PeerSizing.dataSketchesMaxMapSize(256));
    }

    @Test
    void hotkeeperTotalSizingHoldsEveryNativeByteWithinTheBudgetAfterARun() {
        for (long budget : new long[] {16_384, 65_536, 73_864, 8_388_608}) {
            for (int threads = 1; threads <= 2; threads++) {
                HotkeeperInfo info = run(PeerSizing.HotkeeperSizing.TOTAL, budget, threads, false);
                System.out.printf("# Hotkeeper total at %,d B, %d thread(s): %,d native bytes = %s%n", budget,
                        threads, info.nativeBytes(), info.nativeBytesByPart());
                assertTrue(info.nativeBytes() <= budget, info.toString());
                assertEquals(budget, info.memoryBudget(), info.toString());
                if (threads == 1) {
                    // Largest: what is left over is less than one more bucket and its links (64 + 64 bytes) and
                    // one page of the key shard (its pages are allocated as keys arrive).
                    assertTrue(budget - info.nativeBytes() < 2 * 64 + ShardLayout.pageBytes(Long.BYTES),
                            info.toString());
                }
            }
        }
        // The other configurations PeerBenchmark builds: sharded salt, no key shards, combining off, worker tables.
        HotkeeperInfo sharded = run(PeerSizing.HotkeeperSizing.TOTAL, 65_536, 2, true);
        assertTrue(sharded.nativeBytes() <= 65_536, sharded.toString());
        for (boolean keyShards : new boolean[] {false, true}) {
            for (boolean combining : new boolean[] {false, true}) {
                for (int tables : new int[] {1, 2}) {
                    try (Hotkeeper hk = PeerBenchmark.Workload.builder(PeerSizing.HotkeeperSizing.TOTAL, 65_536, 2,
                            Long.BYTES, false, keyShards, combining, tables).build()) {
                        Contender.onThreads(2, t -> {
                            for (int i = t; i < STREAM.length; i += 2) {
                                hk.observe(STREAM[i]);
                            }
                        });
                        assertTrue(hk.info().nativeBytes() <= 65_536, hk.info().toString());
                    }
                }
            }
        }
    }

    @Test
    void hotkeeperTableSizingPutsOnlyTheTableOnTheBudget() {
        HotkeeperInfo info = run(PeerSizing.HotkeeperSizing.TABLE, 65_536, 1, false);
        assertEquals(65_536, info.tableBytes(), info.toString());
        assertTrue(info.nativeBytes() > 65_536, info.toString());
    }

    private static HotkeeperInfo run(PeerSizing.HotkeeperSizing sizing, long budget, int threads,
                                     boolean shardedSalt) {
        try (Hotkeeper hk = PeerBenchmark.Workload.builder(sizing, budget, threads, Long.BYTES, shardedSalt, true,
                true, 1).build()) {
            Contender.onThreads(threads, t -> {
                for (int i = t; i < STREAM.length; i += threads) {
                    hk.observe(STREAM[i]);
                }
            });
            return hk.info();
        }
    }
}
