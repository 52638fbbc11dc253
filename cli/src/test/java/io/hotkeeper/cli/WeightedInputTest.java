package io.hotkeeper.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code --weight-field}: estimates are the exact sums of the weights while the distinct keys fit the table. */
class WeightedInputTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    /** 40 keys, each with a distinct total weight spread over a few lines of random weights. */
    private static List<String> weightedLines(long[] totals, Random random) {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < totals.length; i++) {
            long left = totals[i];
            while (left > 0) {
                long w = Math.min(left, 1 + random.nextInt(5000));
                lines.add("k" + i + "\t" + w);
                left -= w;
            }
        }
        Collections.shuffle(lines, random);
        return lines;
    }

    private static long[] totals() {
        long[] totals = new long[40];
        for (int i = 0; i < totals.length; i++) {
            totals[i] = 1_000_000L - 17_000L * i; // distinct, descending with i
        }
        return totals;
    }

    private static List<String> expected(long[] totals) {
        List<String> rows = new ArrayList<>();
        for (int i = 0; i < totals.length; i++) {
            rows.add((i + 1) + "\tk" + i + "\t" + totals[i] + "\t0");
        }
        return rows;
    }

    @Test
    void weightedTopKIsTheExactWeightedSumsFromFilesAndStdinAtAnyThreads() throws Exception {
        long[] totals = totals();
        List<String> lines = weightedLines(totals, new Random(1));
        Path file = Inputs.write(dir, "bytes.tsv", lines);
        byte[] data = Files.readAllBytes(file);
        for (String threads : new String[] {"1", "2"}) {
            Cli.Result r = Cli.run("top", "--format", "tsv", "--field", "1", "--weight-field", "2", "--min-count", "1",
                    "--threads", threads, file.toString());
            assertEquals(0, r.exit(), r.err());
            assertEquals(expected(totals), r.lines());
            assertEquals(expected(totals), Cli.run(data, "top", "--format", "tsv", "--field", "1", "--weight-field",
                    "2", "--min-count", "1", "--threads", threads).lines());
        }
    }

    @Test
    void awkStyleColumnsWithTheWeightBeforeTheKey() throws Exception {
        // "  1234  /index.html": an aligned weight column first, like du or uniq -c.
        Path file = Inputs.write(dir, "du.txt", List.of("   10  /a", " 2000  /b", "    5  /a", "   70  /c"));
        assertEquals(List.of("1\t/b\t2000\t0", "2\t/c\t70\t0", "3\t/a\t15\t0"),
                Cli.run("top", "--format", "tsv", "--field", "2", "--weight-field", "1", "-d", " ", "--min-count", "1",
                        file.toString()).lines());
    }

    @Test
    void malformedWeightsAreSkippedCountedAndTheFirstIsLocated() throws Exception {
        List<String> lines = new ArrayList<>(List.of("a\t5", "b\t7", "a\t3"));
        lines.add("a\tlots"); // line 4: the first bad weight
        lines.add("b\t-2");
        lines.add("b");       // no weight field
        lines.add("a\t0");    // zero: adds nothing, skipped, not malformed
        lines.add("a\t1.5");
        Path file = Inputs.write(dir, "mixed.tsv", lines);
        byte[] data = Files.readAllBytes(file);
        for (Cli.Result r : List.of(
                Cli.run("top", "--format", "tsv", "--field", "1", "--weight-field", "2", "--min-count", "1", "--stats",
                        file.toString()),
                Cli.run(data, "top", "--format", "tsv", "--field", "1", "--weight-field", "2", "--min-count", "1",
                        "--stats"))) {
            assertEquals(0, r.exit(), r.err());
            assertEquals(List.of("1\ta\t8\t0", "2\tb\t7\t0"), r.lines());
            JsonNode stats = JSON.readTree(r.stats());
            assertEquals(4, stats.path("skipped").path("badWeight").asLong(), r.err());
            assertEquals(1, stats.path("skipped").path("zeroWeight").asLong(), r.err());
            assertEquals(3, stats.path("keys").asLong(), r.err());
            assertEquals(8, stats.path("lines").asLong(), r.err());
            assertEquals(4, stats.path("firstBadWeight").path("line").asLong(), r.err());
        }
    }

    /** Runs {@code top} on {@code file} and on its bytes as standard input, with one and two threads. */
    private static List<Cli.Result> everyPath(Path file, String... args) throws Exception {
        byte[] data = Files.readAllBytes(file);
        List<Cli.Result> results = new ArrayList<>();
        for (String threads : new String[] {"1", "2"}) {
            List<String> withThreads = new ArrayList<>(List.of("top", "--threads", threads));
            withThreads.addAll(List.of(args));
            results.add(Cli.run(data, withThreads.toArray(String[]::new)));
            withThreads.add(file.toString());
            results.add(Cli.run(withThreads.toArray(String[]::new)));
        }
        return results;
    }

    @Test
    void aWeightAboveWhatASlotCountsExitsTwoNamingItsLineAndSavesNothing() throws Exception {
        for (String weight : new String[] {"9223372036854775807", "99999999999999999999", "274877906944"}) {
            List<String> lines = new ArrayList<>();
            for (int i = 0; i < 100_000; i++) {
                lines.add("k" + (i % 5) + "\t3");
            }
            lines.add(70_000, "a\t" + weight); // line 70,001
            Path file = Inputs.write(dir, "heavy.tsv", lines);
            Path snap = dir.resolve("o.snap");
            for (Cli.Result r : everyPath(file, "--field", "1", "--weight-field", "2", "--save", snap.toString())) {
                assertEquals(2, r.exit(), r.err());
                assertEquals("", r.out());
                assertTrue(r.err().matches("hotkeeper: (-|\\S+heavy\\.tsv): line 70001: weight " + weight + " is more "
                        + "than the sketch counts \\(at most 274877906943 a line, 2\\^38-1\\); split it over several "
                        + "lines or scale the weights down \\(--weight-field\\)\n"), r.err());
                assertTrue(Files.notExists(snap));
            }
        }
    }

    @Test
    void theLargestCountableWeightIsCountedAndSaved() throws Exception {
        Path file = Inputs.write(dir, "max.tsv", List.of("a\t274877906943", "b\t1"));
        Path snap = dir.resolve("o.snap");
        for (Cli.Result r : everyPath(file, "--format", "tsv", "--field", "1", "--weight-field", "2", "--min-count",
                "1", "--save", snap.toString())) {
            assertEquals(0, r.exit(), r.err());
            assertEquals(List.of("1\ta\t274877906943\t0", "2\tb\t1\t0"), r.lines());
            assertEquals(List.of("1\ta\t274877906943\t0", "2\tb\t1\t0"),
                    Cli.run("show", "--format", "tsv", snap.toString()).lines());
            Cli.Result merged = Cli.run("merge", "--format", "tsv", snap.toString(), snap.toString());
            assertEquals(0, merged.exit(), merged.err());
            // Two slots of 2^38-1 merged: the count saturates there (docs/cli.md, "Weights").
            assertEquals("1\ta\t274877906943\t0", merged.lines().getFirst());
        }
    }

    @Test
    void aKeysWeightsSaturateAtTheLargestCount() throws Exception {
        Path file = Inputs.write(dir, "sum.tsv", List.of("a\t274877906943", "a\t1000", "b\t2"));
        for (Cli.Result r : everyPath(file, "--format", "tsv", "--field", "1", "--weight-field", "2", "--min-count",
                "1")) {
            assertEquals(0, r.exit(), r.err());
            assertEquals(List.of("1\ta\t274877906943\t0", "2\tb\t2\t0"), r.lines());
            assertTrue(r.err().contains("274877906943 is the largest count"), r.err());
        }
    }

    @Test
    void theFirstBadWeightIsFoundAcrossThreadsAndLongFiles() throws Exception {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 200_000; i++) {
            lines.add("key" + (i % 7) + "\t" + (i % 3 + 1));
        }
        lines.set(150_000, "key1\tx");
        lines.set(180_000, "key1\ty");
        Path file = Inputs.write(dir, "long.tsv", lines);
        byte[] data = Files.readAllBytes(file);
        for (Cli.Result r : List.of(
                Cli.run("top", "--field", "1", "--weight-field", "2", "--stats", "--threads", "2", file.toString()),
                Cli.run(data, "top", "--field", "1", "--weight-field", "2", "--stats", "--threads", "2"))) {
            JsonNode stats = JSON.readTree(r.stats());
            assertEquals(2, stats.path("skipped").path("badWeight").asLong(), r.err());
            assertEquals(150_001, stats.path("firstBadWeight").path("line").asLong(), r.err());
        }
    }

    @Test
    void aWeightFieldThatMatchesNoLineIsReportedOnStderr() {
        Cli.Result r = Cli.run("a x\nb y\n".getBytes(StandardCharsets.UTF_8), "top", "--format", "tsv", "--field", "1",
                "--weight-field", "2", "-d", " ");
        assertEquals(0, r.exit());
        assertEquals("", r.out());
        assertEquals("hotkeeper: every line was skipped (2 bad weight; check --field, --weight-field and "
                + "--delimiter)\n", r.err());
    }

    @Test
    void badWeightOptionsExitTwo() {
        for (String[] args : new String[][] {
                {"top", "--weight-field", "two", "--field", "1"},
                {"top", "--weight-field", "0", "--field", "1"},
                {"top", "--weight-field", "2"}}) {
            Cli.Result r = Cli.run("a\t1\n".getBytes(StandardCharsets.UTF_8), args);
            assertEquals(2, r.exit(), String.join(" ", args));
            assertTrue(r.err().startsWith("hotkeeper top: Invalid value for option '--weight-field'"), r.err());
            assertEquals("", r.out());
        }
    }
}
