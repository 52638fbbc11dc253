package io.hotkeeper.cli;

/** Per-worker counts of one ingest, summed at the end. Threads: one per instance. Progress: wait-free. */
final class Tally {
    long keys;
    long empty;
    long missingField;
    long tooLong;
    long truncatedKeys;
    long bytes;

    long skipped() {
        return empty + missingField + tooLong;
    }

    void add(Tally o) {
        keys += o.keys;
        empty += o.empty;
        missingField += o.missingField;
        tooLong += o.tooLong;
        truncatedKeys += o.truncatedKeys;
        bytes += o.bytes;
    }
}
