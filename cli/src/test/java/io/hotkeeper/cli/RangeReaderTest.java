package io.hotkeeper.cli;

import io.hotkeeper.engine.Hotkeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A file read range by range into a small buffer gives what one scan of all its bytes gives: the same keys with the
 * same counts, and the same empty and too-long lines, wherever the buffer's ends fall.
 */
class RangeReaderTest {
    private static final int MAX_LINE = 300;

    @TempDir
    Path dir;

    /**
     * Lines of 0 to 40 bytes from 150 distinct keys, some ending in CRLF, and now and then one of 200 to 1,000 bytes
     * (some within the line limit, longer than the buffers below; some past it); the last line has no LF.
     */
    private static byte[] text(long seed) {
        Random random = new Random(seed);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < 6000; i++) {
            String line;
            int kind = random.nextInt(100);
            if (kind == 0) {
                line = "long-" + "x".repeat(200 + random.nextInt(800));
            } else if (kind < 5) {
                line = "";
            } else {
                line = "key-" + random.nextInt(150) + "-" + "y".repeat(random.nextInt(30));
            }
            out.writeBytes(line.getBytes(StandardCharsets.US_ASCII));
            out.writeBytes(random.nextInt(10) == 0 ? new byte[] {'\r', '\n'} : new byte[] {'\n'});
        }
        out.writeBytes("last-without-lf".getBytes(StandardCharsets.US_ASCII));
        return out.toByteArray();
    }

    private static Hotkeeper sketch() {
        return Hotkeeper.builder().seed(5).minCount(1).memoryBytes(1 << 20).build();
    }

    /** The distinct whole lines of {@code data} (CR dropped), the keys whose counts are compared. */
    private static List<String> keys(byte[] data) {
        List<String> keys = new ArrayList<>();
        for (String line : new String(data, StandardCharsets.US_ASCII).split("\n", -1)) {
            String key = line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
            if (!key.isEmpty() && key.length() <= MAX_LINE && !keys.contains(key)) {
                keys.add(key);
            }
        }
        return keys;
    }

    @ParameterizedTest(name = "buffer {0} bytes")
    @ValueSource(ints = {16, 64, 257, 4096, 1 << 20})
    void rangesReadInPiecesCountWhatOneScanCounts(int bufferBytes) throws Exception {
        byte[] data = text(bufferBytes);
        Path file = dir.resolve("lines-" + bufferBytes + ".txt");
        Files.write(file, data);
        try (Hotkeeper expected = sketch(); Hotkeeper actual = sketch();
             FileChannel channel = FileChannel.open(file)) {
            LineScanner whole = new LineScanner(expected, 0, (byte) '\t', MAX_LINE, 256);
            whole.scan(MemorySegment.ofArray(data), 0, data.length);

            LineScanner scanner = new LineScanner(actual, 0, (byte) '\t', MAX_LINE, 256);
            Ingest.Source source = new Ingest.Source(file.toString(), channel, data.length, null);
            try (RangeReader reader = new RangeReader(scanner, bufferBytes)) {
                // Line-aligned ranges of about 10 KiB, as Ingest cuts them.
                long start = 0;
                while (start < data.length) {
                    long end = Math.min(data.length, start + 10_000);
                    while (end < data.length && data[(int) end - 1] != '\n') {
                        end++;
                    }
                    reader.read(source, 0, start, end);
                    start = end;
                }
            }
            assertEquals(whole.tally.keys, scanner.tally.keys);
            assertEquals(whole.tally.empty, scanner.tally.empty);
            assertEquals(whole.tally.tooLong, scanner.tally.tooLong);
            assertEquals(whole.tally.skipped(), scanner.tally.skipped());
            for (String key : keys(data)) {
                assertEquals(expected.estimate(key), actual.estimate(key), key);
            }
            assertEquals(1, actual.estimate("last-without-lf"));
        }
    }

    @Test
    void weightsAndTheFirstBadWeightsFileOffsetSurviveTheBufferEnds() throws Exception {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 500; i++) {
            text.append("k").append(i % 7).append(',').append(i == 321 ? "x" : Integer.toString(i % 5 + 1)).append('\n');
        }
        byte[] data = text.toString().getBytes(StandardCharsets.US_ASCII);
        Path file = dir.resolve("weighted.txt");
        Files.write(file, data);
        try (Hotkeeper expected = sketch(); Hotkeeper actual = sketch(); FileChannel channel = FileChannel.open(file)) {
            LineScanner whole = new LineScanner(expected, 1, Splitter.single((byte) ','), 2, MAX_LINE, 256);
            whole.scan(MemorySegment.ofArray(data), 0, data.length, 0, 0, -1);
            LineScanner scanner = new LineScanner(actual, 1, Splitter.single((byte) ','), 2, MAX_LINE, 256);
            try (RangeReader reader = new RangeReader(scanner, 16)) {
                reader.read(new Ingest.Source(file.toString(), channel, data.length, null), 0, 0, data.length);
            }
            assertEquals(1, scanner.tally.badWeights);
            assertEquals(whole.tally.firstBadWeight.offset(), scanner.tally.firstBadWeight.offset());
            assertEquals(text.indexOf("k6,x"), scanner.tally.firstBadWeight.offset());
            for (int k = 0; k < 7; k++) {
                assertEquals(expected.estimate("k" + k), actual.estimate("k" + k));
            }
        }
    }

    @Test
    void aFileShorterThanItsRangeIsReportedAsTruncated() throws Exception {
        Path file = dir.resolve("short.txt");
        Files.writeString(file, "a\nb\nc\n");
        try (Hotkeeper hk = sketch(); FileChannel channel = FileChannel.open(file);
             RangeReader reader = new RangeReader(new LineScanner(hk, 0, (byte) '\t', MAX_LINE, 256), 16)) {
            Ingest.Source opened = new Ingest.Source(file.toString(), channel, 100, null);
            UserException e = assertThrows(UserException.class, () -> reader.read(opened, 0, 0, 100));
            assertEquals(file + ": truncated while being read (100 bytes when opened, 6 now)", e.getMessage());
        }
    }

    @Test
    void lastLineEndIsJustPastTheLastLf() {
        MemorySegment s = MemorySegment.ofArray("ab\ncd\nef".getBytes(StandardCharsets.US_ASCII));
        assertEquals(6, RangeReader.lastLineEnd(s, 0, 8));
        assertEquals(3, RangeReader.lastLineEnd(s, 0, 5));
        assertEquals(3, RangeReader.lastLineEnd(s, 3, 5)); // none ends in [3, 5): from itself
    }
}
