package io.hotkeeper.engine;

/**
 * How much native memory an instance gets: one choice between two, given to {@link HotkeeperBuilder#sizing}
 * (or through its shortcuts {@link HotkeeperBuilder#memory(long)}, {@link HotkeeperBuilder#memoryBytes(long)} and
 * {@link HotkeeperBuilder#sizedFor(int)}). Being one choice, the two cannot be combined, and a builder refuses a
 * second sizing however it is given.
 *
 * <ul>
 *   <li>{@link #total(long)}: everything the instance allocates (table, links, control, key shards of every worker,
 *       combiner blocks, salt, stats) stays within the budget; the builder splits it (docs/design.md, "One memory
 *       budget") and {@link Hotkeeper#info()} reports each part.</li>
 *   <li>{@link #table(long)}: the bucket table alone (per table: several tables take it each); the links, shards
 *       and combiner blocks come on top. The default is {@code table(}{@value Hotkeeper#DEFAULT_MEMORY_BYTES}{@code )}.</li>
 * </ul>
 *
 * <p>Immutable values. Threads: any. Progress: every method is wait-free.
 */
public sealed interface Sizing {
    /**
     * A total budget of {@code bytes} for everything the instance allocates ({@link HotkeeperBuilder#memory(long)}).
     * {@code build()} refuses a budget that cannot hold k keys, naming the minimum.
     *
     * @throws IllegalArgumentException if {@code bytes < 1}
     */
    static Sizing total(long bytes) {
        return new Total(bytes);
    }

    /**
     * A bucket table of {@code bytes} (4 KiB .. 64 MiB, rounded down to whole 64-byte buckets), everything else on
     * top ({@link HotkeeperBuilder#memoryBytes(long)}).
     *
     * @throws IllegalArgumentException if {@code bytes} is outside 4 KiB .. 64 MiB
     */
    static Sizing table(long bytes) {
        return new Table(bytes);
    }

    /** A total budget: everything the instance allocates stays within {@code bytes}. */
    record Total(long bytes) implements Sizing {
        /** @throws IllegalArgumentException if {@code bytes < 1} */
        public Total {
            if (bytes < 1) {
                throw new IllegalArgumentException("memory=" + bytes + ": must be positive");
            }
        }

        @Override
        public String toString() {
            return "memory(" + bytes + ")";
        }
    }

    /** The bucket table's bytes; links, shards and combiner blocks on top. */
    record Table(long bytes) implements Sizing {
        /** @throws IllegalArgumentException if {@code bytes} is outside 4 KiB .. 64 MiB */
        public Table {
            Hotkeeper.bucketsFor(bytes);
        }

        @Override
        public String toString() {
            return "memoryBytes(" + bytes + ")";
        }
    }
}
