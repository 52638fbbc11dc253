package io.hotkeeper.engine;

import io.hotkeeper.engine.snapshot.KeyBounds;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@link KeyObserver} on its two implementations: every overload counts the same key bytes on the sketch and on
 * its writer, a weighted overload adds its weight, and bad input (null, a weight below 1, a range outside the
 * key, a closed sketch, a writer's other thread) throws the same exception type on both. The reads take every
 * kind of key too: {@code estimate}, {@code contains} and {@code bounds} agree across the kinds.
 */
class KeyObserverTest {

    /** One key as every kind gives it: 8 ASCII bytes, so also a {@code long} (little-endian) and a text. */
    private static final String TEXT = "hotkey42";
    private static final byte[] BYTES = TEXT.getBytes(StandardCharsets.UTF_8);
    private static final long LONG = ByteBuffer.wrap(BYTES).order(ByteOrder.LITTLE_ENDIAN).getLong();
    /** The key inside a larger array and segment, at {@link #AT}. */
    private static final byte[] PADDED = ("<<<" + TEXT + ">>").getBytes(StandardCharsets.UTF_8);
    private static final int AT = 3;
    private static final MemorySegment NATIVE = Arena.global().allocate(BYTES.length);
    private static final MemorySegment NATIVE_PADDED = Arena.global().allocate(PADDED.length);

    static {
        MemorySegment.copy(BYTES, 0, NATIVE, ValueLayout.JAVA_BYTE, 0, BYTES.length);
        MemorySegment.copy(PADDED, 0, NATIVE_PADDED, ValueLayout.JAVA_BYTE, 0, PADDED.length);
    }

    /** An observation of the key: the overload's signature, the weight it adds, and the call. */
    private record Form(String signature, long weight, Function<KeyObserver, Long> call) {
    }

    /** Every overload of KeyObserver, each observing the key (observeAll: the key twice). */
    private static final List<Form> FORMS = List.of(
            new Form("observe(long)", 1, o -> o.observe(LONG)),
            new Form("observe(long,long)", 7, o -> o.observe(LONG, 7)),
            new Form("observe(byte[])", 1, o -> o.observe(BYTES.clone())),
            new Form("observe(byte[],long)", 5, o -> o.observe(BYTES.clone(), 5)),
            new Form("observe(byte[],int,int)", 1, o -> o.observe(PADDED, AT, BYTES.length)),
            new Form("observe(byte[],int,int,long)", 11, o -> o.observe(PADDED, AT, BYTES.length, 11)),
            new Form("observe(CharSequence)", 1, o -> o.observe(new StringBuilder(TEXT))),
            new Form("observe(CharSequence,long)", 3, o -> o.observe(TEXT, 3)),
            new Form("observe(MemorySegment)", 1, o -> o.observe(NATIVE)),
            new Form("observe(MemorySegment,long)", 13, o -> o.observe(MemorySegment.ofArray(BYTES), 13)),
            new Form("observe(MemorySegment,long,long)", 1, o -> o.observe(NATIVE_PADDED, AT, BYTES.length)),
            new Form("observe(MemorySegment,long,long,long)", 17,
                    o -> o.observe(MemorySegment.ofArray(PADDED), AT, BYTES.length, 17)),
            new Form("observeAll(long[])", 2, o -> {
                o.observeAll(new long[] {LONG, LONG});
                return -1L;
            }),
            new Form("observeAll(long[],int,int)", 2, o -> {
                o.observeAll(new long[] {1, LONG, LONG, 2}, 1, 3);
                return -1L;
            }));

    /** Every estimate overload, for the key. */
    private static final Map<String, Function<Hotkeeper, Long>> ESTIMATES = new LinkedHashMap<>();
    /** Every contains overload, for the key. */
    private static final Map<String, Function<Hotkeeper, Boolean>> CONTAINS = new LinkedHashMap<>();
    /** Every bounds overload, for the key, at 95%. */
    private static final Map<String, Function<Hotkeeper, KeyBounds>> BOUNDS = new LinkedHashMap<>();

    static {
        ESTIMATES.put("estimate(long)", h -> h.estimate(LONG));
        ESTIMATES.put("estimate(byte[])", h -> h.estimate(BYTES));
        ESTIMATES.put("estimate(byte[],int,int)", h -> h.estimate(PADDED, AT, BYTES.length));
        ESTIMATES.put("estimate(CharSequence)", h -> h.estimate(TEXT));
        ESTIMATES.put("estimate(MemorySegment)", h -> h.estimate(NATIVE));
        ESTIMATES.put("estimate(MemorySegment,long,long)", h -> h.estimate(NATIVE_PADDED, AT, BYTES.length));
        CONTAINS.put("contains(long)", h -> h.contains(LONG));
        CONTAINS.put("contains(byte[])", h -> h.contains(BYTES));
        CONTAINS.put("contains(byte[],int,int)", h -> h.contains(PADDED, AT, BYTES.length));
        CONTAINS.put("contains(CharSequence)", h -> h.contains(TEXT));
        CONTAINS.put("contains(MemorySegment)", h -> h.contains(NATIVE));
        CONTAINS.put("contains(MemorySegment,long,long)", h -> h.contains(NATIVE_PADDED, AT, BYTES.length));
        BOUNDS.put("bounds(long,double)", h -> h.bounds(LONG, 0.95));
        BOUNDS.put("bounds(byte[],double)", h -> h.bounds(BYTES, 0.95));
        BOUNDS.put("bounds(byte[],int,int,double)", h -> h.bounds(PADDED, AT, BYTES.length, 0.95));
        BOUNDS.put("bounds(CharSequence,double)", h -> h.bounds(TEXT, 0.95));
        BOUNDS.put("bounds(MemorySegment,double)", h -> h.bounds(NATIVE, 0.95));
        BOUNDS.put("bounds(MemorySegment,long,long,double)", h -> h.bounds(NATIVE_PADDED, AT, BYTES.length, 0.95));
    }

    private static Hotkeeper sketch() {
        return Hotkeeper.builder().memoryBytes(4096).seed(29).recordStats().build();
    }

    @Test
    void everyOverloadIsCoveredHere() {
        TreeSet<String> declared = new TreeSet<>();
        for (Method m : KeyObserver.class.getMethods()) {
            declared.add(signature(m));
        }
        assertEquals(declared, new TreeSet<>(FORMS.stream().map(Form::signature).toList()));
        assertEquals(declared, new TreeSet<>(ARGUMENTS.keySet()));
    }

    /**
     * The same key through every overload, one after another, into a sketch and into an equal sketch's writer:
     * each call returns the running total on both (one key in an empty table: exact), a weighted one adding its
     * weight, and every estimate overload of both sketches reads the total.
     */
    @Test
    void everyOverloadCountsTheSameKeyOnTheSketchAndItsWriter() {
        try (Hotkeeper direct = sketch(); Hotkeeper viaWriter = sketch()) {
            HotkeeperWriter writer = viaWriter.writer();
            long total = 0;
            for (Form form : FORMS) {
                long before = total;
                total += form.weight();
                long fromSketch = form.call().apply(direct);
                long fromWriter = form.call().apply(writer);
                if (fromSketch >= 0) { // observe returns the estimate afterwards; observeAll returns nothing
                    assertEquals(total, fromSketch, form.signature() + " on the sketch, after " + before);
                    assertEquals(total, fromWriter, form.signature() + " on the writer, after " + before);
                }
                for (var estimate : ESTIMATES.entrySet()) {
                    assertEquals(total, estimate.getValue().apply(direct), form.signature() + ", then "
                            + estimate.getKey() + " on the sketch");
                    assertEquals(total, estimate.getValue().apply(viaWriter), form.signature() + ", then "
                            + estimate.getKey() + " on the writer's sketch");
                }
            }
            assertEquals(total, direct.totalWeight());
            assertEquals(total, viaWriter.totalWeight());
            assertEquals(direct.topK(), viaWriter.topK());
            assertEquals(direct.stats(), viaWriter.stats());
        }
    }

    /** contains and bounds take every kind of key and agree across the kinds, for a heavy key and an absent one. */
    @Test
    void containsAndBoundsTakeEveryKindOfKey() {
        try (Hotkeeper hk = sketch()) {
            for (var contains : CONTAINS.entrySet()) {
                assertFalse(contains.getValue().apply(hk), contains.getKey() + " before the key is observed");
            }
            KeyBounds absent = hk.bounds(LONG, 0.95);
            for (var bounds : BOUNDS.entrySet()) {
                assertEquals(absent, bounds.getValue().apply(hk), bounds.getKey() + " before the key is observed");
            }
            hk.observe(TEXT, 1000);
            for (long other = 0; other < 200; other++) {
                hk.observe(other);
            }
            for (var contains : CONTAINS.entrySet()) {
                assertTrue(contains.getValue().apply(hk), contains.getKey());
            }
            KeyBounds heavy = hk.bounds(LONG, 0.95);
            assertEquals(1000, heavy.estimate());
            for (var bounds : BOUNDS.entrySet()) {
                assertEquals(heavy, bounds.getValue().apply(hk), bounds.getKey());
            }
        }
    }

    /** Valid arguments of every KeyObserver overload, by signature. */
    private static final Map<String, Supplier<Object[]>> ARGUMENTS = new LinkedHashMap<>();

    static {
        ARGUMENTS.put("observe(long)", () -> new Object[] {LONG});
        ARGUMENTS.put("observe(long,long)", () -> new Object[] {LONG, 3L});
        ARGUMENTS.put("observe(byte[])", () -> new Object[] {BYTES});
        ARGUMENTS.put("observe(byte[],long)", () -> new Object[] {BYTES, 3L});
        ARGUMENTS.put("observe(byte[],int,int)", () -> new Object[] {PADDED, AT, BYTES.length});
        ARGUMENTS.put("observe(byte[],int,int,long)", () -> new Object[] {PADDED, AT, BYTES.length, 3L});
        ARGUMENTS.put("observe(CharSequence)", () -> new Object[] {TEXT});
        ARGUMENTS.put("observe(CharSequence,long)", () -> new Object[] {TEXT, 3L});
        ARGUMENTS.put("observe(MemorySegment)", () -> new Object[] {NATIVE});
        ARGUMENTS.put("observe(MemorySegment,long)", () -> new Object[] {NATIVE, 3L});
        ARGUMENTS.put("observe(MemorySegment,long,long)", () -> new Object[] {NATIVE_PADDED, 3L, 8L});
        ARGUMENTS.put("observe(MemorySegment,long,long,long)", () -> new Object[] {NATIVE_PADDED, 3L, 8L, 3L});
        ARGUMENTS.put("observeAll(long[])", () -> new Object[] {new long[] {LONG, 1, 2}});
        ARGUMENTS.put("observeAll(long[],int,int)", () -> new Object[] {new long[] {LONG, 1, 2}, 1, 3});
    }

    /** Bad input, each call with the exception type both implementations must throw. */
    private record Bad(String what, Class<? extends Throwable> expected, Function<KeyObserver, Object> call) {
    }

    private static final List<Bad> BAD = List.of(
            // null keys
            new Bad("observe((byte[]) null)", NullPointerException.class, o -> o.observe((byte[]) null)),
            new Bad("observe((byte[]) null, 2)", NullPointerException.class, o -> o.observe((byte[]) null, 2)),
            new Bad("observe((byte[]) null, 0, 1)", NullPointerException.class,
                    o -> o.observe((byte[]) null, 0, 1)),
            new Bad("observe((byte[]) null, 0, 1, 2)", NullPointerException.class,
                    o -> o.observe((byte[]) null, 0, 1, 2)),
            new Bad("observe((CharSequence) null)", NullPointerException.class,
                    o -> o.observe((CharSequence) null)),
            new Bad("observe((CharSequence) null, 2)", NullPointerException.class,
                    o -> o.observe((CharSequence) null, 2)),
            new Bad("observe((MemorySegment) null)", NullPointerException.class,
                    o -> o.observe((MemorySegment) null)),
            new Bad("observe((MemorySegment) null, 2)", NullPointerException.class,
                    o -> o.observe((MemorySegment) null, 2)),
            new Bad("observe((MemorySegment) null, 0, 1)", NullPointerException.class,
                    o -> o.observe((MemorySegment) null, 0, 1)),
            new Bad("observe((MemorySegment) null, 0, 1, 2)", NullPointerException.class,
                    o -> o.observe((MemorySegment) null, 0, 1, 2)),
            new Bad("observeAll(null)", NullPointerException.class, o -> {
                o.observeAll(null);
                return null;
            }),
            new Bad("observeAll(null, 0, 0)", NullPointerException.class, o -> {
                o.observeAll(null, 0, 0);
                return null;
            }),
            // weights below 1
            new Bad("observe(long, 0)", IllegalArgumentException.class, o -> o.observe(LONG, 0)),
            new Bad("observe(long, -1)", IllegalArgumentException.class, o -> o.observe(LONG, -1)),
            new Bad("observe(byte[], 0)", IllegalArgumentException.class, o -> o.observe(BYTES, 0)),
            new Bad("observe(byte[], int, int, -5)", IllegalArgumentException.class,
                    o -> o.observe(PADDED, AT, BYTES.length, -5)),
            new Bad("observe(CharSequence, Long.MIN_VALUE)", IllegalArgumentException.class,
                    o -> o.observe(TEXT, Long.MIN_VALUE)),
            new Bad("observe(MemorySegment, 0)", IllegalArgumentException.class, o -> o.observe(NATIVE, 0)),
            new Bad("observe(MemorySegment, long, long, 0)", IllegalArgumentException.class,
                    o -> o.observe(NATIVE_PADDED, AT, BYTES.length, 0)),
            // two faults: the first check wins, in the same order on both
            new Bad("observe((byte[]) null, 0)", NullPointerException.class, o -> o.observe((byte[]) null, 0)),
            new Bad("observe((byte[]) null, 0, 1, 0)", IllegalArgumentException.class,
                    o -> o.observe((byte[]) null, 0, 1, 0)),
            new Bad("observe((CharSequence) null, 0)", IllegalArgumentException.class,
                    o -> o.observe((CharSequence) null, 0)),
            new Bad("observe((MemorySegment) null, 0)", NullPointerException.class,
                    o -> o.observe((MemorySegment) null, 0)),
            new Bad("observe(MemorySegment, 12, 2, 0)", IllegalArgumentException.class,
                    o -> o.observe(NATIVE_PADDED, 12, 2, 0)),
            // ranges outside the key
            new Bad("observe(byte[], -1, 2)", IndexOutOfBoundsException.class, o -> o.observe(PADDED, -1, 2)),
            new Bad("observe(byte[], 12, 2)", IndexOutOfBoundsException.class, o -> o.observe(PADDED, 12, 2)),
            new Bad("observe(byte[], 0, -1)", IndexOutOfBoundsException.class, o -> o.observe(PADDED, 0, -1)),
            new Bad("observe(byte[], 5, 12, 2)", IndexOutOfBoundsException.class,
                    o -> o.observe(PADDED, 5, 12, 2)),
            new Bad("observe(MemorySegment, -1, 2)", IndexOutOfBoundsException.class,
                    o -> o.observe(NATIVE_PADDED, -1, 2)),
            new Bad("observe(MemorySegment, 12, 2)", IndexOutOfBoundsException.class,
                    o -> o.observe(NATIVE_PADDED, 12, 2)),
            new Bad("observe(MemorySegment, 5, 12, 2)", IndexOutOfBoundsException.class,
                    o -> o.observe(NATIVE_PADDED, 5, 12, 2)),
            new Bad("observeAll(long[3], 2, 4)", IndexOutOfBoundsException.class, o -> {
                o.observeAll(new long[3], 2, 4);
                return null;
            }),
            new Bad("observeAll(long[3], 2, 1)", IndexOutOfBoundsException.class, o -> {
                o.observeAll(new long[3], 2, 1);
                return null;
            }));

    @Test
    void badInputThrowsTheSameOnTheSketchAndItsWriterAndRecordsNothing() {
        try (Hotkeeper direct = sketch(); Hotkeeper viaWriter = sketch()) {
            HotkeeperWriter writer = viaWriter.writer();
            List<String> failures = new ArrayList<>();
            for (Bad bad : BAD) {
                Class<?> fromSketch = thrown(() -> bad.call().apply(direct));
                Class<?> fromWriter = thrown(() -> bad.call().apply(writer));
                if (fromSketch != bad.expected() || fromWriter != bad.expected()) {
                    failures.add(bad.what() + ": sketch threw " + fromSketch + ", writer " + fromWriter
                            + ", expected " + bad.expected().getSimpleName());
                }
            }
            assertEquals(List.of(), failures);
            assertEquals(0, direct.totalWeight(), "nothing recorded");
            assertEquals(0, viaWriter.totalWeight(), "nothing recorded");
        }
    }

    /** contains and bounds check their arguments as estimate does (and bounds its confidence). */
    @Test
    void badInputToTheNewReadsThrowsAsTheOldOnes() {
        try (Hotkeeper hk = sketch()) {
            assertThrows(NullPointerException.class, () -> hk.contains((byte[]) null, 0, 1));
            assertThrows(NullPointerException.class, () -> hk.contains((MemorySegment) null));
            assertThrows(NullPointerException.class, () -> hk.contains((MemorySegment) null, 0, 1));
            assertThrows(IndexOutOfBoundsException.class, () -> hk.contains(PADDED, 12, 2));
            assertThrows(IndexOutOfBoundsException.class, () -> hk.contains(NATIVE_PADDED, 12, 2));
            assertThrows(NullPointerException.class, () -> hk.bounds((byte[]) null, 0, 1, 0.5));
            assertThrows(NullPointerException.class, () -> hk.bounds((MemorySegment) null, 0.5));
            assertThrows(NullPointerException.class, () -> hk.bounds((MemorySegment) null, 0, 1, 0.5));
            assertThrows(IndexOutOfBoundsException.class, () -> hk.bounds(PADDED, -1, 2, 0.5));
            assertThrows(IndexOutOfBoundsException.class, () -> hk.bounds(NATIVE_PADDED, 5, 12, 0.5));
            for (double confidence : new double[] {0, 1, -0.5, Double.NaN}) {
                Class<?> old = thrown(() -> hk.bounds(BYTES, confidence));
                assertEquals(IllegalArgumentException.class, old);
                assertEquals(old, thrown(() -> hk.bounds(PADDED, AT, BYTES.length, confidence)));
                assertEquals(old, thrown(() -> hk.bounds(NATIVE, confidence)));
                assertEquals(old, thrown(() -> hk.bounds(NATIVE_PADDED, AT, BYTES.length, confidence)));
            }
        }
        try (Hotkeeper noShards = Hotkeeper.builder().keepKeys(false).build()) {
            Class<?> old = thrown(() -> noShards.contains(BYTES));
            assertEquals(UnsupportedOperationException.class, old);
            assertEquals(old, thrown(() -> noShards.contains(PADDED, AT, BYTES.length)));
            assertEquals(old, thrown(() -> noShards.contains(NATIVE)));
            assertEquals(old, thrown(() -> noShards.contains(NATIVE_PADDED, AT, BYTES.length)));
        }
    }

    /** A key segment whose own arena is closed: the caller's exception, not the sketch's closed one. */
    @Test
    void aKeySegmentOfAClosedArenaThrowsItsOwnException() {
        try (Hotkeeper direct = sketch(); Hotkeeper viaWriter = sketch()) {
            HotkeeperWriter writer = viaWriter.writer();
            MemorySegment gone;
            try (Arena arena = Arena.ofConfined()) {
                gone = arena.allocate(8);
            }
            for (KeyObserver o : List.<KeyObserver>of(direct, writer)) {
                for (Executable call : List.<Executable>of(() -> o.observe(gone), () -> o.observe(gone, 2),
                        () -> o.observe(gone, 0, 8), () -> o.observe(gone, 0, 8, 2))) {
                    IllegalStateException e = assertThrows(IllegalStateException.class, call);
                    assertFalse(Hotkeeper.CLOSED_MESSAGE.equals(e.getMessage()), e.getMessage());
                }
            }
            assertFalse(direct.isClosed());
            assertThrows(IllegalStateException.class, () -> direct.contains(gone));
            assertThrows(IllegalStateException.class, () -> direct.bounds(gone, 0, 8, 0.5));
        }
    }

    /** After close every overload throws the closed exception, on the sketch and on a writer made before. */
    @Test
    void everyOverloadThrowsTheClosedExceptionOnBothOnceClosed() throws Exception {
        Hotkeeper hk = sketch();
        HotkeeperWriter writer = hk.writer();
        hk.observe(LONG);
        writer.observe(TEXT);
        hk.close();
        List<String> failures = new ArrayList<>();
        for (KeyObserver o : List.<KeyObserver>of(hk, writer)) {
            for (Method m : KeyObserver.class.getMethods()) {
                Throwable t = invoke(o, m);
                if (!(t instanceof IllegalStateException) || !Hotkeeper.CLOSED_MESSAGE.equals(t.getMessage())) {
                    failures.add(o.getClass().getSimpleName() + "." + signature(m) + " threw " + t);
                }
            }
        }
        assertEquals(List.of(), failures);
    }

    /** From another thread every overload of a writer throws and records nothing; the sketch's own do not. */
    @Test
    void everyOverloadOfAWriterRefusesAnotherThread() throws Exception {
        try (Hotkeeper hk = sketch()) {
            HotkeeperWriter writer = hk.writer();
            AtomicReference<List<String>> failures = new AtomicReference<>();
            Thread other = Thread.ofPlatform().start(() -> {
                List<String> found = new ArrayList<>();
                for (Method m : KeyObserver.class.getMethods()) {
                    Throwable t = invoke(writer, m);
                    if (!(t instanceof IllegalStateException)
                            || !t.getMessage().startsWith("a HotkeeperWriter belongs to the thread that made it")) {
                        found.add(signature(m) + " threw " + t);
                    }
                }
                failures.set(found);
            });
            other.join();
            assertEquals(List.of(), failures.get());
            assertEquals(0, hk.totalWeight(), "nothing recorded");
            for (Method m : KeyObserver.class.getMethods()) {
                Throwable t = invoke(hk, m);
                if (t != null) {
                    fail("the sketch's " + signature(m) + " threw " + t);
                }
            }
            assertTrue(hk.totalWeight() > 0);
        }
    }

    /** The exception {@code call} throws (its class), or null. */
    private static Class<?> thrown(Executable call) {
        try {
            call.execute();
            return null;
        } catch (Throwable t) {
            return t.getClass();
        }
    }

    /** What {@code m} on {@code o} with valid arguments throws, or null. */
    private static Throwable invoke(KeyObserver o, Method m) {
        try {
            m.invoke(o, ARGUMENTS.get(signature(m)).get());
            return null;
        } catch (InvocationTargetException e) {
            return e.getCause();
        } catch (IllegalAccessException e) {
            throw new AssertionError(e);
        }
    }

    static String signature(Method m) {
        return m.getName() + Arrays.stream(m.getParameterTypes()).map(Class::getSimpleName)
                .collect(Collectors.joining(",", "(", ")"));
    }
}
