package io.hotkeeper.bench;

import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.HotkeeperStats;
import io.hotkeeper.engine.table.TableLayout;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.ThreadParams;

import java.util.concurrent.TimeUnit;

/**
 * The pathological worst case through the public API: every observe lands in a full bucket of strong occupants
 * and goes to the phase-3 lottery. A translation of the salt decision's
 * {@code BenchmarkSketch_Observe_EvictionHeavy_SharedSalt} / {@code _ShardedSalt} (docs/decisions/salt.md §6).
 *
 * <pre>
 * java -jar bench/target/benchmarks.jar ObserveEvictionHeavyBenchmark -t 4
 * bench/sweep ObserveEvictionHeavyBenchmark
 * </pre>
 *
 * <h2>What it measures</h2>
 * One op is one {@link Hotkeeper#observe(long)} of a key that is not in the table; score is ops/us summed over
 * all {@code -t} threads. Unlike {@link Phase3EvictBenchmark} the whole path is paid (hash, scan, draw, stats),
 * and threads share buckets, so the salt is only part of the cost: this is the end-to-end bound on what sharding
 * the salt can buy.
 *
 * <h2>Fixture</h2>
 * Each trial builds a sketch of {@code memory} bytes (64 KiB = 1,024 buckets by default) and observes distinct
 * keys with weight {@code fillWeight} (20) until every one of its slots has been claimed, so every bucket is
 * full of occupants with count about 20. The stream is 2^22 further distinct keys, never observed before: a
 * challenger of weight 1 beats a count-20 occupant with probability 2^-20, so it essentially never gets in and
 * every observe, including repeats after the cursor wraps, is a phase-3 attempt. At the end of each trial the
 * fork prints the phase-3 share of the trial's observes (expect > 99.9%).
 *
 * <h2>Variants ({@code salt})</h2>
 * {@code shared} (one counter) and {@code sharded} with the builder's default shard count,
 * {@code SaltLayout.shardsFor(availableProcessors)}, which under {@code taskset -c 0-(t-1)} is {@code t} rounded
 * up to a power of two.
 *
 * <h2>Seen (smoke run only, not a measurement)</h2>
 * 2-core AMD EPYC container under other load, smoke settings, t=1: shared 22.8, sharded 29.7 ops/us (noise, not a
 * difference), phase-3 share 99.9999%, gc.alloc.rate.norm 0.02 B/op. Final figures come from the defaults below
 * through bench/sweep.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 2, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 5, timeUnit = TimeUnit.SECONDS)
@Fork(value = 2, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"})
public class ObserveEvictionHeavyBenchmark {
    /** Fresh keys in the pre-generated stream (a power of two). */
    static final int STREAM_KEYS = 1 << 22;
    /** Fill observations between checks of the claim count. */
    private static final int FILL_CHECK_EVERY = 1024;

    /** The saturated sketch and the stream of fresh keys. */
    @State(Scope.Benchmark)
    public static class Workload {
        /** Table bytes. */
        @Param({"65536"})
        public long memory;

        /** Eviction salt: shared or sharded. */
        @Param({"shared", "sharded", "perWorker"})
        public String salt;

        /** Weight of each fill observation, i.e. the occupants' count. */
        @Param({"20"})
        public long fillWeight;

        Hotkeeper sketch;
        long[] keys;
        HotkeeperStats atStart;

        @Setup(Level.Trial)
        public void setup() {
            // Stats on: the fill below counts claims, and the benchmark reports phase-3 draws from them.
            sketch = Workloads.builder(memory, salt, true, 0, "default", "auto", 1).recordStats().build();
            long slots = sketch.bucketCount() * TableLayout.SLOTS_PER_BUCKET;
            // Coupon collection over buckets: about bucketCount * (8 + a few ln(bucketCount)) keys fill every slot.
            long limit = 64 * slots;
            int item = 0;
            while (sketch.stats().claims() < slots) {
                if (item >= limit) {
                    throw new IllegalStateException("fill: claims=" + sketch.stats().claims() + " of slots=" + slots
                            + " after keys=" + item);
                }
                for (int i = 0; i < FILL_CHECK_EVERY; i++) {
                    sketch.observe(Workloads.keyOfItem(item++), fillWeight);
                }
            }
            keys = new long[STREAM_KEYS];
            for (int i = 0; i < keys.length; i++) {
                keys[i] = Workloads.keyOfItem(item + i);
            }
            atStart = sketch.stats();
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            HotkeeperStats end = sketch.stats();
            long attempts = end.evictionAttempts() - atStart.evictionAttempts();
            long others = end.refreshes() - atStart.refreshes() + end.claims() - atStart.claims();
            System.out.printf("# %s salt (%d shards): phase-3 share %.4f%% of %d observes, %d occupants chipped%n",
                    salt, sketch.saltShards(), 100.0 * attempts / Math.max(1, attempts + others), attempts + others,
                    end.evictionWins() - atStart.evictionWins());
            sketch.close();
        }
    }

    /** A thread's position in the stream; threads start at evenly spaced offsets. */
    @State(Scope.Thread)
    public static class Cursor {
        int next;
        int mask;

        @Setup(Level.Trial)
        public void setup(Workload workload, ThreadParams threads) {
            mask = workload.keys.length - 1;
            next = (int) ((long) threads.getThreadIndex() * workload.keys.length / threads.getThreadCount());
        }

        int next() {
            int i = next & mask;
            next = i + 1;
            return i;
        }
    }

    /** One observe of a fresh key into a saturated table. */
    @Benchmark
    public long observe(Workload w, Cursor c) {
        return w.sketch.observe(w.keys[c.next()]);
    }
}
