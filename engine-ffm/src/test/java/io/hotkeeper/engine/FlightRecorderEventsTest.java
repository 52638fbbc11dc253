package io.hotkeeper.engine;

import io.hotkeeper.engine.jfr.HotKeyEvent;
import io.hotkeeper.engine.snapshot.KeyBounds;
import io.hotkeeper.numa.Numa;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import jdk.jfr.consumer.RecordingStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@code io.hotkeeper.HotKey} JFR event of named sketches (HotkeeperBuilder.name, docs/operations.md): what a
 * recording holds equals {@code topK()}, sketches are told apart by name, an unnamed sketch emits nothing, the
 * event is off unless a recording enables it, and {@code close()} removes the sketch's hook.
 */
class FlightRecorderEventsTest {

    /** A recording file written around a child JVM, read back with {@link RecordingFile}. */
    @Test
    void aRecordingOfAChildJvmHoldsEachNamedSketchsTopK(@TempDir Path dir) throws Exception {
        Path jfr = dir.resolve("hot.jfr");
        // The operator's way: the event enabled, with a short period, in the recording's settings.
        ChildJvm.Result run = launch("-XX:StartFlightRecording:filename=" + jfr + ",+" + HotKeyEvent.NAME
                + "#enabled=true,+" + HotKeyEvent.NAME + "#period=100 ms", "3");
        assertEquals(0, run.exit(), run.toString());

        Map<String, Map<String, Long>> printed = new TreeMap<>();
        for (String line : run.stdout().lines().filter(l -> l.contains("\t")).toList()) {
            String[] f = line.split("\t");
            printed.computeIfAbsent(f[0], s -> new TreeMap<>()).put(f[1], Long.parseLong(f[2]));
        }
        assertEquals(java.util.Set.of("orders", "payments"), printed.keySet(), run.toString());

        List<RecordedEvent> events = RecordingFile.readAllEvents(jfr).stream()
                .filter(e -> e.getEventType().getName().equals(HotKeyEvent.NAME)).toList();
        Map<String, List<RecordedEvent>> bySketch = events.stream()
                .collect(Collectors.groupingBy(e -> e.getString("sketch")));
        // The unnamed sketch is not registered: only the two names appear.
        assertEquals(printed.keySet(), bySketch.keySet(), events.toString());
        for (var sketch : printed.entrySet()) {
            // The last period (the stream was over before the first): keys and estimates are topK's.
            List<List<RecordedEvent>> periods = periods(bySketch.get(sketch.getKey()));
            List<RecordedEvent> period = periods.getLast();
            Map<String, Long> recorded = new TreeMap<>();
            for (int i = 0; i < period.size(); i++) {
                RecordedEvent e = period.get(i);
                assertEquals(i + 1, e.getInt("rank"), e.toString());
                recorded.put(e.getString("key"), e.getLong("estimate"));
                assertTrue(e.getLong("lower") <= e.getLong("estimate") && e.getLong("estimate") <= e.getLong("upper"),
                        e.toString());
                double fill = e.getDouble("fill");
                assertTrue(fill > 0 && fill <= 1, e.toString());
                assertTrue(e.getLong("nativeBytes") > 0, e.toString());
            }
            assertEquals(sketch.getValue(), recorded, sketch.getKey());
            // Several periods were recorded (the child waited for three after its stream).
            assertTrue(periods.size() >= 3, periods.toString());
        }
        // orders records stats: its total weight is exact (20,000 observations, all in before the last period; earlier
        // periods may have seen part of the stream); payments' is a lower bound.
        RecordedEvent order = periods(bySketch.get("orders")).getLast().getFirst();
        assertTrue(order.getBoolean("totalWeightExact"), order.toString());
        assertEquals(20_000, order.getLong("totalWeight"), order.toString());
        RecordedEvent payment = bySketch.get("payments").getFirst();
        assertFalse(payment.getBoolean("totalWeightExact"), payment.toString());
    }

    /** The default settings (as {@code jcmd JFR.start} uses them) leave the event off. */
    @Test
    void aRecordingWithDefaultSettingsHasNoHotKeyEvents(@TempDir Path dir) throws Exception {
        Path jfr = dir.resolve("default.jfr");
        ChildJvm.Result run = launch("-XX:StartFlightRecording:filename=" + jfr, "0");
        assertEquals(0, run.exit(), run.toString());
        assertTrue(RecordingFile.readAllEvents(jfr).stream()
                .noneMatch(e -> e.getEventType().getName().equals(HotKeyEvent.NAME)));
    }

    /** Streamed live with {@link RecordingStream}: a period's events equal topK(); none after close(). */
    @Test
    void aRecordingStreamSeesTheTopKLiveAndNothingAfterClose() throws Exception {
        List<RecordedEvent> seen = new CopyOnWriteArrayList<>();
        String name = "stream-" + System.nanoTime();
        try (RecordingStream stream = new RecordingStream()) {
            stream.enable(HotKeyEvent.NAME).withPeriod(Duration.ofMillis(50));
            stream.onEvent(HotKeyEvent.NAME, e -> {
                if (e.getString("sketch").equals(name)) {
                    seen.add(e);
                }
            });
            stream.startAsync();
            Hotkeeper hot = Hotkeeper.builder().sizedFor(10).seed(5).name(name).build();
            List<HeavyHitter> top;
            try {
                for (int i = 0; i < 5_000; i++) {
                    hot.observe(i % 4 == 0 ? "hot" : "key-" + (i % 9));
                    hot.observe(7L);
                }
                top = hot.topK();
                Instant after = Instant.now();
                // Wait for a whole period read after the stream ended (see completePeriodAfter).
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (completePeriodAfter(seen, after, top.size()) == null && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                List<RecordedEvent> period = completePeriodAfter(seen, after, top.size());
                assertTrue(period != null, "events seen: " + seen);
                Map<String, Long> expected = new TreeMap<>();
                for (HeavyHitter h : top) {
                    expected.put(h.keyAsString(), h.estimate());
                }
                Map<String, Long> got = new TreeMap<>();
                for (RecordedEvent e : period) {
                    got.put(e.getString("key"), e.getLong("estimate"));
                    String key = e.getString("key");
                    KeyBounds b = key.equals("7") ? hot.bounds(7L, 0.99) : hot.bounds(key, 0.99);
                    assertEquals(b.upper(), e.getLong("upper"), e.toString());
                    assertEquals(b.lower(), e.getLong("lower"), e.toString());
                }
                assertEquals(expected, got);
            } finally {
                hot.close();
            }
            // close() removed the hook: no event of this sketch starts after it (waiting several periods).
            Instant closed = Instant.now();
            Thread.sleep(400);
            stream.close();
            assertTrue(seen.stream().noneMatch(e -> e.getStartTime().isAfter(closed.plusMillis(60))),
                    "events after close");
        }
    }

    /**
     * close() removes the hook: JFR's task list then holds no reference to the sketch, which the collector can
     * reclaim. (Events alone cannot tell: a hook left behind would find the sketch closed and emit nothing.)
     */
    @Test
    void closeRemovesTheHookSoJfrKeepsNoClosedSketch() throws Exception {
        java.lang.ref.WeakReference<Hotkeeper> ref = closedNamedSketch();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (ref.get() != null && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(20);
        }
        assertTrue(ref.get() == null, "a closed named sketch is still reachable (its JFR hook was not removed)");
    }

    private static java.lang.ref.WeakReference<Hotkeeper> closedNamedSketch() {
        Hotkeeper hot = Hotkeeper.builder().sizedFor(10).name("reclaimed").build();
        hot.observe("key");
        hot.close();
        return new java.lang.ref.WeakReference<>(hot);
    }

    @Test
    void aNameMustNotBeBlankAndNeedsKeyShards() {
        assertThrows(IllegalArgumentException.class, () -> Hotkeeper.builder().name(" "));
        assertThrows(NullPointerException.class, () -> Hotkeeper.builder().name(null));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Hotkeeper.builder().keepKeys(false).name("orders").build());
        assertEquals("keepKeys(false) with name: that option needs key shards", e.getMessage());
    }

    /**
     * The events grouped by period: one hook run commits ranks 1, 2, ... one after the other (each event has its own
     * time stamp), and periods are far apart, so in time order a period starts at each rank 1.
     */
    private static List<List<RecordedEvent>> periods(List<RecordedEvent> events) {
        List<RecordedEvent> sorted = new ArrayList<>(events);
        sorted.sort(java.util.Comparator.comparing(RecordedEvent::getStartTime)
                .thenComparingInt(e -> e.getInt("rank")));
        List<List<RecordedEvent>> periods = new ArrayList<>();
        for (RecordedEvent e : sorted) {
            if (e.getInt("rank") == 1 || periods.isEmpty()) {
                periods.add(new ArrayList<>());
            }
            periods.getLast().add(e);
        }
        return periods;
    }

    /**
     * The second whole period ({@code n} events) whose events all started after {@code after}, or null. Not the
     * first: an event's start time is its commit, so a hook run that read topK() before {@code after} (a loaded
     * machine can stall the JFR thread between the read and the commits) may still commit after it. Hook runs
     * follow one another on JFR's periodic thread, so the run after that one read everything after {@code after}.
     */
    private static List<RecordedEvent> completePeriodAfter(List<RecordedEvent> seen, Instant after, int n) {
        boolean skipped = false;
        for (List<RecordedEvent> period : periods(seen)) {
            if (period.getFirst().getStartTime().isAfter(after) && period.size() == n) {
                if (skipped) {
                    return period;
                }
                skipped = true;
            }
        }
        return null;
    }

    /** Runs {@link FlightRecorderMain} with {@code flag}, waiting for {@code periods} periods (0: 300 ms). */
    private static ChildJvm.Result launch(String flag, String periods) throws Exception {
        String classPath = String.join(File.pathSeparator, ChildJvm.location(Numa.class),
                ChildJvm.location(Hotkeeper.class), ChildJvm.location(FlightRecorderMain.class));
        return ChildJvm.run(List.of(flag, "-cp", classPath, FlightRecorderMain.class.getName(), periods));
    }
}
