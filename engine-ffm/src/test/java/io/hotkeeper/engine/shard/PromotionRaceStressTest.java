package io.hotkeeper.engine.shard;

import io.hotkeeper.engine.core.Internals;
import io.hotkeeper.engine.CombiningMode;
import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.HotkeeperStats;
import io.hotkeeper.engine.table.TableLayout;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The link lock under real threads (docs/shards.md, "The link lock"): many threads promote, refresh and replace
 * keys in the smallest table (4 KiB, 64 buckets) with shards of 16 entries and promotion floor 1, so that claims,
 * replacements of claimed and settled slots, SIEVE evictions (untrack) and re-promotions of the same slots
 * overlap all the time. After a bounded number of operations, at quiescence, the invariant is checked in full:
 * no slot carries PROMOTING; every tracked slot links a live entry (MEMBER, not DEAD) that records that slot and a
 * hash of that slot's bucket and fingerprint; every live entry is linked from its tracked slot (an entry marked
 * DEAD may wait for its owner's reaping).
 *
 * <p>The threads run the facade (observe, promotion on PROMOTE, visits, hand-offs), combining off. Weighted
 * observations (weight up to 2^5) take slots from count-1 occupants, which is what replaces a slot in the middle
 * of a promotion; text keys make the promoter's key copy long enough for that to happen.
 */
class PromotionRaceStressTest {
    private static final int THREADS = 6;
    private static final int OPERATIONS = 60_000;
    private static final int ROUNDS = 8;

    @Test
    void promotionsReplacementsAndEvictionsKeepEveryTrackedSlotLinked() throws Exception {
        long handOffs = 0;
        for (int round = 0; round < ROUNDS; round++) {
            try (Hotkeeper hk = Hotkeeper.builder().recordStats().memoryBytes(4096).seed(7 + round).minCount(1)
                    .shardCapacity(16).combining(CombiningMode.OFF).build()) {
                run(hk, round);
                HotkeeperStats stats = hk.stats();
                System.out.printf("PromotionRaceStressTest round %d: promotions %d, missed %d, replacements %d, "
                        + "hand-offs %d%n", round, stats.promotions(), stats.promotionsMissed(), stats.replacements(),
                        stats.handOffs());
                // The race is met: slots change hands and tracked keys are expelled while others are promoted
                // (promotions per round depend on scheduling: 181 to several hundred measured on 2 busy cores).
                assertTrue(stats.promotions() > 100 && stats.replacements() > 1_000, stats.toString());
                handOffs += stats.handOffs();
                List<String> violations = ShardIntegrity.violations(Internals.keyShards(hk));
                assertEquals(List.of(), violations, "round " + round);
            }
        }
        // Replacements of tracked slots (hand-offs) are rare in this workload: measured 0 to 12 per round, so not
        // asserted; the jcstress tests PromotionVersusReplacementTest and UntrackVersusRefreshAndReplaceTest
        // drive those races deterministically.
        System.out.println("PromotionRaceStressTest: hand-offs in all rounds: " + handOffs);
    }

    private static void run(Hotkeeper hk, int round) throws Exception {
        CyclicBarrier start = new CyclicBarrier(THREADS);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            long seed = 31L * round + t;
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    SplittableRandom random = new SplittableRandom(seed);
                    start.await();
                    for (int i = 0; i < OPERATIONS; i++) {
                        // 20,000 keys over 512 slots: buckets are always full of light occupants and slots change
                        // hands all the time; a weighted observation (up to 2^5) takes the slot of a light
                        // occupant, tracked or in the middle of its promotion, at once.
                        int key = random.nextInt(20_000);
                        int kind = random.nextInt(10);
                        if (kind < 4) {
                            hk.observe("key-" + key);
                        } else if (kind < 6) {
                            hk.observe((long) key);
                        } else if (kind < 9) {
                            hk.observe((long) key);
                        } else {
                            hk.observe("key-" + key, 1L << random.nextInt(6));
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        assertNull(failure.get());
    }
}
