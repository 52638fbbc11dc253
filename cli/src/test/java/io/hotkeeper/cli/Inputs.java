package io.hotkeeper.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/** Test inputs with known exact counts. */
final class Inputs {
    private Inputs() {
    }

    /** Key "key-i" repeated counts[i] times, lines shuffled with {@code seed}. */
    static List<String> shuffled(long[] counts, long seed) {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < counts.length; i++) {
            for (long c = 0; c < counts[i]; c++) {
                lines.add("key-" + i);
            }
        }
        Collections.shuffle(lines, new Random(seed));
        return lines;
    }

    /** A Zipf(s) stream of {@code n} lines over {@code distinct} keys "z<rank>"; exact counts per key. */
    static Map<String, Long> zipf(int n, int distinct, double s, long seed, StringBuilder out) {
        double[] cdf = new double[distinct];
        double total = 0;
        for (int r = 1; r <= distinct; r++) {
            total += Math.pow(r, -s);
            cdf[r - 1] = total;
        }
        Random random = new Random(seed);
        Map<String, Long> exact = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            double u = random.nextDouble() * total;
            int idx = java.util.Arrays.binarySearch(cdf, u);
            int rank = (idx >= 0 ? idx : -idx - 1) + 1;
            String key = "z" + Math.min(rank, distinct);
            exact.merge(key, 1L, Long::sum);
            out.append(key).append('\n');
        }
        return exact;
    }

    static Path write(Path dir, String name, List<String> lines) throws IOException {
        return Files.writeString(dir.resolve(name), String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
    }

    static byte[] bytes(byte[]... lines) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] l : lines) {
            out.writeBytes(l);
            out.write('\n');
        }
        return out.toByteArray();
    }
}
