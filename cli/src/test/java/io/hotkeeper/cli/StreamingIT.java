package io.hotkeeper.cli;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * {@code --every}, {@code --follow} and SIGINT/SIGTERM on the real launcher, as a separate process fed through a
 * real pipe. Waits are for output, with generous bounds; no assertion depends on how fast the machine is, except
 * the latency bound, which is loose (see {@link #aKeyWrittenToThePipeShowsInTheNextPrint}).
 */
class StreamingIT {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    /** The longest wait for any output: the JVM starts, the jar may be rebuilt. */
    private static final long PATIENCE_SECONDS = 120;

    @TempDir
    Path dir;

    private Process process;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final List<String> seen = new ArrayList<>();
    private Path stderr;

    private void start(String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(ROOT.resolve("hotkeeper").toString());
        command.addAll(List.of(args));
        stderr = dir.resolve("stderr.txt");
        process = new ProcessBuilder(command).directory(ROOT.toFile()).redirectError(stderr.toFile()).start();
        Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                    lines.add(line);
                }
            } catch (IOException ignored) {
                // the process ended
            }
            lines.add("<EOF>");
        });
    }

    /** Waits for a line of stdout that matches; fails with everything seen after {@link #PATIENCE_SECONDS}. */
    private String await(Predicate<String> wanted, String what) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(PATIENCE_SECONDS);
        while (System.nanoTime() < deadline) {
            String line = lines.poll(100, TimeUnit.MILLISECONDS);
            if (line != null) {
                seen.add(line);
                assertFalse(line.equals("<EOF>"), "ended before " + what + ": " + seen + " " + err());
                if (wanted.test(line)) {
                    return line;
                }
            }
        }
        throw new AssertionError("no " + what + " within " + PATIENCE_SECONDS + " s: " + seen + " " + err());
    }

    /**
     * Everything stdout still prints, up to its end; fails if it has not ended within {@link #PATIENCE_SECONDS}
     * (a process that keeps printing, such as {@code --every}, must not hold the build forever).
     */
    private List<String> rest() throws Exception {
        List<String> rest = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(PATIENCE_SECONDS);
        while (System.nanoTime() < deadline) {
            String line = lines.poll(100, TimeUnit.MILLISECONDS);
            if (line == null) {
                continue;
            }
            if (line.equals("<EOF>")) {
                return rest;
            }
            rest.add(line);
        }
        throw new AssertionError("output did not end within " + PATIENCE_SECONDS + " s: " + rest + " " + err());
    }

    /**
     * Whether this process ignores {@code signal} (Linux {@code /proc/self/status}, SigIgn): a shell without job
     * control starts background commands with SIGINT ignored, the launched JVM inherits that, and rightly keeps
     * it ignored (as {@code nohup} asks), so a test that sends it cannot expect the report.
     */
    private static boolean ignored(int signal) throws IOException {
        Path status = Path.of("/proc/self/status");
        if (!Files.exists(status)) {
            return false;
        }
        for (String line : Files.readAllLines(status)) {
            if (line.startsWith("SigIgn:")) {
                long mask = Long.parseUnsignedLong(line.substring("SigIgn:".length()).trim(), 16);
                return (mask & (1L << (signal - 1))) != 0;
            }
        }
        return false;
    }

    private String err() throws IOException {
        return Files.exists(stderr) ? Files.readString(stderr) : "";
    }

    private void kill(String signal) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start();
        assertEquals(0, kill.waitFor());
    }

    private int exit() throws Exception {
        assertTrue(process.waitFor(PATIENCE_SECONDS, TimeUnit.SECONDS), "did not exit: " + seen + " " + err());
        return process.exitValue();
    }

    @AfterEach
    void stop() {
        if (process != null && process.isAlive()) {
            process.destroyForcibly();
        }
    }

    private static void write(OutputStream out, String text) throws IOException {
        out.write(text.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    @Test
    void aKeyWrittenToThePipeShowsInTheNextPrint() throws Exception {
        assumeFalse(ignored(2), "SIGINT is ignored in this environment (a background job without job control)");
        start("top", "--every", "1s", "--format", "tsv", "--min-count", "1", "-");
        OutputStream pipe = process.getOutputStream();
        await(l -> l.startsWith("# "), "first block"); // the JVM runs and reads the pipe
        long written = System.nanoTime();
        write(pipe, "hello\nhello\nhello\n");
        await(l -> l.equals("1\thello\t3\t0"), "hello in a block");
        double seconds = (System.nanoTime() - written) / 1e9;
        // Target: 1 s + one period = 2 s. Bounded loosely (a loaded 2-core machine): 10 s.
        assertTrue(seconds < 10, "hello showed after " + seconds + " s");
        write(pipe, "world\n");
        await(l -> l.equals("2\tworld\t1\t0"), "world in a later block");

        kill("INT");
        List<String> last = rest();
        assertEquals(130, exit(), err());
        assertTrue(last.contains("1\thello\t3\t0"), last.toString()); // the partial result, as a block
        assertTrue(err().contains("hotkeeper: interrupted by SIGINT: the result above is partial"), err());
        assertFalse(err().contains("Exception"), err());
    }

    @Test
    void sigtermPrintsTheResultSoFarAndExits143() throws Exception {
        // The file is read (mapped, joined) before standard input: --verbose says when the pipe's turn comes.
        Path file = Inputs.write(dir, "keys.txt", List.of("x", "y", "x", "x"));
        start("top", "--format", "tsv", "--min-count", "1", "--verbose", file.toString(), "-");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(PATIENCE_SECONDS);
        while (!err().contains("hotkeeper: reading -") && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertTrue(err().contains("hotkeeper: reading -"), err());
        kill("TERM");
        assertEquals(List.of("1\tx\t3\t0", "2\ty\t1\t0"), rest());
        assertEquals(143, exit(), err());
        assertTrue(err().contains("interrupted by SIGTERM"), err());
    }

    @Test
    void followReadsAppendedLinesAcrossRotation() throws Exception {
        Path log = dir.resolve("app.log");
        Files.writeString(log, "a\na\n");
        start("top", "--follow", "--every", "200ms", "--format", "tsv", "--min-count", "1", log.toString());
        await(l -> l.equals("1\ta\t2\t0"), "the file's lines");
        Files.writeString(log, "b\nb\nb\n", StandardOpenOption.APPEND);
        await(l -> l.equals("1\tb\t3\t0"), "appended lines");
        // Rotation by rename and create.
        Files.move(log, dir.resolve("app.log.1"));
        Files.writeString(log, "cccccccc\n".repeat(4));
        await(l -> l.equals("1\tcccccccc\t4\t0"), "the new file's lines");
        // Rotation by copytruncate: the file is emptied, then written again from its start.
        Files.writeString(log, "d\n".repeat(5), StandardOpenOption.TRUNCATE_EXISTING);
        await(l -> l.equals("1\td\t5\t0"), "the truncated file's new lines");
        kill("TERM");
        rest();
        assertEquals(143, exit(), err());
    }

    @Test
    void followEndsTheOldFilesUnterminatedLastLineAtARotation() throws Exception {
        Path log = dir.resolve("log.txt");
        Files.writeString(log, "foo"); // no LF: the reader holds it until the line ends
        start("top", "--follow", "--every", "200ms", "--format", "tsv", "--min-count", "1", log.toString());
        await(l -> l.startsWith("# "), "first block");
        Files.move(log, dir.resolve("log.1"));
        Files.writeString(log, "bar\n");
        await(l -> l.equals("2\tfoo\t1\t0"), "foo, a key of its own beside bar");
        assertTrue(seen.contains("1\tbar\t1\t0"), seen.toString());
        kill("TERM");
        rest();
        assertEquals(143, exit(), err());
        assertFalse(seen.stream().anyMatch(l -> l.contains("foobar")), seen.toString());
    }

    @Test
    void followStopsAtAWeightTooLargeWithExitTwo() throws Exception {
        Path log = dir.resolve("w.log");
        Files.writeString(log, "a\t5\n");
        start("top", "--follow", "--every", "200ms", "--format", "tsv", "--min-count", "1", "--field", "1",
                "--weight-field", "2", log.toString());
        await(l -> l.equals("1\ta\t5\t0"), "the first line");
        Files.writeString(log, "b\t9223372036854775807\n", StandardOpenOption.APPEND);
        rest();
        assertEquals(2, exit(), err());
        assertTrue(err().endsWith(log + ": line 2: weight 9223372036854775807 is more than the sketch counts (at "
                + "most 274877906943 a line, 2^38-1); split it over several lines or scale the weights down "
                + "(--weight-field)\n"), err());
    }

    @Test
    void followOnAMissingFileExitsTwoWithOneLine() throws Exception {
        Path missing = dir.resolve("nope.log");
        start("top", "--follow", missing.toString());
        assertEquals(List.of(), rest());
        assertEquals(2, exit());
        assertEquals("hotkeeper: " + missing + ": no such file\n", err());
    }
}
