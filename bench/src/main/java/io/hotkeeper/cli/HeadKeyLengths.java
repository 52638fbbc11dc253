package io.hotkeeper.cli;

/**
 * The command line's key-length sample ({@link KeySample}) for this module's harnesses: the lengths of the
 * {@code k} heaviest lines in the first MiB of a file, as {@code hotkeeper top FILE} (whole lines, its default
 * {@code --max-line-bytes}) hands them to {@code HotkeeperBuilder.expectedKeyLengths}, so that a harness plans
 * Hotkeeper's key shards as the tool does.
 * Threads: one. Progress: blocking (reads the file).
 */
public final class HeadKeyLengths {
    /** {@code hotkeeper top}'s default {@code --max-line-bytes}, 1 MiB. */
    private static final long MAX_LINE_BYTES = 1L << 20;

    private HeadKeyLengths() {
    }

    /**
     * The lengths in bytes of the {@code k} heaviest lines in the head of {@code file}; none if it cannot be read.
     */
    public static int[] of(String file, int k) {
        // Whole lines (field 0) with no weights: the splitter is never consulted.
        return KeySample.topKeyLengths(file, k, 0, Splitter.single((byte) '\t'), 0, MAX_LINE_BYTES);
    }
}
