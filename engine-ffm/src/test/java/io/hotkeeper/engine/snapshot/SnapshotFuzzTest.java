package io.hotkeeper.engine.snapshot;

import io.hotkeeper.engine.Hotkeeper;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Function;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Bad bytes get a {@link SnapshotFormatException} (an {@link IllegalArgumentException}), never another exception,
 * a crash, or an allocation out of proportion to the input: first one test per rule, then 100,000 seeded mutations
 * of valid images (half with the CRC recomputed, so that the checks behind it are reached too). A mutated image
 * that is accepted must be canonical: it writes back to the same bytes.
 */
class SnapshotFuzzTest {
    private static final int CASES = 100_000;
    /** The allocation a read may make: a small multiple of the input, plus a constant. */
    private static final long ALLOCATION_FACTOR = 32;
    private static final long ALLOCATION_CONSTANT = 1 << 20;

    private static byte[] golden() throws Exception {
        return SnapshotGoldenTest.golden();
    }

    private static void putLong(byte[] b, int at, long v) {
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putLong(at, v);
    }

    private static void putInt(byte[] b, int at, int v) {
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putInt(at, v);
    }

    /** Recomputes the trailer, so that the checks after the CRC's are what rejects the bytes. */
    static void fixCrc(byte[] b) {
        if (b.length >= 4) {
            CRC32C crc = new CRC32C();
            crc.update(b, 0, b.length - 4);
            putInt(b, b.length - 4, (int) crc.getValue());
        }
    }

    private static String rejection(byte[] b) {
        try {
            HotkeeperSnapshot.read(b);
            return null;
        } catch (SnapshotFormatException e) {
            return e.getMessage();
        }
    }

    private static void assertRejected(byte[] b, String expected) {
        SnapshotFormatException e = assertThrows(SnapshotFormatException.class, () -> HotkeeperSnapshot.read(b));
        assertTrue(e.getMessage().contains(expected), e.getMessage() + " should mention " + expected);
        assertTrue(e instanceof IllegalArgumentException);
    }

    @Test
    void eachRuleHasItsMessage() throws Exception {
        byte[] g = golden();
        assertRejected(Arrays.copyOf(g, 20), "truncated");
        assertRejected(Arrays.copyOf(g, g.length - 1), "truncated");
        byte[] longer = Arrays.copyOf(g, g.length + 3);
        assertRejected(longer, "after the end");
        byte[] magic = g.clone();
        magic[0] = 'X';
        assertRejected(magic, "wrong magic");
        byte[] version = g.clone();
        version[8] = 4;
        assertRejected(version, "unsupported version 4");
        // Version 3 holds every bucket count, with indexBits its ceil(log2). Of the versions only read: version 1
        // (a power-of-two table) keeps offset 28 reserved; version 2 must not hold a power of two and its
        // indexBits must be ceil(log2 bucketCount).
        byte[] v3Bits = g.clone();
        putInt(v3Bits, SnapshotFormat.OFF_BUCKET_COUNT, 200);
        fixCrc(v3Bits);
        assertRejected(v3Bits, "bucketCount=200 with indexBits=6: version 3");
        byte[] reserved = g.clone();
        reserved[8] = 1;
        fixCrc(reserved);
        assertRejected(reserved, "reserved header bytes are not zero");
        // SECOND (bit 38) on a word whose key has no other bucket: the one-candidate golden file's first word,
        // read as version 3.
        byte[] one = SnapshotGoldenTest.resource(SnapshotGoldenTest.GOLDEN_ONE_CANDIDATE);
        one[8] = 3;
        putInt(one, SnapshotFormat.OFF_BUCKET_COUNT, 64);
        putLong(one, SnapshotFormat.HEADER_BYTES, ByteBuffer.wrap(one).order(ByteOrder.LITTLE_ENDIAN)
                .getLong(SnapshotFormat.HEADER_BYTES) | (1L << 38));
        fixCrc(one);
        assertRejected(one, "table word 0");
        byte[] pow2 = g.clone();
        pow2[8] = 2;
        putInt(pow2, SnapshotFormat.OFF_BUCKET_COUNT, 64);
        fixCrc(pow2);
        assertRejected(pow2, "bucketCount=64 with indexBits=6");
        byte[] wrongBits = g.clone();
        wrongBits[8] = 2;
        putInt(wrongBits, SnapshotFormat.OFF_BUCKET_COUNT, 200);
        fixCrc(wrongBits);
        assertRejected(wrongBits, "bucketCount=200 with indexBits=6");
        byte[] tooMany = g.clone();
        tooMany[8] = 2;
        putInt(tooMany, SnapshotFormat.OFF_BUCKET_COUNT, (1 << 20) + 1);
        fixCrc(tooMany);
        assertRejected(tooMany, "bucketCount=1048577: must be in 64..1048576");
        byte[] crc = g.clone();
        crc[200] ^= 1;
        assertRejected(crc, "CRC32C mismatch");
        byte[] huge = g.clone();
        putLong(huge, SnapshotFormat.OFF_BODY_BYTES, Long.MAX_VALUE - 10);
        assertRejected(huge, "truncated: the header announces a body of");
        byte[] keys = g.clone();
        putInt(keys, SnapshotFormat.OFF_KEY_COUNT, 1 << 24);
        fixCrc(keys);
        assertRejected(keys, "keyCount=16777216: the body holds at most");
        byte[] negativeKeys = g.clone();
        putInt(negativeKeys, SnapshotFormat.OFF_KEY_COUNT, -1);
        fixCrc(negativeKeys);
        assertRejected(negativeKeys, "keyCount=4294967295");
        // The first key entry follows the 512 table words: make its length exceed maxKeyBytes (16).
        int firstKey = SnapshotFormat.HEADER_BYTES + 512 * 8;
        byte[] longKey = g.clone();
        ByteBuffer.wrap(longKey).order(ByteOrder.LITTLE_ENDIAN).putShort(firstKey + 10, (short) 17);
        fixCrc(longKey);
        assertRejected(longKey, "17 bytes, longer than maxKeyBytes=16");
        byte[] smallMax = g.clone();
        putInt(smallMax, SnapshotFormat.OFF_MAX_KEY_BYTES, 4);
        fixCrc(smallMax);
        assertRejected(smallMax, "longer than maxKeyBytes=4");
        byte[] bits = g.clone();
        bits[SnapshotFormat.OFF_INDEX_BITS] = 30;
        fixCrc(bits);
        assertRejected(bits, "indexBits=30");
        byte[] tracked = g.clone();
        putLong(tracked, SnapshotFormat.HEADER_BYTES, ByteBuffer.wrap(g).order(ByteOrder.LITTLE_ENDIAN)
                .getLong(SnapshotFormat.HEADER_BYTES) | (1L << 39));
        fixCrc(tracked);
        assertRejected(tracked, "malformed");
        byte[] base = g.clone();
        putLong(base, SnapshotFormat.OFF_DECAY_BASE, Double.doubleToRawLongBits(Double.NaN));
        fixCrc(base);
        assertRejected(base, "decayBase=NaN");
        // A mapped file larger than any snapshot: sparse, so only its first page (the header) is ever written.
        java.nio.file.Path sparse = java.nio.file.Files.createTempFile("hotkeeper-big", ".hksnap");
        try (java.io.RandomAccessFile file = new java.io.RandomAccessFile(sparse.toFile(), "rw");
             java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            file.write(g, 0, 64);
            file.setLength(SnapshotFormat.MAX_SNAPSHOT_BYTES + 1);
            java.lang.foreign.MemorySegment big = file.getChannel().map(java.nio.channels.FileChannel.MapMode.READ_ONLY,
                    0, file.length(), arena);
            SnapshotFormatException e = assertThrows(SnapshotFormatException.class, () -> HotkeeperSnapshot.read(big));
            assertTrue(e.getMessage().contains("larger than any snapshot"), e.getMessage());
        } finally {
            java.nio.file.Files.deleteIfExists(sparse);
        }
        // A channel that ends early, and one whose header claims more than its sizes allow.
        assertThrows(SnapshotFormatException.class, () -> HotkeeperSnapshot.read(
                Channels.newChannel(new ByteArrayInputStream(Arrays.copyOf(g, g.length - 10)))));
        byte[] lying = g.clone();
        putLong(lying, SnapshotFormat.OFF_BODY_BYTES, 1L << 40);
        SnapshotFormatException e = assertThrows(SnapshotFormatException.class,
                () -> HotkeeperSnapshot.read(Channels.newChannel(new ByteArrayInputStream(lying))));
        assertTrue(e.getMessage().contains("allow at most"), e.getMessage());
    }

    /** One key entry of {@link #keysImage}: its fields as written, flags and kind as raw codes. */
    record Entry(long estimate, int flags, int kind, byte[] key, long location) {
        Entry(String key, long estimate) {
            this(estimate, 0, 0, key.getBytes(java.nio.charset.StandardCharsets.UTF_8), 0);
        }
    }

    /**
     * A keys-only image of the current version (64 buckets, indexBits 6, one candidate, k 10, maxKeyBytes 16, decay base 1.08) holding
     * {@code entries} as given, with a valid CRC: the content checks are what judge it.
     */
    static byte[] keysImage(List<Entry> entries) {
        long body = 0;
        for (Entry e : entries) {
            body += SnapshotFormat.KEY_HEADER_BYTES + e.key().length;
        }
        ByteBuffer out = ByteBuffer.allocate(Math.toIntExact(SnapshotFormat.HEADER_BYTES + body
                + SnapshotFormat.TRAILER_BYTES)).order(ByteOrder.LITTLE_ENDIAN);
        out.putLong(SnapshotFormat.MAGIC).putShort((short) SnapshotFormat.VERSION).putShort((short) 0).put((byte) 6)
                .put((byte) 0).putShort((short) 0).putInt(10).putInt(16).putInt(entries.size()).putInt(64)
                .putLong(Double.doubleToRawLongBits(1.08)).putLong(0).putLong(1000).putLong(body);
        for (Entry e : entries) {
            out.putLong(e.estimate()).put((byte) e.flags()).put((byte) e.kind()).putShort((short) e.key().length)
                    .putInt((int) e.location()).put(e.key());
        }
        byte[] b = out.array();
        fixCrc(b);
        return b;
    }

    /** {@code n} distinct keys of 3 bytes, estimates descending (canonical order). */
    static byte[] tinyKeysImage(int n) {
        List<Entry> entries = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            entries.add(new Entry(n - i, 0, 0, new byte[] {(byte) (i >>> 16), (byte) (i >>> 8), (byte) i}, 0));
        }
        return keysImage(entries);
    }

    /** Two untruncated entries of one key (the second lighter, so the order is canonical). */
    static byte[] duplicateKeyImage() {
        return keysImage(List.of(new Entry("ab", 5), new Entry("ab", 3)));
    }

    /** A key entry flagged both TRUNCATED and LOCATED. */
    static byte[] truncatedAndLocatedImage() {
        return keysImage(List.of(new Entry(5, SnapshotFormat.KEY_TRUNCATED | SnapshotFormat.KEY_LOCATED, 0,
                "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII), 1)));
    }

    /**
     * Wrong content behind a valid CRC: the same key twice (whatever the kind), a key both truncated and located,
     * and an input that would decode to more than the reader's bound; each refused by name. Repeated truncated
     * prefixes are valid (distinct keys can share one).
     */
    @Test
    void wrongContentIsRejectedByName() throws Exception {
        assertRejected(duplicateKeyImage(), "key 1: the same bytes as key 0 (duplicate entry)");
        byte[] ab = "ab".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        assertRejected(keysImage(List.of(new Entry(5, 0, 0, ab, 0), new Entry(5, 0, 2, ab, 0))),
                "key 1: the same bytes as key 0");
        assertRejected(keysImage(List.of(new Entry("x", 9), new Entry("ab", 5), new Entry("c", 4),
                new Entry("ab", 3))), "key 3: the same bytes as key 1");
        assertRejected(truncatedAndLocatedImage(), "key 0: both truncated and located");
        byte[] prefix = "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        byte[] prefixes = keysImage(List.of(new Entry(5, SnapshotFormat.KEY_TRUNCATED, 0, prefix, 0),
                new Entry(3, SnapshotFormat.KEY_TRUNCATED, 0, prefix, 0)));
        assertArrayEquals(prefixes, HotkeeperSnapshot.read(prefixes).toBytes());
        // The decoded-size bound: 5,000 keys of 3 bytes decode to about 2.6 MB; refused under 1 MiB by every
        // reader, before anything proportional is allocated, and read under the default.
        byte[] tiny = tinyKeysImage(5000);
        long decoded = SnapshotFormat.decodedBytes(false, 64, 5000, tiny.length - 68);
        assertTrue(decoded > 1 << 20, "decoded " + decoded);
        AllocationMeter meter = new AllocationMeter();
        long self = Thread.currentThread().threadId();
        long before = meter.getThreadAllocatedBytes(self);
        SnapshotFormatException e = assertThrows(SnapshotFormatException.class,
                () -> HotkeeperSnapshot.read(tiny, 1 << 20));
        long allocated = meter.getThreadAllocatedBytes(self) - before;
        assertTrue(e.getMessage().contains("decoded size of " + decoded + " bytes (keyCount=5000) exceeds "
                + "maxDecodedBytes=1048576"), e.getMessage());
        assertTrue(allocated < 64 * 1024, allocated + " bytes allocated before the refusal");
        assertThrows(SnapshotFormatException.class, () -> HotkeeperSnapshot.read(MemorySegment.ofArray(tiny),
                1 << 20));
        e = assertThrows(SnapshotFormatException.class, () -> HotkeeperSnapshot.read(
                Channels.newChannel(new ByteArrayInputStream(tiny)), 1 << 20));
        assertTrue(e.getMessage().contains("exceeds maxDecodedBytes=1048576"), e.getMessage());
        assertEquals(5000, HotkeeperSnapshot.read(tiny).keys().size());
        assertEquals(5000, HotkeeperSnapshot.read(tiny, decoded).keys().size());
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
                () -> HotkeeperSnapshot.read(tiny, -1));
        assertEquals("maxDecodedBytes=-1: must be >= 0", negative.getMessage());
    }

    /**
     * The decoded-size estimate is honest: it bounds what a successful read of many tiny keys allocates (the
     * input aside), so a bound on it is a bound on the read's heap.
     */
    @Test
    void theDecodedSizeBoundsWhatAReadAllocates() throws Exception {
        int n = 200_000;
        byte[] tiny = tinyKeysImage(n);
        long decoded = SnapshotFormat.decodedBytes(false, 64, n, tiny.length - 68);
        AllocationMeter meter = new AllocationMeter();
        long self = Thread.currentThread().threadId();
        HotkeeperSnapshot.read(tiny); // warm
        long before = meter.getThreadAllocatedBytes(self);
        HotkeeperSnapshot s = HotkeeperSnapshot.read(tiny);
        long allocated = meter.getThreadAllocatedBytes(self) - before;
        assertEquals(n, s.keys().size());
        System.out.printf("decoded-size estimate %,d bytes, allocated %,d (%.1f per key)%n", decoded, allocated,
                (double) allocated / n);
        assertTrue(allocated <= decoded, allocated + " bytes allocated, estimate " + decoded);
    }

    /**
     * A large file of tiny keys (3M empty key entries, a 48 MB mapped file, sparse) would decode to 1.5 GB: the
     * default bound refuses it after the CRC, before allocating anything proportional to it.
     */
    @Test
    void aLargeFileOfTinyKeysIsRefusedByTheDefaultBound() throws Exception {
        int keys = 3_000_000;
        long body = (long) keys * SnapshotFormat.KEY_HEADER_BYTES;
        byte[] header = keysImage(List.of());
        putInt(header, SnapshotFormat.OFF_KEY_COUNT, keys);
        putLong(header, SnapshotFormat.OFF_BODY_BYTES, body);
        CRC32C crc = new CRC32C();
        crc.update(header, 0, SnapshotFormat.HEADER_BYTES);
        byte[] zeros = new byte[1 << 20];
        for (long left = body; left > 0; left -= zeros.length) {
            crc.update(zeros, 0, (int) Math.min(left, zeros.length));
        }
        java.nio.file.Path file = java.nio.file.Files.createTempFile("hotkeeper-tiny-keys", ".hksnap");
        try (java.io.RandomAccessFile raf = new java.io.RandomAccessFile(file.toFile(), "rw");
             java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            raf.write(header, 0, SnapshotFormat.HEADER_BYTES);
            raf.setLength(SnapshotFormat.HEADER_BYTES + body + SnapshotFormat.TRAILER_BYTES);
            raf.seek(SnapshotFormat.HEADER_BYTES + body);
            raf.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt((int) crc.getValue()).array());
            MemorySegment mapped = raf.getChannel().map(java.nio.channels.FileChannel.MapMode.READ_ONLY, 0,
                    raf.length(), arena);
            AllocationMeter meter = new AllocationMeter();
            long self = Thread.currentThread().threadId();
            long before = meter.getThreadAllocatedBytes(self);
            SnapshotFormatException e = assertThrows(SnapshotFormatException.class,
                    () -> HotkeeperSnapshot.read(mapped));
            long allocated = meter.getThreadAllocatedBytes(self) - before;
            assertTrue(e.getMessage().contains("(keyCount=3000000) exceeds maxDecodedBytes="
                    + HotkeeperSnapshot.DEFAULT_MAX_DECODED_BYTES), e.getMessage());
            assertTrue(allocated < 1 << 20, allocated + " bytes allocated before the refusal");
        } finally {
            java.nio.file.Files.deleteIfExists(file);
        }
    }

    @Test
    void aHundredThousandMutationsAreRejectedCleanlyOrReadCanonically() throws Exception {
        List<byte[]> bases = new ArrayList<>();
        bases.add(golden());
        // Seeds of wrong content (each rejected as it is; mutations may make them valid, or wrong otherwise).
        bases.add(duplicateKeyImage());
        bases.add(truncatedAndLocatedImage());
        bases.add(tinyKeysImage(300));
        try (Hotkeeper a = Hotkeeper.builder().memoryBytes(4096).seed(1).minCount(1).build();
             Hotkeeper b = Hotkeeper.builder().memoryBytes(4096).seed(2).minCount(1).build()) {
            for (int i = 0; i < 300; i++) {
                a.observe("k" + (i % 40));
                b.observe(i % 13);
            }
            bases.add(HotkeeperSnapshot.merge(a.snapshot(), b.snapshot()).toBytes()); // keys only, no table
            bases.add(b.snapshot().toBytes());
        }
        AllocationMeter threads = new AllocationMeter();
        long self = Thread.currentThread().threadId();
        SplittableRandom random = new SplittableRandom(20261203L);
        int accepted = 0;
        int[] rejectedBy = new int[8];
        long start = System.nanoTime();
        for (int c = 0; c < CASES; c++) {
            byte[] base = bases.get(random.nextInt(bases.size()));
            int kind = random.nextInt(8);
            byte[] m = mutate(base, kind, random);
            if (random.nextBoolean()) {
                fixCrc(m);
            }
            boolean viaChannel = c % 16 == 0;
            long before = threads.getThreadAllocatedBytes(self);
            try {
                HotkeeperSnapshot s = viaChannel
                        ? HotkeeperSnapshot.read(Channels.newChannel(new ByteArrayInputStream(m)))
                        : HotkeeperSnapshot.read(m);
                long allocated = threads.getThreadAllocatedBytes(self) - before;
                checkAllocation(c, kind, m, allocated);
                byte[] again = s.toBytes();
                if (!viaChannel || again.length == m.length) {
                    assertArrayEquals(m, again, "case " + c + " (kind " + kind + "): accepted but not canonical");
                }
                accepted++;
            } catch (SnapshotFormatException e) {
                long allocated = threads.getThreadAllocatedBytes(self) - before;
                checkAllocation(c, kind, m, allocated);
                assertTrue(e.getMessage().startsWith("bad snapshot: "), e.getMessage());
                rejectedBy[kind]++;
            } catch (Throwable t) {
                fail("case " + c + " (kind " + kind + ", " + m.length + " bytes) threw " + t, t);
            }
        }
        long millis = (System.nanoTime() - start) / 1_000_000;
        System.out.printf("fuzz: %d cases in %d ms, %d accepted, rejected by kind %s%n", CASES, millis, accepted,
                Arrays.toString(rejectedBy));
        // Every kind of mutation was rejected many times; and some CRC-fixed mutations of counts were valid.
        for (int kind = 0; kind < rejectedBy.length; kind++) {
            assertTrue(rejectedBy[kind] > 1000, "kind " + kind + " rejected " + rejectedBy[kind] + " times");
        }
        assertTrue(accepted > 0);
    }

    /**
     * The JVM's per-thread allocation counter ({@code com.sun.management.ThreadMXBean}), reached by reflection:
     * the tests compile inside the engine's module, which does not read the management modules, and run on the
     * class path, where everything is readable.
     */
    private static final class AllocationMeter {
        private final Object bean;
        private final java.lang.reflect.Method allocated;

        AllocationMeter() throws ReflectiveOperationException {
            bean = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean").invoke(null);
            allocated = Class.forName("com.sun.management.ThreadMXBean")
                    .getMethod("getThreadAllocatedBytes", long.class);
        }

        long getThreadAllocatedBytes(long thread) throws ReflectiveOperationException {
            return (long) allocated.invoke(bean, thread);
        }
    }

    private static void checkAllocation(int c, int kind, byte[] m, long allocated) {
        long allowed = ALLOCATION_FACTOR * m.length + ALLOCATION_CONSTANT;
        if (allocated > allowed) {
            fail("case " + c + " (kind " + kind + "): " + allocated + " bytes allocated for " + m.length
                    + " bytes of input");
        }
    }

    private static byte[] mutate(byte[] base, int kind, SplittableRandom r) {
        byte[] m = base.clone();
        switch (kind) {
            case 0 -> { // flip bits anywhere
                int flips = 1 + r.nextInt(8);
                for (int i = 0; i < flips; i++) {
                    int at = r.nextInt(m.length);
                    m[at] ^= (byte) (1 << r.nextInt(8));
                }
            }
            case 1 -> { // a header field set to an extreme or random value
                int[] fields = {SnapshotFormat.OFF_VERSION, SnapshotFormat.OFF_FLAGS, SnapshotFormat.OFF_INDEX_BITS,
                    SnapshotFormat.OFF_K, SnapshotFormat.OFF_MAX_KEY_BYTES, SnapshotFormat.OFF_KEY_COUNT,
                    SnapshotFormat.OFF_DECAY_BASE, SnapshotFormat.OFF_TOTAL_WEIGHT, SnapshotFormat.OFF_BODY_BYTES,
                    SnapshotFormat.OFF_RESERVED_B};
                int at = fields[r.nextInt(fields.length)];
                long[] values = {0, -1, Long.MAX_VALUE, Long.MIN_VALUE, Integer.MAX_VALUE, 1 << 24, 1L << 32,
                    r.nextLong(), r.nextInt(64)};
                long v = values[r.nextInt(values.length)];
                int width = at == SnapshotFormat.OFF_INDEX_BITS ? 1 : at <= SnapshotFormat.OFF_FLAGS ? 2
                        : at >= SnapshotFormat.OFF_DECAY_BASE ? 8 : 4;
                for (int i = 0; i < width; i++) {
                    m[at + i] = (byte) (v >>> (8 * i));
                }
            }
            case 2 -> m = Arrays.copyOf(m, r.nextInt(m.length)); // truncate
            case 3 -> { // append
                byte[] longer = Arrays.copyOf(m, m.length + 1 + r.nextInt(64));
                for (int i = m.length; i < longer.length; i++) {
                    longer[i] = (byte) r.nextInt();
                }
                m = longer;
            }
            case 4 -> { // delete a range from the middle
                int from = r.nextInt(m.length);
                int to = Math.min(m.length, from + 1 + r.nextInt(32));
                byte[] shorter = new byte[m.length - (to - from)];
                System.arraycopy(m, 0, shorter, 0, from);
                System.arraycopy(m, to, shorter, from, m.length - to);
                m = shorter;
            }
            case 5 -> { // a random 16-bit value in the body (key lengths, flags, counts)
                int at = SnapshotFormat.HEADER_BYTES + r.nextInt(Math.max(1, m.length - SnapshotFormat.HEADER_BYTES - 2));
                int v = r.nextInt(65536);
                m[at] = (byte) v;
                m[at + 1] = (byte) (v >>> 8);
            }
            case 6 -> { // random bytes behind a valid magic and version
                byte[] noise = new byte[r.nextInt(256)];
                for (int i = 0; i < noise.length; i++) {
                    noise[i] = (byte) r.nextInt();
                }
                System.arraycopy(m, 0, noise, 0, Math.min(10, noise.length));
                m = noise;
            }
            default -> { // raise one table word's count or fingerprint (often valid with the CRC fixed)
                int words = (m.length - SnapshotFormat.HEADER_BYTES) / 8;
                int at = SnapshotFormat.HEADER_BYTES + 8 * r.nextInt(Math.max(1, words));
                if (at + 8 <= m.length) {
                    long w = ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN).getLong(at);
                    putLong(m, at, r.nextBoolean() ? w + 1 + r.nextInt(1000) : w ^ (1L << (41 + r.nextInt(23))));
                }
            }
        }
        return m;
    }
}
