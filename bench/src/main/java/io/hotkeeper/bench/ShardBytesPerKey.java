package io.hotkeeper.bench;

import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.HotkeeperInfo;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * Shard bytes per tracked key under {@code memory(total)}, k = 100, one expected thread, at 64 KiB, 256 KiB and
 * 1 MiB: {@code long} keys (a skewed head over a stream of fresh keys, so the shard fills) and the words of the
 * {@code .java} and {@code .md} files under the directory given (twice over). Reads
 * {@code info().nativeBytesByPart()} and counts tracked keys with {@code topK}. Run:
 * {@code java -cp bench/target/benchmarks.jar io.hotkeeper.bench.ShardBytesPerKey .} (docs/design.md, "One memory
 * budget"). Threads: one.
 */
public final class ShardBytesPerKey {
    private ShardBytesPerKey() {
    }

    /** Prints one line per budget and key kind; {@code args[0]}: the directory whose words are the text stream. */
    public static void main(String[] args) throws IOException {
        List<String> words = new ArrayList<>();
        try (Stream<Path> files = Files.walk(Path.of(args[0]))) {
            for (Path p : files.filter(f -> (f.toString().endsWith(".java") || f.toString().endsWith(".md"))
                    && !f.toString().contains("/target/")).sorted().toList()) {
                for (String w : Files.readString(p, StandardCharsets.UTF_8).split("\\s+")) {
                    if (!w.isEmpty()) {
                        words.add(w);
                    }
                }
            }
        }
        long totalBytes = 0;
        for (String w : words) {
            totalBytes += w.getBytes(StandardCharsets.UTF_8).length;
        }
        System.out.printf("corpus: %d words, mean %.1f bytes%n", words.size(), (double) totalBytes / words.size());
        for (long memory : new long[] {64 << 10, 256 << 10, 1 << 20}) {
            for (String kind : new String[] {"long", "text"}) {
                try (Hotkeeper hk = Hotkeeper.builder().memory(memory).k(100).expectedThreads(1).build()) {
                    SplittableRandom random = new SplittableRandom(7);
                    if (kind.equals("long")) {
                        for (int i = 0; i < 2_000_000; i++) {
                            // a skewed head and a long tail: the shard fills
                            hk.observe(random.nextInt(3) == 0 ? random.nextInt(1000) : random.nextLong());
                        }
                    } else {
                        for (int round = 0; round < 2; round++) {
                            for (String w : words) {
                                hk.observe(w);
                            }
                        }
                    }
                    HotkeeperInfo info = hk.info();
                    long shard = info.nativeBytesByPart().getOrDefault("shard", 0L);
                    int tracked = hk.topK(1 << 20).size();
                    System.out.printf("memory=%7d %-4s table=%7d shard=%7d shardCapacity=%5d tracked=%5d"
                                    + " shardBytes/tracked=%6.1f%n", memory, kind, info.tableBytes(), shard,
                            info.shardCapacity(), tracked, (double) shard / tracked);
                }
            }
        }
    }
}
