package io.hotkeeper.cli;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Daily-use fixes of {@code hotkeeper top}: /proc files, aligned columns, short options, help, version. */
class PapercutsTest {
    @TempDir
    Path dir;

    @Test
    void filesThatReportSizeZeroAreReadAsStreams() throws Exception {
        Path proc = Path.of("/proc/self/status");
        Assumptions.assumeTrue(Files.isReadable(proc) && Files.size(proc) == 0, "no /proc");
        Cli.Result r = Cli.run("top", "--format", "tsv", "--field", "1", "-d", ":", "--min-count", "1", "-k", "1000",
                proc.toString());
        assertEquals(0, r.exit(), r.err());
        List<String> keys = r.lines().stream().map(l -> l.split("\t")[1]).toList();
        assertTrue(keys.contains("Name") && keys.contains("Pid"), r.out());

        Path empty = Files.createFile(dir.resolve("empty"));
        assertEquals("", Cli.run("top", "--format", "tsv", empty.toString()).out());
    }

    @Test
    void spaceSplitsAlignedColumnsLikeAwk() throws Exception {
        // ls -l style: columns padded with runs of spaces, leading blanks on some lines.
        List<String> ls = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            String owner = i % 3 == 0 ? "root" : "alice";
            ls.add(String.format("-rw-r--r--  %2d %-6s staff  %6d Dec  3 12:00 file%d", 1, owner, 10 * i, i));
        }
        ls.add("   7  padded\tkey  ");
        Path file = Inputs.write(dir, "ls.txt", ls);
        Cli.Result r = Cli.run("top", "--format", "tsv", "--field", "3", "-d", " ", "--min-count", "1", "--stats",
                file.toString());
        assertEquals(List.of("1\talice\t8\t0", "2\troot\t4\t0", "3\tkey\t1\t0"), r.lines());
        Cli.Result cut = Cli.run("top", "--format", "tsv", "--field", "3", "-d", "single-space", "--min-count", "1",
                file.toString());
        assertEquals(0, cut.exit(), cut.err());
        assertFalse(cut.out().contains("alice"), cut.out()); // cut -d ' ': field 3 of "a  b" is empty
    }

    @Test
    void aFieldThatMatchesNoLineIsReportedOnStderr() throws Exception {
        Path file = Inputs.write(dir, "two.csv", List.of("a,1", "b,2", "c,3"));
        Cli.Result r = Cli.run("top", "--format", "tsv", "--field", "4", "-d", ",", file.toString());
        assertEquals(0, r.exit());
        assertEquals("", r.out());
        assertEquals("hotkeeper: every line was skipped (3 missing field; check --field and --delimiter)\n", r.err());
        // A field that matches is silent.
        assertEquals("", Cli.run("top", "--format", "tsv", "--field", "1", "-d", ",", file.toString()).err());
    }

    @Test
    void shortK() throws Exception {
        Path file = Inputs.write(dir, "k.txt", List.of("a", "a", "b"));
        assertEquals(List.of("1\ta\t2\t0"),
                Cli.run("top", "--format", "tsv", "--min-count", "1", "-k", "1", file.toString()).lines());
        assertEquals(List.of("1\ta\t2\t0"),
                Cli.run("top", "--format", "tsv", "--min-count", "1", "-k1", file.toString()).lines());
    }

    @Test
    void helpSubcommand() {
        Cli.Result help = Cli.run("help");
        assertEquals(0, help.exit(), help.err());
        assertTrue(help.out().contains("top") && help.out().contains("demo") && help.out().contains("unescape"),
                help.out());
        Cli.Result top = Cli.run("help", "top");
        assertEquals(0, top.exit(), top.err());
        assertTrue(top.out().contains("--weight-field=N"), top.out());
    }

    @Test
    void versionOnEveryCommandComesFromTheBuild() {
        String version = Version.number();
        assertTrue(version.matches("\\d+\\.\\d+\\.\\d+.*"), version); // filtered, not ${project.version}
        for (String[] args : new String[][] {{"--version"}, {"top", "--version"}, {"demo", "--version"},
                {"unescape", "--version"}, {"top", "-V"}}) {
            Cli.Result r = Cli.run(args);
            assertEquals(0, r.exit(), String.join(" ", args));
            assertEquals("hotkeeper " + version + "\n", r.out(), String.join(" ", args));
        }
    }

    @Test
    void badDurationExitsTwoWithOneLineAndAUsage() {
        for (String bad : new String[] {"soon", "0s", "-1s", "1.5s"}) {
            Cli.Result r = Cli.run("a\n".getBytes(StandardCharsets.UTF_8), "top", "--every", bad);
            assertEquals(2, r.exit(), bad);
            assertTrue(r.err().startsWith("hotkeeper top: Invalid value for option '--every': '" + bad + "'"), r.err());
            assertFalse(r.err().contains("\tat "), r.err());
            assertEquals("", r.out());
        }
    }

    @Test
    void theDefaultSeedMakesRunsReproducible() throws Exception {
        // A table far smaller than the distinct keys (48 KiB in all: a 4 KiB table): which keys collide depends on
        // the seed.
        StringBuilder text = new StringBuilder();
        Inputs.zipf(200_000, 50_000, 0.9, 5, text);
        Path file = Files.writeString(dir.resolve("zipf.txt"), text);
        List<String> first = Cli.run("top", "--format", "tsv", "--memory", "48KiB", "-k", "50", file.toString())
                .lines();
        assertEquals(50, first.size());
        for (int run = 0; run < 2; run++) {
            assertEquals(first, Cli.run("top", "--format", "tsv", "--memory", "48KiB", "-k", "50", file.toString())
                    .lines());
        }
    }
}
