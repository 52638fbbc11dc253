package io.hotkeeper.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** {@link KeySample}: the lengths of the heaviest keys of a file's head, read as {@code top} reads lines. */
class KeySampleTest {
    /** No line is too long. */
    private static final long ANY = Long.MAX_VALUE;

    @TempDir
    Path dir;

    private static MemorySegment text(String s) {
        return MemorySegment.ofArray(s.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void theHeaviestKeysComeFirstAndOnlyKOfThem() {
        String lines = "a\nbbbb\nbbbb\ncc\r\ncc\ncc\n\n";
        assertArrayEquals(new int[] {2, 4}, KeySample.topKeyLengths(text(lines), 2, 0, Splitter.BLANKS, 0, ANY));
        assertArrayEquals(new int[] {2, 4, 1}, KeySample.topKeyLengths(text(lines), 10, 0, Splitter.BLANKS, 0, ANY));
        // A last line without LF is a key too.
        assertArrayEquals(new int[] {3}, KeySample.topKeyLengths(text("xyz"), 5, 0, Splitter.BLANKS, 0, ANY));
    }

    @Test
    void fieldsAndWeightsAreReadAsTopReadsThem() {
        String lines = "GET /a 1\nGET /bbbbbb 1\nGET /a 1\nPOST /cc 100\nGET\nGET /dd x\n";
        // Field 2 weighted by field 3: /cc (100) before /a (2) and /bbbbbb (1); the line without a second field and
        // the one with a bad weight are left out.
        assertArrayEquals(new int[] {3, 2, 7},
                KeySample.topKeyLengths(text(lines), 5, 2, Splitter.BLANKS, 3, ANY));
        // Unweighted: /a (2) first.
        assertEquals(2, KeySample.topKeyLengths(text(lines), 5, 2, Splitter.BLANKS, 0, ANY)[0]);
        assertArrayEquals(new int[] {2, 1}, KeySample.topKeyLengths(text("x,yy\nx,yy\nz,w\n"), 2, 2,
                Splitter.single((byte) ','), 0, ANY));
    }

    @Test
    void aFileIsReadFromItsHeadAndItsCutLastLineLeftOut() throws IOException {
        // Lines of 10 bytes (9 + LF) past the sample's end, then one heavy key beyond it.
        StringBuilder head = new StringBuilder();
        while (head.length() < KeySample.SAMPLE_BYTES + 5) {
            head.append("abcdefgh").append((char) ('0' + head.length() / 10 % 2)).append('\n');
        }
        Path file = Files.writeString(dir.resolve("big.txt"), head + "tail-key-only-after-the-head\n".repeat(50_000));
        int[] lengths = KeySample.topKeyLengths(file.toString(), 10, 0, Splitter.BLANKS, 0, ANY);
        assertArrayEquals(new int[] {9, 9}, lengths);
        // Neither a directory nor a missing file is sampled (the ingest reports them).
        assertEquals(0, KeySample.topKeyLengths(dir.toString(), 10, 0, Splitter.BLANKS, 0, ANY).length);
        assertEquals(0, KeySample.topKeyLengths(dir.resolve("missing").toString(), 10, 0, Splitter.BLANKS, 0, ANY)
                .length);
    }

    @Test
    void linesTheIngestSkipsAsTooLongAreNotSampled() {
        // The heaviest line (10 bytes) is over --max-line-bytes 6; a 6-byte line before its CR is not.
        String lines = "aaaaaaaaaa\naaaaaaaaaa\naaaaaaaaaa\ndddddd\r\ndddddd\nb\n";
        assertArrayEquals(new int[] {6, 1}, KeySample.topKeyLengths(text(lines), 5, 0, Splitter.BLANKS, 0, 6));
        assertArrayEquals(new int[] {10, 6, 1}, KeySample.topKeyLengths(text(lines), 5, 0, Splitter.BLANKS, 0, ANY));
    }
}
