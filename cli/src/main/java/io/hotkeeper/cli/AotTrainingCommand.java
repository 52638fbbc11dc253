package io.hotkeeper.cli;

import io.hotkeeper.engine.workload.ZipfKeys;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.ByteArrayInputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;

/**
 * {@code hotkeeper aot-training}: the workload the launcher runs once under {@code -XX:AOTCacheOutput} to build
 * the JDK's AOT cache (JEP 483/514/515: classes loaded and linked ahead, method profiles). It writes a Zipf file of
 * text keys to a temporary file, runs {@code top} on it in this process the ways people do (one and two threads,
 * every format, a field and a weight, standard input) with the results thrown away, and deletes the file. The
 * first four runs use small sketches, whose tables fill: without them the profiles never see phase 3 or a full
 * shard, and a real run on a large input deoptimizes the observe path (measured: ingest of 3.1M keys 0.65-0.70 s
 * before, 0.51-0.54 s after; docs/cli.md). They come first, and the first fills within a few thousand lines, so
 * that the JIT compiles the observe path from a profile that has seen every phase (a cache whose training began
 * with the 4 MiB sketch missed the second bucket once in five trainings; docs/cli.md, "Cold runs"). One
 * {@code --help} loads every command, since a run that names its command registers only that one. Hidden from
 * the help: it prints nothing and is of no use by hand. Threads: the caller's, plus top's workers.
 */
@Command(name = "aot-training", hidden = true,
        description = "Runs top on a generated file to train the JDK's AOT cache (used by the launcher).")
final class AotTrainingCommand implements Callable<Integer> {
    @Option(names = "--lines", description = "Lines of the generated file (default: ${DEFAULT-VALUE}).")
    int lines = 300_000;

    @Override
    public Integer call() throws Exception {
        if (lines < 1 || lines > 100_000_000) {
            throw new UserException("aot-training: --lines must be in 1..100000000");
        }
        byte[] keys = zipfLines(lines, 42);
        byte[] weighted = weightedLines(Math.min(lines, 100_000), 43);
        Path dir = Files.createTempDirectory("hotkeeper-aot-");
        try {
            Path file = Files.write(dir.resolve("keys.txt"), keys);
            Path fields = Files.write(dir.resolve("weighted.txt"), weighted);
            String f = file.toString();
            List<String[]> runs = List.of(
                    new String[] {"top", "-k", "20", "--memory", "64k", f},
                    new String[] {"top", "--threads", "2", "-k", "20", "--memory", "64k", f},
                    new String[] {"top", "-k", "20", "--memory", "256k", f},
                    new String[] {"top", "--threads", "2", "-k", "20", "--memory", "256k", f},
                    new String[] {"top", "-k", "20", f},
                    new String[] {"top", "--threads", "2", "-k", "20", "--format", "tsv", f},
                    new String[] {"top", "--format", "json", "--stats", f},
                    new String[] {"top", "--threads", "2", "--field", "1", "--weight-field", "2", "-d", " ",
                            "--format", "tsv", fields.toString()});
            for (String[] args : runs) {
                run(args, new byte[0]);
            }
            run(new String[] {"top", "-k", "20", "-"}, weighted);
            run(new String[] {"--help"}, new byte[0]);
        } finally {
            try (var files = Files.list(dir)) {
                for (Path p : files.toList()) {
                    Files.deleteIfExists(p);
                }
            }
            Files.deleteIfExists(dir);
        }
        return Main.OK;
    }

    private static void run(String[] args, byte[] stdin) {
        int exit = Main.execute(args, () -> new ByteArrayInputStream(stdin), OutputStream.nullOutputStream(),
                OutputStream.nullOutputStream(), false);
        if (exit != Main.OK) {
            throw new IllegalStateException("training run " + String.join(" ", args) + " exited " + exit);
        }
    }

    /** {@code count} lines {@code user-NNNNNNNNNN}: Zipf(1.0) over 100,000 distinct keys, 16 bytes a line. */
    static byte[] zipfLines(int count, long seed) {
        ZipfKeys zipf = new ZipfKeys(100_000, 1.0);
        SplittableRandom random = new SplittableRandom(seed);
        StringBuilder text = new StringBuilder(count * 16);
        for (int i = 0; i < count; i++) {
            long rank = zipf.rankOf(random.nextDouble());
            String digits = Long.toString(rank * 2654435761L % 4294967296L);
            text.append("user-").append("0".repeat(10 - digits.length())).append(digits).append('\n');
        }
        return text.toString().getBytes(StandardCharsets.US_ASCII);
    }

    /** {@code count} lines {@code key weight}: a Zipf key and a small number, space-separated. */
    private static byte[] weightedLines(int count, long seed) {
        ZipfKeys zipf = new ZipfKeys(10_000, 1.0);
        SplittableRandom random = new SplittableRandom(seed);
        StringBuilder text = new StringBuilder(count * 16);
        for (int i = 0; i < count; i++) {
            text.append("k").append(zipf.rankOf(random.nextDouble())).append(' ').append(random.nextInt(1, 1000))
                    .append('\n');
        }
        return text.toString().getBytes(StandardCharsets.US_ASCII);
    }
}
