package io.hotkeeper.micrometer;

import io.hotkeeper.engine.HeavyHitter;
import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.HotkeeperStats;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToDoubleFunction;

/**
 * Binds a {@link Hotkeeper} sketch to a Micrometer {@link MeterRegistry}: the estimates of its top {@code k} keys as
 * gauges tagged by key, a bounded set of series that follows the hot set, and the sketch's native bytes, total
 * weight and operation counts.
 *
 * <pre>{@code
 * HotkeeperMetrics metrics = new HotkeeperMetrics(hot, "orders", 10);
 * metrics.bindTo(registry);     // e.g. a PrometheusMeterRegistry
 * ...
 * metrics.close();              // before hot.close(): stops the refresh, removes the series
 * }</pre>
 *
 * <h2>Meters</h2>
 * Every meter carries the tag {@code sketch=<name>}.
 * <ul>
 *   <li>{@value #TOP_KEY_ESTIMATE} (gauge), tags {@code key} and {@code truncated}: the estimate of each of the top
 *       {@code k} keys as of the last refresh (no rank tag: ranks move, a series per key stays). {@code key} is the
 *       key as {@code hotkeeper top} prints it: a {@code long} as a number, other bytes, text included, with the
 *       CLI's escaping (docs/cli.md, "Escaping"), so a label value is one line without raw control characters;
 *       the Prometheus registry then escapes {@code \}, {@code "} and newlines as its format requires. A key longer
 *       than the sketch's {@code maxKeyBytes} is its prefix with {@code truncated=true}, as the CLI prints it with
 *       {@code (truncated)}; two such keys with one prefix are one series, the higher estimate's.</li>
 *   <li>{@value #NATIVE_BYTES} (gauge, bytes): {@code HotkeeperInfo.nativeBytes()}.</li>
 *   <li>Only when the sketch records stats ({@code HotkeeperBuilder.recordStats()}):
 *       {@value #TOTAL_WEIGHT} (gauge): {@code totalWeight()}, the sum of the observations' weights (the number of
 *       observations when each weighs 1), exact; {@value #OBSERVATIONS} (function counter), tag {@code phase}:
 *       {@code refresh} (a tracked key's slot incremented), {@code claim} (an empty slot taken),
 *       {@code eviction.draw} (lottery draws against a full bucket's weakest key); {@value #EVICTIONS} (function
 *       counter): keys that lost their slot to a challenger ({@code HotkeeperStats.replacements()}).</li>
 * </ul>
 *
 * <h2>Bounded series</h2>
 * The set of {@value #TOP_KEY_ESTIMATE} series is the top {@code k} of the last refresh, never more than {@code k}:
 * a refresh registers the keys that entered the top {@code k} and removes those that left it (a
 * {@link MultiGauge} with {@code overwrite=false}: a key that stays keeps its series, whose value the refresh
 * updates), so the registry holds at most {@code k} such series per sketch whatever the stream.
 *
 * <h2>Refresh</h2>
 * The top {@code k} is read once per refresh ({@link Hotkeeper#topK(int)}: a wait-free walk of the tracked keys,
 * never the observe path), not per gauge read, so a scrape sees one consistent top {@code k}. By default a daemon
 * thread the binder owns refreshes every {@link #DEFAULT_REFRESH} (started by the first {@link #bindTo}, like
 * Micrometer's own {@code KafkaClientMetrics}), so a scrape shows the top {@code k} of at most a second ago and
 * the series set follows the hot set without the application doing anything. With a refresh interval of
 * {@link Duration#ZERO} no thread is started and the application calls {@link #refresh()} itself (before each
 * scrape, or on its own schedule). {@link #close()} stops the thread and removes every meter this binder
 * registered; close the binder before the sketch (a refresh or gauge read after the sketch closed reports no keys
 * and {@code NaN}, it never fails).
 *
 * <p>Threads: any; {@link #refresh()} and {@link #bindTo} are serialized on the binder. Progress: blocking
 * (refresh and registration take the binder's lock and the registry's).
 */
public final class HotkeeperMetrics implements MeterBinder, AutoCloseable {
    /** The top keys' estimates. */
    public static final String TOP_KEY_ESTIMATE = "hotkeeper.top.key.estimate";
    /** The sketch's native bytes. */
    public static final String NATIVE_BYTES = "hotkeeper.native.memory";
    /** The stream length, with stats recorded. */
    public static final String TOTAL_WEIGHT = "hotkeeper.total.weight";
    /** Table operations by phase, with stats recorded. */
    public static final String OBSERVATIONS = "hotkeeper.observations";
    /** Keys that lost their slot, with stats recorded. */
    public static final String EVICTIONS = "hotkeeper.evictions";
    /** The default refresh interval of the top-k series. */
    public static final Duration DEFAULT_REFRESH = Duration.ofSeconds(1);

    private final Hotkeeper hot;
    private final String name;
    private final int k;
    private final Duration refreshInterval;
    /** One per registry bound; guarded by this. */
    private final List<Bound> bound = new ArrayList<>();
    /** The value holder of each key series of the last refresh, by key label; guarded by this. */
    private Map<String, AtomicLong> estimates = Map.of();
    /** Guarded by this. */
    private ScheduledExecutorService refresher;
    /** Guarded by this. */
    private boolean closed;

    private record Bound(MeterRegistry registry, MultiGauge topKeys, List<Meter> meters) {
    }

    /**
     * A binder for the top {@code k} keys of {@code hot}, whose meters carry {@code sketch=name}, refreshed every
     * {@link #DEFAULT_REFRESH} on a daemon thread. Threads: any. Progress: wait-free (nothing starts until
     * {@link #bindTo}).
     *
     * @throws IllegalArgumentException if {@code k < 1} or {@code name} is blank
     */
    public HotkeeperMetrics(Hotkeeper hot, String name, int k) {
        this(hot, name, k, DEFAULT_REFRESH);
    }

    /**
     * As {@link #HotkeeperMetrics(Hotkeeper, String, int)}, refreshed every {@code refreshInterval};
     * {@link Duration#ZERO}: no thread, the application calls {@link #refresh()}. Threads: any. Progress: wait-free.
     *
     * @throws IllegalArgumentException if {@code k < 1}, {@code name} is blank or the interval is negative
     */
    public HotkeeperMetrics(Hotkeeper hot, String name, int k, Duration refreshInterval) {
        this.hot = Objects.requireNonNull(hot, "hot");
        this.name = Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("name=\"" + name + "\": must not be blank");
        }
        if (k < 1) {
            throw new IllegalArgumentException("k=" + k + ": must be >= 1");
        }
        this.k = k;
        this.refreshInterval = Objects.requireNonNull(refreshInterval, "refreshInterval");
        if (refreshInterval.isNegative()) {
            throw new IllegalArgumentException("refreshInterval=" + refreshInterval + ": must be >= 0");
        }
    }

    /**
     * Registers the meters in {@code registry} (once per registry; a second call with the same registry does
     * nothing), refreshes the top keys at once, and starts the refresh thread if an interval was given and it is
     * not running. Threads: any. Progress: blocking.
     *
     * @throws IllegalStateException if the binder is closed
     */
    @Override
    public synchronized void bindTo(MeterRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        if (closed) {
            throw new IllegalStateException("HotkeeperMetrics is closed");
        }
        for (Bound b : bound) {
            if (b.registry() == registry) {
                return;
            }
        }
        Tags tags = Tags.of("sketch", name);
        List<Meter> meters = new ArrayList<>();
        meters.add(Gauge.builder(NATIVE_BYTES, hot, live(h -> h.info().nativeBytes()))
                .tags(tags).baseUnit(BaseUnits.BYTES).description("Native memory the sketch has allocated")
                .register(registry));
        if (hot.recordsStats()) {
            meters.add(Gauge.builder(TOTAL_WEIGHT, hot, live(Hotkeeper::totalWeight)).tags(tags)
                    .description("The stream length: the sum of the observations' weights").register(registry));
            meters.add(FunctionCounter.builder(OBSERVATIONS, hot, live(h -> h.stats().refreshes())).tags(tags)
                    .tag("phase", "refresh").description("Table updates by phase").register(registry));
            meters.add(FunctionCounter.builder(OBSERVATIONS, hot, live(h -> h.stats().claims())).tags(tags)
                    .tag("phase", "claim").description("Table updates by phase").register(registry));
            meters.add(FunctionCounter.builder(OBSERVATIONS, hot, live(h -> h.stats().evictionAttempts()))
                    .tags(tags).tag("phase", "eviction.draw").description("Table updates by phase")
                    .register(registry));
            meters.add(FunctionCounter.builder(EVICTIONS, hot, live(h -> h.stats().replacements())).tags(tags)
                    .description("Keys that lost their table slot to another key").register(registry));
        }
        MultiGauge topKeys = MultiGauge.builder(TOP_KEY_ESTIMATE).tags(tags)
                .description("Estimate of each of the sketch's top k keys, as of the last refresh")
                .register(registry);
        bound.add(new Bound(registry, topKeys, meters));
        refresh();
        if (refresher == null && !refreshInterval.isZero()) {
            refresher = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "hotkeeper-metrics-" + name);
                t.setDaemon(true);
                return t;
            });
            long nanos = refreshInterval.toNanos();
            refresher.scheduleWithFixedDelay(this::refresh, nanos, nanos, TimeUnit.NANOSECONDS);
        }
    }

    /**
     * Reads the sketch's top {@code k} once and makes the key series match it in every bound registry: keys that
     * stay keep their series (new value), keys that entered get one, keys that left lose theirs. A closed sketch
     * has no keys. Threads: any. Progress: blocking (the binder's lock, the registries').
     */
    public synchronized void refresh() {
        if (closed) {
            return;
        }
        List<HeavyHitter> top;
        try {
            top = hot.topK(k);
        } catch (IllegalStateException sketchClosed) {
            top = List.of();
        }
        Map<String, Long> latest = new LinkedHashMap<>();
        Map<String, Boolean> truncated = new HashMap<>();
        for (HeavyHitter h : top) {
            String label = label(h);
            // Highest first: of two keys with one label (long keys cut to one prefix), the first wins.
            if (latest.putIfAbsent(label, h.estimate()) == null) {
                truncated.put(label, h.truncated());
            }
        }
        Map<String, AtomicLong> next = new LinkedHashMap<>();
        List<MultiGauge.Row<?>> rows = new ArrayList<>();
        for (Map.Entry<String, Long> e : latest.entrySet()) {
            AtomicLong holder = estimates.get(e.getKey());
            if (holder == null) {
                holder = new AtomicLong();
            }
            holder.set(e.getValue());
            next.put(e.getKey(), holder);
            rows.add(MultiGauge.Row.of(Tags.of("key", e.getKey(), "truncated",
                    Boolean.toString(truncated.get(e.getKey()))), holder, AtomicLong::doubleValue));
        }
        estimates = next;
        for (Bound b : bound) {
            // overwrite=false: a row whose tags are registered already keeps its gauge (the same holder); rows
            // missing from this list are removed.
            b.topKeys().register(rows, false);
        }
    }

    /**
     * The keys of the current series with their estimates as of the last refresh, highest first. Threads: any.
     * Progress: blocking (the binder's lock).
     */
    public synchronized Map<String, Long> topKeys() {
        Map<String, Long> out = new LinkedHashMap<>();
        estimates.forEach((key, value) -> out.put(key, value.get()));
        return out;
    }

    /**
     * Stops the refresh thread and removes every meter this binder registered, from every registry. Idempotent.
     * Threads: any. Progress: blocking.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (refresher != null) {
            refresher.shutdownNow();
        }
        for (Bound b : bound) {
            b.topKeys().register(List.of(), false);
            for (Meter m : b.meters()) {
                b.registry().remove(m);
            }
        }
        bound.clear();
        estimates = Map.of();
    }

    /**
     * The label value of a key: the CLI's rendering (docs/cli.md, "Escaping"): a {@code long} as a number, any
     * other bytes as one escaped line. Text is escaped too (unlike {@code keyAsString()}), so that a key with a
     * newline or a control character is one readable line.
     */
    static String label(HeavyHitter h) {
        return h.kind() == HeavyHitter.Kind.LONG ? h.keyAsString() : HeavyHitter.escape(h.key());
    }

    /** A reading of the sketch, or NaN once it is closed (a gauge read never fails). */
    private static ToDoubleFunction<Hotkeeper> live(ToDoubleFunction<Hotkeeper> reading) {
        return h -> {
            try {
                return reading.applyAsDouble(h);
            } catch (IllegalStateException closed) {
                return Double.NaN;
            }
        };
    }
}
