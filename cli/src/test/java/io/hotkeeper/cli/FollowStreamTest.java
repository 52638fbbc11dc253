package io.hotkeeper.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link FollowStream} across rotations, read in-process: each read returns what the file holds at that moment,
 * so no step waits for more than one poll ({@link FollowStream#POLL}).
 */
@Timeout(value = 20, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class FollowStreamTest {
    @TempDir
    Path dir;

    /** Reads until {@code expected.length()} bytes have come (each read blocks at most until data is there). */
    private static String read(FollowStream in, int bytes) throws IOException {
        byte[] buf = new byte[bytes];
        int filled = 0;
        while (filled < bytes) {
            filled += in.read(buf, filled, bytes - filled);
        }
        return new String(buf, StandardCharsets.UTF_8);
    }

    private FollowStream follow(Path log) throws IOException {
        return new FollowStream(log, FileChannel.open(log, StandardOpenOption.READ));
    }

    @Test
    void theOldFilesUnterminatedLastLineEndsAtARotation() throws Exception {
        Path log = dir.resolve("log.txt");
        Files.writeString(log, "foo");
        try (FollowStream in = follow(log)) {
            assertEquals("foo", read(in, 3));
            Files.move(log, dir.resolve("log.1"));
            Files.writeString(log, "bar\n");
            // Not "foobar": the rotation ends the old file's last line.
            assertEquals("\nbar\n", read(in, 5));
        }
    }

    @Test
    void aTerminatedLastLineGetsNoExtraNewlineAtARotation() throws Exception {
        Path log = dir.resolve("log.txt");
        Files.writeString(log, "foo\n");
        try (FollowStream in = follow(log)) {
            assertEquals("foo\n", read(in, 4));
            Files.move(log, dir.resolve("log.1"));
            Files.writeString(log, "bar\n");
            assertEquals("bar\n", read(in, 4));
        }
    }

    @Test
    void whatTheOldFileGetsAfterTheRenameIsReadBeforeTheNewFile() throws Exception {
        Path log = dir.resolve("log.txt");
        Files.writeString(log, "a\n");
        try (FollowStream in = follow(log)) {
            assertEquals("a\n", read(in, 2));
            Path old = dir.resolve("log.1");
            Files.move(log, old);
            Files.writeString(old, "late\n", StandardOpenOption.APPEND); // the writer had it open still
            Files.writeString(log, "new\n");
            assertEquals("late\nnew\n", read(in, 9));
        }
    }

    @Test
    void copytruncateIsSeenEvenIfTheFileGrewBackPastWhereItWasRead() throws Exception {
        Path log = dir.resolve("log.txt");
        Files.writeString(log, "aaaa\n");
        try (FollowStream in = follow(log)) {
            assertEquals("aaaa\n", read(in, 5));
            // Emptied and written again, longer than before, within one poll: its size alone says nothing.
            Files.writeString(log, "bbbbbbbb\n", StandardOpenOption.TRUNCATE_EXISTING);
            assertEquals("bbbbbbbb\n", read(in, 9));
        }
    }

    @Test
    void copytruncateEndsTheUnterminatedLastLine() throws Exception {
        Path log = dir.resolve("log.txt");
        Files.writeString(log, "foo");
        try (FollowStream in = follow(log)) {
            assertEquals("foo", read(in, 3));
            Files.writeString(log, "bar\n", StandardOpenOption.TRUNCATE_EXISTING);
            assertEquals("\nbar\n", read(in, 5));
        }
    }

    @Test
    void appendedBytesAreReadOnceAndInOrder() throws Exception {
        Path log = dir.resolve("log.txt");
        Files.writeString(log, "one\n");
        try (FollowStream in = follow(log)) {
            assertEquals("one\n", read(in, 4));
            Files.writeString(log, "two\n", StandardOpenOption.APPEND);
            assertEquals("two\n", read(in, 4));
            Files.writeString(log, "thr", StandardOpenOption.APPEND);
            assertEquals("thr", read(in, 3));
            Files.writeString(log, "ee\n", StandardOpenOption.APPEND);
            assertEquals("ee\n", read(in, 3));
        }
    }
}
