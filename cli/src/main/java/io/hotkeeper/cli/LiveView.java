package io.hotkeeper.cli;

import io.hotkeeper.engine.HeavyHitter;
import org.jline.terminal.Size;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;
import org.jline.utils.InfoCmp.Capability;
import org.jline.utils.WCWidth;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * {@code top --live}: the top-k redrawn in place on the terminal, like top(1), on the alternate screen with the
 * cursor hidden (docs/cli.md, "Live view: --live"). The terminal is JLine's system terminal on standard output;
 * the frame's layout is {@link #layout}, a pure function of the top-k, the total and the previous frame's keys.
 * Threads: any; {@link #refresh} and {@link #close} hold this view's lock, so a frame is never drawn half or after
 * the view was closed. Progress: blocking (terminal output).
 */
final class LiveView implements AutoCloseable {
    /** Time between frames when {@code --every} is not given. */
    static final Duration PERIOD = Duration.ofMillis(250);
    /** Columns of the bar at most. */
    static final int MAX_BAR = 40;
    /** Columns a key keeps at least before the bar is narrowed, then dropped. */
    static final int MIN_KEY = 12;
    /** Lines of a frame that are not rows: the title, the column heads, the leaving line. */
    static final int CHROME = 3;

    /** A laid-out frame: its lines (each at most the width given to {@link #layout}) and its top-k keys. */
    record Frame(List<String> lines, Set<String> keys) {
    }

    private final Terminal terminal;
    private final PrintWriter writer;
    private Set<String> previous;
    private boolean closed;

    private LiveView(Terminal terminal) {
        this.terminal = terminal;
        this.writer = terminal.writer();
    }

    /**
     * Opens the view on standard output, or returns null when it is not a terminal that can be drawn on in place:
     * not a terminal, a dumb one ({@code TERM=dumb}), or one without cursor addressing. JLine installs no signal
     * handler ({@link Interrupts} keeps SIGINT and SIGTERM). Threads: any. Progress: blocking (terminal set-up).
     */
    static LiveView open() {
        Terminal terminal;
        try {
            terminal = TerminalBuilder.builder()
                    .system(true)
                    .systemOutput(TerminalBuilder.SystemOutput.SysOut)
                    .nativeSignals(false)
                    // JLine makes a system terminal only when standard input is one too; with the data on standard
                    // input it opens /dev/tty instead (the exec provider: stty for the size).
                    .devTty(true)
                    .dumb(true) // no terminal: a dumb one, without JLine's warning; it is refused below
                    .encoding(StandardCharsets.UTF_8) // the tool's output is UTF-8 (docs/cli.md, "Escaping")
                    // No probing: JLine would otherwise query the terminal (DECRQM, cursor position reports,
                    // emoji widths) and read the answers from standard input, which may be the data being read.
                    .graphemeCluster(false)
                    .build();
        } catch (IOException | RuntimeException e) {
            return null;
        }
        String type = terminal.getType();
        if (type == null || type.startsWith(Terminal.TYPE_DUMB)
                || terminal.getStringCapability(Capability.cursor_address) == null) {
            try {
                terminal.close();
            } catch (IOException ignored) {
                // nothing was drawn on it
            }
            return null;
        }
        LiveView view = new LiveView(terminal);
        synchronized (view) {
            terminal.puts(Capability.enter_ca_mode);
            terminal.puts(Capability.cursor_invisible);
            terminal.puts(Capability.clear_screen);
            terminal.flush();
        }
        return view;
    }

    /**
     * Draws one frame of {@code top} (ranked) against {@code total}, under {@code title}; nothing once closed.
     * Threads: any. Progress: blocking.
     */
    synchronized void refresh(String title, Supplier<List<HeavyHitter>> top, LongSupplier total) {
        if (closed) {
            return;
        }
        List<HeavyHitter> rows = top.get();
        long sum = total.getAsLong();
        Size size = terminal.getSize();
        int columns = size.getColumns() > 0 ? size.getColumns() : 80;
        int lines = size.getRows() > 0 ? size.getRows() : 24;
        // One column short of the edge: a line that filled the last column would leave the cursor pending a
        // wrap, where some terminals' erase-to-end-of-line takes the last character with it.
        Frame frame = layout(title, rows, sum, previous, columns - 1, lines);
        previous = frame.keys();
        terminal.puts(Capability.cursor_home);
        List<String> text = frame.lines();
        for (int i = 0; i < text.size(); i++) {
            writer.print(text.get(i));
            terminal.puts(Capability.clr_eol);
            if (i + 1 < text.size()) {
                writer.print("\r\n");
            }
        }
        terminal.puts(Capability.clr_eos);
        terminal.flush();
    }

    /**
     * Leaves the alternate screen and shows the cursor again; idempotent. Threads: any. Progress: blocking.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        terminal.puts(Capability.cursor_normal);
        terminal.puts(Capability.exit_ca_mode);
        terminal.flush();
        try {
            terminal.close();
        } catch (IOException ignored) {
            // the screen is restored already; closing only releases JLine's handle
        }
    }

    /**
     * The lines of one frame, each at most {@code width} columns (as the terminal counts them: JLine's
     * {@link WCWidth}), at most {@code height} lines: {@code title} with the total; the column heads; a row per key of {@code top}
     * that fits ({@code +} before the rank when the key was not in {@code previous}; its estimate; its share of
     * {@code total}; a bar of {@code #} proportional to the estimate, the first row's the widest, at least one;
     * the key escaped as the table output prints it); when rows did not fit, a line saying how many more; last, the
     * keys of {@code previous} that are no longer in {@code top} ({@code left: ...}), or an empty line. The first
     * frame ({@code previous} null) marks nothing. Keys are told apart by their escaped form (escaping is
     * reversible). Threads: any. Progress: wait-free apart from allocation.
     */
    static Frame layout(String title, List<HeavyHitter> top, long total, Set<String> previous, int width,
                        int height) {
        Set<String> keys = new LinkedHashSet<>();
        List<String> names = new ArrayList<>(top.size());
        for (HeavyHitter h : top) {
            String key = KeyEscaper.escape(h.key());
            keys.add(key);
            names.add(h.truncated() ? key + "  (truncated)" : key);
        }
        List<String> out = new ArrayList<>();
        int w = Math.max(1, width);
        out.add(fit(title + "  total " + String.format(Locale.ROOT, "%,d", total) + "  (Ctrl-C: stop and print)",
                w));
        long widest = top.isEmpty() ? 0 : top.getFirst().estimate();
        int rankWidth = Math.max("rank".length(), Integer.toString(top.size()).length());
        int estWidth = Math.max("estimate".length(), String.format(Locale.ROOT, "%,d", widest).length());
        int fixed = 2 + rankWidth + 2 + estWidth + 2 + "share".length() + 1 + 2; // "+ rank  est  share%  "
        int rest = w - fixed;
        int bar = rest >= MIN_KEY + 2 + 4 ? Math.min(MAX_BAR, (rest - 2) / 3) : 0;
        if (bar > 0 && rest - bar - 2 < MIN_KEY) {
            bar = Math.max(0, rest - 2 - MIN_KEY);
        }
        String heads = String.format(Locale.ROOT, "  %" + rankWidth + "s  %" + estWidth + "s  %6s  ", "rank",
                "estimate", "share") + (bar > 0 ? pad("bar", bar) + "  " : "") + "key";
        out.add(fit(heads, w));
        int room = Math.max(0, height - CHROME);
        int shown = top.size() <= room ? top.size() : Math.max(0, room - 1);
        for (int i = 0; i < shown; i++) {
            HeavyHitter h = top.get(i);
            boolean entered = previous != null && !previous.contains(KeyEscaper.escape(h.key()));
            String share = total > 0 ? String.format(Locale.ROOT, "%5.1f%%", 100.0 * h.estimate() / total)
                    : "     -";
            StringBuilder row = new StringBuilder(w + 16);
            row.append(entered ? '+' : ' ').append(' ');
            row.append(String.format(Locale.ROOT, "%" + rankWidth + "d  %," + estWidth + "d  %6s  ", i + 1,
                    h.estimate(), share));
            if (bar > 0) {
                row.append(pad("#".repeat(barLength(h.estimate(), widest, bar)), bar)).append("  ");
            }
            row.append(names.get(i));
            out.add(fit(row.toString(), w));
        }
        if (shown < top.size()) {
            out.add(fit("  ... " + (top.size() - shown) + " more (the terminal has " + height + " lines)", w));
        }
        if (top.isEmpty()) {
            out.add(fit("  (no heavy hitters yet)", w));
        }
        List<String> left = new ArrayList<>();
        if (previous != null) {
            for (String key : previous) {
                if (!keys.contains(key)) {
                    left.add(key);
                }
            }
        }
        out.add(left.isEmpty() ? "" : fit("left: " + String.join("  ", left), w));
        while (out.size() > height && out.size() > 1) {
            out.remove(out.size() - 2); // a terminal too short for the chrome: the title stays, then rows go
        }
        return new Frame(List.copyOf(out), Collections.unmodifiableSet(keys));
    }

    /**
     * Columns of the bar for {@code estimate}: proportional, {@code widest} getting all {@code bar} columns, at
     * least 1 for a positive estimate. Threads: any. Progress: wait-free.
     */
    static int barLength(long estimate, long widest, int bar) {
        if (widest <= 0 || estimate <= 0 || bar <= 0) {
            return 0;
        }
        long len = Math.round((double) estimate / widest * bar);
        return (int) Math.max(1, Math.min(bar, len));
    }

    /**
     * {@code s} cut to at most {@code width} terminal columns, ending in {@code …} when cut. Control characters
     * count as one column (the escaped keys have none). Threads: any. Progress: wait-free apart from allocation.
     */
    static String fit(String s, int width) {
        if (columns(s) <= width) {
            return s;
        }
        StringBuilder b = new StringBuilder(width + 1);
        int used = 0;
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            int cw = width(cp);
            if (used + cw > width - 1) {
                break;
            }
            b.appendCodePoint(cp);
            used += cw;
            i += Character.charCount(cp);
        }
        return width >= 1 ? b.append('…').toString() : "";
    }

    /**
     * Terminal columns of {@code s} (JLine's {@link WCWidth}; a character it cannot measure counts as 1). Threads:
     * any. Progress: wait-free.
     */
    static int columns(String s) {
        int n = 0;
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            n += width(cp);
            i += Character.charCount(cp);
        }
        return n;
    }

    private static int width(int codePoint) {
        int cw = WCWidth.wcwidth(codePoint);
        return cw < 0 ? 1 : cw;
    }

    private static String pad(String s, int width) {
        return s.length() >= width ? s : s + " ".repeat(width - s.length());
    }
}
