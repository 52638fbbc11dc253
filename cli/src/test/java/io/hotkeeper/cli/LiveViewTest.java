package io.hotkeeper.cli;

import io.hotkeeper.engine.HeavyHitter;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link LiveView#layout}, the frame of {@code top --live}, without a terminal. */
class LiveViewTest {
    private static HeavyHitter hh(String key, long estimate) {
        return new HeavyHitter(key.getBytes(StandardCharsets.UTF_8), estimate, false);
    }

    private static List<HeavyHitter> top(Object... keyEstimate) {
        List<HeavyHitter> top = new ArrayList<>();
        for (int i = 0; i < keyEstimate.length; i += 2) {
            top.add(hh((String) keyEstimate[i], ((Number) keyEstimate[i + 1]).longValue()));
        }
        return top;
    }

    @Test
    void aFrameHasTheTitleTheHeadsTheRowsAndTheLeavingLine() {
        LiveView.Frame f = LiveView.layout("hotkeeper top  app.log  k=10", top("alpha", 50, "gamma", 30, "beta", 20),
                100, null, 79, 40);
        assertEquals(List.of(
                "hotkeeper top  app.log  k=10  total 100  (Ctrl-C: stop and print)",
                "  rank  estimate   share  bar                key",
                "     1        50   50.0%  #################  alpha",
                "     2        30   30.0%  ##########         gamma",
                "     3        20   20.0%  #######            beta",
                ""), f.lines());
        assertEquals(List.of("alpha", "gamma", "beta"), List.copyOf(f.keys()));
    }

    @Test
    void keysThatEnteredAreMarkedAndKeysThatLeftAreNamed() {
        Set<String> previous = new LinkedHashSet<>(List.of("alpha", "beta", "delta"));
        LiveView.Frame f = LiveView.layout("t", top("alpha", 50, "gamma", 30, "beta", 20), 100, previous, 79, 40);
        assertTrue(f.lines().get(2).startsWith("     1 "), f.lines().get(2));
        assertTrue(f.lines().get(3).startsWith("+    2 "), f.lines().get(3));
        assertTrue(f.lines().get(4).startsWith("     3 "), f.lines().get(4));
        assertEquals("left: delta", f.lines().getLast());
        // The next frame compares with this one: gamma is no longer new, nothing left.
        LiveView.Frame next = LiveView.layout("t", top("alpha", 60, "gamma", 30, "beta", 20), 110, f.keys(), 79,
                40);
        assertTrue(next.lines().stream().noneMatch(l -> l.startsWith("+")), next.lines().toString());
        assertEquals("", next.lines().getLast());
    }

    @Test
    void theFirstFrameMarksNothingAndAnEmptyPreviousFrameMarksEverything() {
        List<HeavyHitter> rows = top("a", 3, "b", 2);
        assertTrue(LiveView.layout("t", rows, 5, null, 79, 40).lines().stream().noneMatch(l -> l.startsWith("+")));
        LiveView.Frame f = LiveView.layout("t", rows, 5, Set.of(), 79, 40);
        assertTrue(f.lines().get(2).startsWith("+"));
        assertTrue(f.lines().get(3).startsWith("+"));
    }

    @Test
    void barsAreProportionalToTheEstimateWithAtLeastOneColumn() {
        assertEquals(30, LiveView.barLength(50, 50, 30));
        assertEquals(18, LiveView.barLength(30, 50, 30));
        assertEquals(1, LiveView.barLength(1, 1_000_000, 30));
        assertEquals(0, LiveView.barLength(0, 50, 30));
        assertEquals(0, LiveView.barLength(5, 50, 0));
        LiveView.Frame f = LiveView.layout("t", top("a", 1000, "b", 500, "c", 1), 1501, null, 119, 40);
        int full = bar(f.lines().get(2));
        assertTrue(full > 10, f.lines().toString());
        assertEquals(Math.round(full / 2.0), bar(f.lines().get(3)));
        assertEquals(1, bar(f.lines().get(4)));
    }

    private static int bar(String row) {
        return (int) row.chars().filter(c -> c == '#').count();
    }

    @Test
    void sharesAreOfTheTotalAndADashWithoutOne() {
        assertTrue(LiveView.layout("t", top("a", 50), 200, null, 79, 40).lines().get(2).contains(" 25.0% "));
        assertTrue(LiveView.layout("t", top("a", 50), 0, null, 79, 40).lines().get(2).contains("      -  "));
    }

    @Test
    void everyLineFitsTheWidthAndACutLineEndsInAnEllipsis() {
        String longKey = "k".repeat(200);
        List<HeavyHitter> rows = top(longKey, 9, "漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字", 8);
        for (int width : new int[] {20, 40, 60, 80, 119}) {
            LiveView.Frame f = LiveView.layout("a title that is longer than some of the widths", rows, 17, null, width,
                    40);
            for (String line : f.lines()) {
                assertTrue(LiveView.columns(line) <= width, width + ": " + line);
            }
            assertTrue(f.lines().get(2).endsWith("…"), f.lines().get(2));
        }
        assertEquals("漢字…", LiveView.fit("漢字漢字", 5));
        assertEquals(5, LiveView.columns("漢字…"));
        assertEquals("abc", LiveView.fit("abc", 3));
        assertEquals("ab…", LiveView.fit("abcd", 3));
    }

    @Test
    void aNarrowTerminalDropsTheBarBeforeTheKeyGetsTooShort() {
        LiveView.Frame wide = LiveView.layout("t", top("alpha", 5), 5, null, 79, 40);
        LiveView.Frame narrow = LiveView.layout("t", top("alpha", 5), 5, null, 40, 40);
        assertTrue(wide.lines().get(1).contains("bar"));
        assertFalse(narrow.lines().get(1).contains("bar"), narrow.lines().get(1));
        assertTrue(narrow.lines().get(2).endsWith("  alpha"), narrow.lines().get(2));
    }

    @Test
    void keysAreEscapedAsTheTableOutputEscapesThem() {
        byte[] key = {'a', '\t', 'b', (byte) 0xFF, '\n'};
        LiveView.Frame f = LiveView.layout("t", List.of(new HeavyHitter(key, 7, true)), 7, null, 79, 40);
        String row = f.lines().get(2);
        assertTrue(row.endsWith(KeyEscaper.escape(key) + "  (truncated)"), row);
        assertTrue(row.endsWith("a\\tb\\xFF\\n  (truncated)"), row);
        assertEquals(Set.of("a\\tb\\xFF\\n"), f.keys());
    }

    @Test
    void rowsThatDoNotFitTheHeightAreCounted() {
        List<HeavyHitter> rows = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            rows.add(hh("key" + i, 100 - i));
        }
        LiveView.Frame f = LiveView.layout("t", rows, 1000, null, 79, 8);
        assertEquals(8, f.lines().size(), f.lines().toString());
        assertTrue(f.lines().get(5).startsWith("     4 "), f.lines().toString());
        assertEquals("  ... 6 more (the terminal has 8 lines)", f.lines().get(6));
        assertEquals(10, f.keys().size()); // entering and leaving are of the top-k, shown or not
        LiveView.Frame exact = LiveView.layout("t", rows, 1000, null, 79, 13);
        assertEquals(13, exact.lines().size());
        assertTrue(exact.lines().stream().noneMatch(l -> l.contains("more")));
    }

    private static Cli.Result run(boolean terminal, String... args) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        int exit = Main.execute(args, () -> new java.io.ByteArrayInputStream("a\nb\na\n".getBytes(
                StandardCharsets.UTF_8)), out, err, new Terminals(terminal, false), Interrupts.none());
        return new Cli.Result(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void withoutATerminalLivePrintsTheEveryBlocksAndSaysSoOnce() {
        Cli.Result r = run(false, "top", "--live", "--min-count", "1", "--format", "tsv");
        assertEquals(0, r.exit(), r.err());
        assertEquals("hotkeeper: --live: standard output is not a terminal; printing the top-k every 1s instead (as "
                + "--every does)\n", r.err());
        List<String> lines = r.lines();
        assertTrue(lines.getFirst().matches("# \\S+Z \\(final\\)"), r.out());
        assertEquals(List.of("1\ta\t2\t0", "2\tb\t1\t0"), lines.subList(1, lines.size()));
        assertFalse(r.out().contains("\u001b"), r.out());
        Cli.Result every = run(false, "top", "--live", "--every", "500ms", "--min-count", "1");
        assertTrue(every.err().contains("printing the top-k every 500ms instead"), every.err());
    }

    @Test
    void aTerminalJLineCannotDrawOnFallsBackToo() {
        // The launcher says stdout is a terminal, but this JVM's stdout is the build's pipe: JLine gives a dumb
        // terminal, which LiveView refuses; the blocks are then appended, without the screen-clearing escapes.
        Cli.Result r = run(true, "top", "--live", "--min-count", "1");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.err().startsWith("hotkeeper: --live: standard output is not a terminal that can be redrawn in "
                + "place (TERM="), r.err());
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(r.out().startsWith("# "), r.out());
        assertTrue(r.out().contains("rank  estimate  key\n   1         2  a\n"), r.out());
        assertFalse(r.out().contains("\u001b"), r.out());
    }

    @Test
    void anEmptyTopSaysSo() {
        LiveView.Frame f = LiveView.layout("t", List.of(), 0, Set.of("gone"), 79, 40);
        assertEquals("  (no heavy hitters yet)", f.lines().get(2));
        assertEquals("left: gone", f.lines().getLast());
    }
}
