package io.hotkeeper.cli;

/** Per-worker counts of one ingest, summed at the end. Threads: one per instance. Progress: wait-free. */
final class Tally {
    long keys;
    long empty;
    long missingField;
    long tooLong;
    long truncatedKeys;
    long bytes;
    /** Lines whose --weight-field is missing or not a number (skipped). */
    long badWeights;
    /** Lines whose weight is 0 (skipped: they add nothing). */
    long zeroWeights;
    /** Where the first line with a bad weight is, or null. */
    Position firstBadWeight;

    /**
     * A line of input {@code source} (its index among the inputs) that starts at byte {@code offset}; {@code line}
     * is its 1-based line number, or -1 while not yet known (mapped files: {@link Ingest} counts it at the end).
     */
    record Position(int source, long offset, long line) {
        boolean before(Position o) {
            return source != o.source ? source < o.source : offset < o.offset;
        }
    }

    long skipped() {
        return empty + missingField + tooLong + badWeights + zeroWeights;
    }

    void badWeight(Position at) {
        badWeights++;
        if (firstBadWeight == null || at.before(firstBadWeight)) {
            firstBadWeight = at;
        }
    }

    void add(Tally o) {
        keys += o.keys;
        empty += o.empty;
        missingField += o.missingField;
        tooLong += o.tooLong;
        truncatedKeys += o.truncatedKeys;
        bytes += o.bytes;
        badWeights += o.badWeights;
        zeroWeights += o.zeroWeights;
        if (o.firstBadWeight != null && (firstBadWeight == null || o.firstBadWeight.before(firstBadWeight))) {
            firstBadWeight = o.firstBadWeight;
        }
    }
}
