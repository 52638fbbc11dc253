package io.hotkeeper.cli;

import io.hotkeeper.engine.Hotkeeper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.RandomAccessFile;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A memory-mapped input that shrinks while it is read (log rotation by truncation): exit 2 and one line naming
 * the file, never a JVM crash or a stack trace, at any thread count. The file is cut down after it has been
 * mapped and before any worker reads it (through the scanner factory, which runs before the workers start, or
 * through {@link Ingest#afterMapping}), so every run reads the same bytes: no sleeps, no timing.
 */
class TruncationTest {
    /** 1,200,000 bytes of 8-byte lines: 4 ranges of 300,000 bytes at 4 threads, 1 range at 1 thread. */
    private static final int LINES = 150_000;
    private static final long SIZE = LINES * 8L;

    @TempDir
    Path dir;

    @AfterEach
    void noHookLeft() {
        Ingest.afterMapping = null;
    }

    /** LINES lines "key-NNN\n", 8 bytes each, over 1,000 keys of 150 occurrences each. */
    private Path input(String name) throws IOException {
        StringBuilder b = new StringBuilder(LINES * 8);
        for (int i = 0; i < LINES; i++) {
            b.append("key-").append(Integer.toString(1000 + i % 1000), 1, 4).append('\n');
        }
        Path file = dir.resolve(name);
        Files.writeString(file, b, StandardCharsets.US_ASCII);
        assertEquals(SIZE, Files.size(file));
        return file;
    }

    private static void setLength(Path file, long length) {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(length);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs Ingest over {@code file}; the first scanner made (before any worker starts) runs {@code cut}. */
    private static Tally ingest(Path file, int threads, Runnable cut) throws Exception {
        AtomicBoolean done = new AtomicBoolean();
        try (Ingest ingest = Ingest.open(List.of(file.toString()), () -> null);
             Hotkeeper hk = Hotkeeper.builder().memoryBytes(64 << 10).build()) {
            Supplier<LineScanner> scanners = () -> {
                if (!done.getAndSet(true)) {
                    cut.run();
                }
                return new LineScanner(hk, 0, (byte) '\t', 1 << 20, 256);
            };
            return ingest.run(hk, threads, scanners, new Progress(new PrintWriter(new StringWriter()), SIZE, false));
        }
    }

    @ParameterizedTest(name = "threads={0}")
    @ValueSource(ints = {1, 2, 4, 7})
    void aFileTruncatedToNothingAfterMappingIsAUserErrorNamingIt(int threads) throws Exception {
        Path file = input("empty-" + threads + ".log");
        UserException e = assertThrows(UserException.class, () -> ingest(file, threads, () -> setLength(file, 0)));
        assertEquals(file + ": truncated while being read (1200000 bytes when opened, 0 now)", e.getMessage());
    }

    @ParameterizedTest(name = "threads={0}")
    @ValueSource(ints = {1, 2, 4, 7})
    void aFileTruncatedHalfwayFaultsPastItsNewEndAndIsAUserError(int threads) throws Exception {
        Path file = input("half-" + threads + ".log");
        // 600,000 bytes stay: the pages wholly past byte 600,000 fault; at 4 threads two ranges read fine.
        UserException e = assertThrows(UserException.class,
                () -> ingest(file, threads, () -> setLength(file, SIZE / 2)));
        assertEquals(file + ": truncated while being read (1200000 bytes when opened, 600000 now)", e.getMessage());
    }

    @Test
    void aFileThatShrankWithinItsLastPageIsCaughtByTheSizeCheck() throws Exception {
        // 1,199,000 and 1,200,000 share a 4 KiB page (and any larger one): the last 1,000 bytes read as zeros,
        // with no fault; only the size check after the read sees that the file is shorter.
        Path file = input("tail.log");
        UserException e = assertThrows(UserException.class, () -> ingest(file, 1, () -> setLength(file, SIZE - 1000)));
        assertEquals(file + ": truncated while being read (1200000 bytes when opened, 1199000 now)", e.getMessage());
    }

    @Test
    void bytesAppendedWhileReadingAreNotReadAndAreNoError() throws Exception {
        Path file = input("growing.log");
        Tally t = ingest(file, 2, () -> {
            try {
                Files.writeString(file, "appended\n".repeat(1000), StandardOpenOption.APPEND);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        assertEquals(LINES, t.keys);
        assertEquals(SIZE, t.bytes);
    }

    @Test
    void aFaultWithoutAShorterFileIsPutDownToAChangeOrAnIoError() throws Exception {
        Path file = input("same.log");
        try (FileChannel channel = FileChannel.open(file)) {
            Ingest.Source source = new Ingest.Source(file.toString(), channel, SIZE, null);
            UserException e = Truncation.fault(source, List.of(source),
                    new InternalError("a fault occurred in an unsafe memory access operation"));
            assertEquals(file + ": truncated or changed while being read, or an I/O error (InternalError: a fault "
                    + "occurred in an unsafe memory access operation)", e.getMessage());
        }
    }

    // ------------------------------------------------------------------ the command, in process and forked

    /**
     * The hook cuts the file before the ranges are cut: where a range boundary lies past the new end, the
     * fault comes in the calling thread, finding that boundary (cut); else in a worker.
     */
    @ParameterizedTest(name = "threads={0}, cut to {1}")
    @CsvSource({
        "1, 0",          // one range: no boundary to find, the worker faults at once
        "1, 600000",     // the worker faults halfway
        "2, 0",          // the boundary at 600,000 faults
        "4, 400000",     // the boundary at 300,000 reads fine, the one at 600,000 faults
        "4, 1000000",    // every boundary reads fine; the worker of the last range faults
        "7, 1100000"})   // every boundary reads fine; the worker of the last range faults
    void topExitsTwoWithOneLineAndNoResult(int threads, long length) throws Exception {
        Path file = input("top-" + threads + "-" + length + ".log");
        Ingest.afterMapping = () -> setLength(file, length);
        Cli.Result r = Cli.run("top", "--format", "tsv", "--stats", "--threads", Integer.toString(threads),
                file.toString());
        assertEquals(2, r.exit(), r.err());
        assertEquals("", r.out());
        assertEquals("hotkeeper: " + file + ": truncated while being read (1200000 bytes when opened, " + length
                + " now)\n", r.err());
    }

    @Test
    void anErrorOtherThanATruncationIsOneInternalErrorLineNotAStackTrace() throws Exception {
        Path file = input("error.log");
        Ingest.afterMapping = () -> {
            throw new OutOfMemoryError("simulated");
        };
        Cli.Result r = Cli.run("top", "--format", "tsv", file.toString());
        assertEquals(1, r.exit(), r.err());
        assertEquals("", r.out());
        assertEquals("hotkeeper: internal error: OutOfMemoryError: simulated\n"
                + "hotkeeper: (set HOTKEEPER_DEBUG=1 for the stack trace)\n", r.err());
    }

    @Test
    void aCompiledScannerFaultsTheSameWay() throws Exception {
        // Warm the scan loop up so that the truncated run likely reads through compiled code, where the JVM
        // raises the fault's error at a later safepoint poll rather than at the faulting load. The outcome must
        // not depend on which code reads.
        Path clean = input("warm.log");
        for (int i = 0; i < 10; i++) {
            assertEquals(LINES, ingest(clean, 1, () -> { }).keys);
        }
        for (int threads : new int[] {1, 4}) {
            Path file = input("compiled-" + threads + ".log");
            UserException e = assertThrows(UserException.class,
                    () -> ingest(file, threads, () -> setLength(file, 1_000_000)));
            assertEquals(file + ": truncated while being read (1200000 bytes when opened, 1000000 now)",
                    e.getMessage());
        }
    }

    @Test
    void topNamesTheFileThatShrankAmongSeveral() throws Exception {
        Path a = input("a.log");
        Path b = input("b.log");
        Ingest.afterMapping = () -> setLength(b, 0);
        Cli.Result r = Cli.run("top", "--threads", "2", a.toString(), b.toString());
        assertEquals(2, r.exit(), r.err());
        assertEquals("hotkeeper: " + b + ": truncated while being read (1200000 bytes when opened, 0 now)\n", r.err());
    }

    /** A JVM of its own, with the launcher's flags: the real exit code and stderr, no crash report. */
    @Test
    void aForkedRunExitsTwoWithOneLineOnStderr() throws Exception {
        Path file = input("forked.log");
        Path err = dir.resolve("forked.err");
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
                "--enable-native-access=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
                "-XX:+UseParallelGC", "-cp", System.getProperty("java.class.path"),
                TruncatingMain.class.getName(), file.toString(), "1000000", "top", "--threads", "4",
                file.toString()));
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectError(err.toFile()).start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "timed out");
        String stderr = Files.readString(err);
        assertEquals(2, p.exitValue(), stderr);
        assertEquals(0, out.length, new String(out, StandardCharsets.UTF_8));
        assertEquals("hotkeeper: " + file + ": truncated while being read (1200000 bytes when opened, 1000000 now)\n",
                stderr);
        try (var files = Files.list(dir)) {
            assertTrue(files.noneMatch(f -> f.getFileName().toString().startsWith("hs_err")), "JVM crash report");
        }
    }

    /** {@code TruncatingMain FILE LENGTH ARGS...}: runs the tool with ARGS, cutting FILE to LENGTH once mapped. */
    static final class TruncatingMain {
        public static void main(String[] args) {
            Path file = Path.of(args[0]);
            long length = Long.parseLong(args[1]);
            Ingest.afterMapping = () -> setLength(file, length);
            Main.main(java.util.Arrays.copyOfRange(args, 2, args.length));
        }
    }
}
