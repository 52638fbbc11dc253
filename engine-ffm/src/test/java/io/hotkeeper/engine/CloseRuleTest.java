package io.hotkeeper.engine;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The close rule: once {@code close()} has returned, every public instance method of {@link Hotkeeper} except
 * {@code close()} and {@code isClosed()} throws {@link IllegalStateException} with the message
 * {@value Hotkeeper#CLOSED_MESSAGE}, whose cause (if any) is the arena's own {@code IllegalStateException}.
 *
 * <p>The methods are enumerated by reflection, so a public method added later fails {@link #everyPublicMethodHasAnArgumentMaker}
 * until it gets an entry in {@link #ARGUMENTS} (valid arguments), and then the rule is checked for it too.
 */
class CloseRuleTest {

    /** Public instance methods the rule does not cover. */
    private static final List<String> EXEMPT = List.of("close()", "isClosed()");

    private static final byte[] BYTES = "key-1".getBytes(StandardCharsets.UTF_8);

    /** A small snapshot to merge (of another instance, closed since: a snapshot owes it nothing). */
    private static final io.hotkeeper.engine.snapshot.HotkeeperSnapshot SNAPSHOT;

    static {
        try (Hotkeeper source = Hotkeeper.builder().memoryBytes(4096).seed(3).minCount(1).build()) {
            for (int i = 0; i < 100; i++) {
                source.observe("key-" + (i % 7));
            }
            SNAPSHOT = source.snapshot();
        }
    }

    /** Valid arguments of every public instance method, by signature (simple parameter type names). */
    private static final Map<String, Supplier<Object[]>> ARGUMENTS = new LinkedHashMap<>();

    static {
        MemorySegment segment = Arena.global().allocate(8);
        segment.setString(0, "key-1");
        args("observe(long)", () -> new Object[] {1L});
        args("observe(long,long)", () -> new Object[] {1L, 3L});
        args("observe(byte[])", () -> new Object[] {BYTES});
        args("observe(byte[],long)", () -> new Object[] {BYTES, 3L});
        args("observe(byte[],int,int)", () -> new Object[] {BYTES, 1, 3});
        args("observe(byte[],int,int,long)", () -> new Object[] {BYTES, 1, 3, 3L});
        args("observe(CharSequence)", () -> new Object[] {"key-1"});
        args("observe(CharSequence,long)", () -> new Object[] {"key-1", 3L});
        args("observe(MemorySegment)", () -> new Object[] {segment});
        args("observe(MemorySegment,long)", () -> new Object[] {segment, 3L});
        args("observe(MemorySegment,long,long)", () -> new Object[] {segment, 1L, 3L});
        args("observe(MemorySegment,long,long,long)", () -> new Object[] {segment, 1L, 3L, 3L});
        args("observeAll(long[])", () -> new Object[] {new long[] {1, 2, 3}});
        args("observeAll(long[],int,int)", () -> new Object[] {new long[] {1, 2, 3}, 1, 3});
        args("estimate(long)", () -> new Object[] {1L});
        args("estimate(byte[])", () -> new Object[] {BYTES});
        args("estimate(byte[],int,int)", () -> new Object[] {BYTES, 1, 3});
        args("estimate(CharSequence)", () -> new Object[] {"key-1"});
        args("estimate(MemorySegment)", () -> new Object[] {segment});
        args("estimate(MemorySegment,long,long)", () -> new Object[] {segment, 1L, 3L});
        args("topK()", () -> new Object[0]);
        args("topK(int)", () -> new Object[] {5});
        args("contains(long)", () -> new Object[] {1L});
        args("contains(byte[])", () -> new Object[] {BYTES});
        args("contains(CharSequence)", () -> new Object[] {"key-1"});
        args("contains(byte[],int,int)", () -> new Object[] {BYTES, 1, 3});
        args("contains(MemorySegment)", () -> new Object[] {segment});
        args("contains(MemorySegment,long,long)", () -> new Object[] {segment, 1L, 3L});
        args("reap()", () -> new Object[0]);
        args("flush()", () -> new Object[0]);
        args("info()", () -> new Object[0]);
        args("placement()", () -> new Object[0]);
        args("writer()", () -> new Object[0]);
        args("stats()", () -> new Object[0]);
        args("recordsStats()", () -> new Object[0]);
        args("tableBytes()", () -> new Object[0]);
        args("bucketCount()", () -> new Object[0]);
        args("saltMode()", () -> new Object[0]);
        args("saltShards()", () -> new Object[0]);
        args("decayBase()", () -> new Object[0]);
        args("snapshot()", () -> new Object[0]);
        args("merge(HotkeeperSnapshot)", () -> new Object[] {SNAPSHOT});
        args("seedFingerprint()", () -> new Object[0]);
        args("totalWeight()", () -> new Object[0]);
        args("heavyHitters(double)", () -> new Object[] {0.01});
        args("bounds(byte[],double)", () -> new Object[] {BYTES, 0.95});
        args("bounds(CharSequence,double)", () -> new Object[] {"key-1", 0.95});
        args("bounds(long,double)", () -> new Object[] {1L, 0.95});
        args("bounds(byte[],int,int,double)", () -> new Object[] {BYTES, 1, 3, 0.95});
        args("bounds(MemorySegment,double)", () -> new Object[] {segment, 0.95});
        args("bounds(MemorySegment,long,long,double)", () -> new Object[] {segment, 1L, 3L, 0.95});
        args("reset()", () -> new Object[0]);
        args("decay(double)", () -> new Object[] {0.5});
    }

    private static void args(String signature, Supplier<Object[]> maker) {
        if (ARGUMENTS.put(signature, maker) != null) {
            throw new AssertionError("two argument makers for " + signature);
        }
    }

    /** The shapes whose methods take different paths (key shards or not, combiners or not, one table or several). */
    private static final Map<String, Supplier<Hotkeeper>> SHAPES = new LinkedHashMap<>();

    static {
        SHAPES.put("default", () -> Hotkeeper.builder().memoryBytes(4096).minCount(1).build());
        SHAPES.put("no key shards, no combining",
                () -> Hotkeeper.builder().memoryBytes(4096).keepKeys(false).combining(CombiningMode.OFF).build());
        SHAPES.put("combining on", () -> Hotkeeper.builder().memoryBytes(4096).combining(CombiningMode.ON).build());
        SHAPES.put("worker tables", () -> Hotkeeper.builder().memoryBytes(4096)
                .partitioning(Partitioning.perWorker(2)).minCount(1).build());
        SHAPES.put("per-node tables (2 simulated)",
                () -> SimulatedNodes.build(Hotkeeper.builder().memoryBytes(4096).minCount(1), 2, () -> 0));
        SHAPES.put("windowed (4 slices of a minute)", () -> Hotkeeper.builder().memoryBytes(4096)
                .partitioning(Partitioning.window(java.time.Duration.ofMinutes(4), 4)).minCount(1).build());
        SHAPES.put("named (a JFR hook), stats recorded",
                () -> Hotkeeper.builder().memoryBytes(4096).minCount(1).name("close-rule").recordStats().build());
        SHAPES.put("decay base 1.08, sharded salt", () -> Hotkeeper.builder().memoryBytes(4096).decayBase(1.08)
                .shardedSalt().build());
    }

    static List<Method> coveredMethods() {
        return Arrays.stream(Hotkeeper.class.getMethods())
                .filter(m -> m.getDeclaringClass() == Hotkeeper.class)
                .filter(m -> !Modifier.isStatic(m.getModifiers()) && !m.isSynthetic() && !m.isBridge())
                .filter(m -> !EXEMPT.contains(signature(m)))
                .sorted((a, b) -> signature(a).compareTo(signature(b)))
                .toList();
    }

    static String signature(Method m) {
        return m.getName() + Arrays.stream(m.getParameterTypes()).map(Class::getSimpleName)
                .collect(Collectors.joining(",", "(", ")"));
    }

    @Test
    void everyPublicMethodHasAnArgumentMaker() {
        TreeSet<String> methods = new TreeSet<>();
        coveredMethods().forEach(m -> methods.add(signature(m)));
        TreeSet<String> missing = new TreeSet<>(methods);
        missing.removeAll(ARGUMENTS.keySet());
        assertTrue(missing.isEmpty(), "public methods without an argument maker in CloseRuleTest.ARGUMENTS "
                + "(add one, and make the method follow the close rule): " + missing);
        TreeSet<String> stale = new TreeSet<>(ARGUMENTS.keySet());
        stale.removeAll(methods);
        assertTrue(stale.isEmpty(), "argument makers for methods that are not public instance methods: " + stale);
        for (String exempt : EXEMPT) {
            assertTrue(Arrays.stream(Hotkeeper.class.getMethods()).anyMatch(m -> signature(m).equals(exempt)),
                    exempt);
        }
    }

    /** The argument makers are valid: on an open instance of the default shape every call returns normally. */
    @Test
    void everyCallSucceedsWhileOpen() throws Exception {
        try (Hotkeeper hk = SHAPES.get("default").get()) {
            for (Method m : coveredMethods()) {
                try {
                    m.invoke(hk, ARGUMENTS.get(signature(m)).get());
                } catch (InvocationTargetException e) {
                    fail(signature(m) + " threw on an open instance", e.getCause());
                }
            }
            assertFalse(hk.isClosed());
        }
    }

    /** A used instance of every shape (shards and combiner blocks created), then closed: every call throws. */
    @Test
    void everyCallThrowsTheClosedExceptionAfterClose() {
        for (var shape : SHAPES.entrySet()) {
            Hotkeeper hk = shape.getValue().get();
            for (long key = 0; key < 2000; key++) {
                hk.observe(key % 50);
                hk.observe("key-" + (key % 20));
            }
            assertClosedRule(hk, shape.getKey() + ", used");
        }
    }

    /** A fresh instance (no shard, no combiner block yet): the calls that then read no native memory throw too. */
    @Test
    void everyCallThrowsTheClosedExceptionAfterCloseOnAFreshInstance() {
        for (var shape : SHAPES.entrySet()) {
            assertClosedRule(shape.getValue().get(), shape.getKey() + ", fresh");
        }
    }

    private static void assertClosedRule(Hotkeeper hk, String shape) {
        hk.close();
        hk.close();
        assertTrue(hk.isClosed(), shape);
        List<String> failures = new ArrayList<>();
        for (Method m : coveredMethods()) {
            String what = shape + ": " + signature(m);
            Object result;
            try {
                result = m.invoke(hk, ARGUMENTS.get(signature(m)).get());
            } catch (InvocationTargetException e) {
                Throwable t = e.getCause();
                if (!(t instanceof IllegalStateException)) {
                    failures.add(what + " threw " + t);
                } else if (!Hotkeeper.CLOSED_MESSAGE.equals(t.getMessage())) {
                    failures.add(what + " threw IllegalStateException with message '" + t.getMessage() + "'");
                } else if (t.getCause() != null && !(t.getCause() instanceof IllegalStateException
                        && "Already closed".equals(t.getCause().getMessage()))) {
                    failures.add(what + ": cause is " + t.getCause() + ", not the arena's closed exception");
                }
                continue;
            } catch (IllegalAccessException e) {
                throw new AssertionError(e);
            }
            failures.add(what + " returned " + result + " instead of throwing");
        }
        assertEquals(List.of(), failures);
        // close() and isClosed() stay usable.
        hk.close();
        assertTrue(hk.isClosed());
    }
}
