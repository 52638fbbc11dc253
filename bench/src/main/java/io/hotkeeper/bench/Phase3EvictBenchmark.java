package io.hotkeeper.bench;

import io.hotkeeper.engine.lottery.DecayLottery;
import io.hotkeeper.engine.salt.EvictionSalt;
import io.hotkeeper.engine.salt.SaltLayout;
import io.hotkeeper.engine.stats.StatsStripes;
import io.hotkeeper.engine.table.BucketTable;
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

import java.lang.foreign.Arena;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * The phase-3 eviction lottery in isolation: how many eviction attempts per microsecond the whole machine
 * completes when the only shared written word is the eviction salt. A translation of the salt decision's
 * {@code BenchmarkPhase3Evict_SharedSalt}, {@code _PerGoroutineSalt} and {@code _ShardedSalt}
 * (docs/decisions/salt.md §2, §3, §6).
 *
 * <pre>
 * java -jar bench/target/benchmarks.jar Phase3EvictBenchmark -t 4
 * bench/sweep Phase3EvictBenchmark                  # t = 1, 2, 4, ... nproc, each pinned with taskset
 * </pre>
 *
 * <h2>What it measures</h2>
 * One op is one {@link BucketTable#challengeWeakest} call: scan a full bucket for its weakest occupant, take a
 * fresh salt value, draw, and (almost never) CAS the occupant down. Score is ops/us summed over all {@code -t}
 * threads (JMH throughput mode), i.e. system-wide eviction attempts per microsecond.
 *
 * <h2>Isolation (the decision record's two fixes)</h2>
 * <ul>
 *   <li><b>Saturated, read-mostly table.</b> 1,024 buckets, every slot live with count {@code occupantCount}
 *       (40 by default: a base-2 draw wins with probability 2^-40, so the table is never written and every op
 *       is a pure phase-3 attempt). Lower it (e.g. {@code -p occupantCount=3}) to let draws win; won draws write
 *       only the thread's own window and never empty a slot, so the table stays full.</li>
 *   <li><b>Disjoint bucket windows.</b> JMH thread {@code i} only touches buckets
 *       {@code [64 (i mod 16), 64 (i mod 16) + 64)}; up to 16 threads never share a bucket line. Beyond 16
 *       threads the windows wrap and share lines (read-only at the default count).</li>
 *   <li><b>Private stats.</b> Thread {@code i} passes the handle of exclusive stats stripe {@code i} (its own
 *       128-byte region), so the attempt counter it bumps is not shared.</li>
 * </ul>
 *
 * <h2>Variants ({@code salt})</h2>
 * <ul>
 *   <li>{@code shared}: one {@code EvictionSalt(arena, 1)}, the production default. Every op is a
 *       {@code lock xadd} on the same cache line.</li>
 *   <li>{@code sharded}: one {@code EvictionSalt(arena, shards)} with {@code shards = 8} by default, as in the
 *       decision record's §6 table (production sizes it with {@code SaltLayout.shardsFor(processors)}; pass
 *       {@code -p shards=32} etc. to try others). The shard is picked by the challenger's spare bits, so threads
 *       spread over shards but still share them.</li>
 *   <li>{@code perWorker}: the shippable per-worker salt ({@code SaltMode.PER_WORKER}): one counter per stats
 *       stripe in disjoint residue classes, picked by the thread's stats handle, advanced with an atomic add on a
 *       line only this thread writes. Globally unique, and no cross-core traffic.</li>
 *   <li>{@code perThread}: each thread gets its own one-shard {@code EvictionSalt} in its own 128-byte region:
 *       the same {@code lock xadd}, uncontended. A benchmark instrument only, not shippable: values from
 *       different threads repeat, which breaks the salt's never-repeats contract. Its gap to {@code shared} is
 *       the cost of sharing the word.</li>
 * </ul>
 * The benchmark method is identical for all three; only the salt object a thread holds differs.
 *
 * <h2>Seen (smoke run only, not a measurement)</h2>
 * 2-core AMD EPYC container under other load, {@code -f 1 -wi 1 -i 1 -w 1s -r 1s}: t=1 shared 49.5, sharded 49.4,
 * perThread 50.4 ops/us (the uncontended salt is free); t=2 25.7 / 23.3 / 94.0 (shared anti-scales, perThread
 * scales; 8 shards picked by hash bits still bounce every shard line between two threads). Final figures come
 * from the defaults below through bench/sweep (bench/README.md).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 2, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 5, timeUnit = TimeUnit.SECONDS)
@Fork(value = 2, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"})
public class Phase3EvictBenchmark {
    /** log2 of the table's bucket count: 1,024 buckets, as in the decision record. */
    static final int INDEX_BITS = 10;
    /** Buckets per thread window. */
    static final int WINDOW_BUCKETS = 64;
    /** Number of disjoint windows. */
    static final int WINDOWS = (1 << INDEX_BITS) / WINDOW_BUCKETS;
    /** Pre-generated challenger hashes per thread (a power of two). */
    static final int HASHES_PER_THREAD = 1 << 12;
    /** Exclusive stats stripes: one per JMH thread index; higher indexes fall back to shared stripes. */
    static final int STATS_STRIPES = 256;

    /** The shared, eviction-saturated table and the shared salt. */
    @State(Scope.Benchmark)
    public static class Table {
        /** {@code shared}, {@code sharded}, {@code perWorker} or {@code perThread}. */
        @Param({"shared", "sharded", "perWorker", "perThread"})
        public String salt;

        /** Shard count of the {@code sharded} variant (a power of two in 1..32). */
        @Param({"8"})
        public int shards;

        /** Count of every occupant; a challenger wins a draw with probability 2^-occupantCount. */
        @Param({"40"})
        public long occupantCount;

        Arena arena;
        BucketTable table;
        StatsStripes stats;
        /** The shared salt; null for {@code perThread}. */
        EvictionSalt sharedSalt;

        @Setup(Level.Trial)
        public void setup() {
            if (occupantCount < 1 || occupantCount > TableLayout.MAX_COUNT) {
                throw new IllegalArgumentException("occupantCount=" + occupantCount + ": must be >= 1");
            }
            arena = Arena.ofShared();
            stats = new StatsStripes(arena, STATS_STRIPES, 8);
            sharedSalt = switch (salt) {
                case "shared" -> new EvictionSalt(arena, 1);
                case "sharded" -> new EvictionSalt(arena, shards);
                case "perWorker" -> EvictionSalt.perWorker(
                        arena.allocate(SaltLayout.segmentBytes(1) * (STATS_STRIPES + 8), SaltLayout.ALIGNMENT),
                        STATS_STRIPES + 8);
                case "perThread" -> null;
                default -> throw new IllegalArgumentException(
                        "salt=" + salt + ": must be shared, sharded, perWorker or perThread");
            };
            // The table's own salt is never used: challengeWeakest takes the salt value from the caller.
            EvictionSalt unused = new EvictionSalt(arena, 1);
            table = new BucketTable(arena, INDEX_BITS, new DecayLottery(DecayLottery.DEFAULT_BASE, 0x5eed_5a17L),
                    unused, stats);
            long fingerprintMask = (1L << TableLayout.fingerprintBits(INDEX_BITS)) - 1;
            for (long bucket = 0; bucket < table.bucketCount(); bucket++) {
                for (int slot = 0; slot < TableLayout.SLOTS_PER_BUCKET; slot++) {
                    long fp = (bucket * TableLayout.SLOTS_PER_BUCKET + slot + 1) & fingerprintMask;
                    table.putSlot(bucket, slot, TableLayout.word(fp, occupantCount));
                }
            }
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            arena.close();
        }
    }

    /** One JMH thread's window, stats stripe, salt and challenger stream. */
    @State(Scope.Thread)
    public static class Worker {
        Arena arena;
        EvictionSalt salt;
        long statsHandle;
        long[] hashes;
        int mask;
        int cursor;

        @Setup(Level.Trial)
        public void setup(Table table, ThreadParams threads) {
            int index = threads.getThreadIndex();
            // Ticket = the thread index, not shared: stripe `index` is this thread's alone.
            statsHandle = table.stats.handle(index);
            if (table.sharedSalt != null) {
                salt = table.sharedSalt;
            } else {
                arena = Arena.ofShared();
                salt = new EvictionSalt(arena, 1);
            }
            long windowFirst = (long) (index % WINDOWS) * WINDOW_BUCKETS;
            SplittableRandom random = new SplittableRandom(0x9e3779b97f4a7c15L * (index + 1));
            hashes = new long[HASHES_PER_THREAD];
            for (int i = 0; i < hashes.length; i++) {
                long bits = random.nextLong();
                // Random fingerprint and spare bits; bucket index forced into this thread's window.
                hashes[i] = (bits & ~((1L << INDEX_BITS) - 1)) | (windowFirst + (bits & (WINDOW_BUCKETS - 1)));
            }
            mask = hashes.length - 1;
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            if (arena != null) {
                arena.close();
            }
        }

        long nextHash() {
            int i = cursor & mask;
            cursor = i + 1;
            return hashes[i];
        }
    }

    /** One eviction attempt against the weakest occupant of a full bucket in this thread's window. */
    @Benchmark
    public long challenge(Table table, Worker worker) {
        long hash = worker.nextHash();
        long spare = TableLayout.spare(hash);
        BucketTable t = table.table;
        return t.challengeWeakest(t.bucketOffset(hash), t.fingerprint(hash), spare, worker.salt.next(spare, worker.statsHandle),
                worker.statsHandle);
    }
}
