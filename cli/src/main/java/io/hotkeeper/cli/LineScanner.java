package io.hotkeeper.cli;

import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.HotkeeperWriter;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Splits a byte range into lines and observes one key per line straight from the segment: no copy, no String.
 * A line ends at LF; a CR before the LF is dropped; an empty line (or empty field) is skipped; with a field
 * number, the key is that field of the line, as a {@link Splitter} finds it ({@code cut}-style or awk-style); with
 * a weight field, the line adds that field's number to its key (a missing or malformed weight skips the line; one
 * above {@link Weight#MAX}, or one that takes the run's total past {@link Long#MAX_VALUE}, stops the run with a
 * {@link WeightLimitException}).
 * Newlines are found eight bytes at a time. Unweighted keys go through a {@link HotkeeperWriter} made by the
 * scanning thread at its first {@link #scan} (no worker lookup per key). Threads: one per instance (each worker
 * has its own, and only the thread that scanned first may scan it). Progress: lock-free (the sketch's observe).
 */
final class LineScanner {
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;
    private static final long NEWLINES = ONES * '\n';

    /**
     * Bytes of one {@link #scanKeys} or {@link #scanLines} call: the lines that start within it (the last one may
     * run past it; lines are never split).
     */
    static final long SLICE = 64 << 10;

    private final Hotkeeper hk;
    private final int field;
    private final Splitter splitter;
    private final int weightField;
    private final long maxLineBytes;
    private final long maxKeyBytes;
    final Tally tally = new Tally();
    /** The scanning thread's writer, made at its first scan (a writer belongs to the thread that made it). */
    private HotkeeperWriter writer;
    /** Where the line being scanned is (for the position of a bad weight): input, its offset base, line. */
    private int source;
    private long base;
    private long lineNumber;
    /**
     * Weighted runs: the sum of the weights every scanner of the run has observed, shared by them and added to at
     * the end of each {@link #scan} (a CAS loop that refuses to pass {@link Long#MAX_VALUE}: the sketch's total,
     * {@code Hotkeeper.totalWeight()}, is a long). Within one scan, lines are checked against {@link #headroom}.
     */
    private final AtomicLong runWeight;
    /** What the run's total could still take when this scan started. */
    private long headroom;
    /** The weights this scan has observed so far. */
    private long scannedWeight;
    /**
     * The run's running total for {@code --live} and {@code --save} (the lines, or with weights their sum, that
     * every scanner has observed), or null: each scanner adds what it observed after each slice, one atomic add
     * per 64 KiB (the sketch's own exact total would need its stats, which take part of the budget). Volatile
     * getAndAdd, as several scanners add; a reader's get() needs no order with the sketch (a live view's share may
     * lag the top-k by a slice), and once every scan has returned the total is exact.
     */
    private final AtomicLong seen;
    /** What this scanner has added to {@link #seen}. */
    private long published;
    /** The weights of this scanner's finished scans (with {@link #scannedWeight}, what it has observed). */
    private long finishedWeight;

    /**
     * @param field        1-based field to use as the key, or 0 for the whole line
     * @param splitter     how fields are separated
     * @param weightField  1-based field holding the line's weight, or 0: every line weighs 1
     * @param maxLineBytes longer lines (without LF) are skipped as too long
     * @param maxKeyBytes  longer keys are still observed, but counted as truncated (the sketch keeps a prefix)
     */
    LineScanner(Hotkeeper hk, int field, Splitter splitter, int weightField, long maxLineBytes, long maxKeyBytes) {
        this(hk, field, splitter, weightField, maxLineBytes, maxKeyBytes, new AtomicLong(), null);
    }

    /**
     * A scanner of one run of several: {@code runWeight} is the run's sum of weights, shared by all its scanners
     * (the total checked against {@link Long#MAX_VALUE}); {@code seen}, if not null, the run's running total
     * (lines, or weights), added to after each slice.
     */
    LineScanner(Hotkeeper hk, int field, Splitter splitter, int weightField, long maxLineBytes, long maxKeyBytes,
                AtomicLong runWeight, AtomicLong seen) {
        this.runWeight = runWeight;
        this.seen = seen;
        this.hk = hk;
        this.field = field;
        this.splitter = splitter;
        this.weightField = weightField;
        this.maxLineBytes = maxLineBytes;
        this.maxKeyBytes = maxKeyBytes;
    }

    /** A scanner of unweighted lines whose fields are separated by single {@code delimiter} bytes. */
    LineScanner(Hotkeeper hk, int field, byte delimiter, long maxLineBytes, long maxKeyBytes) {
        this(hk, field, Splitter.single(delimiter), 0, maxLineBytes, maxKeyBytes);
    }

    /**
     * Called by the scanning thread once its input has ended: lets the sketch carry out the promotions that other
     * threads left in the inbox of this thread's key shard while it was busy ({@code Hotkeeper.reap}), so that none
     * waits past the run for a next promotion that never comes.
     */
    void finish() {
        hk.reap();
    }

    /** Observes every line of {@code [start, end)}; a last line without LF counts as a line. */
    void scan(MemorySegment seg, long start, long end) {
        scan(seg, start, end, 0, 0, -1);
    }

    /**
     * Observes every line of {@code [start, end)} of input number {@code source}.
     *
     * @param base      the input's offset of {@code seg}'s byte 0
     * @param firstLine the 1-based line number of the line at {@code start}, or -1 if not known
     * @throws WeightLimitException at a weight the sketch cannot count (the lines before it are observed)
     */
    void scan(MemorySegment seg, long start, long end, int source, long base, long firstLine) {
        this.source = source;
        this.base = base;
        this.lineNumber = firstLine;
        if (writer == null) {
            writer = hk.writer();
        }
        boolean wholeLines = field == 0 && weightField == 0;
        if (weightField > 0) {
            headroom = Long.MAX_VALUE - runWeight.get();
            scannedWeight = 0;
        }
        for (long pos = start; pos < end; ) {
            long limit = Math.min(end, pos + SLICE);
            pos = wholeLines ? scanKeys(seg, pos, limit, end) : scanLines(seg, pos, limit, end);
            if (seen != null) {
                publish();
            }
        }
        if (weightField > 0) {
            addToRun(seg, start, end);
            finishedWeight += scannedWeight;
            scannedWeight = 0;
        }
    }

    /** Adds what this scanner observed since its last call to the run's running total. */
    private void publish() {
        long observed = weightField > 0 ? finishedWeight + scannedWeight : tally.keys;
        seen.getAndAdd(observed - published);
        published = observed;
    }

    /**
     * Adds this scan's weights to the run's total, unless another scanner's weights, added meanwhile, leave no
     * room for them: then the last line of this scan is named.
     */
    private void addToRun(MemorySegment seg, long start, long end) {
        long before;
        do {
            before = runWeight.get();
            if (scannedWeight > Long.MAX_VALUE - before) {
                long last = start;
                for (long nl = indexOfNewline(seg, start, end); nl + 1 < end; nl = indexOfNewline(seg, nl + 1, end)) {
                    last = nl + 1;
                }
                long line = lineNumber < 0 ? -1 : lineNumber - 1;
                throw new WeightLimitException(new Tally.Position(source, base + last, line), totalTooLarge());
            }
        } while (!runWeight.compareAndSet(before, before + scannedWeight));
    }

    private static String totalTooLarge() {
        return "the weights add up to more than " + Long.MAX_VALUE + " by this line, more than the sketch's total "
                + "counts; scale the weights down (--weight-field)";
    }

    // Two loops, one per kind of line: whole lines as keys (the common case), and lines with a field or a weight.
    // The JIT compiles each from its own profiles, so a run (or the AOT cache's training) that used fields and
    // weights does not leave their branches in the whole-line loop. Measured with the AOT cache trained on both
    // kinds through one loop: two-thread ingest of 50 MB 0.41 s against 0.32 s (docs/cli.md, "Cold runs").
    //
    // One call of either is one slice of at most SLICE bytes, returning where the next line starts: if the JIT's
    // code for it is deoptimized (a speculation from the profiles failed), only the rest of that slice runs in
    // the interpreter, and the next slice enters the compiled code again. With one call per range, such a trap at
    // the loop's entry sent whole 3 MiB ranges to the interpreter.

    /** The lines of {@code [pos, end)} that start before {@code limit}, each line a key. */
    private long scanKeys(MemorySegment seg, long pos, long limit, long end) {
        while (pos < limit) {
            long nl = indexOfNewline(seg, pos, end);
            key(seg, pos, nl);
            pos = nl + 1;
            if (lineNumber >= 0) {
                lineNumber++;
            }
        }
        return pos;
    }

    /** The lines of {@code [pos, end)} that start before {@code limit}, keyed by a field, weighted or not. */
    private long scanLines(MemorySegment seg, long pos, long limit, long end) {
        while (pos < limit) {
            long nl = indexOfNewline(seg, pos, end);
            line(seg, pos, nl);
            pos = nl + 1;
            if (lineNumber >= 0) {
                lineNumber++;
            }
        }
        return pos;
    }

    long maxLineBytes() {
        return maxLineBytes;
    }

    /** Whether lines carry a weight (then the position of the first bad one is wanted, line number included). */
    boolean weighted() {
        return weightField > 0;
    }

    /** The index of the first LF in {@code [from, end)}, or {@code end}. */
    static long indexOfNewline(MemorySegment seg, long from, long end) {
        long i = from;
        while (i + Long.BYTES <= end) {
            long x = seg.get(WORD, i) ^ NEWLINES;
            long found = (x - ONES) & ~x & HIGHS;
            if (found != 0) {
                return i + (Long.numberOfTrailingZeros(found) >>> 3);
            }
            i += Long.BYTES;
        }
        while (i < end) {
            if (seg.get(ValueLayout.JAVA_BYTE, i) == '\n') {
                return i;
            }
            i++;
        }
        return end;
    }

    /** One line {@code [start, end)}, LF excluded, that is a key as a whole (no field, no weight). */
    private void key(MemorySegment seg, long start, long end) {
        end = withoutCr(seg, start, end);
        long length = end - start;
        if (length > maxLineBytes) {
            tally.tooLong++;
        } else if (length == 0) {
            tally.empty++;
        } else {
            if (length > maxKeyBytes) {
                tally.truncatedKeys++;
            }
            writer.observe(seg, start, length);
            tally.keys++;
        }
    }

    /** Where line {@code [start, end)} ends without the CR just before its LF, if it has one. */
    static long withoutCr(MemorySegment seg, long start, long end) {
        return end > start && seg.get(ValueLayout.JAVA_BYTE, end - 1) == '\r' ? end - 1 : end;
    }

    /** One line {@code [start, end)}, LF excluded, keyed by a field, weighted or not. */
    private void line(MemorySegment seg, long start, long end) {
        end = withoutCr(seg, start, end);
        if (end - start > maxLineBytes) {
            tally.tooLong++;
            return;
        }
        long from = start;
        long to = end;
        if (field > 0) {
            from = splitter.fieldStart(seg, start, end, field);
            if (from < 0) {
                if (splitter.blank(seg, start, end)) {
                    tally.empty++;
                } else {
                    tally.missingField++;
                }
                return;
            }
            to = splitter.fieldEnd(seg, from, end);
        }
        long length = to - from;
        if (length == 0) {
            tally.empty++;
            return;
        }
        long weight = 1;
        if (weightField > 0) {
            long w = splitter.fieldStart(seg, start, end, weightField);
            long wEnd = w < 0 ? w : splitter.fieldEnd(seg, w, end);
            weight = w < 0 ? Weight.MALFORMED : Weight.parse(seg, w, wEnd);
            if (weight == Weight.MALFORMED) {
                tally.badWeight(new Tally.Position(source, base + start, lineNumber));
                return;
            }
            if (weight == 0) {
                tally.zeroWeights++;
                return;
            }
            if (weight == Weight.TOO_LARGE || weight > Weight.MAX) {
                throw new WeightLimitException(new Tally.Position(source, base + start, lineNumber), "weight "
                        + text(seg, w, wEnd) + " is more than the sketch counts (at most " + Weight.MAX
                        + " a line, 2^38-1); split it over several lines or scale the weights down (--weight-field)");
            }
            if (weight > headroom - scannedWeight) {
                throw new WeightLimitException(new Tally.Position(source, base + start, lineNumber),
                        totalTooLarge());
            }
            scannedWeight += weight;
        }
        if (length > maxKeyBytes) {
            tally.truncatedKeys++;
        }
        if (weight == 1) {
            writer.observe(seg, from, length);
        } else {
            hk.observe(seg, from, length, weight);
        }
        tally.keys++;
    }

    /** The bytes {@code [from, to)} as text for a message, cut to 40 characters. */
    private static String text(MemorySegment seg, long from, long to) {
        byte[] bytes = seg.asSlice(from, Math.min(to - from, 40)).toArray(ValueLayout.JAVA_BYTE);
        return new String(bytes, StandardCharsets.ISO_8859_1) + (to - from > 40 ? "..." : "");
    }

    /** The number of LF bytes in {@code [from, end)}. */
    static long countNewlines(MemorySegment seg, long from, long end) {
        long count = 0;
        for (long i = indexOfNewline(seg, from, end); i < end; i = indexOfNewline(seg, i + 1, end)) {
            count++;
        }
        return count;
    }
}
