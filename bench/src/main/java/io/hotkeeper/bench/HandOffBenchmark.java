package io.hotkeeper.bench;

import io.hotkeeper.engine.shard.KeyShard;
import io.hotkeeper.engine.shard.ShardLayout;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.lang.foreign.Arena;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Throughput of the foreign-deletion hand-off: an owner thread inserts keys into its shard (each insert first
 * drains the stack and advances the reap cursor), publishing each new link in a ring; a deleter thread takes
 * links from the ring and deletes them foreign-style (the membership-gate CAS, then the wait-free push). Entries
 * recycle through the owner's drain, so the two threads run the whole cycle: insert, publish, mark, push, pop,
 * unlink, free, reuse. Scores are per thread of the group.
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar HandOffBenchmark -t 2} (on 2 CPUs).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"})
@State(Scope.Group)
public class HandOffBenchmark {
    static final int CAPACITY = 4096;
    static final int RING = 1024;

    Arena arena;
    KeyShard shard;
    /** Links published by the owner (0 = empty), taken by the deleter. */
    AtomicLongArray ring;
    long produced;
    long consumed;

    @Setup(Level.Trial)
    public void setup() {
        arena = Arena.ofShared();
        shard = new KeyShard(0, arena.allocate(ShardLayout.shardBytes(CAPACITY, 8), ShardLayout.ALIGNMENT),
                CAPACITY, 8, new KeyShard.Evictions() {
                    @Override
                    public long trackedCount(KeyShard s, int entry, long link) {
                        return 0;
                    }

                    @Override
                    public void rejected(long count) {
                    }

                    @Override
                    public void evicting(KeyShard s, int entry, long link) {
                    }

                    @Override
                    public void roomMade() {
                    }
                });
        ring = new AtomicLongArray(RING);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
    }

    /** The owner: one insert (with its drain); publishes the link if the ring slot is free. */
    @Benchmark
    @Group("handOff")
    @GroupThreads(1)
    public long owner() {
        if (!shard.tryEnter()) {
            return 0;
        }
        long link;
        try {
            link = shard.insertLong(produced, 0, produced, 1);
        } finally {
            shard.exit();
        }
        int i = (int) (produced & (RING - 1));
        if (link != 0 && ring.compareAndSet(i, 0, link)) {
            produced++;
        }
        return link;
    }

    /** The foreign deleter: takes a published link and hands the entry over. */
    @Benchmark
    @Group("handOff")
    @GroupThreads(1)
    public boolean deleter() {
        int i = (int) (consumed & (RING - 1));
        long link = ring.getAndSet(i, 0);
        if (link == 0) {
            return false;
        }
        consumed++;
        int entry = ShardLayout.linkEntry(link);
        if (shard.markDead(entry, ShardLayout.linkGeneration(link))) {
            shard.push(entry);
            return true;
        }
        return false;
    }
}
