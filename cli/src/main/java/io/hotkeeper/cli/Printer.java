package io.hotkeeper.cli;

import io.hotkeeper.engine.HeavyHitter;
import io.hotkeeper.engine.Hotkeeper;

import java.io.PrintWriter;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

/**
 * Prints {@code top}'s result, at the end, every period ({@code --every}) or on a signal, one print at a time
 * (they hold {@code out}'s lock): a whole result, or a block headed by a timestamp with {@code --every}, after a
 * screen clear when stdout is a terminal. Threads: any. Progress: blocking (output).
 */
final class Printer {
    private final PrintWriter out;
    private final PrintWriter err;
    private final Report report;
    private final Hotkeeper hk;
    private final int k;
    private final boolean blocks;
    private final boolean redraw;

    /**
     * @param blocks whether results are printed as timestamped blocks ({@code --every})
     * @param redraw whether each block first clears the screen (stdout is a terminal)
     */
    Printer(PrintWriter out, PrintWriter err, Report report, Hotkeeper hk, int k, boolean blocks, boolean redraw) {
        this.out = out;
        this.err = err;
        this.report = report;
        this.hk = hk;
        this.k = k;
        this.blocks = blocks;
        this.redraw = redraw;
    }

    /** One periodic print of the top-k so far ({@code --every}); a failure is one line on stderr. */
    void periodic() {
        try {
            print(true);
        } catch (Exception e) {
            err.println("hotkeeper: cannot print the top-k so far (" + Ingest.reason(e) + ")");
            err.flush();
        }
    }

    /**
     * The result so far after {@code signal}, then {@code notes} (its stderr lines about skipped input), then the
     * stderr line that marks it partial.
     */
    void interrupted(String signal, Runnable notes) {
        try {
            print(true);
        } catch (Exception e) {
            err.println("hotkeeper: cannot write the partial result (" + Ingest.reason(e) + ")");
        }
        try {
            notes.run();
        } catch (RuntimeException e) {
            err.println("hotkeeper: cannot count the skipped lines (" + Ingest.reason(e) + ")");
        }
        err.println("hotkeeper: interrupted by " + signal + ": the result above is partial");
        err.flush();
    }

    /** The whole result; returns the number of rows. */
    int whole() throws Exception {
        return print(false);
    }

    private int print(boolean partial) throws Exception {
        synchronized (out) {
            List<HeavyHitter> top = Report.top(hk, k);
            if (!blocks) {
                report.write(out, top);
            } else {
                if (redraw) {
                    out.print("\033[H\033[2J"); // home, clear screen: a full-screen refresh like top
                }
                report.writeBlock(out, Instant.now().truncatedTo(ChronoUnit.MILLIS).toString(), partial, top);
            }
            out.flush();
            return top.size();
        }
    }
}
