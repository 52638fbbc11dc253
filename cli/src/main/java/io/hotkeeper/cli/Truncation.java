package io.hotkeeper.cli;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reports an input file that shrank (log rotation by truncation, an editor rewriting it) while Hotkeeper read it,
 * as a one-line {@link UserException} naming the file: a worker's positional read that ended before its range
 * ({@link RangeReader}), a fault while the file's mapping was read for its cut points, or the size check after.
 *
 * <p>A mapping keeps the size the file had when it was mapped. Once the file is shorter, a read of a mapped page
 * that now lies wholly past its end raises SIGBUS; the JVM turns that into an {@link InternalError} in the
 * reading thread (thrown at once from interpreted code and from the copy stubs, and from compiled code at the
 * reading method's next safepoint poll, having read garbage in between). {@link #fault} reports that error. A
 * read of the tail of the page that holds the new end raises nothing (it reads zeros), and neither does a read
 * that finished before the file shrank: {@link #checkSize}, once every mapped byte has been read, catches the
 * file that is now shorter than what was mapped. A file that shrank and grew back to at least the mapped size
 * before its pages were read is read as it then is and goes unnoticed, unless a read hit its short moment.
 */
final class Truncation {
    private Truncation() {
    }

    /**
     * The user error for a fault while reading a mapping: names the first mapped input that is now shorter than
     * when it was mapped, {@code likely} first; if none is, the fault is put down to {@code likely} (or, when
     * that is not known, to the mapped inputs), as a change or an I/O error. Threads: any. Progress: blocking
     * (one {@code fstat} per mapped input).
     *
     * @param likely  the input whose mapping was being read, or null if not known
     * @param sources every input of the run
     * @param fault   the JVM's error for the fault (SIGBUS: a page past the file's end, or an I/O error)
     */
    static UserException fault(Ingest.Source likely, List<Ingest.Source> sources, InternalError fault) {
        List<Ingest.Source> suspects = new ArrayList<>();
        if (likely != null) {
            suspects.add(likely);
        }
        for (Ingest.Source s : sources) {
            if (s.mapped() && s != likely) {
                suspects.add(s);
            }
        }
        for (Ingest.Source s : suspects) {
            long now = sizeNow(s);
            if (now >= 0 && now < s.size()) {
                return truncated(s, now);
            }
        }
        String names = likely != null ? likely.name()
                : String.join(", ", suspects.stream().map(Ingest.Source::name).toList());
        return new UserException(names + ": truncated or changed while being read, or an I/O error ("
                + Ingest.reason(fault) + ")");
    }

    /**
     * Throws if {@code source} is now shorter than when it was mapped; call it once its mapping has been read.
     * Bytes appended since are fine (they are not read). Threads: any. Progress: blocking (one {@code fstat}).
     *
     * @throws UserException naming the file, its mapped size and its size now
     */
    static void checkSize(Ingest.Source source) {
        long now = sizeNow(source);
        if (now >= 0 && now < source.size()) {
            throw truncated(source, now);
        }
    }

    private static UserException truncated(Ingest.Source source, long now) {
        return new UserException(source.name() + ": truncated while being read (" + source.size()
                + " bytes when opened, " + now + " now)");
    }

    /** The file's size now, or -1 if it cannot be had (the channel stays open until the run ends). */
    private static long sizeNow(Ingest.Source source) {
        try {
            return source.channel().size();
        } catch (IOException e) {
            return -1;
        }
    }
}
