package io.hotkeeper.cli;

import io.hotkeeper.engine.HeavyHitter;
import io.hotkeeper.engine.snapshot.HotkeeperSnapshot;
import io.hotkeeper.engine.snapshot.SnapshotFormatException;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Snapshot files for the CLI ({@code top --save}, {@code merge}, {@code show}): writing one, reading one with a
 * one-line message for a bad file, and printing a top-k in the formats of {@code top} (docs/cli.md).
 */
final class SnapshotFiles {
    private SnapshotFiles() {
    }

    /** Writes {@code snapshot} to {@code file} (through a temporary file and a rename). */
    static void save(HotkeeperSnapshot snapshot, String file) {
        Path target = Path.of(file);
        Path dir = target.toAbsolutePath().getParent();
        try {
            Path temp = Files.createTempFile(dir, target.getFileName().toString(), ".tmp");
            try {
                Files.write(temp, snapshot.toBytes());
                Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(temp);
            }
        } catch (IOException | UnsupportedOperationException e) {
            throw new UserException(file + ": cannot write the snapshot: " + Ingest.reason(e));
        }
    }

    /** Reads the snapshot in {@code file} (memory-mapped; the file must be exactly one snapshot). */
    static HotkeeperSnapshot read(String file) {
        try (FileChannel channel = FileChannel.open(Path.of(file), StandardOpenOption.READ);
             Arena arena = Arena.ofConfined()) {
            MemorySegment bytes = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size(), arena);
            return HotkeeperSnapshot.read(bytes);
        } catch (SnapshotFormatException e) {
            throw new UserException(file + ": " + e.getMessage());
        } catch (NoSuchFileException e) {
            throw new UserException(file + ": no such file");
        } catch (IOException e) {
            throw new UserException(file + ": cannot read: " + Ingest.reason(e));
        }
    }

    /** The top {@code k} of a snapshot, ordered as {@code top} orders them (estimate, then key bytes). */
    static List<HeavyHitter> top(HotkeeperSnapshot snapshot, int k) {
        // Ask for twice as many so that keys tied at the k-th place compete by key, as Report.top does.
        return Report.rank(snapshot.topK((int) Math.min(Integer.MAX_VALUE / 2, 2L * k)), k);
    }

    /** Prints {@code top} as table, tsv or json rows, exactly as {@code hotkeeper top} does. */
    static void print(PrintWriter out, List<HeavyHitter> top, Report.Format format) throws IOException {
        new Report(format).write(out, top);
    }
}
