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
import java.util.Objects;

/**
 * A file read like {@code tail -F} ({@code --follow}): from its start, then whatever is appended, never at an
 * end. At the end of the data it polls: a different file now at the path (rotation by rename and create) is
 * opened and read from its start once the old one is read to its end; a file now shorter than what was read
 * (rotation by {@code copytruncate}) is read again from its start; a path with no file is waited for. Threads:
 * one reader. Progress: blocking.
 */
final class FollowStream extends InputStream {
    /** How often the end of the data is polled. */
    static final Duration POLL = Duration.ofMillis(200);

    private final Path path;
    private FileChannel channel;
    private Object fileKey;

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
            int n = channel.read(ByteBuffer.wrap(b, off, len));
            if (n > 0) {
                return n;
            }
            if (!switchFile()) {
                try {
                    Thread.sleep(POLL);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("interrupted while following " + path);
                }
            }
        }
    }

    /** At the end of the data: reopens a rotated file or rewinds a truncated one; false if nothing changed. */
    private boolean switchFile() throws IOException {
        BasicFileAttributes now;
        try {
            now = Files.readAttributes(path, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
            return false; // rotated away, the new file not created yet
        }
        if (!Objects.equals(now.fileKey(), fileKey)) {
            FileChannel next;
            try {
                next = FileChannel.open(path, StandardOpenOption.READ);
            } catch (NoSuchFileException e) {
                return false;
            }
            channel.close();
            channel = next;
            fileKey = now.fileKey();
            return true;
        }
        if (channel.size() < channel.position()) {
            channel.position(0);
            return true;
        }
        return false;
    }

    @Override
    public int available() throws IOException {
        return (int) Math.clamp(channel.size() - channel.position(), 0, Integer.MAX_VALUE);
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
