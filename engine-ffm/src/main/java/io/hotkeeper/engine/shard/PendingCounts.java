package io.hotkeeper.engine.shard;

/**
 * Counts of tracked keys that are not in the table yet (the hot-key combiners' pending counts), which
 * {@link KeyShards#topK} adds to the table's counts and ranks by.
 *
 * <p>Threads: any; implementations are read concurrently with their writers. Progress: wait-free.
 */
public interface PendingCounts {
    /** Nothing is ever pending. */
    PendingCounts NONE = new PendingCounts() {
        @Override
        public long pending(long hash) {
            return 0;
        }

        @Override
        public long bound() {
            return 0;
        }
    };

    /** The count of the key with hash {@code hash} not yet in the table; never above what is really pending. */
    long pending(long hash);

    /** An upper bound, at the time of the call, on {@link #pending} of any key. */
    long bound();
}
