package io.hotkeeper.cli;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * End-to-end: the real {@code ./hotkeeper} launcher (JDK lookup, flags, the shaded jar built in {@code package})
 * as a separate process. Runs in failsafe's integration-test phase.
 */
class LauncherIT {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Path LAUNCHER = ROOT.resolve("hotkeeper");

    @TempDir
    static Path dir;

    record Result(int exit, byte[] out, String err) {
        String text() {
            return new String(out, StandardCharsets.UTF_8);
        }

        List<String> lines() {
            String t = text();
            return t.isEmpty() ? List.of() : List.of(t.split("\n"));
        }
    }

    @BeforeAll
    static void jarIsBuilt() {
        assertTrue(Files.isExecutable(LAUNCHER), LAUNCHER + " missing");
        assertTrue(Files.isRegularFile(ROOT.resolve("cli/target/hotkeeper.jar")),
                "cli/target/hotkeeper.jar must be built (package phase) before the ITs");
    }

    static Result run(byte[] stdin, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(LAUNCHER.toString());
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).directory(ROOT.toFile());
        Path err = Files.createTempFile(dir, "err", ".txt");
        pb.redirectError(err.toFile());
        Process p = pb.start();
        Thread feeder = Thread.ofPlatform().start(() -> {
            try (var in = p.getOutputStream()) {
                in.write(stdin);
            } catch (IOException ignored) {
                // the tool may exit without reading
            }
        });
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "timed out: " + command);
        feeder.join();
        return new Result(p.exitValue(), out, Files.readString(err));
    }

    static Result run(String... args) throws IOException, InterruptedException {
        return run(new byte[0], args);
    }

    /** Runs {@code launcher} (the launcher or a link to it) from {@code cwd} with {@code env} added. */
    static Result runAs(Path launcher, Path cwd, Map<String, String> env, String... args)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(launcher.toString());
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).directory(cwd.toFile());
        pb.environment().putAll(env);
        Path err = Files.createTempFile(dir, "err", ".txt");
        pb.redirectError(err.toFile());
        pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "timed out: " + command);
        return new Result(p.exitValue(), out, Files.readString(err));
    }

    @Test
    void worksThroughSymlinksAndHonoursJavaOpts() throws Exception {
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Path link = Files.createSymbolicLink(bin.resolve("hk"), LAUNCHER);
        Path relative = Files.createSymbolicLink(bin.resolve("hk2"), Path.of("hk")); // a link to the link
        try {
            for (Path l : List.of(link, relative)) {
                Result r = runAs(l, dir, Map.of(), "--version");
                assertEquals(0, r.exit(), r.err());
                assertEquals("hotkeeper " + Version.number() + "\n", r.text());
            }
            Result opts = runAs(link, dir, Map.of("JAVA_OPTS", "-Xmx64m -XX:+PrintCommandLineFlags"), "top",
                    "--version");
            assertEquals(0, opts.exit(), opts.err());
            assertTrue(opts.text().contains("-XX:MaxHeapSize=67108864"), opts.text()); // the flags print on stdout
            assertTrue(opts.text().endsWith("hotkeeper " + Version.number() + "\n"), opts.text());
        } finally {
            Files.delete(relative); // links out of the temporary directory: removed here, not by JUnit
            Files.delete(link);
        }
    }

    @Test
    void theFirstRunSaysItBuildsAndNeedsThePackageRegistriesOnce() throws Exception {
        // A copy of the launcher in a scratch tree whose mvnw stands in for Maven: it "builds" by copying the
        // real jar, so the launcher's first-run path runs without a second real build.
        Path tree = Files.createDirectories(dir.resolve("tree"));
        for (String src : List.of("cli/src", "engine-ffm/src", "numa-bindings/src")) {
            Files.createDirectories(tree.resolve(src));
        }
        Files.createDirectories(tree.resolve("bin"));
        Files.copy(ROOT.resolve("bin/find-java"), tree.resolve("bin/find-java"));
        Path launcher = Files.copy(LAUNCHER, tree.resolve("hotkeeper"));
        Path mvnw = Files.writeString(tree.resolve("mvnw"), "#!/usr/bin/env bash\nmkdir -p cli/target && cp '"
                + ROOT.resolve("cli/target/hotkeeper.jar") + "' cli/target/hotkeeper.jar\n");
        Files.setPosixFilePermissions(mvnw, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        Result first = runAs(launcher, dir, Map.of(), "--version");
        assertEquals(0, first.exit(), first.err());
        assertTrue(first.err().startsWith("hotkeeper: first run: building "), first.err());
        assertTrue(first.err().contains("package registries"), first.err());
        assertEquals("hotkeeper " + Version.number() + "\n", first.text());
        Result second = runAs(launcher, dir, Map.of(), "--version");
        assertEquals("", second.err()); // built: no message
    }

    @Test
    void theAotCacheIsMadeOnceAndAMissingStaleOrBrokenOneIsSilent() throws Exception {
        // A scratch tree with a copy of the built jar (no sources, so the launcher does not rebuild it).
        Path tree = Files.createDirectories(dir.resolve("aot-tree"));
        Files.createDirectories(tree.resolve("bin"));
        Files.createDirectories(tree.resolve("cli/target"));
        Files.copy(ROOT.resolve("bin/find-java"), tree.resolve("bin/find-java"));
        Path launcher = Files.copy(LAUNCHER, tree.resolve("hotkeeper"));
        Path jar = Files.copy(ROOT.resolve("cli/target/hotkeeper.jar"), tree.resolve("cli/target/hotkeeper.jar"));
        Path aot = tree.resolve("cli/target/hotkeeper.aot");
        Path input = Inputs.write(dir, "aot-keys.txt", Inputs.shuffled(new long[] {9, 5, 3}, 4));
        List<String> expected = List.of("1\tkey-0\t9\t0", "2\tkey-1\t5\t0", "3\tkey-2\t3\t0");

        Result off = runAs(launcher, dir, Map.of("HOTKEEPER_AOT", "0"), "top", "--format", "tsv", input.toString());
        assertEquals("", off.err());
        assertEquals(expected, off.lines());
        assertFalse(Files.exists(aot), "HOTKEEPER_AOT=0 makes no cache");

        Result first = runAs(launcher, dir, Map.of(), "top", "--format", "tsv", input.toString());
        assertEquals("", first.err()); // training is silent
        assertEquals(expected, first.lines());
        assertTrue(Files.size(aot) > 0, "the training run made the cache");
        assertEquals(0, listTemporaries(tree).size(), listTemporaries(tree).toString());

        // A cache that the JVM cannot use (garbage, newer than the jar): used, rejected without a word.
        Files.writeString(aot, "not an AOT cache");
        Result broken = runAs(launcher, dir, Map.of(), "top", "--format", "tsv", input.toString());
        assertEquals("", broken.err());
        assertEquals(expected, broken.lines());

        // A jar newer than the cache: the cache is made again.
        Files.setLastModifiedTime(aot, java.nio.file.attribute.FileTime.fromMillis(
                Files.getLastModifiedTime(jar).toMillis() - 60_000));
        Result stale = runAs(launcher, dir, Map.of(), "top", "--format", "tsv", input.toString());
        assertEquals("", stale.err());
        assertEquals(expected, stale.lines());
        assertTrue(Files.size(aot) > 1000, "remade: " + Files.size(aot));
    }

    @Test
    void theJdkFoundIsNotedAndUsedWhileJavaHomeAndPathStay() throws Exception {
        Path tree = Files.createDirectories(dir.resolve("note-tree"));
        Files.createDirectories(tree.resolve("bin"));
        Files.createDirectories(tree.resolve("cli/target"));
        Files.copy(ROOT.resolve("bin/find-java"), tree.resolve("bin/find-java"));
        Path launcher = Files.copy(LAUNCHER, tree.resolve("hotkeeper"));
        Files.copy(ROOT.resolve("cli/target/hotkeeper.jar"), tree.resolve("cli/target/hotkeeper.jar"));
        Path note = tree.resolve("cli/target/hotkeeper.java");
        Map<String, String> noAot = Map.of("HOTKEEPER_AOT", "0");
        Result first = runAs(launcher, dir, noAot, "--version");
        assertEquals(0, first.exit(), first.err());
        List<String> noted = Files.readAllLines(note);
        assertEquals(2, noted.size(), noted.toString());
        assertTrue(Files.isExecutable(Path.of(noted.get(1))), noted.toString());
        // A stand-in java in the note (older than the note): the launcher runs it without asking bin/find-java.
        Path fake = tree.resolve("fake-java");
        Files.writeString(fake, "#!/usr/bin/env bash\necho noted-java\n");
        Files.setPosixFilePermissions(fake, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setLastModifiedTime(fake, java.nio.file.attribute.FileTime.fromMillis(0));
        Files.writeString(note, noted.get(0) + "\n" + fake + "\n");
        assertEquals("noted-java\n", runAs(launcher, dir, noAot, "--version").text());
        // Another JAVA_HOME: the note does not apply, bin/find-java is asked again and the note rewritten.
        Result other = runAs(launcher, dir, Map.of("HOTKEEPER_AOT", "0", "JAVA_HOME", "/nonexistent-jdk"),
                "--version");
        assertEquals("hotkeeper " + Version.number() + "\n", other.text(), other.err());
        assertTrue(Files.readString(note).startsWith("/nonexistent-jdk|"), Files.readString(note));
    }

    private static List<Path> listTemporaries(Path tree) throws IOException {
        try (var files = Files.list(tree.resolve("cli/target"))) {
            return files.filter(p -> p.getFileName().toString().contains("tmp")
                    || p.getFileName().toString().endsWith(".config")).toList();
        }
    }

    @Test
    void numaLocalOnAnyMachinePrintsNothingButTheResult() throws Exception {
        // On a machine with one node (or no libnuma) the engine logs a fallback note: not on stderr by default.
        Result r = run("a\nb\na\n".getBytes(StandardCharsets.UTF_8), "top", "--min-count", "1", "--format", "tsv",
                "--numa", "local", "-");
        assertEquals(0, r.exit(), r.err());
        assertEquals(List.of("1\ta\t2\t0", "2\tb\t1\t0"), r.lines());
        assertEquals("", r.err());
    }

    @Test
    void procFilesReadLikeStdin() throws Exception {
        Path cpuinfo = Path.of("/proc/cpuinfo");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isReadable(cpuinfo), "no /proc");
        Result file = run("top", "--format", "tsv", "--min-count", "1", "-d", ":", "--field", "1", "-k", "5",
                cpuinfo.toString());
        Result stdin = run(Files.readAllBytes(cpuinfo), "top", "--format", "tsv", "--min-count", "1", "-d", ":",
                "--field", "1", "-k", "5", "-");
        assertEquals(0, file.exit(), file.err());
        assertFalse(file.lines().isEmpty());
        assertEquals(stdin.lines(), file.lines());
    }

    @Test
    void helpCommandAndVersion() throws Exception {
        Result help = run("help");
        assertEquals(0, help.exit(), help.err());
        assertTrue(help.text().contains("top"), help.text());
        Result version = run("top", "--version");
        assertEquals("hotkeeper " + Version.number() + "\n", version.text());
    }

    @Test
    void demoWithNoArguments() throws Exception {
        Result r = run(); // bounded by run()'s own time-out; no wall-clock assertion
        assertEquals(0, r.exit(), r.err());
        String out = r.text();
        assertTrue(out.contains("threads  M observes/s"), out);
        assertTrue(out.matches("(?s).*precision@100: (1\\.000|0\\.9[5-9]\\d).*"), out);
        assertTrue(out.contains("memory: "), out);
        // The top-20 rows: key, estimate, exact, side by side; heavy keys are counted exactly here.
        long rows = out.lines().filter(l -> l.matches("\\s+\\d+\\s+-?\\d+\\s+[\\d,]+\\s+[\\d,]+\\s+-?\\d+\\.\\d\\d%"))
                .count();
        assertEquals(20, rows, out);
        // 1 thread and all threads, nothing in between; no raw stats dump; the last line is a command to try.
        int processors = Runtime.getRuntime().availableProcessors();
        List<String> threadRows = out.lines().filter(l -> l.matches("\\s+\\d+\\s+\\d+\\.\\d")).toList();
        assertEquals(processors == 1 ? 1 : 2, threadRows.size(), out);
        assertTrue(threadRows.getLast().strip().startsWith(processors + " "), out);
        assertFalse(out.contains("HotkeeperStats"), out);
        assertTrue(out.strip().lines().toList().getLast().strip().startsWith("./hotkeeper top "), out);
        assertEquals("", r.err());
    }

    @Test
    void demoSubcommandWithOptions() throws Exception {
        Result r = run("demo", "--keys", "200000", "--distinct", "10000", "--k", "10", "--top", "5");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.text().contains("precision@10: 1.000"), r.text());
    }

    @Test
    void tsvOnASmallFileWithKnownCounts() throws Exception {
        long[] counts = {77, 60, 42, 30, 21, 15, 11, 9, 8};
        Path file = Inputs.write(dir, "small.txt", Inputs.shuffled(counts, 1));
        Result r = run("top", "--format", "tsv", file.toString());
        assertEquals(0, r.exit(), r.err());
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < counts.length; i++) {
            expected.add((i + 1) + "\tkey-" + i + "\t" + counts[i] + "\t0");
        }
        assertEquals(expected, r.lines());
        assertEquals("", r.err());
    }

    @Test
    void fieldOfACsvFromStdin() throws Exception {
        StringBuilder csv = new StringBuilder("time,path,status\r\n");
        for (String key : Inputs.shuffled(new long[] {40, 25, 10}, 2)) {
            csv.append("12:00,/").append(key).append(",200\r\n");
        }
        csv.append("garbage\r\n");
        Result r = run(csv.toString().getBytes(StandardCharsets.UTF_8), "top", "--field", "2", "--delimiter", ",",
                "--format", "tsv", "--stats", "-");
        assertEquals(0, r.exit(), r.err());
        // The header's field is a key like any other: seen once, and listed, since every key is tracked from its
        // first observation.
        assertEquals(List.of("1\t/key-0\t40\t0", "2\t/key-1\t25\t0", "3\t/key-2\t10\t0", "4\tpath\t1\t0"),
                r.lines());
        assertTrue(r.err().contains("\"missingField\":1"), r.err());
        assertTrue(r.err().contains("\"keys\":76"), r.err());
    }

    @Test
    void twoThreadsGiveTheSameTopKAsOne() throws Exception {
        StringBuilder text = new StringBuilder();
        Map<String, Long> exact = Inputs.zipf(400_000, 50_000, 1.2, 3, text);
        Path file = Files.writeString(dir.resolve("zipf.txt"), text);
        Result one = run("top", "--format", "tsv", "--k", "25", "--threads", "1", file.toString());
        Result two = run("top", "--format", "tsv", "--k", "25", "--threads", "2", file.toString());
        assertEquals(0, one.exit(), one.err());
        assertEquals(25, one.lines().size());
        assertEquals(one.lines(), two.lines());
        for (String line : two.lines()) {
            String[] f = line.split("\t");
            assertEquals(exact.get(f[1]), Long.parseLong(f[2]), line);
        }
    }

    @Test
    void binaryKeysComeOutEscaped() throws Exception {
        List<byte[]> lines = new ArrayList<>();
        for (int b = 0; b < 256; b++) {
            if (b != '\n') {
                for (int i = 0; i < 8; i++) {
                    lines.add(new byte[] {'k', (byte) b});
                }
            }
        }
        for (int i = 0; i < 9; i++) {
            lines.add(new byte[] {(byte) 0xE6, (byte) 0x97, (byte) 0xA5, 0, (byte) 0xFF}); // 日 NUL 0xFF
        }
        Path file = Files.write(dir.resolve("binary.bin"), Inputs.bytes(lines.toArray(byte[][]::new)));
        Result r = run("top", "--format", "tsv", "--k", "300", file.toString());
        assertEquals(0, r.exit(), r.err());
        List<String> out = r.lines();
        assertEquals(255 + 1, out.size());
        assertEquals("1\t日\\x00\\xFF\t9\t0", out.getFirst());
        java.util.Set<String> keys = new java.util.HashSet<>();
        for (String line : out) {
            String[] f = line.split("\t", -1);
            assertEquals(4, f.length, line);
            assertTrue(f[1].chars().allMatch(c -> c >= 0x20 && c != 0x7F), line);
            keys.add(f[1]);
        }
        assertTrue(keys.containsAll(List.of("k\\x00", "k\\t", "k", "k\\\\", "k\\x7F", "k\\x80", "k\\xFF", "ka")),
                keys.toString());
        // Valid UTF-8 on stdout whatever the locale.
        assertEquals(r.text(), new String(r.out(), StandardCharsets.UTF_8));
        assertFalse(new String(r.out(), StandardCharsets.UTF_8).contains("\uFFFD"));
    }

    @Test
    void emptyInputIsAnEmptyResult() throws Exception {
        Result r = run("top", "--format", "tsv", Files.createFile(dir.resolve("empty.txt")).toString());
        assertEquals(0, r.exit());
        assertEquals(0, r.out().length);
        assertEquals("", r.err());
        Result json = run(new byte[0], "top", "--format", "json");
        assertEquals(0, json.exit());
        assertEquals("[ ]", json.text().strip());
    }

    @Test
    void missingFileExitsTwoWithOneLine() throws Exception {
        Result r = run("top", "/no/such/dir/keys.txt");
        assertEquals(2, r.exit());
        assertEquals("hotkeeper: /no/such/dir/keys.txt: no such file\n", r.err());
        assertEquals(0, r.out().length);
    }

    @Test
    void directoryExitsTwo() throws Exception {
        Result r = run("top", dir.toString());
        assertEquals(2, r.exit());
        assertEquals("hotkeeper: " + dir + ": is a directory\n", r.err());
    }

    @Test
    void unreadableFileExitsTwo() throws Exception {
        Path secret = Inputs.write(dir, "secret.txt", List.of("a"));
        Files.setPosixFilePermissions(secret, java.util.Set.of());
        org.junit.jupiter.api.Assumptions.assumeFalse(Files.isReadable(secret), "running as root: can read anything");
        Result r = run("top", secret.toString());
        assertEquals(2, r.exit());
        assertEquals("hotkeeper: " + secret + ": permission denied\n", r.err());
    }

    @Test
    void badOptionAndBadValueExitTwoWithAShortUsage() throws Exception {
        for (String[] args : new String[][] {{"top", "--no-such-option"}, {"top", "--memory", "lots"}}) {
            Result r = run(args);
            assertEquals(2, r.exit(), String.join(" ", args));
            assertTrue(r.err().startsWith("hotkeeper top: "), r.err());
            assertTrue(r.err().contains("Usage: hotkeeper top"), r.err());
            assertFalse(r.err().contains("Exception"), r.err());
            assertEquals(0, r.out().length);
        }
    }
}
