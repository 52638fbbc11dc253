package io.hotkeeper.cli;

/**
 * A line whose weight the sketch cannot count: a weight above {@link Weight#MAX}, or one that takes the run's total
 * past {@link Long#MAX_VALUE} (docs/cli.md, "Weights"). Thrown by a worker's {@link LineScanner}; {@link Ingest}
 * names the input and line number and stops the run (exit 2). Threads: any.
 */
final class WeightLimitException extends RuntimeException {
    /** Where the line is; its line number is -1 while not known (a mapped file's range). */
    final Tally.Position at;

    WeightLimitException(Tally.Position at, String problem) {
        super(problem, null, false, false);
        this.at = at;
    }

    /** The one-line user error: {@code INPUT: line N: problem}. */
    UserException named(String input, long line) {
        return new UserException(input + ": line " + line + ": " + getMessage());
    }
}
