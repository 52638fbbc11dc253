package io.hotkeeper.engine;

import io.hotkeeper.engine.hash.KeyHasher;
import io.hotkeeper.engine.snapshot.HotkeeperSnapshot;
import io.hotkeeper.engine.snapshot.SnapshotKey;
import io.hotkeeper.engine.table.TableGeometry;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterTry;
import net.jqwik.api.state.Action;
import net.jqwik.api.state.ActionChain;
import net.jqwik.api.state.ActionChainArbitrary;
import net.jqwik.api.state.Transformer;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A model-based test of the lifecycle (issue #26, item 11): random sequences of observations (long and text keys,
 * the latter as text, bytes or a segment; single and weighted, one at a time and in batches), {@code topK},
 * {@code reset}, {@code decay}, window advances, snapshot round trips through bytes (read back from an array, a
 * segment or a channel), {@code merge} and {@code mergeAll}, run against a plain exact model (a count
 * per key and table), on tables small enough to be exact: 16 keys in tables of 64 buckets (2 candidates of 8 slots)
 * whose key shards hold 512 entries, so nothing is ever evicted or untracked by pressure. After every step every
 * estimate, the total weight, {@code topK} (as a multiset of (key, estimate): ties may come in any order),
 * {@code heavyHitters} and the unambiguous {@code contains} answers must equal the model's (docs/theory.md,
 * "When counts are exact"). jqwik shrinks a failing sequence to the shortest it can find and prints it.
 *
 * <p>Configurations: one shared table; {@link Partitioning#perWorker(int) perWorker(2)} observed from one thread
 * (the multi-table query and by-keys merge paths); a {@link Partitioning#window window} of 4 slices on a test
 * clock (keys counted in several tables); and one shared table observed by two threads, each with its own half
 * of the keys, compared after they join (estimates and {@code topK} include the hot-key combiners' pending counts
 * once the writers pause; {@code contains} and {@code totalWeight} see the table only, so they are compared after
 * every thread has flushed, and reset, decay and snapshots, which act on the table only, flush first: that is what
 * {@link HotkeeperBuilder#combining} and {@link Hotkeeper#reset()} document).
 *
 * <p>Bounded for CI ({@code jqwik.tries.default} in junit-platform.properties: 1,000 tries per property, about a
 * minute for the four on two quiet cores); a longer run: {@code -Djqwik.tries.default=10000} (docs/reliability.md).
 */
class LifecycleModelTest {
    /** The sketch's hash seed (the exactness of the key universe below is checked for it). */
    private static final long SEED = 0x26_11_5EEDL;
    /** 64 buckets of 8 slots; each table, of every configuration. */
    private static final long TABLE_BYTES = 4096;
    /** Small, so that {@code contains} and {@code topK()} draw a line through the 16 keys. */
    private static final int K = 4;
    private static final int WINDOW_SLICES = 4;
    private static final long SLICE_NANOS = 1_000;
    /** Merges stop doubling the counts past this total (the counts stay far below TableLayout.MAX_COUNT). */
    private static final long MERGE_LIMIT = 1L << 32;
    private static final int MAX_STEPS = 40;

    /** One key of the universe: a long (observed as its 8 little-endian bytes) or a text (its UTF-8 bytes). */
    record Key(int index, Long number, String text) {
        byte[] bytes() {
            return number != null
                    ? ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(number).array()
                    : text.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String toString() {
            return number != null ? number + "L" : "\"" + text + "\"";
        }
    }

    /** 8 long keys and 8 text keys (empty, multi-byte UTF-8, exactly maxKeyBytes long), distinct as bytes. */
    static final List<Key> KEYS;
    /** The keys by their bytes. */
    static final Map<ByteBuffer, Key> BY_BYTES = new HashMap<>();
    /** Keys 0..7 are longs, 8..15 texts; the two-thread bursts give thread 0 the even keys, thread 1 the odd. */
    static final int N;

    static {
        List<Key> keys = new ArrayList<>();
        long[] numbers = {0L, 1L, -1L, Long.MAX_VALUE, Long.MIN_VALUE, 42L, 0x1234_5678_9ABC_DEF0L, 7_000_000_007L};
        for (long n : numbers) {
            keys.add(new Key(keys.size(), n, null));
        }
        String[] texts = {"", "a", "user-42", "ключ", "日本語キー", "hot 🔥 key", "x".repeat(64), "k7"};
        for (String t : texts) {
            keys.add(new Key(keys.size(), null, t));
        }
        KEYS = List.copyOf(keys);
        N = KEYS.size();
        for (Key k : KEYS) {
            if (BY_BYTES.put(ByteBuffer.wrap(k.bytes()), k) != null) {
                throw new AssertionError("two keys with the same bytes: " + k);
            }
        }
        checkExact();
    }

    /**
     * The model's premise, checked for {@link #SEED}: no bucket is the first choice of more than 8 keys (so every
     * key always sits in its first bucket, no lottery is ever drawn), and no two keys share a fingerprint in a
     * bucket either could be looked up in (so no estimate reads another key's slot).
     */
    private static void checkExact() {
        TableGeometry geometry = TableGeometry.of(TableGeometry.bucketsFor(TABLE_BYTES), 2);
        KeyHasher hasher = KeyHasher.seeded(SEED);
        Map<Long, Integer> firsts = new HashMap<>();
        Map<String, Key> cells = new HashMap<>();
        for (Key k : KEYS) {
            long hash = hasher.hash(k.bytes());
            long bucket = geometry.bucket(hash);
            long fp = geometry.fingerprint(hash);
            if (firsts.merge(bucket, 1, Integer::sum) > 8) {
                throw new AssertionError("more than 8 keys in bucket " + bucket + ": not an exact table");
            }
            for (long b : new long[] {bucket, geometry.alternate(bucket, fp)}) {
                Key other = cells.put(b + "/" + fp, k);
                if (other != null && other != k) {
                    throw new AssertionError(k + " and " + other + " share fingerprint " + fp + " in bucket " + b);
                }
            }
        }
    }

    enum Config {
        /** One table written by the test thread. */
        SHARED,
        /** perWorker(2), every call from the test thread (one table written, queries over two). */
        PER_WORKER,
        /** window(4 slices of 1,000 ns) on a test clock. */
        WINDOW,
        /** One table; bursts from two threads with disjoint keys, compared after they join. */
        TWO_THREADS;

        HotkeeperBuilder builder(AtomicLong clock) {
            HotkeeperBuilder b = Hotkeeper.builder().memoryBytes(TABLE_BYTES).seed(SEED).k(K);
            return switch (this) {
                case SHARED, TWO_THREADS -> b;
                case PER_WORKER -> b.partitioning(Partitioning.perWorker(2));
                case WINDOW -> b.partitioning(Partitioning.window(Duration.ofNanos(WINDOW_SLICES * SLICE_NANOS),
                        WINDOW_SLICES)).clock(clock::get);
            };
        }

        int tables() {
            return this == WINDOW ? WINDOW_SLICES : 1;
        }
    }

    /** Every sketch a try opened (the subject and the fresh instances of the round trips): closed after the try. */
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterTry
    void closeAll() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
        open.clear();
    }

    // ---------------------------------------------------------------- properties

    @Property(seed = "2611", shrinking = ShrinkingMode.BOUNDED)
    void oneSharedTableMatchesTheModel(@ForAll("shared") ActionChain<Subject> chain) {
        chain.withInvariant("every answer equals the model's", Subject::check).run();
    }

    @Property(seed = "2612", shrinking = ShrinkingMode.BOUNDED)
    void perWorkerTablesFromOneThreadMatchTheModel(@ForAll("perWorker") ActionChain<Subject> chain) {
        chain.withInvariant("every answer equals the model's", Subject::check).run();
    }

    @Property(seed = "2613", shrinking = ShrinkingMode.BOUNDED)
    void aWindowOnATestClockMatchesTheModel(@ForAll("window") ActionChain<Subject> chain) {
        chain.withInvariant("every answer equals the model's", Subject::check).run();
    }

    @Property(seed = "2614", shrinking = ShrinkingMode.BOUNDED)
    void twoThreadsWithDisjointKeysMatchTheModelOnceJoined(@ForAll("twoThreads") ActionChain<Subject> chain) {
        chain.withInvariant("every answer equals the model's", Subject::check).run();
    }

    @Provide
    Arbitrary<ActionChain<Subject>> shared() {
        return chain(Config.SHARED);
    }

    @Provide
    Arbitrary<ActionChain<Subject>> perWorker() {
        return chain(Config.PER_WORKER);
    }

    @Provide
    Arbitrary<ActionChain<Subject>> window() {
        return chain(Config.WINDOW);
    }

    @Provide
    Arbitrary<ActionChain<Subject>> twoThreads() {
        return chain(Config.TWO_THREADS);
    }

    /** The generator, the same for every configuration but for the actions only one has (advance, burst). */
    private ActionChainArbitrary<Subject> chain(Config config) {
        ActionChainArbitrary<Subject> chain = ActionChain.<Subject>startWith(() -> new Subject(config, open))
                .withAction(8, act(observeOne()))
                .withAction(2, act(observeBatch()))
                .withAction(2, act(topK()))
                .withAction(1, Action.just(Transformer.mutate("reset()", Subject::reset)))
                .withAction(2, act(decay()))
                .withAction(2, act(Arbitraries.of(Reader.class).map(r -> Transformer.mutate(
                        "snapshot round trip (read from " + r + ")", s -> s.roundTrip(r)))))
                .withAction(2, mergeSaved())
                .withAction(1, mergeAllSaved());
        if (config == Config.WINDOW) {
            chain = chain.withAction(3, act(advance()));
        }
        if (config == Config.TWO_THREADS) {
            chain = chain.withAction(4, act(burst()));
        }
        return chain.withMaxTransformations(MAX_STEPS);
    }

    // ---------------------------------------------------------------- actions

    /** An action that is always possible, its transformations drawn from {@code transformers}. */
    private static Action.Independent<Subject> act(Arbitrary<Transformer<Subject>> transformers) {
        return () -> transformers;
    }

    private static Arbitrary<Long> weights() {
        return Arbitraries.frequencyOf(Tuple.of(6, Arbitraries.just(1L)),
                Tuple.of(3, Arbitraries.longs().between(2, 300)),
                Tuple.of(1, Arbitraries.longs().between(301, 100_000)));
    }

    private static Arbitrary<Transformer<Subject>> observeOne() {
        Arbitrary<Integer> key = Arbitraries.integers().between(0, N - 1);
        Arbitrary<Via> via = Arbitraries.of(Via.class);
        return Combinators.combine(key, weights(), via).as((i, w, v) -> {
            Key k = KEYS.get(i);
            String api = k.number() != null ? (w == 1 ? "observe(long)" : "observe(long, w)")
                    : "observe(" + v.type + (w == 1 ? ")" : ", w)");
            return Transformer.mutate(api + " " + k + (w == 1 ? "" : " w=" + w), s -> s.observe(k, w, v));
        });
    }

    /** How a text key is passed. */
    enum Via {
        TEXT("CharSequence"), BYTES("byte[]"), SEGMENT("MemorySegment");

        final String type;

        Via(String type) {
            this.type = type;
        }
    }

    /** How a snapshot's bytes are read back. */
    enum Reader {
        BYTES, SEGMENT, CHANNEL
    }

    /** observeAll of 1..40 long keys. */
    private static Arbitrary<Transformer<Subject>> observeBatch() {
        return Arbitraries.integers().between(0, 7).list().ofMinSize(1).ofMaxSize(40).map(list -> {
            long[] batch = list.stream().mapToLong(i -> KEYS.get(i).number()).toArray();
            return Transformer.mutate("observeAll" + Arrays.toString(batch), s -> s.observeAll(batch));
        });
    }

    private static Arbitrary<Transformer<Subject>> topK() {
        return Arbitraries.integers().between(0, N + 2).map(n -> Transformer.mutate("topK(" + n + ")",
                s -> s.checkTop(s.hk.topK(n), n, "topK(" + n + ")")));
    }

    private static Arbitrary<Transformer<Subject>> decay() {
        return Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.of(0.5, 0.25, 0.75, 0.999, 1e-9)),
                        Tuple.of(2, Arbitraries.doubles().between(0.0001, 0.9999).ofScale(4)))
                .map(f -> Transformer.mutate("decay(" + f + ")", s -> s.decay(f)));
    }

    private static Arbitrary<Transformer<Subject>> advance() {
        return Arbitraries.frequencyOf(
                        Tuple.of(3, Arbitraries.longs().between(0, (WINDOW_SLICES + 1) * SLICE_NANOS)),
                        Tuple.of(2, Arbitraries.integers().between(1, WINDOW_SLICES + 1).map(n -> n * SLICE_NANOS)))
                .map(d -> Transformer.mutate("advance clock by " + d + " ns", s -> s.advance(d)));
    }

    private static Action.Independent<Subject> mergeSaved() {
        return new Action.Independent<>() {
            @Override
            public boolean precondition(Subject s) {
                return !s.saved.isEmpty() && s.total() < MERGE_LIMIT;
            }

            @Override
            public Arbitrary<Transformer<Subject>> transformer() {
                return Arbitraries.integers().between(0, 2).map(i -> Transformer.mutate(
                        "merge(saved snapshot " + i + ")", s -> s.merge(i)));
            }
        };
    }

    private static Action.Independent<Subject> mergeAllSaved() {
        return new Action.Independent<>() {
            @Override
            public boolean precondition(Subject s) {
                return !s.saved.isEmpty();
            }

            @Override
            public Arbitrary<Transformer<Subject>> transformer() {
                return Arbitraries.just(Transformer.mutate("mergeAll(saved snapshots, snapshot())",
                        Subject::mergeAll));
            }
        };
    }

    /** Two threads, each observing its own keys (thread t the keys whose index is t modulo 2), then joined. */
    private static Arbitrary<Transformer<Subject>> burst() {
        Arbitrary<int[]> item = Combinators.combine(Arbitraries.integers().between(0, N / 2 - 1),
                Arbitraries.integers().between(1, 200), weights().filter(w -> w < 1000).map(Long::intValue))
                .as((half, times, w) -> new int[] {half, times, w});
        return Combinators.combine(item.list().ofMinSize(1).ofMaxSize(6), item.list().ofMinSize(1).ofMaxSize(6))
                .as((a, b) -> Transformer.mutate("burst(thread 0: " + describe(a, 0) + "; thread 1: "
                        + describe(b, 1) + ")", s -> s.burst(List.of(a, b))));
    }

    private static String describe(List<int[]> items, int thread) {
        StringBuilder out = new StringBuilder();
        for (int[] it : items) {
            out.append(out.isEmpty() ? "" : ", ").append(KEYS.get(2 * it[0] + thread)).append(" x").append(it[1])
                    .append(it[2] == 1 ? "" : " w=" + it[2]);
        }
        return out.toString();
    }

    // ---------------------------------------------------------------- the subject and its model

    /** The sketch under test and its model: an exact count per key and table (time slice). */
    static final class Subject {
        final Config config;
        final List<AutoCloseable> open;
        final AtomicLong clock = new AtomicLong();
        final Hotkeeper hk;
        /** counts[table][key]: one row for one written table, one per slice for a window. */
        final long[][] counts;
        long epoch;
        /** Snapshots taken by round trips (decoded from bytes) with the model's counts at that moment. */
        final List<Saved> saved = new ArrayList<>();
        /** The two observer threads (TWO_THREADS only). */
        final ExecutorService[] threads;
        /** Whether a combiner may hold pending counts (TWO_THREADS, until every observer has flushed). */
        boolean pending;

        record Saved(HotkeeperSnapshot snapshot, long[] counts) {
        }

        Subject(Config config, List<AutoCloseable> open) {
            this.config = config;
            this.open = open;
            this.hk = config.builder(clock).build();
            open.add(hk);
            this.counts = new long[config.tables()][N];
            if (config == Config.TWO_THREADS) {
                threads = new ExecutorService[] {Executors.newSingleThreadExecutor(),
                        Executors.newSingleThreadExecutor()};
                for (ExecutorService e : threads) {
                    open.add(() -> {
                        e.shutdownNow();
                        e.awaitTermination(10, TimeUnit.SECONDS);
                    });
                }
            } else {
                threads = null;
            }
        }

        @Override
        public String toString() {
            return config + " " + Arrays.toString(expected());
        }

        int current() {
            return (int) Math.floorMod(epoch, (long) counts.length);
        }

        long[] expected() {
            long[] sum = new long[N];
            for (long[] table : counts) {
                for (int i = 0; i < N; i++) {
                    sum[i] += table[i];
                }
            }
            return sum;
        }

        long total() {
            return Arrays.stream(expected()).sum();
        }

        // ---- actions

        void observe(Key k, long w, Via via) {
            if (k.number() != null) {
                if (w == 1) {
                    hk.observe(k.number());
                } else {
                    hk.observe(k.number(), w);
                }
            } else if (via == Via.BYTES) {
                if (w == 1) {
                    hk.observe(k.bytes());
                } else {
                    hk.observe(k.bytes(), w);
                }
            } else if (via == Via.SEGMENT) {
                MemorySegment segment = MemorySegment.ofArray(k.bytes());
                if (w == 1) {
                    hk.observe(segment);
                } else {
                    hk.observe(segment, 0, segment.byteSize(), w);
                }
            } else if (w == 1) {
                hk.observe(k.text());
            } else {
                hk.observe(k.text(), w);
            }
            counts[current()][k.index()] += w;
            pending |= config == Config.TWO_THREADS;
        }

        void observeAll(long[] batch) {
            hk.observeAll(batch);
            for (long n : batch) {
                counts[current()][indexOf(n)]++;
            }
            pending |= config == Config.TWO_THREADS;
        }

        private static int indexOf(long number) {
            for (Key k : KEYS) {
                if (k.number() != null && k.number() == number) {
                    return k.index();
                }
            }
            throw new AssertionError(number);
        }

        void reset() {
            flushAll();
            hk.reset();
            for (long[] table : counts) {
                Arrays.fill(table, 0);
            }
        }

        void decay(double f) {
            flushAll();
            hk.decay(f);
            for (long[] table : counts) {
                for (int i = 0; i < N; i++) {
                    if (table[i] > 0) {
                        table[i] = Math.max(1, (long) Math.floor(table[i] * f));
                    }
                }
            }
        }

        /** The clock moves on by {@code d} ns; each slice it enters is cleared (all of them after a whole span). */
        void advance(long d) {
            long target = Math.floorDiv(clock.addAndGet(d), SLICE_NANOS);
            if (target - epoch >= WINDOW_SLICES) {
                for (long[] table : counts) {
                    Arrays.fill(table, 0);
                }
            } else {
                for (long e = epoch + 1; e <= target; e++) {
                    Arrays.fill(counts[(int) Math.floorMod(e, (long) WINDOW_SLICES)], 0);
                }
            }
            epoch = Math.max(epoch, target);
        }

        /**
         * snapshot, toBytes, read: the decoded snapshot equals the model; merged into a fresh one-table instance
         * with the same seed (by table) it equals the model, and for a multi-table configuration so does a fresh
         * instance of the same configuration (by keys). The snapshot is saved for merge and mergeAll.
         */
        void roundTrip(Reader reader) {
            flushAll();
            byte[] bytes = hk.snapshot().toBytes();
            HotkeeperSnapshot snapshot;
            try {
                snapshot = switch (reader) {
                    case BYTES -> HotkeeperSnapshot.read(bytes);
                    case SEGMENT -> HotkeeperSnapshot.read(MemorySegment.ofArray(bytes));
                    case CHANNEL -> HotkeeperSnapshot.read(Channels.newChannel(new ByteArrayInputStream(bytes)));
                };
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            long[] expected = expected();
            checkSnapshot(snapshot, expected, "snapshot read back");
            checkMergedIntoFresh(snapshot, expected, "snapshot merged into a fresh instance");
            saved.add(new Saved(snapshot, expected));
            if (saved.size() > 3) {
                saved.removeFirst();
            }
        }

        /** A saved snapshot merged into this sketch: its counts join the current table (slice). */
        void merge(int i) {
            Saved s = saved.get(i % saved.size());
            hk.merge(s.snapshot());
            for (int k = 0; k < N; k++) {
                counts[current()][k] += s.counts()[k];
            }
            // A count of 1 is replayed as a weight-1 observation, which a combiner may take (Hotkeeper.merge).
            pending |= config == Config.TWO_THREADS;
        }

        /** mergeAll of the saved snapshots and a fresh one equals the sum of their models. */
        void mergeAll() {
            flushAll();
            List<HotkeeperSnapshot> inputs = new ArrayList<>();
            long[] sum = expected();
            inputs.add(hk.snapshot());
            for (Saved s : saved) {
                inputs.add(s.snapshot());
                for (int k = 0; k < N; k++) {
                    sum[k] += s.counts()[k];
                }
            }
            HotkeeperSnapshot.Merged merged = HotkeeperSnapshot.mergeAll(inputs);
            if (!merged.report().byTable() || merged.report().droppedWeight() != 0) {
                throw new AssertionError("mergeAll of equal tables: " + merged.report() + ", expected by table, "
                        + "nothing dropped");
            }
            HotkeeperSnapshot back = HotkeeperSnapshot.read(merged.snapshot().toBytes());
            checkSnapshot(back, sum, "mergeAll");
            checkMergedIntoFresh(back, sum, "mergeAll merged into a fresh instance");
        }

        /** Two threads, each observing its own keys; joined before the invariant runs. */
        void burst(List<List<int[]>> work) {
            CyclicBarrier start = new CyclicBarrier(2);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                int thread = t;
                done.add(threads[t].submit(() -> {
                    start.await();
                    for (int[] it : work.get(thread)) {
                        Key k = KEYS.get(2 * it[0] + thread);
                        for (int j = 0; j < it[1]; j++) {
                            observeAs(k, it[2], j % 2 == 0);
                        }
                    }
                    return null;
                }));
            }
            join(done);
            for (int t = 0; t < 2; t++) {
                for (int[] it : work.get(t)) {
                    counts[0][2 * it[0] + t] += (long) it[1] * it[2];
                }
            }
            pending = true;
        }

        private void observeAs(Key k, long w, boolean bytes) {
            if (k.number() != null) {
                hk.observe(k.number(), w);
            } else if (bytes) {
                hk.observe(k.bytes(), w);
            } else {
                hk.observe(k.text(), w);
            }
        }

        /** Every observing thread hands its pending combined counts to the table (TWO_THREADS). */
        private void flushAll() {
            if (threads == null) {
                return;
            }
            List<Future<?>> done = new ArrayList<>();
            for (ExecutorService e : threads) {
                done.add(e.submit(hk::flush));
            }
            join(done);
            hk.flush();
            pending = false;
        }

        private static void join(List<Future<?>> done) {
            for (Future<?> f : done) {
                try {
                    f.get(60, TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException e) {
                    throw new AssertionError(e.getCause());
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            }
        }

        // ---- comparisons

        /** The invariant, after every step. */
        void check() {
            long[] expected = expected();
            for (Key k : KEYS) {
                long e = expected[k.index()];
                if (k.number() != null) {
                    equal(e, hk.estimate(k.number()), "estimate(long " + k + ")");
                } else {
                    equal(e, hk.estimate(k.text()), "estimate(CharSequence " + k + ")");
                }
                equal(e, hk.estimate(k.bytes()), "estimate(byte[] " + k + ")");
                equal(e, hk.estimate(MemorySegment.ofArray(k.bytes())), "estimate(MemorySegment " + k + ")");
            }
            long total = hk.totalWeight();
            long sum = Arrays.stream(expected).sum();
            if (pending) {
                // Pending combined counts are not in a derived total (Hotkeeper.totalWeight).
                if (total > sum) {
                    throw new AssertionError("totalWeight " + total + " > model's " + sum + "; model "
                            + Arrays.toString(expected));
                }
            } else {
                equal(sum, total, "totalWeight()");
            }
            checkTop(hk.topK(), K, "topK()");
            checkTop(hk.topK(N), N, "topK(" + N + ")");
            checkTop(hk.topK(1), 1, "topK(1)");
            checkHeavy(hk.heavyHitters(0.1), expected, total, "heavyHitters(0.1)");
            if (!pending) {
                checkContains(expected);
            }
        }

        void checkTop(List<HeavyHitter> top, int n, String what) {
            checkTop(top, expected(), n, what);
        }

        void equal(long expected, long actual, String what) {
            if (expected != actual) {
                throw new AssertionError(what + ": expected " + expected + " but was " + actual + "; model "
                        + describe(expected()));
            }
        }

        /**
         * {@code top} is a top-{@code n} of the model: min(n, keys present) distinct keys, each with its exact
         * count, highest first, and their counts are the n highest counts (keys tied with the last may be
         * exchanged).
         */
        static void checkTop(List<HeavyHitter> top, long[] expected, int n, String what) {
            long[] sorted = Arrays.stream(expected).filter(c -> c > 0).map(c -> -c).sorted().map(c -> -c).toArray();
            int size = Math.min(n, sorted.length);
            String context = what + " = " + render(top) + "; model " + describe(expected);
            if (top.size() != size) {
                throw new AssertionError(context + ": " + top.size() + " keys, expected " + size);
            }
            Set<Key> seen = new HashSet<>();
            for (int i = 0; i < size; i++) {
                HeavyHitter h = top.get(i);
                Key k = BY_BYTES.get(ByteBuffer.wrap(h.key()));
                if (k == null || h.truncated() || !seen.add(k)) {
                    throw new AssertionError(context + ": unknown, truncated or repeated key at " + i);
                }
                if (h.estimate() != expected[k.index()]) {
                    throw new AssertionError(context + ": " + k + " reported " + h.estimate() + ", model "
                            + expected[k.index()]);
                }
                if (h.estimate() != sorted[i]) {
                    throw new AssertionError(context + ": entry " + i + " is " + h.estimate() + ", the model's "
                            + (i + 1) + "-th highest count is " + sorted[i]);
                }
            }
        }

        /** Every key whose count is at least max(1, phi * total), highest first. */
        private static void checkHeavy(List<HeavyHitter> heavy, long[] expected, long total, String what) {
            double threshold = Math.max(1, 0.1 * total);
            int n = (int) Arrays.stream(expected).filter(c -> c > 0 && c >= threshold).count();
            checkTop(heavy, expected, n, what + " (threshold " + threshold + ")");
        }

        /**
         * contains: true for a key above the k-th highest count, false for one below it or absent; a key tied
         * with the k-th highest count is not checked (the docs do not say which of tied keys are "among the k").
         */
        private void checkContains(long[] expected) {
            long[] sorted = Arrays.stream(expected).filter(c -> c > 0).map(c -> -c).sorted().map(c -> -c).toArray();
            long kth = sorted.length < K ? 0 : sorted[K - 1];
            for (Key k : KEYS) {
                long c = expected[k.index()];
                boolean got = k.number() != null ? hk.contains(k.number()) : hk.contains(k.text());
                boolean bytesGot = hk.contains(k.bytes());
                if (got != bytesGot) {
                    throw new AssertionError("contains(" + k + ") differs between its overloads; model "
                            + describe(expected));
                }
                if (c > 0 && c > kth && !got || (c == 0 || c < kth) && got) {
                    throw new AssertionError("contains(" + k + ") = " + got + " with count " + c + ", k-th count "
                            + kth + "; model " + describe(expected));
                }
            }
        }

        private static void checkSnapshot(HotkeeperSnapshot s, long[] expected, String what) {
            List<HeavyHitter> keys = new ArrayList<>();
            for (SnapshotKey k : s.keys()) {
                keys.add(new HeavyHitter(k.key(), k.estimate(), k.truncated(), k.kind()));
            }
            checkTop(keys, expected, N, what + " keys()");
            checkTop(s.topK(K), expected, K, what + " topK()");
            for (Key k : KEYS) {
                if (s.estimate(k.bytes()) != expected[k.index()]) {
                    throw new AssertionError(what + ": estimate(" + k + ") = " + s.estimate(k.bytes())
                            + "; model " + describe(expected));
                }
            }
            long sum = Arrays.stream(expected).sum();
            if (s.totalWeight() != sum || s.hasTable() && s.tableWeight() != sum) {
                throw new AssertionError(what + ": totalWeight " + s.totalWeight() + ", tableWeight "
                        + (s.hasTable() ? s.tableWeight() : -1) + "; model " + sum + " " + describe(expected));
            }
        }

        /**
         * {@code s} merged into a fresh one-table instance of the same seed and size (by table), and for a
         * multi-table configuration into a fresh instance of the same configuration (by keys): each equals the
         * model.
         */
        private void checkMergedIntoFresh(HotkeeperSnapshot s, long[] expected, String what) {
            List<Config> targets = config == Config.SHARED || config == Config.TWO_THREADS
                    ? List.of(Config.SHARED) : List.of(Config.SHARED, config);
            for (Config target : targets) {
                try (Hotkeeper fresh = target.builder(new AtomicLong(clock.get())).build()) {
                    fresh.merge(s);
                    String where = what + " (" + target + ")";
                    for (Key k : KEYS) {
                        long got = k.number() != null ? fresh.estimate(k.number()) : fresh.estimate(k.text());
                        if (got != expected[k.index()]) {
                            throw new AssertionError(where + ": estimate(" + k + ") = " + got + "; model "
                                    + describe(expected));
                        }
                    }
                    checkTop(fresh.topK(N), expected, N, where + " topK(" + N + ")");
                    long sum = Arrays.stream(expected).sum();
                    if (fresh.totalWeight() != sum) {
                        throw new AssertionError(where + ": totalWeight " + fresh.totalWeight() + ", model " + sum);
                    }
                }
            }
        }

        private static String render(List<HeavyHitter> top) {
            StringBuilder out = new StringBuilder("[");
            for (HeavyHitter h : top) {
                Key k = BY_BYTES.get(ByteBuffer.wrap(h.key()));
                out.append(out.length() == 1 ? "" : ", ").append(k == null ? h.keyAsString() : k).append('=')
                        .append(h.estimate());
            }
            return out.append(']').toString();
        }

        static String describe(long[] expected) {
            StringBuilder out = new StringBuilder("{");
            for (Key k : KEYS) {
                if (expected[k.index()] > 0) {
                    out.append(out.length() == 1 ? "" : ", ").append(k).append('=').append(expected[k.index()]);
                }
            }
            return out.append('}').toString();
        }
    }
}
