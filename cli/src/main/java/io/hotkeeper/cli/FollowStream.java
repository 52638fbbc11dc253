package io.hotkeeper.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;

/**
 * A file read like {@code tail -F} ({@code --follow}): from its start, then whatever is appended, never at an
 * end. Whenever it has read to the end of the data it checks the path: a different file now at the path (rotation
 * by rename and create) is opened and read from its start once the old one is read to its end; a file whose
 * content was replaced in place (rotation by {@code copytruncate}) is read again from its start; a path with no
 * file is waited for, polling every {@link #POLL}. Threads: one reader. Progress: blocking.
 *
 * <p>Lines never span two files: when it moves to the new file, or back to the start of a truncated one, and the
 * last byte it gave was not an LF, it gives an LF first, so the old file's unterminated last line is a line of its
 * own (as {@code tail -F} prints it), not the start of the new file's first line.
 *
 * <p>Copytruncate is seen by the file being shorter than what was read, or else by its last bytes read (up to
 * {@link #TAIL}, kept as they were given) no longer being at the same place: one positional read of at most
 * {@link #TAIL} bytes each time the end of the data is reached, so a file emptied and written back past the point
 * read within one poll is still seen. Its limit: a file truncated and rewritten with the very same bytes at the same
 * place up to the point read (a log of one repeated line, rewritten exactly as long again before a poll) looks
 * unchanged, and is read on from there. A rotation that happens while data keeps coming is seen at the next end.
 */
final class FollowStream extends InputStream {
    /** How often the end of the data is polled. */
    static final Duration POLL = Duration.ofMillis(200);
    /** The most of the last bytes given that are kept to see a file rewritten in place. */
    static final int TAIL = 64;

    private final Path path;
    private FileChannel channel;
    private Object fileKey;
    /** The last bytes given from the current file, {@code tail[0, tailLength)}, oldest first. */
    private final byte[] tail = new byte[TAIL];
    private int tailLength;
    /** Whether the last byte given (from any file) was not an LF: a file switch then gives an LF first. */
    private boolean lineOpen;
    /** An LF to give before anything else (a switch ended an unterminated line). */
    private boolean newlineOwed;
    /** Whether the reader reached the end of the data since the last check of the path ({@link #switchFile}). */
    private boolean atEnd;

    /** Run after each poll's wait: it may throw to end the wait (an ingest worker failed). */
    private Runnable onPoll = () -> { };

    /** Follows {@code channel}, opened on {@code path}. */
    FollowStream(Path path, FileChannel channel) throws IOException {
        this.path = path;
        this.channel = channel;
        this.fileKey = Files.readAttributes(path, BasicFileAttributes.class).fileKey();
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        if (len == 0) {
            return 0;
        }
        while (true) {
            // After the end of the data was reached, the path is checked before reading on: the file may have
            // been replaced, or rewritten in place past the point read, meanwhile.
            if (atEnd) {
                atEnd = false;
                switchFile();
            }
            if (newlineOwed) {
                newlineOwed = false;
                lineOpen = false;
                b[off] = '\n';
                return 1;
            }
            int n = channel.read(ByteBuffer.wrap(b, off, len));
            if (n > 0) {
                given(b, off, n);
                atEnd = channel.position() >= channel.size();
                return n;
            }
            if (!switchFile()) {
                try {
                    Thread.sleep(POLL);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("interrupted while following " + path);
                }
                onPoll.run();
                atEnd = true;
            }
        }
    }

    /** Keeps the last bytes of {@code b[off, off + n)} just given, in {@link #tail}. */
    private void given(byte[] b, int off, int n) {
        lineOpen = b[off + n - 1] != '\n';
        if (n >= TAIL) {
            System.arraycopy(b, off + n - TAIL, tail, 0, TAIL);
            tailLength = TAIL;
            return;
        }
        int keep = Math.min(tailLength, TAIL - n);
        System.arraycopy(tail, tailLength - keep, tail, 0, keep);
        System.arraycopy(b, off, tail, keep, n);
        tailLength = keep + n;
    }

    /**
     * At the end of the data: reopens a rotated file (once the old one has nothing more to read) or rewinds a
     * truncated one, owing an LF if a line was open; false if nothing changed.
     */
    private boolean switchFile() throws IOException {
        BasicFileAttributes now;
        try {
            now = Files.readAttributes(path, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
            return false; // rotated away, the new file not created yet
        }
        if (!Objects.equals(now.fileKey(), fileKey)) {
            if (channel.size() > channel.position()) {
                return true; // the old file got more after it was renamed (its writer had it open): read it first
            }
            FileChannel next;
            try {
                next = FileChannel.open(path, StandardOpenOption.READ);
            } catch (NoSuchFileException e) {
                return false;
            }
            channel.close();
            channel = next;
            fileKey = now.fileKey();
            restart();
            return true;
        }
        if (channel.size() < channel.position() || !tailUnchanged()) {
            channel.position(0);
            restart();
            return true;
        }
        return false;
    }

    /** Whether the file still holds the last bytes given at the place they were read from. */
    private boolean tailUnchanged() throws IOException {
        if (tailLength == 0) {
            return true;
        }
        ByteBuffer now = ByteBuffer.allocate(tailLength);
        long at = channel.position() - tailLength;
        while (now.hasRemaining()) {
            int n = channel.read(now, at + now.position());
            if (n < 0) {
                return false; // shrank meanwhile
            }
        }
        return Arrays.equals(now.array(), 0, tailLength, tail, 0, tailLength);
    }

    /** A new file, or the same one from its start: its first line must not continue the last one given. */
    private void restart() {
        tailLength = 0;
        newlineOwed = lineOpen;
    }

    /** Sets what runs after each poll's wait, on the reading thread; an exception it throws leaves {@link #read}. */
    void onPoll(Runnable check) {
        this.onPoll = check;
    }

    @Override
    public int available() throws IOException {
        return newlineOwed ? 1 : (int) Math.clamp(channel.size() - channel.position(), 0, Integer.MAX_VALUE);
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
