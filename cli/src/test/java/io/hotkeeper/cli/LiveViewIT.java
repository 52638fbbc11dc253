package io.hotkeeper.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code top --follow FILE --live} in a real terminal: the launcher runs in a detached tmux session (120 x 40, its
 * own server on a socket in the test's directory), the test appends to the file, reads the screen with
 * {@code tmux capture-pane}, sends Ctrl-C with {@code tmux send-keys} and checks what is left on the screen. Skipped
 * where tmux is not installed. Waits are for the screen, with generous bounds (the launcher may build the jar's AOT
 * cache first).
 */
class LiveViewIT {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    /** The longest wait for any screen: the JVM starts, the AOT cache may be built. */
    private static final long PATIENCE_SECONDS = 120;

    @TempDir
    Path dir;

    /**
     * The tmux server's socket: its own (no other server is touched), in the test's directory (tmux leaves the
     * socket file behind when its server is killed; JUnit deletes the directory).
     */
    private Path socket() {
        return dir.resolve("tmux.sock");
    }

    private static boolean tmuxInstalled() {
        try {
            Process p = new ProcessBuilder("tmux", "-V").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Runs {@code tmux -S socket args...} and returns its stdout; fails on a non-zero exit. */
    private String tmux(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("tmux", "-S", socket().toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().remove("TMUX"); // a test run inside tmux still gets its own server
        pb.environment().putIfAbsent("TERM", "xterm");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "tmux " + command + " did not end");
        assertEquals(0, p.exitValue(), "tmux " + command + ": " + out);
        return out;
    }

    private String screen() throws Exception {
        return tmux("capture-pane", "-p", "-t", "live");
    }

    /** The screen with the lines scrolled off it (the main screen's; the alternate screen keeps none). */
    private String screenAndHistory() throws Exception {
        return tmux("capture-pane", "-p", "-S", "-", "-t", "live");
    }

    /** The pane's {@code #{name}} flags, e.g. alternate_on, cursor_flag, pane_dead. */
    private String flag(String name) throws Exception {
        return tmux("display-message", "-p", "-t", "live", "#{" + name + "}").strip();
    }

    private String await(Predicate<String> wanted, String what) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(PATIENCE_SECONDS);
        String last = "";
        while (System.nanoTime() < deadline) {
            last = screen();
            if (wanted.test(last)) {
                return last;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("no " + what + " within " + PATIENCE_SECONDS + " s; the screen:\n" + last);
    }

    private static void append(Path file, String key, int times) throws IOException {
        Files.writeString(file, (key + "\n").repeat(times), StandardCharsets.UTF_8, StandardOpenOption.APPEND);
    }

    private static Predicate<String> row(String regex) {
        Pattern p = Pattern.compile(regex, Pattern.MULTILINE);
        return s -> p.matcher(s).find();
    }

    @Test
    void theTopKIsRedrawnInPlaceAndCtrlCLeavesTheScreenCleanWithTheResult() throws Exception {
        assumeTrue(tmuxInstalled(), "tmux is not installed");
        Path log = dir.resolve("app.log");
        Files.writeString(log, "alpha\n".repeat(40) + "beta\n".repeat(20), StandardCharsets.UTF_8);
        Path conf = dir.resolve("tmux.conf");
        Files.writeString(conf, "set -g default-terminal screen\n"); // TERM in the pane; no user configuration
        // bash runs the launcher, says its exit status once it has exited, and keeps the pane open (tmux marks a
        // dead pane's screen: its cursor flag goes off). Its trap (not an ignore: the launcher gets SIGINT with
        // its default disposition) keeps bash alive through the Ctrl-C that goes to the whole foreground group.
        Path run = dir.resolve("run.sh");
        // -k 2: a key that enters pushes one out. --every 1s: each frame stays a second, long enough for the polls
        // to see the frame that marks them (the default period is 250 ms).
        Files.writeString(run, "trap : INT\n\"$1\" top --follow \"$2\" --live -k 2 --every 1s --min-count 1\n"
                + "echo \"exit status $?\"\nexec sleep 120\n");
        try {
            tmux("-f", conf.toString(), "new-session", "-d", "-x", "120", "-y", "40", "-s", "live",
                    "bash " + quote(run) + " " + quote(ROOT.resolve("hotkeeper")) + " " + quote(log));
            // The first frame may come before the file is read; alpha and beta are then marked as entering.
            String first = await(row("^[ +] +1 +40 +66\\.7% +#+ +alpha$"), "a frame with alpha at rank 1");
            assertTrue(first.startsWith("hotkeeper top  " + log + "  k=2  total 60  (Ctrl-C: stop and print)\n"),
                    first);
            assertTrue(first.contains("\n  rank  estimate   share  bar"), first);
            assertTrue(row("^[ +] +2 +20 +33\\.3% +#+ +beta$").test(first), first);
            assertEquals("1", flag("alternate_on"), "the live view draws on the alternate screen");
            assertEquals("0", flag("cursor_flag"), "the cursor is hidden while drawing");

            append(log, "gamma", 100); // the file grows: gamma enters the top 2, beta leaves
            // The frame that shows gamma first marks it and names beta (it may show gamma's count in part).
            String entered = await(row("^\\+ +[12] +\\d+ +[\\d.]+% +#+ +gamma$"), "gamma marked as entering");
            assertTrue(row("^left: beta$").test(entered), entered);
            assertFalse(entered.contains("  beta\n"), entered);
            String grown = await(row("^  +1 +100 +62\\.5% +#+ +gamma$"), "gamma at rank 1, no longer marked");
            assertTrue(row("^  +2 +40 +25\\.0% +#+ +alpha$").test(grown), grown);
            assertTrue(grown.contains("total 160"), grown);
            assertFalse(grown.contains("left:"), grown);
            // Redrawn in place: one title, one copy of each row.
            assertEquals(1, grown.split("hotkeeper top ", -1).length - 1, grown);
            assertEquals(1, grown.split("gamma", -1).length - 1, grown);

            tmux("send-keys", "-t", "live", "C-c");
            await(s -> s.contains("exit status"), "the launcher's exit after Ctrl-C");
            String after = screenAndHistory();
            List<String> lines = after.lines().filter(l -> !l.isBlank()).toList();
            assertEquals(List.of(
                    "rank  estimate  key",
                    "   1       100  gamma",
                    "   2        40  alpha",
                    "hotkeeper: interrupted by SIGINT: the result above is partial",
                    "exit status 130"), lines, after);
            assertFalse(after.contains("Ctrl-C: stop and print"), "the live frame is gone: " + after);
            assertEquals("0", flag("alternate_on"), "the alternate screen was left");
            assertEquals("1", flag("cursor_flag"), "the cursor is shown again");
        } finally {
            try {
                tmux("kill-server");
            } catch (Throwable e) {
                // the server was never started, or has gone already
            }
        }
    }

    private static String quote(Path p) {
        return "'" + p.toString().replace("'", "'\\''") + "'";
    }
}
