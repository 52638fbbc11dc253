package io.hotkeeper.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link HeadKeyLengths} gives a harness the lengths {@code hotkeeper top} samples: the heaviest whole lines. */
class HeadKeyLengthsTest {
    @Test
    void theHeaviestLinesLengthsHeaviestFirst(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("stream.txt");
        // Three of a 30-byte line, two of a 5-byte one (one with CRLF), one 2-byte line, blank lines skipped.
        Files.writeString(file, "x".repeat(30) + "\nfives\n\n" + "x".repeat(30) + "\nfives\r\nzz\n" + "x".repeat(30)
                + "\n");
        assertArrayEquals(new int[] {30, 5}, HeadKeyLengths.of(file.toString(), 2));
        assertArrayEquals(new int[0], HeadKeyLengths.of(dir.resolve("missing.txt").toString(), 2));
    }
}
