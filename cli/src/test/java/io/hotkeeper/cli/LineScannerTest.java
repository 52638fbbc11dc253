package io.hotkeeper.cli;

import io.hotkeeper.engine.Hotkeeper;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LineScannerTest {
    private static Hotkeeper sketch() {
        return Hotkeeper.builder().seed(1).minCount(1).build();
    }

    private static MemorySegment seg(String s) {
        return MemorySegment.ofArray(s.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void indexOfNewlineMatchesANaiveScan() {
        Random random = new Random(3);
        for (int i = 0; i < 2000; i++) {
            byte[] data = new byte[random.nextInt(70)];
            for (int j = 0; j < data.length; j++) {
                data[j] = (byte) (random.nextInt(8) == 0 ? '\n' : random.nextInt(256));
            }
            MemorySegment s = MemorySegment.ofArray(data);
            int from = data.length == 0 ? 0 : random.nextInt(data.length);
            int expected = data.length;
            for (int j = from; j < data.length; j++) {
                if (data[j] == '\n') {
                    expected = j;
                    break;
                }
            }
            assertEquals(expected, LineScanner.indexOfNewline(s, from, data.length));
        }
    }

    @Test
    void linesCrlfAndEmptyLines() {
        try (Hotkeeper hk = sketch()) {
            LineScanner scanner = new LineScanner(hk, 0, (byte) '\t', 1 << 20, 64);
            MemorySegment s = seg("a\r\nb\n\n\r\na\nlast-without-lf");
            scanner.scan(s, 0, s.byteSize());
            assertEquals(4, scanner.tally.keys);
            assertEquals(2, scanner.tally.empty);
            assertEquals(2, hk.estimate("a"));
            assertEquals(1, hk.estimate("b"));
            assertEquals(1, hk.estimate("last-without-lf"));
            assertEquals(0, hk.estimate("a\r"));
        }
    }

    @Test
    void fieldsTooLongAndTruncated() {
        try (Hotkeeper hk = sketch()) {
            LineScanner scanner = new LineScanner(hk, 2, (byte) ',', 25, 4);
            MemorySegment s = seg("x,GET,200\ny,GET\nz\n,,\nw,POST,500\r\nv,a-much-longer-key,1\n"
                    + "u,this line is far too long for the limit\n");
            scanner.scan(s, 0, s.byteSize());
            assertEquals(4, scanner.tally.keys);
            assertEquals(1, scanner.tally.missingField);
            assertEquals(1, scanner.tally.empty);
            assertEquals(1, scanner.tally.tooLong);
            assertEquals(1, scanner.tally.truncatedKeys);
            assertEquals(2, hk.estimate("GET"));
            assertEquals(1, hk.estimate("POST"));
            assertEquals(1, hk.estimate("a-much-longer-key"));
        }
    }

    @Test
    void linesAcrossSlicesAreCountedOnceInBothLoops() {
        // Lines of up to 3,000 bytes and one longer than a slice, so lines start just before, at and after every
        // slice limit; the last line has no LF. Whole lines (one loop) and a field of the line (the other).
        Random random = new Random(11);
        StringBuilder text = new StringBuilder();
        int[] counts = new int[10];
        int lines = 0;
        while (text.length() < 5 * LineScanner.SLICE) {
            int key = random.nextInt(counts.length);
            int pad = lines == 40 ? (int) LineScanner.SLICE + 100 : random.nextInt(3000);
            text.append("key").append(key).append('\t').append("p".repeat(pad)).append(lines % 7 == 0 ? "\r\n" : "\n");
            counts[key]++;
            lines++;
        }
        text.append("key0\tlast");
        counts[0]++;
        lines++;
        MemorySegment s = seg(text.toString());
        try (Hotkeeper whole = sketch(); Hotkeeper field = sketch()) {
            LineScanner wholeLines = new LineScanner(whole, 0, (byte) '\t', 1 << 20, 1 << 20);
            LineScanner fields = new LineScanner(field, 1, (byte) '\t', 1 << 20, 256);
            wholeLines.scan(s, 0, s.byteSize());
            fields.scan(s, 0, s.byteSize());
            assertEquals(lines, wholeLines.tally.keys);
            assertEquals(lines, fields.tally.keys);
            assertEquals(0, wholeLines.tally.skipped() + fields.tally.skipped());
            for (int key = 0; key < counts.length; key++) {
                assertEquals(counts[key], field.estimate("key" + key), "key" + key);
            }
            assertEquals(1, whole.estimate("key0\tlast"));
        }
    }

    @Test
    void rangesCoverTheFileAndEndAfterNewlines() {
        StringBuilder text = new StringBuilder();
        Random random = new Random(5);
        while (text.length() < 700_000) {
            text.append("k".repeat(random.nextInt(200))).append('\n');
        }
        text.append("tail");
        MemorySegment s = seg(text.toString());
        for (int threads : new int[] {1, 2, 3, 7, 64}) {
            // 1 thread: ranges as long as allowed (one here); more: RANGES_PER_WORKER each, at least MIN_CHUNK long
            List<long[]> ranges = Ingest.cutPoints(s, threads);
            long expectedStart = 0;
            for (long[] r : ranges) {
                assertEquals(expectedStart, r[0]);
                if (r[1] < s.byteSize()) {
                    assertEquals('\n', text.charAt((int) r[1] - 1));
                }
                expectedStart = r[1];
            }
            assertEquals(s.byteSize(), expectedStart);
            assertTrue(ranges.size() >= Math.min(threads, s.byteSize() / Ingest.MIN_CHUNK), ranges.size() + "");
            assertTrue(ranges.size() <= Math.max(threads, s.byteSize() / Ingest.MIN_CHUNK + 1), ranges.size() + "");
            if (threads > 1) { // several ranges per worker, so that the workers finish together
                assertTrue(ranges.size() >= Math.min((long) Ingest.RANGES_PER_WORKER * threads,
                        s.byteSize() / Ingest.MIN_CHUNK), threads + " threads: " + ranges.size() + " ranges");
            }
        }
    }

    @Test
    void weightsThatTakeTheRunsTotalPastTheLargestLongStopTheScanAtThatLine() {
        byte[] text = "a\t5\nb\t6\nc\t7\n".getBytes(StandardCharsets.UTF_8);
        try (Hotkeeper hk = sketch()) {
            // Other workers of the run have added all but 10 units already: line 2 takes the total past the limit.
            java.util.concurrent.atomic.AtomicLong run = new java.util.concurrent.atomic.AtomicLong(Long.MAX_VALUE - 10);
            LineScanner scanner = new LineScanner(hk, 1, Splitter.single((byte) '\t'), 2, 1 << 20, 256, run,
                    null);
            WeightLimitException e = org.junit.jupiter.api.Assertions.assertThrows(WeightLimitException.class,
                    () -> scanner.scan(MemorySegment.ofArray(text), 0, text.length, 0, 0, 1));
            assertEquals(2, e.at.line());
            assertEquals(4, e.at.offset());
            assertTrue(e.getMessage().startsWith("the weights add up to more than 9223372036854775807"), e.getMessage());
            assertEquals(Long.MAX_VALUE - 10, run.get()); // what the failed scan observed is not added
        }
    }

    @Test
    void theLargestWeightIsTheLargestSlotCount() {
        assertEquals(io.hotkeeper.engine.table.TableLayout.MAX_COUNT, Weight.MAX);
    }

    @Test
    void eachScanAddsItsWeightsToTheRunsTotal() {
        byte[] text = "a\t5\nb\t6\nc\t0\n".getBytes(StandardCharsets.UTF_8);
        try (Hotkeeper hk = sketch()) {
            java.util.concurrent.atomic.AtomicLong run = new java.util.concurrent.atomic.AtomicLong();
            LineScanner one = new LineScanner(hk, 1, Splitter.single((byte) '\t'), 2, 1 << 20, 256, run, null);
            LineScanner two = new LineScanner(hk, 1, Splitter.single((byte) '\t'), 2, 1 << 20, 256, run, null);
            one.scan(MemorySegment.ofArray(text), 0, text.length);
            two.scan(MemorySegment.ofArray(text), 0, text.length);
            assertEquals(22, run.get());
        }
    }

    /**
     * {@code --live}'s running total: every scanner adds what it observed after each slice, so once the scans are
     * done it holds the run's lines (or weights) exactly, over several scanners and several scans each, slices
     * of 64 KiB included; the weight-limit total is kept apart.
     */
    @Test
    void theRunningTotalHoldsEveryScannersLinesOrWeights() {
        StringBuilder big = new StringBuilder();
        int lines = 0;
        while (big.length() < 3 * LineScanner.SLICE) {
            big.append("key-").append(lines % 97).append('\t').append(1 + lines % 4).append('\n');
            lines++;
        }
        long weights = 0;
        for (int i = 0; i < lines; i++) {
            weights += 1 + i % 4;
        }
        byte[] text = big.toString().getBytes(StandardCharsets.UTF_8);
        for (int weightField : new int[] {0, 2}) {
            try (Hotkeeper hk = sketch()) {
                java.util.concurrent.atomic.AtomicLong run = new java.util.concurrent.atomic.AtomicLong();
                java.util.concurrent.atomic.AtomicLong seen = new java.util.concurrent.atomic.AtomicLong();
                LineScanner one = new LineScanner(hk, 1, Splitter.single((byte) '\t'), weightField, 1 << 20, 256,
                        run, seen);
                LineScanner two = new LineScanner(hk, 1, Splitter.single((byte) '\t'), weightField, 1 << 20, 256,
                        run, seen);
                one.scan(MemorySegment.ofArray(text), 0, text.length);
                two.scan(MemorySegment.ofArray(text), 0, text.length);
                one.scan(MemorySegment.ofArray(text), 0, text.length);
                long expected = 3L * (weightField > 0 ? weights : lines);
                assertEquals(expected, seen.get(), "weight field " + weightField);
                assertEquals(weightField > 0 ? expected : 0, run.get(), "weight field " + weightField);
            }
        }
    }
}
