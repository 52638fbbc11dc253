package io.hotkeeper.cli;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The lengths of the heaviest keys in the head of the first input file, for the memory plan
 * ({@code HotkeeperBuilder.expectedKeyLengths}): the plan counts keys of up to 16 bytes unless told otherwise, and a
 * top of long keys (log lines, paths) that does not fit in the key shards is counted but never listed (docs/cli.md,
 * "Keys longer than the plan assumes"). Lines are read as {@code top} reads them (CR before LF dropped, empty lines,
 * lines longer than {@code --max-line-bytes} and lines without the key's field skipped, weights added where
 * {@code --weight-field} gives valid ones).
 * Threads: one. Progress: blocking (reads the file).
 */
final class KeySample {
    /** Bytes read from the head of the file. */
    static final int SAMPLE_BYTES = 1 << 20;

    private KeySample() {
    }

    /**
     * The lengths in bytes of the {@code k} keys with the largest count (or weight) in the first
     * {@link #SAMPLE_BYTES} of {@code file}, heaviest first (ties in an unspecified order); fewer if the head
     * holds fewer keys; none if {@code file} is not a regular file or cannot be read (the ingest then reports
     * why).
     *
     * @param field        the key's field (1-based), or 0: the whole line
     * @param weightField  the weight's field (1-based), or 0: each line counts 1
     * @param maxLineBytes longer lines (CR and LF excluded) are skipped, as the ingest skips them
     */
    static int[] topKeyLengths(String file, int k, int field, Splitter splitter, int weightField, long maxLineBytes) {
        byte[] head;
        try {
            Path path = Path.of(file);
            if (!Files.isRegularFile(path)) {
                return new int[0];
            }
            try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
                ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(SAMPLE_BYTES, channel.size()));
                while (buffer.hasRemaining() && channel.read(buffer) >= 0) {
                    // read until the buffer is full or the file ends
                }
                head = Arrays.copyOf(buffer.array(), buffer.position());
                if (buffer.position() < channel.size()) {
                    // The file goes on: the last line of the head may be cut, so it is left out.
                    int lastNewline = head.length - 1;
                    while (lastNewline >= 0 && head[lastNewline] != '\n') {
                        lastNewline--;
                    }
                    head = Arrays.copyOf(head, lastNewline + 1);
                }
            }
        } catch (IOException | RuntimeException e) {
            return new int[0];
        }
        return topKeyLengths(MemorySegment.ofArray(head), k, field, splitter, weightField, maxLineBytes);
    }

    /** {@link #topKeyLengths(String, int, int, Splitter, int, long)} on the lines of {@code seg}. */
    static int[] topKeyLengths(MemorySegment seg, int k, int field, Splitter splitter, int weightField,
                               long maxLineBytes) {
        Map<String, long[]> counts = new HashMap<>();
        long end = seg.byteSize();
        for (long pos = 0; pos < end; ) {
            long nl = LineScanner.indexOfNewline(seg, pos, end);
            long lineEnd = LineScanner.withoutCr(seg, pos, nl);
            if (lineEnd - pos > maxLineBytes) {
                pos = nl + 1;
                continue;
            }
            long from = field > 0 ? splitter.fieldStart(seg, pos, lineEnd, field) : pos;
            long to = from < 0 ? from : field > 0 ? splitter.fieldEnd(seg, from, lineEnd) : lineEnd;
            long weight = 1;
            if (weightField > 0) {
                long w = splitter.fieldStart(seg, pos, lineEnd, weightField);
                weight = w < 0 ? Weight.MALFORMED : Weight.parse(seg, w, splitter.fieldEnd(seg, w, lineEnd));
                weight = Math.min(weight, Weight.MAX); // TOO_LARGE (-2) stays out; the ingest reports it
            }
            if (from >= 0 && to > from && weight > 0) {
                byte[] key = seg.asSlice(from, to - from).toArray(ValueLayout.JAVA_BYTE);
                counts.computeIfAbsent(new String(key, StandardCharsets.ISO_8859_1), x -> new long[1])[0] += weight;
            }
            pos = nl + 1;
        }
        return counts.entrySet().stream()
                .sorted((a, b) -> Long.compare(b.getValue()[0], a.getValue()[0]))
                .limit(k)
                .mapToInt(e -> e.getKey().length())
                .toArray();
    }
}
