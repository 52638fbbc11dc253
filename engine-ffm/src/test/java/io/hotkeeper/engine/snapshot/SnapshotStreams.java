package io.hotkeeper.engine.snapshot;

import io.hotkeeper.engine.HeavyHitter;
import io.hotkeeper.engine.workload.ZipfKeys;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** Streams for the snapshot tests: Zipf keys, and the words of this repository's own sources and docs. */
final class SnapshotStreams {
    private static long[] zipf;
    private static List<String> words;

    private SnapshotStreams() {
    }

    /** 2,000,000 Zipf(1.0) keys over 1,000,000 items, seed 42. */
    static synchronized long[] zipf() {
        if (zipf == null) {
            zipf = new ZipfKeys(1_000_000, 1.0).keys(2_000_000, 42);
        }
        return zipf;
    }

    /**
     * The identifier-like words of every {@code .java} and {@code .md} file of the repository, files in path
     * order, words in text order: real text (skewed, bursty, with a long tail) that every checkout has, on any
     * machine. Read from the repository root above the working directory (surefire runs in the module).
     */
    static synchronized List<String> words() {
        if (words == null) {
            Path root = Path.of("").toAbsolutePath();
            while (root != null && !Files.exists(root.resolve("mvnw"))) {
                root = root.getParent();
            }
            if (root == null) {
                throw new IllegalStateException("repository root not found above " + Path.of("").toAbsolutePath());
            }
            Pattern word = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{1,}");
            List<String> out = new ArrayList<>();
            try (Stream<Path> files = Files.walk(root)) {
                List<Path> sources = files.filter(p -> {
                    String name = p.toString();
                    return (name.endsWith(".java") || name.endsWith(".md")) && !name.contains("/target/")
                            && !name.contains("/.git/") && !name.contains("/shared/") && !name.contains("/generated/");
                }).sorted().toList();
                for (Path p : sources) {
                    Matcher m = word.matcher(Files.readString(p, StandardCharsets.UTF_8));
                    while (m.find()) {
                        out.add(m.group());
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            words = List.copyOf(out);
        }
        return words;
    }

    static <T> Map<T, Long> exact(Iterable<T> stream) {
        Map<T, Long> counts = new HashMap<>();
        for (T key : stream) {
            counts.merge(key, 1L, Long::sum);
        }
        return counts;
    }

    static Map<ByteBuffer, Long> exactBytes(long[] stream) {
        Map<ByteBuffer, Long> counts = new HashMap<>();
        for (long key : stream) {
            counts.merge(bytes(key), 1L, Long::sum);
        }
        return counts;
    }

    static Map<ByteBuffer, Long> exactBytes(List<String> stream) {
        Map<ByteBuffer, Long> counts = new HashMap<>();
        for (String key : stream) {
            counts.merge(ByteBuffer.wrap(key.getBytes(StandardCharsets.UTF_8)), 1L, Long::sum);
        }
        return counts;
    }

    static ByteBuffer bytes(long key) {
        return ByteBuffer.allocate(8).order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(0, key);
    }

    /** Tie-aware precision@k: the fraction of k whose true count is at least the true count at rank k. */
    static double precision(List<HeavyHitter> reported, Map<ByteBuffer, Long> exact, int k) {
        long[] counts = exact.values().stream().mapToLong(Long::longValue).sorted().toArray();
        long threshold = counts[Math.max(0, counts.length - k)];
        long hits = reported.stream().limit(k)
                .filter(h -> exact.getOrDefault(ByteBuffer.wrap(h.key()), 0L) >= threshold).count();
        return hits / (double) k;
    }

    /** The parts of {@code stream} split into {@code n} contiguous ranges. */
    static long[][] split(long[] stream, int n) {
        long[][] parts = new long[n][];
        for (int i = 0; i < n; i++) {
            parts[i] = Arrays.copyOfRange(stream, (int) ((long) stream.length * i / n),
                    (int) ((long) stream.length * (i + 1) / n));
        }
        return parts;
    }

    static <T> List<List<T>> split(List<T> stream, int n) {
        List<List<T>> parts = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            parts.add(stream.subList((int) ((long) stream.size() * i / n), (int) ((long) stream.size() * (i + 1) / n)));
        }
        return parts;
    }
}
