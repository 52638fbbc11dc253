package io.hotkeeper.micrometer;

import io.hotkeeper.engine.Hotkeeper;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link HotkeeperMetrics} against a real Prometheus registry: the scrape text holds the top keys with their
 * estimates, label values escaped and long keys marked truncated; after the hot set changes, the old keys' series
 * are gone; the key series never exceed k; the stats meters come with recordStats only; close() removes every meter.
 */
class HotkeeperMetricsTest {
    private static final String WEIRD = "say \"hi\"\nback\\slash";
    private static final String LONG_KEY = "x".repeat(40) + "-tail";

    @Test
    void theScrapeHoldsTheTopKeysWithTheirEstimatesEscapedAndTruncated() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (Hotkeeper hot = Hotkeeper.builder().sizedFor(10).seed(1).maxKeyBytes(24).recordStats().build();
             HotkeeperMetrics metrics = new HotkeeperMetrics(hot, "orders", 4, Duration.ZERO)) {
            observe(hot, "alpha", 1000);
            observe(hot, WEIRD, 700);
            observe(hot, LONG_KEY, 500);
            for (int i = 0; i < 300; i++) {
                hot.observe(42L);
            }
            observe(hot, "cold", 3);
            metrics.bindTo(registry);
            String scrape = registry.scrape();

            Map<String, String> series = series(scrape, "hotkeeper_top_key_estimate");
            Map<String, String> expected = new TreeMap<>();
            expected.put("key=\"alpha\",sketch=\"orders\",truncated=\"false\"", "1000.0");
            // The CLI's escaping makes the key one line (\n, \\ as text); Prometheus then escapes \ and ".
            expected.put("key=\"say \\\"hi\\\"\\\\nback\\\\\\\\slash\",sketch=\"orders\",truncated=\"false\"", "700.0");
            // A key longer than maxKeyBytes: its 24-byte prefix, marked truncated as the CLI marks it.
            expected.put("key=\"" + "x".repeat(24) + "\",sketch=\"orders\",truncated=\"true\"", "500.0");
            expected.put("key=\"42\",sketch=\"orders\",truncated=\"false\"", "300.0");
            assertEquals(expected, series, scrape);
            assertEquals(Map.of("alpha", 1000L, "say \"hi\"\\nback\\\\slash", 700L, "x".repeat(24), 500L,
                    "42", 300L), metrics.topKeys());

            // With stats recorded: the exact total weight, the operation counts, the evictions; and native bytes.
            assertEquals(Map.of("sketch=\"orders\"", "2503.0"), series(scrape, "hotkeeper_total_weight"), scrape);
            assertEquals(3, series(scrape, "hotkeeper_observations_total").size(), scrape);
            assertEquals(1, series(scrape, "hotkeeper_evictions_total").size(), scrape);
            assertEquals(Map.of("sketch=\"orders\"", hot.info().nativeBytes() + ".0"),
                    series(scrape, "hotkeeper_native_memory_bytes"), scrape);
        }
    }

    @Test
    void afterTheHotSetChangesTheOldKeysSeriesAreGone() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (Hotkeeper hot = Hotkeeper.builder().sizedFor(10).seed(2).build();
             HotkeeperMetrics metrics = new HotkeeperMetrics(hot, "orders", 2, Duration.ZERO)) {
            observe(hot, "old-1", 100);
            observe(hot, "old-2", 90);
            metrics.bindTo(registry);
            assertEquals(List.of("old-1", "old-2"), List.copyOf(metrics.topKeys().keySet()));
            assertEquals(2, series(registry.scrape(), "hotkeeper_top_key_estimate").size());

            observe(hot, "new-1", 5000);
            observe(hot, "old-1", 50); // stays, now second
            observe(hot, "new-2", 4000);
            metrics.refresh();
            String scrape = registry.scrape();
            Map<String, String> series = series(scrape, "hotkeeper_top_key_estimate");
            assertEquals(Map.of("key=\"new-1\",sketch=\"orders\",truncated=\"false\"", "5000.0",
                    "key=\"new-2\",sketch=\"orders\",truncated=\"false\"", "4000.0"), series, scrape);
            assertFalse(scrape.contains("old-1") || scrape.contains("old-2"), scrape);
            // Without stats recorded: no stats meters.
            assertFalse(scrape.contains("hotkeeper_total_weight") || scrape.contains("hotkeeper_observations"),
                    scrape);
        }
    }

    @Test
    void theKeySeriesNeverExceedK() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Hotkeeper hot = Hotkeeper.builder().sizedFor(50).seed(3).build();
             HotkeeperMetrics metrics = new HotkeeperMetrics(hot, "orders", 5, Duration.ZERO)) {
            metrics.bindTo(registry);
            for (int round = 0; round < 50; round++) {
                // Every round a new hot set of 20 keys.
                for (int i = 0; i < 20; i++) {
                    observe(hot, "round-" + round + "-key-" + i, 10 * (round + 1));
                }
                metrics.refresh();
                assertTrue(registry.find(HotkeeperMetrics.TOP_KEY_ESTIMATE).gauges().size() <= 5);
            }
            assertEquals(5, registry.find(HotkeeperMetrics.TOP_KEY_ESTIMATE).gauges().size());
        }
    }

    @Test
    void theRefreshThreadFollowsTheHotSetAndCloseRemovesEveryMeter() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (Hotkeeper hot = Hotkeeper.builder().sizedFor(10).seed(4).recordStats().build()) {
            HotkeeperMetrics metrics = new HotkeeperMetrics(hot, "orders", 3, Duration.ofMillis(20));
            observe(hot, "first", 10);
            metrics.bindTo(registry);
            metrics.bindTo(registry); // once per registry
            assertTrue(registry.scrape().contains("key=\"first\""));
            observe(hot, "second", 20);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!registry.scrape().contains("key=\"second\"") && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertTrue(registry.scrape().contains("key=\"second\",sketch=\"orders\",truncated=\"false\"} 20.0"),
                    registry.scrape());
            metrics.close();
            assertEquals(List.of(), registry.getMeters());
            metrics.refresh(); // nothing after close
            assertEquals(List.of(), registry.getMeters());
            assertThrows(IllegalStateException.class, () -> metrics.bindTo(registry));
        }
    }

    @Test
    void aClosedSketchReportsNoKeysAndNoFailure() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Hotkeeper hot = Hotkeeper.builder().sizedFor(10).seed(5).recordStats().build();
        try (HotkeeperMetrics metrics = new HotkeeperMetrics(hot, "orders", 3, Duration.ZERO)) {
            observe(hot, "a", 5);
            metrics.bindTo(registry);
            assertEquals(1, registry.find(HotkeeperMetrics.TOP_KEY_ESTIMATE).gauges().size());
            hot.close();
            metrics.refresh();
            assertEquals(0, registry.find(HotkeeperMetrics.TOP_KEY_ESTIMATE).gauges().size());
            assertTrue(Double.isNaN(registry.get(HotkeeperMetrics.TOTAL_WEIGHT).gauge().value()));
        }
    }

    @Test
    void argumentsAreChecked() {
        try (Hotkeeper hot = Hotkeeper.builder().sizedFor(10).build()) {
            assertThrows(IllegalArgumentException.class, () -> new HotkeeperMetrics(hot, "orders", 0));
            assertThrows(IllegalArgumentException.class, () -> new HotkeeperMetrics(hot, " ", 3));
            assertThrows(IllegalArgumentException.class,
                    () -> new HotkeeperMetrics(hot, "orders", 3, Duration.ofSeconds(-1)));
        }
    }

    private static void observe(Hotkeeper hot, String key, int times) {
        for (int i = 0; i < times; i++) {
            hot.observe(key);
        }
    }

    /** The series of one metric in Prometheus text: label set (as printed) to value. */
    private static Map<String, String> series(String scrape, String metric) {
        Map<String, String> out = new TreeMap<>();
        for (String line : scrape.lines().toList()) {
            if (line.startsWith(metric + "{")) {
                int close = line.lastIndexOf("} ");
                out.put(line.substring(metric.length() + 1, close), line.substring(close + 2));
            }
        }
        return out;
    }
}
