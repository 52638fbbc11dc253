import io.hotkeeper.engine.*;
import io.hotkeeper.engine.core.Internals;
import io.hotkeeper.engine.table.BucketTable;
import io.hotkeeper.engine.table.TableLayout;
import java.nio.file.*;
import java.util.*;

/**
 * How many tracked slots (T bit) each bucket holds while one writer observes FILE's lines as the command line's
 * defaults would (k 100, keys up to 256 bytes, the plan told the lengths of the 100 heaviest keys of the first MiB):
 * every 50,000 lines, the share of buckets with more than C tracked slots and the tracked slots that C link cells
 * per bucket would not hold, for C = 1..4, and 2C cells shared by each 128-byte pair of buckets (C = 3, 4); prints the
 * worst of every sample and the table's size.
 * Usage: java --enable-native-access=ALL-UNNAMED -cp ENGINE_CLASSES TrackedPerBucket.java FILE MEMORY [SEED]
 */
public class TrackedPerBucket {
    public static void main(String[] a) throws Exception {
        List<String> lines = Files.readAllLines(Path.of(a[0]));
        lines.removeIf(String::isEmpty);
        long memory = Long.parseLong(a[1]);
        long seed = a.length > 2 ? Long.parseLong(a[2]) : 1;
        Map<String, Integer> head = new HashMap<>();
        long bytes = 0;
        for (String l : lines) {
            if ((bytes += l.length() + 1) > 1 << 20) break;
            head.merge(l, 1, Integer::sum);
        }
        int[] lengths = head.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
                .limit(100).mapToInt(e -> e.getKey().getBytes(java.nio.charset.StandardCharsets.UTF_8).length)
                .filter(len -> len <= 256).toArray();
        try (Hotkeeper hk = Hotkeeper.builder().seed(seed).memory(memory).k(100).maxKeyBytes(256)
                .expectedKeyLengths(lengths).build()) {
            BucketTable table = Internals.tables(hk).table(0);
            long buckets = table.bucketCount();
            int maxTracked = 0;
            int maxPerBucket = 0;
            int[] worstOver = new int[5];
            int[] worstBuckets = new int[5];
            int[] worstPair = new int[5];
            for (int i = 0; i < lines.size(); i++) {
                hk.observe(lines.get(i));
                if (i % 50_000 == 49_999 || i == lines.size() - 1) {
                    int tracked = 0;
                    int[] over = new int[5];
                    int[] bucketsOver = new int[5];
                    int[] perBucket = new int[(int) buckets];
                    for (long b = 0; b < buckets; b++) {
                        int t = 0;
                        for (int s = 0; s < TableLayout.SLOTS_PER_BUCKET; s++) {
                            long word = table.lvSlot((b * TableLayout.SLOTS_PER_BUCKET + s) * 8);
                            if (TableLayout.tracked(word)) t++;
                        }
                        tracked += t;
                        perBucket[(int) b] = t;
                        maxPerBucket = Math.max(maxPerBucket, t);
                        for (int c = 1; c <= 4; c++) {
                            if (t > c) { over[c] += t - c; bucketsOver[c]++; }
                        }
                    }
                    maxTracked = Math.max(maxTracked, tracked);
                    // Cells shared by a 128-byte pair of buckets (2C cells for 16 slots).
                    for (int c = 3; c <= 4; c++) {
                        int pairOver = 0;
                        for (int b = 0; b + 1 < buckets; b += 2) {
                            pairOver += Math.max(0, perBucket[b] + perBucket[b + 1] - 2 * c);
                        }
                        worstPair[c] = Math.max(worstPair[c], pairOver);
                    }
                    for (int c = 1; c <= 4; c++) {
                        worstOver[c] = Math.max(worstOver[c], over[c]);
                        worstBuckets[c] = Math.max(worstBuckets[c], bucketsOver[c]);
                    }
                }
            }
            StringBuilder sb = new StringBuilder();
            for (int c = 1; c <= 4; c++) {
                sb.append(String.format(" | C=%d: %d buckets over, %d slots left out", c, worstBuckets[c], worstOver[c]));
            }
            sb.append(String.format(" | pairs, 6 cells: %d left out, 8 cells: %d left out", worstPair[3], worstPair[4]));
            System.out.printf("%s %d B: %d buckets, most tracked %d, most in one bucket %d%s%n",
                    Path.of(a[0]).getFileName(), memory, buckets, maxTracked, maxPerBucket, sb);
        }
    }
}
