package io.hotkeeper.engine.shard;

import io.hotkeeper.engine.HeavyHitter;
import io.hotkeeper.engine.Hotkeeper;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue #28, item 0: text keys must not fare worse than 64-bit hashes of the same lines. A stream that arrives in
 * runs, shaped like a listing in path order: 32,000 distinct text keys in 12 directories whose keys have similar
 * lengths, directory after directory, each key's occurrences in one to four runs, Zipf counts (s = 1, 2.43M lines,
 * true count at rank 100: 2,220); in the second case the first six directories hold the short keys. It is observed
 * once as text and once as a 64-bit hash of each line, by one {@code memory(65536).seed(7)} instance each. A key
 * whose count stays below the promotion floor is counted but never tracked, so the floor must end at or below the
 * true count at rank 100, and the text run's precision@100 must reach 0.95 as the hashed run's does.
 *
 * <p>The floor part passes since 2026-12-07 (night): a candidate turned away for want of room in its own class
 * raises that class's floor, and the table-wide floor only to the lightest smaller entry its walk passed
 * (docs/shards.md, "A class with no room keeps its floor to itself"). Before that the longer keys' rejections drove
 * the table-wide floor to 3,889 on the mixed directories and 15,833 with short keys first, far above the true
 * count at rank 100 (2,220); now it ends at 1,821 and 1,270, which
 * {@link #thePromotionFloorEndsAtOrBelowTheTrueCountAtRankK} holds.
 *
 * <p>The precision part still fails (0.91 on the mixed directories, 0.53 with short keys first; 0.89 and 0.53
 * before): the keys met first take every page for their class, and the longer keys that come later have page 0's
 * few entries. With 512-byte pages and spares only for the planned classes (2026-12-06) the shard is 23 pages:
 * short keys first, class 1 takes 22 of them and page 0 holds class 3, so the 25-31 byte keys' class never gets a
 * page. Holding each size class below the largest to half the pages passed it once (0.97 and 0.98) but cost
 * {@code hotkeeper top} at its defaults ({@code --max-key-bytes 256}) on other streams (docs/shards.md, "Why text
 * keys fare worse than their hashes"), so that change is not kept and the precision test stays disabled until a
 * shard can move pages between classes or is sized by the key lengths it meets (issue #28, items 1 and 2).
 */
class TextKeyFloorTest {
    private static final int K = 100;
    private static final int DISTINCT = 32_000;
    private static final int MODULES = 12;

    /** The stream: key ids in arrival order, and the keys' texts. */
    record RunStream(int[] ids, String[] texts, long[] counts) {
        long trueCountAtRank(int rank) {
            long[] sorted = counts.clone();
            Arrays.sort(sorted);
            return sorted[sorted.length - rank];
        }
    }

    static RunStream runOrdered(long seed, boolean shortFirst) {
        return runOrdered(seed, DISTINCT, 222_000, 1.0, 4, shortFirst);
    }

    /**
     * {@code distinct} keys with counts {@code head / rank^s} (ranks shuffled over the keys), in {@link #MODULES}
     * directories, directory after directory, each key's occurrences in one to {@code maxRuns} runs. A directory's
     * keys are within 3 bytes of its own length (15 to 40 bytes), or with {@code shortFirst} 13 to 16 bytes in the
     * first half of the directories and 25 to 31 in the rest.
     */
    static RunStream runOrdered(long seed, int distinct, double head, double s, int maxRuns, boolean shortFirst) {
        SplittableRandom random = new SplittableRandom(seed);
        String[] texts = new String[distinct];
        long[] counts = new long[distinct];
        String alphabet = "abcdefghijklmnopqrstuvwxyz";
        // Keys belong to directories (modules); a module's keys have similar lengths (its path depth), so the mix of
        // key lengths the sketch meets shifts as the listing moves from one module to the next.
        int[] moduleLength = new int[MODULES];
        for (int m = 0; m < MODULES; m++) {
            moduleLength[m] = 15 + random.nextInt(26);
        }
        int[] module = new int[distinct];
        for (int i = 0; i < distinct; i++) {
            module[i] = random.nextInt(MODULES);
            int length = Math.clamp(moduleLength[module[i]] - 3 + random.nextInt(7), 15, 40);
            if (shortFirst) {
                // The first half of the directories hold keys of 13 to 16 bytes, the rest 25 to 31.
                length = module[i] < MODULES / 2 ? 13 + random.nextInt(4) : 25 + random.nextInt(7);
            }
            StringBuilder text = new StringBuilder("m").append(module[i]).append('/').append(i).append('/');
            while (text.length() < length) {
                text.append(text.length() % 9 == 0 ? '/' : alphabet.charAt(random.nextInt(alphabet.length())));
            }
            texts[i] = text.toString();
            // Zipf-like over ids in random order (a key's rank has nothing to do with its position).
            counts[i] = Math.max(1, Math.round(head / Math.pow(i + 1, s)));
        }
        for (int i = distinct - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            long c = counts[i];
            counts[i] = counts[j];
            counts[j] = c;
        }
        // Path order: module after module; within a module, each key's occurrences in one to maxRuns runs, the
        // module's runs in random order.
        List<long[]> runs = new ArrayList<>();
        for (int m = 0; m < MODULES; m++) {
            int first = runs.size();
            for (int i = 0; i < distinct; i++) {
                if (module[i] != m) {
                    continue;
                }
                int pieces = (int) Math.min(counts[i], 1 + random.nextInt(maxRuns));
                long left = counts[i];
                for (int p = pieces; p > 0; p--) {
                    long piece = p == 1 ? left : Math.max(1, left / p);
                    runs.add(new long[] {i, piece});
                    left -= piece;
                }
            }
            for (int i = runs.size() - 1; i > first; i--) {
                int j = first + random.nextInt(i - first + 1);
                long[] r = runs.get(i);
                runs.set(i, runs.get(j));
                runs.set(j, r);
            }
        }
        long total = Arrays.stream(counts).sum();
        int[] ids = new int[(int) total];
        int at = 0;
        for (long[] run : runs) {
            for (long n = 0; n < run[1]; n++) {
                ids[at++] = (int) run[0];
            }
        }
        return new RunStream(ids, texts, counts);
    }

    static long fnv64(String text) {
        long h = 0xcbf29ce484222325L;
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            h = (h ^ (b & 0xFF)) * 0x100000001b3L;
        }
        return h;
    }

    /** Precision@k, tie-aware: a reported key counts if its true count is at least the true count at rank k. */
    static double precision(List<Long> reportedCounts, long countAtK) {
        long hits = reportedCounts.stream().filter(c -> c >= countAtK).count();
        return hits / (double) K;
    }

    record Result(double precision, long floor, String info) { }

    static Result runText(RunStream s) {
        try (Hotkeeper hk = Hotkeeper.builder().memory(65536).seed(7).build()) {
            for (int id : s.ids()) {
                hk.observe(s.texts()[id]);
            }
            Map<String, Long> exact = new HashMap<>();
            for (int i = 0; i < s.texts().length; i++) {
                exact.put(s.texts()[i], s.counts()[i]);
            }
            List<Long> counts = new ArrayList<>();
            for (HeavyHitter h : hk.topK(K)) {
                counts.add(exact.getOrDefault(h.keyAsString(), 0L));
            }
            return new Result(precision(counts, s.trueCountAtRank(K)), hk.info().promotionFloor(),
                    hk.info().toString());
        }
    }

    static Result runHashed(RunStream s) {
        try (Hotkeeper hk = Hotkeeper.builder().memory(65536).seed(7).build()) {
            long[] hashes = new long[s.texts().length];
            Map<Long, Long> exact = new HashMap<>();
            for (int i = 0; i < s.texts().length; i++) {
                hashes[i] = fnv64(s.texts()[i]);
                exact.put(hashes[i], s.counts()[i]);
            }
            for (int id : s.ids()) {
                hk.observe(hashes[id]);
            }
            List<Long> counts = new ArrayList<>();
            for (HeavyHitter h : hk.topK(K)) {
                counts.add(exact.getOrDefault(h.keyAsLong(), 0L));
            }
            return new Result(precision(counts, s.trueCountAtRank(K)), hk.info().promotionFloor(),
                    hk.info().toString());
        }
    }

    @ParameterizedTest(name = "short keys first: {0}")
    @ValueSource(booleans = {false, true})
    void thePromotionFloorEndsAtOrBelowTheTrueCountAtRankK(boolean shortFirst) {
        RunStream s = runOrdered(28, shortFirst);
        long atK = s.trueCountAtRank(K);
        Result text = runText(s);
        System.out.printf("run-ordered (short keys first: %s): text floor %,d, true count at rank %d %,d%n",
                shortFirst, text.floor(), K, atK);
        assertTrue(text.floor() <= atK, "text floor " + text.floor() + " above the true count at rank " + K
                + ", " + atK + ": " + text.info());
    }

    @Disabled("issue #28 item 0: the precision still fails (0.91 / 0.53): the class met last has too few pages; "
            + "the page cap that passes it costs the CLI on flat-topped text, docs/shards.md")
    @ParameterizedTest(name = "short keys first: {0}")
    @ValueSource(booleans = {false, true})
    void textKeysOnARunOrderedStreamAreAsAccurateAsTheirHashes(boolean shortFirst) {
        RunStream s = runOrdered(28, shortFirst);
        long atK = s.trueCountAtRank(K);
        Result text = runText(s);
        Result hashed = runHashed(s);
        System.out.printf("run-ordered (short keys first: %s), %,d lines, %,d keys, true count at rank %d %,d:"
                + " text precision %.2f floor %,d; hashed precision %.2f floor %,d%n", shortFirst, s.ids().length,
                DISTINCT, K, atK, text.precision(), text.floor(), hashed.precision(), hashed.floor());
        assertTrue(hashed.precision() >= 0.95, "hashed precision " + hashed.precision());
        assertTrue(text.floor() <= atK, "text floor " + text.floor() + " above the true count at rank " + K
                + ", " + atK + ": " + text.info());
        assertTrue(text.precision() >= 0.95, "text precision " + text.precision() + " (hashed "
                + hashed.precision() + ")");
    }
}
