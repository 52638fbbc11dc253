package io.hotkeeper.jcstress.close;

import io.hotkeeper.engine.core.Internals;
import io.hotkeeper.engine.lottery.DecayLottery;
import io.hotkeeper.engine.HeavyHitter;
import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.SaltMode;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.openjdk.jcstress.infra.results.IIII_Result;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.BooleanSupplier;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * {@code close()} against every public call of a {@link Hotkeeper}: a racing call either returns its normal
 * (and correct) result or throws {@link IllegalStateException} with {@link Hotkeeper#CLOSED_MESSAGE}; never a
 * crash, a wrong result read from freed memory, or another exception. The memory is freed exactly once: the
 * closer returns normally, the arena is dead afterwards, and a second closer neither frees again nor throws.
 *
 * <p>Fixture ({@link Fixture}): a real instance of the smallest shape, 4 KiB table, k = 4, promotion floor 2,
 * 16-entry key shards, seeded; key {@code 1L} and key {@code "key-1"} observed 3 times each by the state's
 * constructor, so every query has one known right answer (estimate 3, both keys in the top k, 2 claims, ...).
 * The caller actor runs a sequence of calls; the close usually lands before, after, or between two of them.
 *
 * <p>Result {@code normal, closed, wrong, freed}: calls that returned the right result, calls that threw the
 * closed exception, calls that did anything else (another exception or message, a wrong result), and 1 if the
 * closer returned normally and the instance's memory is freed (its arena is no longer alive) when the arbiter
 * runs. Run: {@code jcstress/run -- -t CloseVersusCallsTest}.
 */
public final class CloseVersusCallsTest {
    private CloseVersusCallsTest() {
    }

    static final byte[] BYTES = "key-1".getBytes(StandardCharsets.UTF_8);
    /** "key-1" in native memory of its own (a caller's key segment: never closed). */
    static final MemorySegment SEGMENT = Arena.global().allocate(BYTES.length);

    static {
        MemorySegment.copy(BYTES, 0, SEGMENT, ValueLayout.JAVA_BYTE, 0, BYTES.length);
    }

    /** One instance per state: allocation is an arena, 4 KiB of table and links, the salt and stats stripes. */
    static class Fixture {
        final Hotkeeper hk = Hotkeeper.builder().recordStats().memoryBytes(4096).k(4).minCount(2).shardCapacity(16)
                .maxKeyBytes(8).seed(42).expectedThreads(2).build();
        /** A region of the instance's arena: its scope says whether the memory was freed. */
        final MemorySegment.Scope scope;
        volatile boolean closerReturned;

        Fixture() {
            for (int i = 0; i < 3; i++) {
                hk.observe(1L);
                hk.observe("key-1");
            }
            scope = Internals.keyShards(hk).regions().get(0).scope();
        }

        void close() {
            hk.close();
            closerReturned = true;
        }

        int freed() {
            return closerReturned && hk.isClosed() && !scope.isAlive() ? 1 : 0;
        }
    }

    /** Tally of one actor's calls. */
    static final class Tally {
        int normal;
        int closed;
        int wrong;

        /** Runs {@code call}: its result must be right, or it must throw exactly the closed exception. */
        void run(BooleanSupplier call) {
            boolean right;
            try {
                right = call.getAsBoolean();
            } catch (IllegalStateException e) {
                if (Hotkeeper.CLOSED_MESSAGE.equals(e.getMessage()) && (e.getCause() == null
                        || e.getCause() instanceof IllegalStateException)) {
                    closed++;
                } else {
                    wrong++;
                }
                return;
            } catch (Throwable t) {
                wrong++;
                return;
            }
            if (right) {
                normal++;
            } else {
                wrong++;
            }
        }

        void into(IIII_Result r) {
            r.r1 = normal;
            r.r2 = closed;
            r.r3 = wrong;
        }
    }

    @JCStressTest
    @Description("close() against each observe variant (12 calls): each returns an estimate or throws closed")
    @Outcome(id = "12, 0, 0, 1", expect = ACCEPTABLE, desc = "Every observation ran before the close")
    @Outcome(id = "0, 12, 0, 1", expect = ACCEPTABLE, desc = "The close came first: every observation threw closed")
    @Outcome(id = "([1-9]|1[01]), ([1-9]|1[01]), 0, 1", expect = ACCEPTABLE_INTERESTING,
            desc = "The close landed between two observations: the earlier ones counted, the later ones threw")
    @Outcome(id = ".*", expect = FORBIDDEN,
            desc = "Another exception or message, an impossible estimate, or the memory not freed once")
    @State
    public static class Observe extends Fixture {
        @Actor
        public void caller(IIII_Result r) {
            Tally t = new Tally();
            // An observation returns the key's estimate afterwards, exactly: two keys in 64 buckets are never
            // evicted, and no count reaches the combiners' admission. "key-1" as bytes, chars and segment is one key.
            t.run(() -> hk.observe(1L) == 4);
            t.run(() -> hk.observe(1L, 2) == 6);
            t.run(() -> hk.observe(BYTES) == 4);
            t.run(() -> hk.observe(BYTES, 2) == 6);
            t.run(() -> hk.observe(BYTES, 0, BYTES.length) == 7);
            t.run(() -> hk.observe("key-1") == 8);
            t.run(() -> hk.observe("key-1", 2) == 10);
            t.run(() -> hk.observe(SEGMENT) == 11);
            t.run(() -> hk.observe(SEGMENT, 0, BYTES.length) == 12);
            t.run(() -> hk.observe(SEGMENT, 0, BYTES.length, 2) == 14);
            t.run(() -> {
                hk.observeAll(new long[] {1L, 1L});
                return true;
            });
            t.run(() -> {
                hk.observeAll(new long[] {1L, 1L, 1L}, 1, 3);
                return true;
            });
            t.into(r);
        }

        @Actor
        public void closer() {
            close();
        }

        @Arbiter
        public void arbiter(IIII_Result r) {
            r.r4 = freed();
        }
    }

    @JCStressTest
    @Description("close() against every query (22 calls): each returns its one right answer or throws closed")
    @Outcome(id = "22, 0, 0, 1", expect = ACCEPTABLE, desc = "Every query ran before the close")
    @Outcome(id = "0, 22, 0, 1", expect = ACCEPTABLE, desc = "The close came first: every query threw closed")
    @Outcome(id = "([1-9]|1[0-9]|2[01]), ([1-9]|1[0-9]|2[01]), 0, 1", expect = ACCEPTABLE_INTERESTING,
            desc = "The close landed between two queries: the earlier ones answered, the later ones threw")
    @Outcome(id = ".*", expect = FORBIDDEN,
            desc = "Another exception or message, a wrong answer (e.g. from freed memory), or not freed once")
    @State
    public static class Query extends Fixture {
        @Actor
        public void caller(IIII_Result r) {
            Tally t = new Tally();
            t.run(() -> hk.estimate(1L) == 3);
            t.run(() -> hk.estimate(BYTES) == 3);
            t.run(() -> hk.estimate(BYTES, 0, BYTES.length) == 3);
            t.run(() -> hk.estimate("key-1") == 3);
            t.run(() -> hk.estimate(SEGMENT) == 3);
            t.run(() -> hk.estimate(SEGMENT, 0, BYTES.length) == 3);
            t.run(() -> topTwo(hk.topK()));
            t.run(() -> topTwo(hk.topK(3)));
            t.run(() -> hk.topK(0).isEmpty());
            t.run(() -> hk.contains(1L));
            t.run(() -> hk.contains(BYTES));
            t.run(() -> hk.contains("key-1"));
            t.run(() -> hk.flush() == 0);
            t.run(() -> {
                hk.reap();
                return true;
            });
            t.run(() -> hk.stats().claims() == 2);
            t.run(() -> hk.info().k() == 4 && hk.info().tableBytes() == 4096);
            t.run(() -> hk.placement().region("table") != null);
            t.run(() -> Internals.keyShards(hk) != null);
            t.run(() -> hk.tableBytes() == 4096);
            t.run(() -> hk.bucketCount() == 64);
            t.run(() -> hk.saltMode() == SaltMode.PER_WORKER && hk.saltShards() == 2);
            t.run(() -> hk.decayBase() == DecayLottery.DEFAULT_BASE);
            t.into(r);
        }

        @Actor
        public void closer() {
            close();
        }

        @Arbiter
        public void arbiter(IIII_Result r) {
            r.r4 = freed();
        }

        private static boolean topTwo(List<HeavyHitter> top) {
            return top.size() == 2 && top.get(0).estimate() == 3 && top.get(1).estimate() == 3;
        }
    }

    @JCStressTest
    @Description("Two closers: both return, the memory is freed once (a second arena close would throw)")
    @Outcome(id = "1, 1, 1", expect = ACCEPTABLE, desc = "Both closers returned; the arena was closed once")
    @Outcome(id = ".*", expect = FORBIDDEN, desc = "A closer threw (a second free), or the memory is still live")
    @State
    public static class TwoClosers extends Fixture {
        @Actor
        public void first(III_Result r) {
            r.r1 = closeOnce();
        }

        @Actor
        public void second(III_Result r) {
            r.r2 = closeOnce();
        }

        @Arbiter
        public void arbiter(III_Result r) {
            r.r3 = hk.isClosed() && !scope.isAlive() ? 1 : 0;
        }

        private int closeOnce() {
            try {
                hk.close();
                return 1;
            } catch (Throwable t) {
                return 0;
            }
        }
    }
}
