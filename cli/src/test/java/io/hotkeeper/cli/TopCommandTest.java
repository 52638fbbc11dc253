package io.hotkeeper.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code hotkeeper top} run in-process: every option, every output format, every user error. */
class TopCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Counts of key-0 .. key-11: all distinct, all >= the default --min-count 8. */
    private static final long[] COUNTS = {500, 300, 250, 120, 90, 64, 40, 33, 21, 13, 9, 8};

    @TempDir
    Path dir;

    private static List<String> expectedTsv(long[] counts, int k) {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < Math.min(k, counts.length); i++) {
            lines.add((i + 1) + "\tkey-" + i + "\t" + counts[i] + "\t0");
        }
        return lines;
    }

    @Test
    void tsvFromAFileGivesExactCountsForEveryLine() throws Exception {
        Path file = Inputs.write(dir, "keys.txt", Inputs.shuffled(COUNTS, 1));
        Cli.Result r = Cli.run("top", "--format", "tsv", "--seed", "1", file.toString());
        assertEquals(0, r.exit(), r.err());
        assertEquals(expectedTsv(COUNTS, 100), r.lines());
        assertEquals("", r.err());

        Cli.Result top3 = Cli.run("top", "--format=tsv", "--k", "3", file.toString());
        assertEquals(expectedTsv(COUNTS, 3), top3.lines());
    }

    @Test
    void stdinAndDashReadTheSameAsAFile() throws Exception {
        byte[] data = (String.join("\r\n", Inputs.shuffled(COUNTS, 2)) + "\r\n\r\n\n").getBytes(StandardCharsets.UTF_8);
        Cli.Result none = Cli.run(data, "top", "--format", "tsv");
        Cli.Result dash = Cli.run(data, "top", "--format", "tsv", "--threads", "3", "-");
        assertEquals(expectedTsv(COUNTS, 100), none.lines());
        assertEquals(expectedTsv(COUNTS, 100), dash.lines());
    }

    @Test
    void minCountHidesLighterKeys() throws Exception {
        Path file = Inputs.write(dir, "light.txt", List.of("a", "b", "a", "c", "a", "b"));
        assertEquals(List.of("1\ta\t3\t0", "2\tb\t2\t0", "3\tc\t1\t0"),
                Cli.run("top", "--format", "tsv", file.toString()).lines());
        assertEquals(List.of("1\ta\t3\t0"),
                Cli.run("top", "--format", "tsv", "--min-count", "3", file.toString()).lines());
    }

    @Test
    void fieldOfCsvAndTsvAndSpaceSeparatedLines() throws Exception {
        List<String> csv = new ArrayList<>();
        List<String> tsv = new ArrayList<>();
        List<String> log = new ArrayList<>();
        for (String key : Inputs.shuffled(COUNTS, 3)) {
            csv.add("2025-01-01," + key + ",200");
            tsv.add("2025-01-01\t" + key);
            log.add("10.0.0.1 GET " + key + " 200");
        }
        csv.add("short-line");
        csv.add("");
        tsv.add("no-tab-here");
        Path csvFile = Inputs.write(dir, "a.csv", csv);
        Path tsvFile = Inputs.write(dir, "a.tsv", tsv);
        Path logFile = Inputs.write(dir, "a.log", log);

        Cli.Result c = Cli.run("top", "--format", "tsv", "--field", "2", "--delimiter", ",", "--stats",
                csvFile.toString());
        assertEquals(expectedTsv(COUNTS, 100), c.lines());
        JsonNode stats = JSON.readTree(c.stats());
        assertEquals(1, stats.path("skipped").path("missingField").asLong());
        assertEquals(1, stats.path("skipped").path("empty").asLong());
        assertEquals(2, stats.path("skipped").path("total").asLong());
        assertEquals(stats.path("keys").asLong() + 2, stats.path("lines").asLong());

        assertEquals(expectedTsv(COUNTS, 100),
                Cli.run("top", "--format", "tsv", "--field", "2", tsvFile.toString()).lines());
        assertEquals(expectedTsv(COUNTS, 100),
                Cli.run("top", "--format", "tsv", "--field", "2", "-d", "\\t", tsvFile.toString()).lines());
        assertEquals(expectedTsv(COUNTS, 100),
                Cli.run("top", "--format", "tsv", "--field", "3", "--delimiter", " ", logFile.toString()).lines());
        assertEquals(expectedTsv(COUNTS, 100),
                Cli.run("top", "--format", "tsv", "--field", "3", "--delimiter", "space", "--threads", "2",
                        logFile.toString()).lines());
    }

    @Test
    void jsonIsAnArrayOfRankKeyEstimateTruncated() throws Exception {
        Path file = Inputs.write(dir, "keys.txt", Inputs.shuffled(COUNTS, 4));
        Cli.Result r = Cli.run("top", "--format", "json", "--k", "5", file.toString());
        assertEquals(0, r.exit(), r.err());
        JsonNode rows = JSON.readTree(r.out());
        assertTrue(rows.isArray());
        assertEquals(5, rows.size());
        for (int i = 0; i < 5; i++) {
            JsonNode row = rows.get(i);
            assertEquals(List.of("rank", "key", "estimate", "truncated"), fieldNames(row));
            assertEquals(i + 1, row.get("rank").asInt());
            assertEquals("key-" + i, row.get("key").asText());
            assertEquals(COUNTS[i], row.get("estimate").asLong());
            assertFalse(row.get("truncated").asBoolean());
        }
        assertEquals("[ ]", Cli.run("top", "--format", "json", Files.createFile(dir.resolve("e")).toString())
                .out().strip());
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }

    @Test
    void tableIsAlignedWithAHeader() throws Exception {
        Path file = Inputs.write(dir, "keys.txt", Inputs.shuffled(COUNTS, 5));
        Cli.Result r = Cli.run("top", "--k", "3", file.toString());
        assertEquals(List.of("rank  estimate  key", "   1       500  key-0", "   2       300  key-1",
                "   3       250  key-2"), r.lines());
        Cli.Result empty = Cli.run(new byte[0], "top");
        assertEquals(0, empty.exit());
        assertEquals(List.of("rank  estimate  key", "(no heavy hitters)"), empty.lines());
    }

    @Test
    void aNumaNodeThatDoesNotExistIsAUsageErrorNamingTheNodesThereAre() throws Exception {
        Path file = Inputs.write(dir, "keys.txt", Inputs.shuffled(COUNTS, 6));
        Cli.Result r = Cli.run("top", "--numa", "node:7", file.toString());
        assertEquals(2, r.exit(), r.err());
        assertTrue(r.err().contains("node=7: available nodes are"), r.err());
        Cli.Result ok = Cli.run("top", "--numa", "local", "--stats", "--min-count", "1", file.toString());
        assertEquals(0, ok.exit(), ok.err());
        Cli.Result bad = Cli.run("top", "--numa", "sideways", file.toString());
        assertEquals(2, bad.exit(), bad.err());
    }

    @Test
    void statsIsOneJsonObjectOnStderr() throws Exception {
        Path file = Inputs.write(dir, "keys.txt", Inputs.shuffled(COUNTS, 6));
        Cli.Result r = Cli.run("top", "--format", "tsv", "--stats", "--salt", "sharded", "--memory", "256KiB",
                "--threads", "2", file.toString());
        assertEquals(0, r.exit(), r.err());
        assertEquals(1, r.err().strip().lines().count());
        JsonNode s = JSON.readTree(r.stats());
        long total = java.util.Arrays.stream(COUNTS).sum();
        assertEquals(total, s.get("keys").asLong());
        assertEquals(total, s.get("lines").asLong());
        assertEquals(Files.size(file), s.get("bytes").asLong());
        assertEquals(0, s.get("truncatedKeys").asLong());
        // 256 KiB in all, two ingest threads: a table per thread, each with an equal share; in each share a key
        // shard (entries sized by their keys), and the table (any bucket count) and its links take the rest:
        // 894 buckets per table, 2 x 57,216 bytes.
        assertEquals(2, s.get("tables").asInt());
        assertEquals(114_432, s.get("tableBytes").asLong());
        assertEquals(262144, s.get("memoryBudget").asLong());
        assertTrue(s.get("nativeBytes").asLong() <= 262144, r.err());
        assertTrue(s.get("shardBytes").asLong() > 0);
        assertEquals("sharded", s.get("saltMode").asText());
        // The file's head sized the shards: its 12 keys, key-0 .. key-11, 62 bytes in all.
        assertEquals(12, s.get("keyLengthSample").get("keys").asInt());
        assertEquals(62 / 12.0, s.get("keyLengthSample").get("meanBytes").asDouble(), 1e-9);
        assertEquals("default", s.get("placement").get("requested").asText());
        assertEquals("default", s.get("placement").get("effective").asText());
        assertEquals(2, s.get("threads").asInt());
        assertEquals(12, s.get("reported").asInt());
        assertTrue(s.get("elapsedSeconds").asDouble() > 0);
        assertTrue(s.get("keysPerSecond").asDouble() > 0);
        for (String f : List.of("inputs", "skipped", "mebibytesPerSecond", "k", "maxKeyBytes", "minCount",
                "saltShards")) {
            assertTrue(s.has(f), f);
        }
        // minCount is the setting (1 by default); promotionFloor the floor at the end, never below it.
        assertEquals(1, s.get("minCount").asLong());
        assertTrue(s.get("promotionFloor").asLong() >= 1, s.toString());
        // Every native byte by part: the parts add up to nativeBytes, and counterShare is the tables' share.
        JsonNode parts = s.get("nativeBytesByPart");
        long sum = 0;
        for (var e : parts.properties()) {
            assertTrue(e.getValue().asLong() > 0, e.toString());
            sum += e.getValue().asLong();
        }
        assertEquals(s.get("nativeBytes").asLong(), sum, parts.toString());
        assertEquals(s.get("tableBytes").asLong(), parts.get("table").asLong());
        assertTrue(parts.has("links") && parts.has("shard") && parts.has("salt"), parts.toString());
        assertEquals((double) parts.get("table").asLong() / sum, s.get("counterShare").asDouble(), 1e-12);
        JsonNode phases = s.get("phases");
        for (String f : List.of("jvm", "options", "setup", "map", "ingest", "output")) {
            assertTrue(phases.get(f).isNumber(), f + " in " + phases);
            assertTrue(phases.get(f).asDouble() >= 0, f + " in " + phases);
        }
        assertTrue(phases.get("map").asDouble() + phases.get("ingest").asDouble()
                <= s.get("elapsedSeconds").asDouble() + 1e-6, phases.toString());
    }

    @Test
    void threadsGetATableEachUnlessSharedTableIsAsked() throws Exception {
        Path file = Inputs.write(dir, "keys.txt", Inputs.shuffled(COUNTS, 6));
        long total = java.util.Arrays.stream(COUNTS).sum();
        // threads -> tables: one per thread, rounded down to a power of two
        int[][] cases = {{1, 1}, {2, 2}, {3, 2}, {4, 4}};
        List<String> first = null;
        for (int[] c : cases) {
            Cli.Result r = Cli.run("top", "--format", "tsv", "--stats", "--threads", Integer.toString(c[0]),
                    file.toString());
            assertEquals(0, r.exit(), r.err());
            JsonNode s = JSON.readTree(r.stats());
            assertEquals(c[1], s.get("tables").asInt(), r.err());
            assertEquals(c[1] == 1 ? "shared" : "per_table", s.get("saltMode").asText(), r.err());
            // Every table has one writer (one thread, or a table per thread): nothing to combine.
            assertEquals("off", s.get("combining").asText(), r.err());
            // A shard per writer of a table: one, or two where 3 threads write 2 tables.
            assertEquals((c[0] + c[1] - 1) / c[1], s.get("shardLimit").asInt(), r.err());
            assertTrue(s.get("nativeBytes").asLong() <= s.get("memoryBudget").asLong(), r.err());
            assertEquals(total, s.get("keys").asLong());
            if (first == null) {
                first = r.lines();
            }
            assertEquals(first, r.lines(), "--threads " + c[0]); // the distinct keys fit: exact at any count
        }
        Cli.Result shared = Cli.run("top", "--format", "tsv", "--stats", "--threads", "2", "--shared-table",
                file.toString());
        JsonNode s = JSON.readTree(shared.stats());
        assertEquals(1, s.get("tables").asInt(), shared.err());
        // Two threads write one table: each draws from a salt counter of its own.
        assertEquals("per_worker", s.get("saltMode").asText(), shared.err());
        assertEquals("auto", s.get("combining").asText(), shared.err()); // two threads may write one table
        assertEquals(2, s.get("shardLimit").asInt(), shared.err()); // a shard per writer, docs/shards.md
        assertEquals(first, shared.lines());
    }

    /**
     * Issue #28: below 32 KiB a table, the threads share one table (one shared table was as accurate or more there,
     * TopCommand.MIN_WORKER_TABLE_BYTES), silently; two worker tables whose minimum is above --memory (2 x 65,408
     * bytes at k = 1000) fall back to one shared table, said once on stderr, instead of refusing; a budget below
     * one table's minimum is still refused, naming one table's minimum.
     */
    @Test
    void workerTablesThatDoNotFitTheBudgetFallBackToOneSharedTable() throws Exception {
        Path file = Inputs.write(dir, "keys.txt", Inputs.shuffled(COUNTS, 6));
        List<String> one = Cli.run("top", "--format", "tsv", "--threads", "1", "--memory", "32KiB",
                file.toString()).lines();
        Cli.Result small = Cli.run("top", "--format", "tsv", "--stats", "--threads", "2", "--memory", "32KiB",
                file.toString());
        assertEquals(0, small.exit(), small.err());
        assertEquals(1, small.err().strip().lines().count(), "only the stats: " + small.err());
        assertEquals(1, JSON.readTree(small.stats()).get("tables").asInt(), small.err());
        assertEquals(one, small.lines());
        Cli.Result big = Cli.run("top", "--format", "tsv", "--stats", "--threads", "2", "--memory", "64KiB",
                file.toString());
        assertEquals(2, JSON.readTree(big.stats()).get("tables").asInt(), big.err());

        Cli.Result r = Cli.run("top", "--format", "tsv", "--stats", "--threads", "2", "--memory", "64KiB",
                "--k", "1000", file.toString());
        assertEquals(0, r.exit(), r.err());
        assertEquals("hotkeeper: --memory 64KiB is below the minimum of 2 worker tables, 131072 bytes: the 2 threads "
                + "share one table", r.err().lines().findFirst().orElseThrow());
        JsonNode s = JSON.readTree(r.stats());
        assertEquals(1, s.get("tables").asInt(), r.err());
        assertEquals(65536, s.get("memoryBudget").asLong());
        assertTrue(s.get("nativeBytes").asLong() <= 65536, r.err());
        assertEquals(one, r.lines());
        Cli.Result tooSmall = Cli.run("top", "--threads", "2", "--memory", "16KiB", "--k", "200", file.toString());
        assertEquals(2, tooSmall.exit(), tooSmall.err());
        assertTrue(tooSmall.err().contains("the minimum is 22016 bytes (1 x"), tooSmall.err());
    }

    /**
     * The key shards are sized for the heaviest keys of the first file's head, so at one --memory a file of long
     * lines gets a smaller table than a file of short words, and each lists its whole top 100; --key-bytes fixes the
     * assumption, so both get tables of one size (which merge slot by slot).
     */
    @Test
    void keyBytesGivesInputsOfDifferentKeyLengthsTablesOfOneSize() throws Exception {
        List<String> words = new ArrayList<>();
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            for (int n = 0; n <= 200 - i; n++) {
                words.add("w" + i);
                lines.add("GET /a/long/path/of/some/service/endpoint/number/" + i + "/with/a/tail?q=1");
            }
        }
        Path shortKeys = Files.write(dir.resolve("words.txt"), words);
        Path longKeys = Files.write(dir.resolve("lines.txt"), lines);
        long[] sampled = new long[2];
        long[] fixed = new long[2];
        String[] sampledSaves = new String[2];
        String[] fixedSaves = new String[2];
        for (int f = 0; f < 2; f++) {
            String file = (f == 0 ? shortKeys : longKeys).toString();
            sampledSaves[f] = dir.resolve("sampled" + f + ".hks").toString();
            fixedSaves[f] = dir.resolve("fixed" + f + ".hks").toString();
            Cli.Result a = Cli.run("top", "--format", "tsv", "--stats", "--memory", "32KiB", "--seed", "3",
                    "--save", sampledSaves[f], file);
            assertEquals(0, a.exit(), a.err());
            sampled[f] = JSON.readTree(a.stats()).get("buckets").asLong();
            assertEquals(100, a.lines().size(), "the top 100 of 200 keys, long or short");
            Cli.Result b = Cli.run("top", "--format", "tsv", "--stats", "--memory", "32KiB", "--seed", "3",
                    "--key-bytes", "24", "--save", fixedSaves[f], file);
            assertEquals(0, b.exit(), b.err());
            JsonNode s = JSON.readTree(b.stats());
            fixed[f] = s.get("buckets").asLong();
            assertEquals(1, s.get("keyLengthSample").get("keys").asInt());
            assertEquals(24.0, s.get("keyLengthSample").get("meanBytes").asDouble());
        }
        assertTrue(sampled[1] < sampled[0], "long lines ask for larger shards: " + java.util.Arrays.toString(sampled));
        assertEquals(fixed[0], fixed[1]);
        // Tables of one size merge slot by slot (the merged snapshot keeps a table); of two sizes, by their keys.
        for (boolean withKeyBytes : new boolean[] {true, false}) {
            String[] saves = withKeyBytes ? fixedSaves : sampledSaves;
            String merged = dir.resolve("merged-" + withKeyBytes + ".hks").toString();
            Cli.Result m = Cli.run("merge", "--format", "tsv", "--save", merged, saves[0], saves[1]);
            assertEquals(0, m.exit(), m.err());
            JsonNode header = JSON.readTree(Cli.run("show", "--format", "json", merged).out()).get("header");
            assertEquals(withKeyBytes, header.get("hasTable").asBoolean(), "--key-bytes given: " + withKeyBytes);
        }
        Cli.Result bad = Cli.run("top", "--key-bytes", "0", shortKeys.toString());
        assertEquals(2, bad.exit(), bad.err());
        assertTrue(bad.err().contains("Invalid value for option '--key-bytes': 0: must be in 1..1048576"), bad.err());
    }

    /**
     * Keys that arrive in runs: 1,000 keys of 100 lines each fill a 16 KiB table, then the 100 heaviest keys arrive,
     * 1,000 lines each. Under the default base (1.02) an occupant of count 100 loses its slot to a newcomer's run of
     * about 360 challenges; under the HeavyKeeper paper's 1.08 it takes about 30,000, so none of the late keys gets
     * in (docs/decisions/decay-base.md). {@code --stats} names the base in use, and a base outside [1.01, 1024] is
     * refused naming the option.
     */
    @Test
    void decayBaseLetsKeysWhoseRunHasEndedGiveWay() throws Exception {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            for (int n = 0; n < 100; n++) {
                lines.add("early" + i);
            }
        }
        for (int i = 0; i < 100; i++) {
            for (int n = 0; n < 1000; n++) {
                lines.add("late" + i);
            }
        }
        Path file = Files.write(dir.resolve("runs.txt"), lines);
        double engineDefault;
        try (io.hotkeeper.engine.Hotkeeper h = io.hotkeeper.engine.Hotkeeper.builder().memoryBytes(4096).build()) {
            engineDefault = h.decayBase();
        }
        Cli.Result byDefault = Cli.run("top", "--format", "tsv", "--stats", "--memory", "16KiB", file.toString());
        assertEquals(0, byDefault.exit(), byDefault.err());
        assertEquals(engineDefault, JSON.readTree(byDefault.stats()).get("decayBase").asDouble());
        assertEquals(100, byDefault.lines().stream().filter(l -> l.contains("\tlate")).count(), byDefault.out());
        Cli.Result paper = Cli.run("top", "--format", "tsv", "--stats", "--memory", "16KiB", "--decay-base", "1.08",
                file.toString());
        assertEquals(0, paper.exit(), paper.err());
        assertEquals(1.08, JSON.readTree(paper.stats()).get("decayBase").asDouble());
        long late = paper.lines().stream().filter(l -> l.contains("\tlate")).count();
        assertTrue(late < 50, "1.08 keeps the early keys' slots: " + late + " late keys listed");
        Cli.Result bad = Cli.run("top", "--decay-base", "1.001", file.toString());
        assertEquals(2, bad.exit(), bad.err());
        assertTrue(bad.err().contains("Invalid value for option '--decay-base': 1.001: must be >= 1.01 and <= 1024.0"),
                bad.err());
    }

    /** {@code --live} counts its total in the scanners: the sketch records no stats, so the budget is whole. */
    @Test
    void liveTakesNothingFromTheBudget() throws Exception {
        Path file = Files.write(dir.resolve("live.txt"), List.of("a", "b", "a"));
        Cli.Result r = Cli.run("top", "--live", "--stats", "--format", "tsv", "--memory", "32KiB", file.toString());
        assertEquals(0, r.exit(), r.err());
        assertFalse(JSON.readTree(r.stats()).get("nativeBytesByPart").has("stats"), r.stats());
        assertTrue(r.lines().contains("1\ta\t2\t0"), r.out());
    }

    @Test
    void longKeysAreCountedWholeAndReportedTruncated() throws Exception {
        String longA = "A".repeat(40) + "-first";
        String longB = "A".repeat(40) + "-second"; // same 16-byte prefix, different key
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            lines.add(longA);
        }
        for (int i = 0; i < 20; i++) {
            lines.add(longB);
        }
        Path file = Inputs.write(dir, "long.txt", lines);
        Cli.Result r = Cli.run("top", "--format", "json", "--max-key-bytes", "16", "--stats", file.toString());
        JsonNode rows = JSON.readTree(r.out());
        assertEquals(2, rows.size());
        assertEquals("A".repeat(16), rows.get(0).get("key").asText());
        assertEquals(30, rows.get(0).get("estimate").asLong());
        assertTrue(rows.get(0).get("truncated").asBoolean());
        assertEquals(20, rows.get(1).get("estimate").asLong());
        assertEquals(50, JSON.readTree(r.stats()).get("truncatedKeys").asLong());

        Cli.Result table = Cli.run("top", "--max-key-bytes", "16", file.toString());
        assertTrue(table.out().contains("(truncated)"), table.out());
    }

    @Test
    void linesOverMaxLineBytesAreSkippedFromFilesAndStdin() throws Exception {
        byte[] huge = "x".repeat(3 * Ingest.BLOCK + 17).getBytes(StandardCharsets.US_ASCII);
        ByteArrayOutputStream data = new ByteArrayOutputStream();
        for (int i = 0; i < 10; i++) {
            data.writeBytes("ok\n".getBytes(StandardCharsets.US_ASCII));
        }
        data.writeBytes(huge);
        data.write('\n');
        data.writeBytes("ok\nshort-enough-line\n".repeat(9).getBytes(StandardCharsets.US_ASCII));
        data.writeBytes(huge); // too long, last, no LF
        byte[] input = data.toByteArray();
        Path file = Files.write(dir.resolve("huge.txt"), input);

        for (Cli.Result r : List.of(Cli.run(input, "top", "--format", "tsv", "--stats"),
                Cli.run("top", "--format", "tsv", "--stats", "--threads", "2", file.toString()))) {
            assertEquals(List.of("1\tok\t19\t0", "2\tshort-enough-line\t9\t0"), r.lines());
            JsonNode s = JSON.readTree(r.stats());
            assertEquals(2, s.get("skipped").get("tooLong").asLong(), r.err());
            assertEquals(28, s.get("keys").asLong());
            assertEquals(input.length, s.get("bytes").asLong());
        }
        // Raise the limit: the long lines are keys now (stdin grows its buffer to hold them).
        Cli.Result big = Cli.run(input, "top", "--format", "tsv", "--stats", "--max-line-bytes", "4MiB",
                "--min-count", "1");
        assertEquals(0, JSON.readTree(big.stats()).get("skipped").get("tooLong").asLong());
        assertEquals(30, JSON.readTree(big.stats()).get("keys").asLong());
        assertEquals(2, JSON.readTree(big.stats()).get("truncatedKeys").asLong());
        // A small limit applies to ordinary lines too.
        Cli.Result small = Cli.run(input, "top", "--format", "tsv", "--stats", "--max-line-bytes", "5");
        assertEquals(List.of("1\tok\t19\t0"), small.lines());
    }

    @Test
    void everyKindOfSkippedLineIsNamedOnStderrWithItsCountAndOption() throws Exception {
        List<String> lines = new ArrayList<>(List.of("a\t5", "x".repeat(40) + "\t1", "b", "c\tlots", "d\t0", "e\t0",
                "", "a\t2", "\t3"));
        for (int i = 0; i < 20_000; i++) {
            lines.add("k" + (i % 3) + "\t1");
        }
        lines.add(15_000, "too-long-too-long-too-long-too-long-too-long"); // line 15,001
        Path file = Inputs.write(dir, "mixed.tsv", lines);
        byte[] data = Files.readAllBytes(file);
        String[] args = {"top", "--format", "tsv", "--field", "1", "--weight-field", "2", "--max-line-bytes", "32"};
        for (String threads : new String[] {"1", "2"}) {
            for (String input : new String[] {"-", file.toString()}) {
                Cli.Result r = Cli.run(data, withArgs(args, "--threads", threads, input));
                assertEquals(0, r.exit(), r.err());
                assertEquals("1\tk0\t6667\t0", r.lines().getFirst());
                assertEquals("hotkeeper: skipped 2 lines longer than --max-line-bytes (32)\n"
                        + "hotkeeper: skipped 2 lines whose weight (--weight-field 2) is missing or not a whole number;"
                        + " the first: " + input + " line 3\n"
                        + "hotkeeper: skipped 2 lines of weight 0 (--weight-field 2)\n", r.err());
            }
        }
        Cli.Result fields = Cli.run("a,1\nb\nc,2\n".getBytes(StandardCharsets.UTF_8), "top", "--field", "2", "-d",
                ",", "--format", "tsv");
        assertEquals("hotkeeper: skipped 1 line with fewer than 2 fields (--field, --delimiter)\n", fields.err());
    }

    @Test
    void aFileOfOneLineTooLongSaysEveryLineWasSkipped() throws Exception {
        byte[] line = "y".repeat(3 * Ingest.BLOCK + 5).getBytes(StandardCharsets.US_ASCII);
        Path file = Files.write(dir.resolve("one-line.txt"), line);
        for (Cli.Result r : List.of(Cli.run(line, "top"), Cli.run("top", file.toString()),
                Cli.run("top", "--threads", "2", file.toString()))) {
            assertEquals(0, r.exit(), r.err());
            assertTrue(r.out().endsWith("\n(no heavy hitters)\n"), r.out());
            assertEquals("hotkeeper: every line was skipped (1 too long; check --max-line-bytes)\n", r.err());
        }
    }

    @Test
    void aSignalsPartialResultSaysWhichLinesWereSkippedSoFar() throws Exception {
        java.io.PipedOutputStream feed = new java.io.PipedOutputStream();
        java.io.PipedInputStream stdin = new java.io.PipedInputStream(feed, 1 << 16);
        ByteArrayOutputStream out = new ByteArrayOutputStream(); // synchronized: read here while the run writes
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        java.util.concurrent.atomic.AtomicInteger exit = new java.util.concurrent.atomic.AtomicInteger(-1);
        Interrupts interrupts = new Interrupts((code, now) -> exit.set(code)); // a signal that exits nothing
        // The run never sees the end of its input (a followed file, a pipe kept open): only a signal ends it. Its
        // thread is left parked, as the JVM's exit would have ended it.
        Thread.ofPlatform().daemon().start(() -> Main.execute(new String[] {"top", "--every", "100ms", "--format",
                "tsv", "--min-count", "1", "--max-line-bytes", "8", "-"}, () -> stdin, out, err,
                new Terminals(false, false), interrupts));
        feed.write(("x".repeat(100) + "\nok\n").getBytes(StandardCharsets.US_ASCII));
        feed.flush();
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
        while (!out.toString(StandardCharsets.UTF_8).contains("1\tok\t1\t0") && System.nanoTime() < deadline) {
            Thread.sleep(20); // the lines have been scanned once a block shows ok
        }
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("1\tok\t1\t0"), out.toString(StandardCharsets.UTF_8));
        interrupts.signalled("SIGTERM", 15);
        assertEquals(143, exit.get());
        assertEquals("hotkeeper: skipped 1 line longer than --max-line-bytes (8)\n"
                + "hotkeeper: interrupted by SIGTERM: the result above is partial\n",
                err.toString(StandardCharsets.UTF_8));
    }

    private static String[] withArgs(String[] args, String... more) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    @Test
    void binaryKeysAreEscaped() throws Exception {
        List<byte[]> lines = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        int rank = 0;
        for (int b = 0xFF; b >= 0; b--) {
            if (b == '\n') {
                continue;
            }
            byte[] key = {(byte) b, 'k'};
            for (int i = 0; i < 8 + b; i++) { // distinct counts: byte b appears 8 + b times
                lines.add(key);
            }
            String e = switch (b) {
                case '\t' -> "\\t";
                case '\r' -> "\\r";
                case '\\' -> "\\\\";
                default -> b >= 0x20 && b < 0x7F ? String.valueOf((char) b) : String.format("\\x%02X", b);
            };
            expected.add(++rank + "\t" + e + "k\t" + (8 + b) + "\t0");
        }
        java.util.Collections.shuffle(lines, new java.util.Random(9));
        Path file = Files.write(dir.resolve("binary.bin"), Inputs.bytes(lines.toArray(byte[][]::new)));
        Cli.Result r = Cli.run("top", "--format", "tsv", "--k", "1000", file.toString());
        assertEquals(0, r.exit(), r.err());
        assertEquals(expected, r.lines());
        assertEquals(expected, Cli.run(Files.readAllBytes(file), "top", "--format", "tsv", "--k", "1000").lines());
    }

    @Test
    void utf8KeysPassThroughAndTsvKeysUnescapeToTheInputBytes() throws Exception {
        Map<String, Integer> keys = Map.of("日本語", 30, "héllo wörld", 20, "a\\b", 10);
        List<String> lines = new ArrayList<>();
        keys.forEach((k, n) -> {
            for (int i = 0; i < n; i++) {
                lines.add(k);
            }
        });
        Path file = Inputs.write(dir, "utf8.txt", lines);
        Cli.Result r = Cli.run("top", "--format", "tsv", file.toString());
        assertEquals(List.of("1\t日本語\t30\t0", "2\théllo wörld\t20\t0", "3\ta\\\\b\t10\t0"), r.lines());
        assertEquals("a\\b", new String(KeyEscaper.unescape(r.lines().get(2).split("\t")[1]), StandardCharsets.UTF_8));
    }

    @Test
    void threadsGiveTheSameTopKOnASkewedFile() throws Exception {
        StringBuilder text = new StringBuilder();
        Map<String, Long> exact = Inputs.zipf(300_000, 20_000, 1.1, 11, text);
        Path file = Files.writeString(dir.resolve("zipf.txt"), text);
        List<String> one = Cli.run("top", "--format", "tsv", "--k", "20", file.toString()).lines();
        List<String> two = Cli.run("top", "--format", "tsv", "--k", "20", "--threads", "2", file.toString()).lines();
        List<String> four = Cli.run(text.toString().getBytes(StandardCharsets.UTF_8), "top", "--format", "tsv",
                "--k", "20", "--threads", "4").lines();
        assertEquals(20, one.size());
        assertEquals(one, two);
        assertEquals(one, four);
        for (String line : one) {
            String[] f = line.split("\t");
            assertEquals(exact.get(f[1]), Long.parseLong(f[2]), line);
        }
    }

    @Test
    void multipleFilesAddUp() throws Exception {
        Path a = Inputs.write(dir, "a.txt", Inputs.shuffled(new long[] {10, 20}, 1));
        Path b = Inputs.write(dir, "b.txt", Inputs.shuffled(new long[] {30, 5}, 2));
        byte[] stdin = "key-1\n".repeat(4).getBytes(StandardCharsets.US_ASCII);
        assertEquals(List.of("1\tkey-0\t40\t0", "2\tkey-1\t29\t0"),
                Cli.run(stdin, "top", "--format", "tsv", a.toString(), "-", b.toString()).lines());
    }

    @Test
    void emptyInputIsAnEmptyResult() throws Exception {
        Path empty = Files.createFile(dir.resolve("empty.txt"));
        Path blank = Files.writeString(dir.resolve("blank.txt"), "\n\r\n\n");
        for (Cli.Result r : List.of(Cli.run("top", "--format", "tsv", empty.toString()),
                Cli.run("top", "--format", "tsv", blank.toString()), Cli.run(new byte[0], "top", "--format", "tsv"))) {
            assertEquals(0, r.exit(), r.err());
            assertEquals("", r.out());
            assertEquals("", r.err());
        }
    }

    @Test
    void missingFileAndDirectoryExitTwoWithOneLine() throws Exception {
        Path ok = Inputs.write(dir, "ok.txt", List.of("a"));
        Path missing = dir.resolve("missing.txt");
        Cli.Result r = Cli.run("top", ok.toString(), missing.toString());
        assertEquals(2, r.exit());
        assertEquals("", r.out());
        assertEquals("hotkeeper: " + missing + ": no such file\n", r.err());

        Cli.Result d = Cli.run("top", dir.toString());
        assertEquals(2, d.exit());
        assertEquals("hotkeeper: " + dir + ": is a directory\n", d.err());
    }

    @Test
    void unreadableFileExitsTwo() throws Exception {
        Path secret = Inputs.write(dir, "secret.txt", List.of("a"));
        Files.setPosixFilePermissions(secret, java.util.Set.of());
        org.junit.jupiter.api.Assumptions.assumeFalse(Files.isReadable(secret), "running as root: can read anything");
        Cli.Result r = Cli.run("top", secret.toString());
        assertEquals(2, r.exit());
        assertEquals("hotkeeper: " + secret + ": permission denied\n", r.err());
    }

    @Test
    void badOptionsAndValuesExitTwoWithTheProblemAndAShortUsage() {
        String[][] cases = {
                {"Unknown option: '--bogus'", "top", "--bogus"},
                {"Invalid value for option '--k': 0: must be in 1..100000", "top", "--k", "0"},
                {"Invalid value for option '--k': 'many'", "top", "--k", "many"},
                {"Invalid value for option '--threads': 0", "top", "--threads", "0"},
                {"Invalid value for option '--memory': '12parsecs' is not a size", "top", "--memory", "12parsecs"},
                {"Invalid value for option '--memory': 5GiB: must be 16KiB..4GiB", "top", "--memory", "5GiB"},
                {"Invalid value for option '--memory': memory=16384: too small for k=200 keys of up to 256 bytes; "
                        + "the minimum is 22016 bytes", "top", "--memory", "16KiB", "--k", "200"},
                {"Invalid value for option '--max-key-bytes': 0", "top", "--max-key-bytes", "0"},
                {"Invalid value for option '--min-count': 0", "top", "--min-count", "0"},
                {"Invalid value for option '--decay-base': NaN: must be >= 1.01 and <= 1024.0", "top", "--decay-base",
                        "NaN"},
                {"Invalid value for option '--field': 0: must be >= 1", "top", "--field", "0"},
                {"Invalid value for option '--delimiter': 'ab' is not a delimiter", "top", "--delimiter", "ab"},
                {"Invalid value for option '--salt': 'both' is not a salt mode", "top", "--salt", "both"},
                {"Invalid value for option '--format'", "top", "--format", "xml"},
                {"Missing required parameter for option '--k'", "top", "--k"},
                {"Unmatched argument at index 0: 'frobnicate'", "frobnicate"},
                {"Unknown option: '--bogus'", "demo", "--bogus"},
        };
        for (String[] c : cases) {
            String[] args = java.util.Arrays.copyOfRange(c, 1, c.length);
            Cli.Result r = Cli.run(args);
            assertEquals(2, r.exit(), String.join(" ", args));
            assertEquals("", r.out(), String.join(" ", args));
            assertTrue(r.err().startsWith("hotkeeper"), r.err());
            assertTrue(r.err().contains(c[0]), r.err());
            assertTrue(r.err().contains("Usage: hotkeeper"), r.err());
            assertTrue(r.err().contains("--help' for more information."), r.err());
            assertFalse(r.err().contains("\tat "), r.err());
            assertTrue(r.err().lines().count() <= 8, r.err());
        }
    }

    @Test
    void helpAndVersionExitZero() {
        Cli.Result help = Cli.run("top", "--help");
        assertEquals(0, help.exit());
        assertTrue(help.out().contains("--field=N"), help.out());
        assertTrue(help.out().contains("rank<TAB>key<TAB>estimate"), help.out());
        assertEquals(0, Cli.run("--version").exit());
        assertTrue(Cli.run("--help").out().contains("top"));
    }

    @Test
    void progressBarOnATerminalForLargeInputOnly() throws Exception {
        Path large = dir.resolve("large.bin");
        try (var f = new java.io.RandomAccessFile(large.toFile(), "rw")) {
            f.setLength(TopCommand.PROGRESS_THRESHOLD + 1); // sparse: one 64 MiB line of NUL bytes
        }
        Path small = Inputs.write(dir, "small.txt", Inputs.shuffled(COUNTS, 8));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(0, Main.execute(new String[] {"top", "--format", "tsv", large.toString()},
                () -> new java.io.ByteArrayInputStream(new byte[0]), out, err, true));
        String stderr = err.toString(StandardCharsets.UTF_8);
        String skipped = "hotkeeper: every line was skipped (1 too long; check --max-line-bytes)\n";
        assertTrue(stderr.endsWith("\r" + skipped), stderr); // the bar is cleared before the line
        String bar = stderr.substring(0, stderr.length() - skipped.length());
        assertTrue(bar.startsWith("\r[") && bar.contains("% ") && bar.contains("/64 MiB"), bar);
        assertEquals("", out.toString(StandardCharsets.UTF_8));

        err.reset();
        assertEquals(0, Main.execute(new String[] {"top", "--format", "tsv", small.toString()},
                () -> new java.io.ByteArrayInputStream(new byte[0]), out, err, true));
        assertEquals("", err.toString(StandardCharsets.UTF_8)); // small input: silent
        err.reset();
        assertEquals(0, Main.execute(new String[] {"top", "--format", "tsv", large.toString()},
                () -> new java.io.ByteArrayInputStream(new byte[0]), out, err, false));
        assertEquals(skipped, err.toString(StandardCharsets.UTF_8)); // not a terminal: no bar
    }

    @Test
    void progressDrawsAndErases() throws Exception {
        java.io.StringWriter text = new java.io.StringWriter();
        Progress p = new Progress(new java.io.PrintWriter(text), 100L << 20, true);
        p.start();
        p.advance(50L << 20);
        p.paint(); // what the painter thread draws every 250 ms, drawn now: no sleep
        p.finish();
        String s = text.toString();
        assertTrue(s.contains("] ") && s.contains("50% 50/100 MiB"), s);
        assertTrue(s.endsWith("\r"), s);
        java.io.StringWriter none = new java.io.StringWriter();
        Progress off = new Progress(new java.io.PrintWriter(none), 100L << 20, false);
        off.start();
        off.advance(1);
        off.finish();
        assertEquals("", none.toString());
    }

    @Test
    void internalErrorsExitOneWithoutAStackTrace() {
        Cli.Result r = Cli.run(() -> {
            throw new IllegalStateException("disk on fire");
        }, "top");
        assertEquals(1, r.exit());
        assertTrue(r.err().startsWith("hotkeeper: internal error: IllegalStateException: disk on fire"), r.err());
        assertFalse(r.err().contains("\tat "), r.err());
    }
}
