package io.hotkeeper.engine.shard;

import io.hotkeeper.engine.Hotkeeper;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Measures a line stream (one key a line, in file order) the way {@link TextKeyFloorTest} does: one
 * {@code memory(budget).seed(7)} instance observing the lines as text, one observing a 64-bit hash of each line;
 * prints precision@100 (tie-aware, against the exact counts) and the final promotion floor of each, and the true
 * count at rank 100. docs/shards.md gives the command that builds the JDK listing it was used on.
 */
public final class RunOrderedListingMain {
    private static final int K = 100;

    private RunOrderedListingMain() {
    }

    /**
     * {@code args}: the file, then budgets in bytes. Threads: runs on the caller's thread only. Progress: blocking
     * (reads the file).
     */
    public static void main(String[] args) throws Exception {
        List<String> lines = Files.readAllLines(Path.of(args[0]));
        Map<String, Long> exact = new HashMap<>();
        for (String line : lines) {
            exact.merge(line, 1L, Long::sum);
        }
        long[] sorted = exact.values().stream().mapToLong(Long::longValue).sorted().toArray();
        long atK = sorted[Math.max(0, sorted.length - K)];
        Map<Long, String> byHash = new HashMap<>();
        long[] hashes = new long[lines.size()];
        for (int i = 0; i < hashes.length; i++) {
            hashes[i] = TextKeyFloorTest.fnv64(lines.get(i));
            byHash.put(hashes[i], lines.get(i));
        }
        for (int a = 1; a < args.length; a++) {
            long budget = Long.parseLong(args[a]);
            double textPrecision;
            long textFloor;
            try (Hotkeeper hk = Hotkeeper.builder().memory(budget).seed(7).build()) {
                for (String line : lines) {
                    hk.observe(line);
                }
                textPrecision = hk.topK(K).stream().filter(h -> exact.getOrDefault(h.keyAsString(), 0L) >= atK)
                        .count() / (double) K;
                textFloor = hk.info().promotionFloor();
            }
            double hashedPrecision;
            long hashedFloor;
            try (Hotkeeper hk = Hotkeeper.builder().memory(budget).seed(7).build()) {
                for (long hash : hashes) {
                    hk.observe(hash);
                }
                hashedPrecision = hk.topK(K).stream()
                        .filter(h -> exact.getOrDefault(byHash.get(h.keyAsLong()), 0L) >= atK).count() / (double) K;
                hashedFloor = hk.info().promotionFloor();
            }
            System.out.printf("%s, memory %d: %,d lines, %,d keys, true count at rank %d %,d | text %.2f, floor %,d"
                    + " | hashed %.2f, floor %,d%n", args[0], budget, lines.size(), exact.size(), K, atK,
                    textPrecision, textFloor, hashedPrecision, hashedFloor);
        }
    }
}
