package io.hotkeeper.engine.soak;

import io.hotkeeper.engine.core.Internals;
import io.hotkeeper.engine.HeavyHitter;
import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.placement.NativeBytes;
import io.hotkeeper.engine.shard.KeyShard;
import io.hotkeeper.engine.shard.KeyShards;
import io.hotkeeper.engine.shard.ShardIntegrity;
import io.hotkeeper.engine.workload.ZipfKeys;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The soak (run by tools/soak, never by the test suite): writer threads observe Zipf and uniform, long and text
 * keys whose key space moves over time; writer threads end and are replaced; a reader takes topK every
 * millisecond; every second the writers are paused at a quiescent point and the key shards are checked
 * ({@link ShardIntegrity}); the sketch is closed and rebuilt several times; and at the end Hotkeeper's own count
 * of live native bytes must be back to its starting value, with native memory tracking as a second witness.
 *
 * <p>Arguments (all optional): {@code threads=4 perThread=100000000 cycles=4 segment=5000000 checkMillis=1000}.
 */
public final class Soak {
    private static final int CHUNK = 4096;

    private final int threads;
    private final long perThread;
    private final int cycles;
    private final long segment;
    private final long checkMillis;
    /** Writers hold it shared for a chunk of observations; the checker takes it exclusively: a quiescent point. */
    private final ReentrantReadWriteLock quiescence = new ReentrantReadWriteLock(true);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final AtomicLong observations = new AtomicLong();
    private final AtomicLong topKReads = new AtomicLong();
    private long checks;
    private long maxZombies;
    private long threadsStarted;
    private final long[] ranks;

    private Soak(String[] args) {
        java.util.Map<String, String> a = new java.util.HashMap<>();
        for (String arg : args) {
            String[] kv = arg.split("=", 2);
            a.put(kv[0], kv[1]);
        }
        threads = Integer.parseInt(a.getOrDefault("threads", "4"));
        perThread = Long.parseLong(a.getOrDefault("perThread", "100000000"));
        cycles = Integer.parseInt(a.getOrDefault("cycles", "4"));
        segment = Long.parseLong(a.getOrDefault("segment", "5000000"));
        checkMillis = Long.parseLong(a.getOrDefault("checkMillis", "1000"));
        // Zipf 1.0 ranks over 1M items, precomputed once (a binary search per observation would dominate).
        ZipfKeys zipf = new ZipfKeys(1 << 20, 1.0);
        SplittableRandom r = new SplittableRandom(99);
        ranks = new long[1 << 20];
        for (int i = 0; i < ranks.length; i++) {
            ranks[i] = zipf.rankOf(r.nextDouble());
        }
    }

    public static void main(String[] args) throws Exception {
        new Soak(args).run();
    }

    private void run() throws Exception {
        long nativeBefore = NativeBytes.live();
        long[] nmtBefore = nmt();
        long start = System.nanoTime();
        for (int cycle = 0; cycle < cycles; cycle++) {
            runCycle(cycle, perThread / cycles);
            if (failure.get() != null) {
                break;
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        System.gc();
        long nativeAfter = NativeBytes.live();
        long[] nmtAfter = nmt();
        System.out.printf("soak: threads=%d perThread=%,d cycles=%d segment=%,d%n", threads, perThread, cycles, segment);
        System.out.printf("duration %.1f s; observations %,d; %.2f M observations/s; writer threads started %d%n",
                seconds, observations.get(), observations.get() / seconds / 1e6, threadsStarted);
        System.out.printf("integrity checks passed %d; topK reads %,d; promotions %,d; hand-offs %,d; max zombies %d%n",
                checks, topKReads.get(), promotions, handOffs, maxZombies);
        System.out.printf("Hotkeeper native bytes: before %,d, after %,d%n", nativeBefore, nativeAfter);
        if (nmtBefore != null && nmtAfter != null) {
            System.out.printf("NMT committed KB: Other %,d -> %,d (delta %+,d); Internal %,d -> %,d (delta %+,d)%n",
                    nmtBefore[0], nmtAfter[0], nmtAfter[0] - nmtBefore[0], nmtBefore[1], nmtAfter[1],
                    nmtAfter[1] - nmtBefore[1]);
        } else {
            System.out.println("NMT: not available (run with -XX:NativeMemoryTracking=summary)");
        }
        boolean ok = failure.get() == null && nativeAfter == nativeBefore;
        if (failure.get() != null) {
            failure.get().printStackTrace();
        }
        System.out.println(ok ? "SOAK PASSED" : "SOAK FAILED");
        System.exit(ok ? 0 : 1);
    }

    private void runCycle(int cycle, long perThreadThisCycle) throws Exception {
        try (Hotkeeper hk = Hotkeeper.builder().recordStats().memoryBytes(16 * 1024).decayBase(1.08).minCount(2)
                .seed(1000 + cycle).build()) {
            Thread[] slots = new Thread[threads];
            for (int t = 0; t < threads; t++) {
                int id = t;
                // A slot's controller runs its writer in segments, each on a new thread (thread churn).
                slots[t] = Thread.ofPlatform().name("soak-slot-" + t).start(() -> {
                    for (long done = 0; done < perThreadThisCycle && failure.get() == null; done += segment) {
                        long from = done;
                        long to = Math.min(perThreadThisCycle, done + segment);
                        Thread w = Thread.ofPlatform().start(() -> write(hk, cycle, id, from, to));
                        synchronized (this) {
                            threadsStarted++;
                        }
                        try {
                            w.join();
                        } catch (InterruptedException e) {
                            failure.compareAndSet(null, e);
                            return;
                        }
                    }
                });
            }
            Thread reader = Thread.ofPlatform().name("soak-reader").start(() -> read(hk, slots));
            while (anyAlive(slots)) {
                LockSupport.parkNanos(checkMillis * 1_000_000);
                check(hk);
            }
            for (Thread s : slots) {
                s.join();
            }
            reader.join();
            check(hk);
            handOffs += hk.stats().handOffs();
            promotions += hk.stats().promotions();
        }
    }

    private long handOffs;
    private long promotions;

    private static boolean anyAlive(Thread[] threads) {
        for (Thread t : threads) {
            if (t.isAlive()) {
                return true;
            }
        }
        return false;
    }

    /** Observations {@code [from, to)} of writer slot {@code id}: the key space moves every 10M observations. */
    private void write(Hotkeeper hk, int cycle, int id, long from, long to) {
        SplittableRandom random = new SplittableRandom(cycle * 1_000_003L + id * 7919L + from);
        StringBuilder text = new StringBuilder(24);
        int position = random.nextInt(ranks.length);
        try {
            for (long i = from; i < to; ) {
                long end = Math.min(to, i + CHUNK);
                long chunkStart = i;
                quiescence.readLock().lock();
                try {
                    for (; i < end; i++) {
                        long epoch = i / 10_000_000L; // key churn: every 10M observations the key space shifts
                        long key = (i & 1) == 0
                                ? ZipfKeys.keyOfRank(ranks[position++ & (ranks.length - 1)] + epoch * 50_000)
                                : ZipfKeys.keyOfRank(1 + random.nextInt(1 << 22) + epoch * 50_000);
                        if ((i & 3) == 3) {
                            text.setLength(0);
                            text.append("k-").append(key);
                            hk.observe(text);
                        } else {
                            hk.observe(key);
                        }
                    }
                } finally {
                    quiescence.readLock().unlock();
                }
                observations.addAndGet(end - chunkStart);
            }
            hk.reap();
        } catch (Throwable e) {
            failure.compareAndSet(null, e);
        }
    }

    private void read(Hotkeeper hk, Thread[] slots) {
        try {
            while (anyAlive(slots) && failure.get() == null) {
                java.util.List<HeavyHitter> top = hk.topK(100);
                long previous = Long.MAX_VALUE;
                for (HeavyHitter h : top) {
                    if (h.estimate() <= 0 || h.estimate() > previous || h.key().length == 0) {
                        throw new AssertionError("bad topK entry " + h);
                    }
                    previous = h.estimate();
                }
                topKReads.incrementAndGet();
                LockSupport.parkNanos(1_000_000);
            }
        } catch (Throwable e) {
            failure.compareAndSet(null, e);
        }
    }

    /** Pauses the writers (exclusive lock: a quiescent point), checks every table's key shards. */
    private void check(Hotkeeper hk) {
        quiescence.writeLock().lock();
        try {
            for (KeyShards s : Internals.keyShardSets(hk)) {
                for (KeyShard shard : s.shards()) {
                    maxZombies = Math.max(maxZombies, shard.maxZombies());
                }
            }
            ShardIntegrity.checkAll(Internals.keyShardSets(hk));
            checks++;
        } catch (Throwable e) {
            failure.compareAndSet(null, e);
        } finally {
            quiescence.writeLock().unlock();
        }
    }

    /** NMT committed KB of the "Other" and "Internal" categories, or null without native memory tracking. */
    private static long[] nmt() {
        try {
            Path java = Path.of(ProcessHandle.current().info().command().orElseThrow());
            Path jcmd = java.resolveSibling("jcmd");
            Process p = new ProcessBuilder(jcmd.toString(), Long.toString(ProcessHandle.current().pid()),
                    "VM.native_memory", "summary", "scale=KB").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor();
            long other = committed(out, "Other");
            long internal = committed(out, "Internal");
            // A category with nothing allocated is left out of the summary: that is 0.
            return !out.contains("Native Memory Tracking") ? null
                    : new long[] {Math.max(0, other), Math.max(0, internal)};
        } catch (IOException | InterruptedException | RuntimeException e) {
            return null;
        }
    }

    private static long committed(String summary, String category) {
        Matcher m = Pattern.compile("-\\s+" + category + " \\(reserved=\\d+(?:KB)?, committed=(\\d+)(?:KB)?\\)").matcher(summary);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }
}
