package io.hotkeeper.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code top --save}, {@code merge} and {@code show}, in-process; a bad file is one line and exit 2. */
class SnapshotCommandsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    /** key-i appears counts[i] times, shuffled deterministically. */
    private Path input(String name, long... counts) throws Exception {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < counts.length; i++) {
            for (long c = 0; c < counts[i]; c++) {
                lines.add("key-" + i);
            }
        }
        java.util.Collections.shuffle(lines, new java.util.Random(counts.length));
        Path file = dir.resolve(name);
        Files.write(file, lines, StandardCharsets.UTF_8);
        return file;
    }

    /**
     * {@code --save} takes nothing from {@code --memory} (no stats stripes: 9 KiB of a 32 KiB budget until
     * 2026-12-06) and still saves the exact stream length, which the scanners counted, where the sketch's own
     * total would be its slots' sum, a lower bound once 20,000 distinct keys overflow the table.
     */
    @Test
    void saveKeepsTheWholeBudgetAndTheExactTotal() throws Exception {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            lines.add((i % 5 == 0 ? "hot" : "cold-" + i) + "\t" + (1 + i % 3)); // weights 1, 2, 3: 39,999 in all
        }
        Path file = dir.resolve("overflow.tsv");
        Files.write(file, lines, StandardCharsets.UTF_8);
        Path saved = dir.resolve("overflow.hksnap");
        for (String threads : new String[] {"1", "2"}) {
            for (boolean weighted : new boolean[] {false, true}) {
                List<String> args = new ArrayList<>(List.of("top", "--format", "tsv", "--stats", "--memory", "32KiB",
                        "--threads", threads, "--field", "1"));
                if (weighted) {
                    args.addAll(List.of("--weight-field", "2"));
                }
                String what = "threads " + threads + ", weighted " + weighted;
                Cli.Result plain = Cli.run(withFile(args, file));
                args.addAll(List.of("--save", saved.toString()));
                Cli.Result saving = Cli.run(withFile(args, file));
                assertEquals(0, saving.exit(), saving.err());
                JsonNode parts = JSON.readTree(saving.stats()).get("nativeBytesByPart");
                assertFalse(parts.has("stats"), what + ": " + parts);
                assertEquals(JSON.readTree(plain.stats()).get("nativeBytesByPart"), parts, what);
                if (threads.equals("1")) {
                    assertEquals(plain.out(), saving.out(), what);
                }
                JsonNode header = JSON.readTree(Cli.run("show", "--format", "json", saved.toString()).out())
                        .get("header");
                long total = weighted ? 39_999 : 20_000;
                assertEquals(total, header.get("totalWeight").asLong(), what);
                assertTrue(header.get("tableWeight").asLong() < total, what + ": " + header);
            }
        }
        // A window's total is the window's own, as its sketch derives it from its slots (below the 20,000 lines
        // here, where the table overflowed), not the scanners' count.
        Path windowed = dir.resolve("windowed.hksnap");
        assertEquals(0, Cli.run("top", "--window", "1h", "--memory", "256KiB", "--save", windowed.toString(),
                "--field", "1", file.toString()).exit());
        JsonNode header = JSON.readTree(Cli.run("show", "--format", "json", windowed.toString()).out()).get("header");
        assertTrue(header.get("totalWeight").asLong() < 20_000, header.toString());
    }

    private static String[] withFile(List<String> args, Path file) {
        List<String> all = new ArrayList<>(args);
        all.add(file.toString());
        return all.toArray(new String[0]);
    }

    @Test
    void saveThenMergeGivesTheCountsOfBothInputsAndShowPrintsTheHeader() throws Exception {
        Path a = input("a.txt", 500, 300, 100, 40, 20);
        Path b = input("b.txt", 100, 300, 20, 40, 9);
        Path sa = dir.resolve("a.hksnap");
        Path sb = dir.resolve("b.hksnap");
        Cli.Result ra = Cli.run("top", "--seed", "5", "--format", "tsv", "--save", sa.toString(), a.toString());
        assertEquals(0, ra.exit(), ra.err());
        assertEquals("1\tkey-0\t500\t0", ra.lines().getFirst());
        assertEquals(0, Cli.run("top", "--seed", "5", "--save", sb.toString(), b.toString()).exit());

        Cli.Result merged = Cli.run("merge", "--format", "tsv", sa.toString(), sb.toString());
        assertEquals(0, merged.exit(), merged.err());
        // key-0 and key-1 tie at 600: ranks 1 and 2 in key order.
        assertEquals(List.of("1\tkey-0\t600\t0", "2\tkey-1\t600\t0", "3\tkey-2\t120\t0", "4\tkey-3\t80\t0",
                        "5\tkey-4\t29\t0"),
                merged.lines());
        Cli.Result top2 = Cli.run("merge", "--k", "2", "--format", "json", sa.toString(), sb.toString());
        JsonNode rows = JSON.readTree(top2.out());
        assertEquals(2, rows.size());
        assertEquals(600, rows.get(0).get("estimate").asLong());

        Cli.Result show = Cli.run("show", sa.toString());
        assertEquals(0, show.exit(), show.err());
        assertTrue(show.out().contains("total weight    960"), show.out());
        assertTrue(show.out().contains("hash            seeded"), show.out());
        assertTrue(show.out().contains("key-0"), show.out());
        JsonNode shown = JSON.readTree(Cli.run("show", "--format", "json", "--k", "3", sb.toString()).out());
        assertEquals(469, shown.get("header").get("totalWeight").asLong());
        assertEquals(3, shown.get("top").size());
        assertEquals("key-1", shown.get("top").get(0).get("key").asText());

        // Self-seeded runs merge by their keys: the same counts here, since every key is tracked in both.
        Path ua = dir.resolve("ua.hksnap");
        Path ub = dir.resolve("ub.hksnap");
        assertEquals(0, Cli.run("top", "--save", ua.toString(), a.toString()).exit());
        assertEquals(0, Cli.run("top", "--save", ub.toString(), b.toString()).exit());
        assertEquals(normalize(merged.lines()),
                normalize(Cli.run("merge", "--format", "tsv", ua.toString(), ub.toString()).lines()));
    }

    /** Ties (key-0 and key-1 at 600) are ordered by key bytes; this pins that order for the comparison. */
    private static List<String> normalize(List<String> lines) {
        return lines.stream().map(l -> l.substring(l.indexOf('\t') + 1)).sorted().toList();
    }

    @Test
    void aBadFileIsOneLineAndExitTwo() throws Exception {
        Path good = dir.resolve("good.hksnap");
        assertEquals(0, Cli.run("top", "--save", good.toString(), input("in.txt", 50, 20).toString()).exit());
        byte[] bytes = Files.readAllBytes(good);

        Path truncated = dir.resolve("truncated.hksnap");
        Files.write(truncated, Arrays.copyOf(bytes, bytes.length - 7));
        Path flipped = dir.resolve("flipped.hksnap");
        byte[] f = bytes.clone();
        f[100] ^= 4;
        Files.write(flipped, f);
        Path text = dir.resolve("text.hksnap");
        Files.writeString(text, "key-1\nkey-2\n");
        Path missing = dir.resolve("missing.hksnap");
        for (String[] args : new String[][] {
                {"show", truncated.toString()}, {"merge", good.toString(), flipped.toString()},
                {"show", text.toString()}, {"merge", missing.toString()}}) {
            Cli.Result r = Cli.run(args);
            assertEquals(2, r.exit(), String.join(" ", args) + ": " + r.err());
            assertEquals("", r.out());
            List<String> lines = r.err().lines().toList();
            assertEquals(1, lines.size(), r.err());
            assertTrue(lines.getFirst().startsWith("hotkeeper: " + args[args.length - 1] + ": "), lines.getFirst());
        }
        assertTrue(Cli.run("show", truncated.toString()).err().contains("truncated"));
        assertTrue(Cli.run("show", flipped.toString()).err().contains("CRC32C mismatch"));
        assertTrue(Cli.run("show", text.toString()).err().contains("truncated")
                || Cli.run("show", text.toString()).err().contains("wrong magic"));
        assertTrue(Cli.run("show", missing.toString()).err().contains("no such file"));
    }

    @Test
    void mergedTotalsSaturateAtTheLargestLong() throws Exception {
        // Totals no run of top reaches (it refuses weights past Long.MAX_VALUE): snapshots of keys only, made here.
        Path a = dir.resolve("a.hksnap");
        Path b = dir.resolve("b.hksnap");
        for (Path p : List.of(a, b)) {
            var key = new io.hotkeeper.engine.snapshot.SnapshotKey("x".getBytes(StandardCharsets.UTF_8), 100, false,
                    io.hotkeeper.engine.snapshot.SnapshotKey.NO_LOCATION);
            Files.write(p, io.hotkeeper.engine.snapshot.HotkeeperSnapshot.ofKeys(64, 1, 10, 256, 1.08, 0, false,
                    Long.MAX_VALUE - 5, List.of(key)).toBytes());
        }
        Path merged = dir.resolve("m.hksnap");
        Cli.Result r = Cli.run("merge", "--format", "tsv", "--save", merged.toString(), a.toString(), b.toString());
        assertEquals(0, r.exit(), r.err());
        assertEquals(List.of("1\tx\t200\t0"), r.lines());
        JsonNode shown = JSON.readTree(Cli.run("show", "--format", "json", merged.toString()).out());
        assertEquals(Long.MAX_VALUE, shown.get("header").get("totalWeight").asLong());
    }
}
