package io.hotkeeper.engine;

import io.hotkeeper.engine.workload.ZipfKeys;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Shared test streams (generated once per JVM) and a tie-aware precision@k. */
final class Streams {
    static final int DISTINCT = 1_000_000;
    static final int LENGTH = 10_000_000;
    private static final Map<Double, long[]> CACHE = new ConcurrentHashMap<>();

    private Streams() {
    }

    static long[] zipf(double s) {
        return CACHE.computeIfAbsent(s, e -> new ZipfKeys(DISTINCT, e).keys(LENGTH, 42));
    }

    static Map<Long, Long> exact(long[] stream) {
        Map<Long, Long> counts = new HashMap<>();
        for (long k : stream) {
            counts.merge(k, 1L, Long::sum);
        }
        return counts;
    }

    /** Fraction of {@code reported} whose true count is at least the true count at rank k. */
    static double precision(long[] reported, Map<Long, Long> exact, int k) {
        long[] counts = exact.values().stream().mapToLong(Long::longValue).sorted().toArray();
        long threshold = counts[Math.max(0, counts.length - k)];
        long hits = Arrays.stream(reported).filter(key -> exact.getOrDefault(key, 0L) >= threshold).count();
        return hits / (double) k;
    }
}
