package io.hotkeeper.engine.snapshot;

import io.hotkeeper.engine.lottery.DecayLottery;
import io.hotkeeper.engine.table.TableGeometry;
import io.hotkeeper.engine.table.TableLayout;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ReadableByteChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Versions 1 to 3 of the snapshot format (docs/format.md has the layout): a 64-byte header, the body (table words,
 * then tracked keys), and a CRC32C of everything before it. Little-endian throughout. Version 2 adds the bucket
 * count (header offset 28, reserved in version 1) for tables whose bucket count is not a power of two. Version 3,
 * the only one written, holds the bucket count for every table and gives a slot word the SECOND bit (bit 38: the
 * word sits in its key's second candidate bucket), its count 38 bits; versions 1 and 2 are read, their words
 * converted by {@link LegacyWords}. So every snapshot written has exactly one encoding.
 *
 * <p>Reading checks, in this order: length of the header, magic, version, flags, the body length against the
 * input, the CRC, the header's fields, the decoded size against the reader's bound, the table words, every key
 * entry, and that the body ends exactly after the last key; then what the entries say together (order, no
 * duplicate key). Nothing is allocated before the input has been shown to hold what it is for: the table array
 * after the body length, CRC and decoded-size checks, each key after its length check against both
 * {@code maxKeyBytes} and the bytes left. A channel is read in chunks that grow only as bytes arrive, after the
 * header's claimed sizes have passed the decoded-size check.
 */
final class SnapshotFormat {
    /** "HKSNAP\r\n": a text-mode transfer that rewrites line ends breaks the magic. */
    static final long MAGIC = 0x0A0D_5041_4E53_4B48L;
    /** The version written: this class reads versions 1 to 3. */
    static final int VERSION = 3;
    /** Read only: power-of-two tables before version 3 (offset 28 reserved, count in the low 39 bits of a word). */
    static final int VERSION_POWER_OF_TWO = 1;
    /** Read only: other bucket counts before version 3 (bucket count at offset 28, count in 39 bits). */
    static final int VERSION_ANY_BUCKETS = 2;
    static final int HEADER_BYTES = 64;
    static final int TRAILER_BYTES = 4;
    static final int FLAG_SEEDED = 1;
    static final int FLAG_TABLE = 2;
    /**
     * The table gives every key two candidate buckets (TableGeometry#alternate): a key's word may sit in either.
     * Readers that predate it reject the snapshot (an unknown flag) rather than misread where its words are.
     */
    static final int FLAG_TWO_CANDIDATES = 4;
    static final int KNOWN_FLAGS = FLAG_SEEDED | FLAG_TABLE | FLAG_TWO_CANDIDATES;
    static final int KEY_HEADER_BYTES = 16;
    static final int KEY_TRUNCATED = 1;
    /** Key kinds by their code in a key entry (0 bytes, 1 long, 2 text: fixed by the format, not by the enum). */
    private static final io.hotkeeper.engine.HeavyHitter.Kind[] KINDS = {io.hotkeeper.engine.HeavyHitter.Kind.BYTES,
            io.hotkeeper.engine.HeavyHitter.Kind.LONG, io.hotkeeper.engine.HeavyHitter.Kind.TEXT};

    /** The code of a key kind in a key entry. */
    static int kindCode(io.hotkeeper.engine.HeavyHitter.Kind kind) {
        return switch (kind) {
            case BYTES -> 0;
            case LONG -> 1;
            case TEXT -> 2;
        };
    }
    static final int KEY_LOCATED = 2;
    /** The most keys a snapshot may hold (the slots of the largest table, 2^23, twice over). */
    static final int MAX_KEYS = 1 << 24;
    static final int MAX_KEY_BYTES = 4096;
    static final int MAX_K = 100_000;
    /** The largest snapshot: {@code toBytes} writes a byte array. */
    static final long MAX_SNAPSHOT_BYTES = Integer.MAX_VALUE - 16;
    /**
     * Heap bytes a read allocates per key entry beyond its key bytes, an upper estimate (compressed references):
     * the SnapshotKey, its array's header and padding, its place in the read's lists and in the lookup map (a
     * node and a ByteBuffer). 16 bytes on file become about this much on the heap, which is why a bound in
     * input bytes alone does not stop a large file of tiny keys.
     */
    static final long DECODED_BYTES_PER_KEY = 512;
    /** The default bound on a read's decoded size: 1 GiB (docs/format.md, "Reading bad bytes"). */
    static final long DEFAULT_MAX_DECODED_BYTES = 1L << 30;

    // Header field offsets.
    static final int OFF_MAGIC = 0;
    static final int OFF_VERSION = 8;
    static final int OFF_FLAGS = 10;
    static final int OFF_INDEX_BITS = 12;
    static final int OFF_RESERVED_A = 13;
    static final int OFF_K = 16;
    static final int OFF_MAX_KEY_BYTES = 20;
    static final int OFF_KEY_COUNT = 24;
    static final int OFF_RESERVED_B = 28;
    /** Version 2: the bucket count, u32, where version 1 has 4 reserved bytes. */
    static final int OFF_BUCKET_COUNT = OFF_RESERVED_B;
    static final int OFF_DECAY_BASE = 32;
    static final int OFF_SEED_FINGERPRINT = 40;
    static final int OFF_TOTAL_WEIGHT = 48;
    static final int OFF_BODY_BYTES = 56;

    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private SnapshotFormat() {
    }

    /** The version a snapshot of {@code geometry} is written in: {@link #VERSION}, whatever its bucket count. */
    static int versionFor(TableGeometry geometry) {
        return VERSION;
    }

    /** The geometry of {@code bucketCount} buckets, or a format exception naming the allowed range. */
    static TableGeometry geometry(long bucketCount) {
        return geometry(bucketCount, 1);
    }

    /**
     * The geometry of {@code bucketCount} buckets with {@code candidates} candidate buckets per key, or a format
     * exception naming the allowed ranges.
     */
    static TableGeometry geometry(long bucketCount, int candidates) {
        if (bucketCount < TableGeometry.MIN_BUCKETS || bucketCount > TableGeometry.MAX_BUCKETS) {
            throw bad("bucketCount=" + bucketCount + ": must be in " + TableGeometry.MIN_BUCKETS + ".."
                    + TableGeometry.MAX_BUCKETS);
        }
        if (candidates != 1 && candidates != 2) {
            throw bad("candidates=" + candidates + ": must be 1 or 2");
        }
        return TableGeometry.of(bucketCount, candidates);
    }

    // ---------------------------------------------------------------- writing

    static long encodedBytes(HotkeeperSnapshot s) {
        long bytes = HEADER_BYTES + TRAILER_BYTES;
        if (s.hasTable()) {
            bytes += (long) s.slotCount() * Long.BYTES;
        }
        for (SnapshotKey key : s.keys()) {
            bytes += KEY_HEADER_BYTES + key.key().length;
        }
        return bytes;
    }

    static byte[] encode(HotkeeperSnapshot s) {
        long size = encodedBytes(s);
        if (size > MAX_SNAPSHOT_BYTES) {
            throw new IllegalStateException("snapshot of " + size + " bytes does not fit a byte array");
        }
        ByteBuffer out = ByteBuffer.allocate((int) size).order(ByteOrder.LITTLE_ENDIAN);
        out.putLong(MAGIC);
        int version = versionFor(s.geometry());
        out.putShort((short) version);
        out.putShort((short) ((s.seeded() ? FLAG_SEEDED : 0) | (s.hasTable() ? FLAG_TABLE : 0)
                | (s.candidates() == 2 ? FLAG_TWO_CANDIDATES : 0)));
        out.put((byte) s.indexBits());
        out.put((byte) 0).putShort((short) 0);
        out.putInt(s.k());
        out.putInt(s.maxKeyBytes());
        out.putInt(s.keys().size());
        out.putInt(version == VERSION_POWER_OF_TWO ? 0 : (int) s.bucketCount());
        out.putLong(Double.doubleToRawLongBits(s.decayBase()));
        out.putLong(s.seedFingerprint());
        out.putLong(s.totalWeight());
        out.putLong(size - HEADER_BYTES - TRAILER_BYTES);
        if (s.hasTable()) {
            // Bulk: the buffer is little-endian, so its long view writes each word little-endian.
            out.asLongBuffer().put(s.table());
            out.position(out.position() + s.slotCount() * Long.BYTES);
        }
        for (SnapshotKey key : s.keys()) {
            out.putLong(key.estimate());
            out.put((byte) ((key.truncated() ? KEY_TRUNCATED : 0) | (key.located() ? KEY_LOCATED : 0)));
            out.put((byte) kindCode(key.kind()));
            out.putShort((short) key.key().length);
            out.putInt(key.located() ? (int) key.location() : 0);
            out.put(key.key());
        }
        CRC32C crc = new CRC32C();
        crc.update(out.array(), 0, out.position());
        out.putInt((int) crc.getValue());
        return out.array();
    }

    // ---------------------------------------------------------------- reading

    static HotkeeperSnapshot decode(MemorySegment in, long maxDecodedBytes) {
        checkMaxDecodedBytes(maxDecodedBytes);
        long size = in.byteSize();
        if (size < HEADER_BYTES + TRAILER_BYTES) {
            throw bad("truncated: " + size + " bytes, a snapshot has at least " + (HEADER_BYTES + TRAILER_BYTES));
        }
        checkMagicAndVersion(in);
        if (size > MAX_SNAPSHOT_BYTES) {
            throw bad(size + " bytes: larger than any snapshot (at most " + MAX_SNAPSHOT_BYTES + ", a byte array)");
        }
        int flags = Short.toUnsignedInt(in.get(SHORT, OFF_FLAGS));
        long body = in.get(LONG, OFF_BODY_BYTES);
        if (body < 0 || body > size - HEADER_BYTES - TRAILER_BYTES) {
            throw bad("truncated: the header announces a body of " + Long.toUnsignedString(body) + " bytes, the input"
                    + " holds " + (size - HEADER_BYTES - TRAILER_BYTES));
        }
        if (body != size - HEADER_BYTES - TRAILER_BYTES) {
            throw bad((size - HEADER_BYTES - TRAILER_BYTES - body) + " bytes after the end of the snapshot");
        }
        long end = HEADER_BYTES + body;
        int stored = in.get(INT, end);
        CRC32C crc = new CRC32C();
        crc.update(in.asSlice(0, end).asByteBuffer());
        if ((int) crc.getValue() != stored) {
            throw bad("CRC32C mismatch: stored " + Integer.toHexString(stored) + ", computed "
                    + Long.toHexString(crc.getValue()));
        }
        Header h = header(in, flags);
        long pos = HEADER_BYTES;
        long tableBytes = h.hasTable ? (long) Long.BYTES * TableLayout.SLOTS_PER_BUCKET * h.bucketCount : 0;
        if (tableBytes > body) {
            throw bad("table of " + tableBytes + " bytes does not fit the body of " + body + " bytes");
        }
        if (h.keyCount > (body - tableBytes) / KEY_HEADER_BYTES) {
            throw bad("keyCount=" + h.keyCount + ": the body holds at most " + (body - tableBytes) / KEY_HEADER_BYTES);
        }
        checkDecodedBytes(h, body, maxDecodedBytes);
        long[] table = null;
        if (h.hasTable) {
            // Bulk copy of little-endian words (a plain copy on a little-endian machine).
            table = in.asSlice(pos, tableBytes).toArray(LONG);
            pos += tableBytes;
        }
        List<SnapshotKey> keys = new ArrayList<>(h.keyCount);
        for (int i = 0; i < h.keyCount; i++) {
            if (end - pos < KEY_HEADER_BYTES) {
                throw bad("key " + i + ": truncated entry header at offset " + pos);
            }
            long estimate = in.get(LONG, pos);
            int keyFlags = Byte.toUnsignedInt(in.get(ValueLayout.JAVA_BYTE, pos + 8));
            int kind = Byte.toUnsignedInt(in.get(ValueLayout.JAVA_BYTE, pos + 9));
            int length = Short.toUnsignedInt(in.get(SHORT, pos + 10));
            long location = Integer.toUnsignedLong(in.get(INT, pos + 12));
            pos += KEY_HEADER_BYTES;
            if (estimate < 0) {
                throw bad("key " + i + ": estimate " + Long.toUnsignedString(estimate) + " is negative");
            }
            checkKeyFlags(i, keyFlags);
            if (kind >= KINDS.length) {
                throw bad("key " + i + ": unknown kind " + kind);
            }
            if ((keyFlags & KEY_LOCATED) == 0 && location != 0) {
                throw bad("key " + i + ": a location without the located flag");
            }
            if (length > h.maxKeyBytes) {
                throw bad("key " + i + ": " + length + " bytes, longer than maxKeyBytes=" + h.maxKeyBytes);
            }
            if (length > end - pos) {
                throw bad("key " + i + ": " + length + " bytes, only " + (end - pos) + " left in the body");
            }
            byte[] key = in.asSlice(pos, length).toArray(ValueLayout.JAVA_BYTE);
            pos += length;
            keys.add(new SnapshotKey(key, estimate, (keyFlags & KEY_TRUNCATED) != 0, KINDS[kind],
                    (keyFlags & KEY_LOCATED) != 0 ? location : SnapshotKey.NO_LOCATION));
        }
        if (pos != end) {
            throw bad((end - pos) + " bytes of the body after the last key");
        }
        TableGeometry geometry = geometry(h.bucketCount, h.candidates);
        if (table != null && h.version < VERSION) {
            LegacyWords.convert(table, geometry, keys);
        }
        return HotkeeperSnapshot.validated(geometry, h.k, h.maxKeyBytes, h.decayBase,
                h.seedFingerprint,
                h.seeded, h.totalWeight, table, keys, true);
    }

    /**
     * Reads one snapshot from {@code channel}: the header first, then exactly the bytes it announces, into a buffer
     * that grows (doubling) only as they arrive, so a lying header costs at most twice the bytes actually sent.
     */
    static HotkeeperSnapshot read(ReadableByteChannel channel, long maxDecodedBytes) throws IOException {
        checkMaxDecodedBytes(maxDecodedBytes);
        ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        fill(channel, header);
        if (header.hasRemaining()) {
            throw bad("truncated: " + header.position() + " bytes, a snapshot has at least "
                    + (HEADER_BYTES + TRAILER_BYTES));
        }
        MemorySegment head = MemorySegment.ofArray(header.array());
        checkMagicAndVersion(head);
        Header h = header(head, Short.toUnsignedInt(head.get(SHORT, OFF_FLAGS)));
        long body = head.get(LONG, OFF_BODY_BYTES);
        long most = (h.hasTable ? (long) Long.BYTES * TableLayout.SLOTS_PER_BUCKET * h.bucketCount : 0)
                + (long) h.keyCount * (KEY_HEADER_BYTES + h.maxKeyBytes);
        if (body < 0 || body > most) {
            throw bad("body of " + Long.toUnsignedString(body) + " bytes: the header's sizes allow at most " + most);
        }
        long total = HEADER_BYTES + body + TRAILER_BYTES;
        if (total > MAX_SNAPSHOT_BYTES) {
            throw bad("snapshot of " + total + " bytes is larger than a byte array");
        }
        checkDecodedBytes(h, body, maxDecodedBytes);
        byte[] all = new byte[(int) Math.min(total, 1 << 16)];
        System.arraycopy(header.array(), 0, all, 0, HEADER_BYTES);
        int filled = HEADER_BYTES;
        while (filled < total) {
            if (filled == all.length) {
                all = java.util.Arrays.copyOf(all, (int) Math.min(total, 2L * all.length));
            }
            int n = channel.read(ByteBuffer.wrap(all, filled, all.length - filled));
            if (n < 0) {
                throw bad("truncated: " + filled + " bytes, the header announces " + total);
            }
            filled += n;
        }
        return decode(MemorySegment.ofArray(all), maxDecodedBytes);
    }

    // ---------------------------------------------------------------- content checks (each before what it guards)

    /** {@code maxDecodedBytes} is an argument, not input: a bad one is the caller's error. */
    private static void checkMaxDecodedBytes(long maxDecodedBytes) {
        if (maxDecodedBytes < 0) {
            throw new IllegalArgumentException("maxDecodedBytes=" + maxDecodedBytes + ": must be >= 0");
        }
    }

    /**
     * The heap a read of this header's snapshot allocates, from the header and the body length alone (before any
     * allocation): the table's words, {@link #DECODED_BYTES_PER_KEY} per key, and the key bytes (the body less
     * the table and the key entry headers).
     */
    static long decodedBytes(boolean hasTable, long bucketCount, long keyCount, long body) {
        long tableBytes = hasTable ? (long) Long.BYTES * TableLayout.SLOTS_PER_BUCKET * bucketCount : 0;
        long keyBytes = Math.max(0, body - tableBytes - keyCount * KEY_HEADER_BYTES);
        return tableBytes + keyCount * DECODED_BYTES_PER_KEY + keyBytes;
    }

    /** Refuses a snapshot whose decoded size would exceed {@code maxDecodedBytes}, naming the bound. */
    private static void checkDecodedBytes(Header h, long body, long maxDecodedBytes) {
        long decoded = decodedBytes(h.hasTable, h.bucketCount, h.keyCount, body);
        if (decoded > maxDecodedBytes) {
            throw bad("decoded size of " + decoded + " bytes (keyCount=" + h.keyCount + (h.hasTable
                    ? ", bucketCount=" + h.bucketCount : "") + ") exceeds maxDecodedBytes=" + maxDecodedBytes);
        }
    }

    /** A key entry's flags: known bits only, and not both TRUNCATED and LOCATED (a prefix does not give a hash). */
    private static void checkKeyFlags(int i, int keyFlags) {
        if ((keyFlags & ~(KEY_TRUNCATED | KEY_LOCATED)) != 0) {
            throw bad("key " + i + ": unknown flags " + Integer.toHexString(keyFlags));
        }
        if (keyFlags == (KEY_TRUNCATED | KEY_LOCATED)) {
            throw bad("key " + i + ": both truncated and located");
        }
    }

    private static void fill(ReadableByteChannel channel, ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            if (channel.read(buffer) < 0) {
                return;
            }
        }
    }

    private static void checkMagicAndVersion(MemorySegment in) {
        long magic = in.get(LONG, OFF_MAGIC);
        if (magic != MAGIC) {
            throw bad("wrong magic " + Long.toHexString(magic) + ": not a Hotkeeper snapshot");
        }
        int version = Short.toUnsignedInt(in.get(SHORT, OFF_VERSION));
        if (version < VERSION_POWER_OF_TWO || version > VERSION) {
            throw bad("unsupported version " + version + " (this reader knows versions " + VERSION_POWER_OF_TWO
                    + " to " + VERSION + ")");
        }
    }

    private record Header(int version, long bucketCount, int candidates, boolean hasTable, boolean seeded, int k,
                          int maxKeyBytes, int keyCount, double decayBase, long seedFingerprint, long totalWeight) {
    }

    private static Header header(MemorySegment in, int flags) {
        if ((flags & ~KNOWN_FLAGS) != 0) {
            throw bad("unknown flags " + Integer.toHexString(flags));
        }
        int version = Short.toUnsignedInt(in.get(SHORT, OFF_VERSION));
        int indexBits = Byte.toUnsignedInt(in.get(ValueLayout.JAVA_BYTE, OFF_INDEX_BITS));
        if (in.get(ValueLayout.JAVA_BYTE, OFF_RESERVED_A) != 0 || in.get(SHORT, OFF_RESERVED_A + 1) != 0
                || version == VERSION_POWER_OF_TWO && in.get(INT, OFF_RESERVED_B) != 0) {
            throw bad("reserved header bytes are not zero");
        }
        if (indexBits < TableLayout.MIN_INDEX_BITS || indexBits > TableLayout.MAX_INDEX_BITS) {
            throw bad("indexBits=" + indexBits + ": must be in " + TableLayout.MIN_INDEX_BITS + ".."
                    + TableLayout.MAX_INDEX_BITS);
        }
        long bucketCount = 1L << indexBits;
        if (version == VERSION_ANY_BUCKETS) {
            // Version 2: any bucket count but a power of two (which was always written as version 1), and
            // indexBits its ceil(log2).
            bucketCount = Integer.toUnsignedLong(in.get(INT, OFF_BUCKET_COUNT));
            TableGeometry geometry = geometry(bucketCount);
            if (geometry.powerOfTwo() || geometry.indexBits() != indexBits) {
                throw bad("bucketCount=" + bucketCount + " with indexBits=" + indexBits + ": version " + version
                        + " holds a bucket count that is not a power of two, and indexBits = ceil(log2 bucketCount)");
            }
        } else if (version == VERSION) {
            // Version 3: any bucket count, and indexBits its ceil(log2).
            bucketCount = Integer.toUnsignedLong(in.get(INT, OFF_BUCKET_COUNT));
            if (geometry(bucketCount).indexBits() != indexBits) {
                throw bad("bucketCount=" + bucketCount + " with indexBits=" + indexBits + ": version " + version
                        + " holds indexBits = ceil(log2 bucketCount)");
            }
        }
        int k = in.get(INT, OFF_K);
        int maxKeyBytes = in.get(INT, OFF_MAX_KEY_BYTES);
        int keyCount = in.get(INT, OFF_KEY_COUNT);
        double decayBase = Double.longBitsToDouble(in.get(LONG, OFF_DECAY_BASE));
        long totalWeight = in.get(LONG, OFF_TOTAL_WEIGHT);
        checkParameters(k, maxKeyBytes, keyCount, decayBase, totalWeight);
        return new Header(version, bucketCount, (flags & FLAG_TWO_CANDIDATES) != 0 ? 2 : 1, (flags & FLAG_TABLE) != 0,
                (flags & FLAG_SEEDED) != 0, k, maxKeyBytes,
                keyCount, decayBase, in.get(LONG, OFF_SEED_FINGERPRINT), totalWeight);
    }

    static void checkParameters(int k, int maxKeyBytes, int keyCount, double decayBase, long totalWeight) {
        if (k < 1 || k > MAX_K) {
            throw bad("k=" + k + ": must be in 1.." + MAX_K);
        }
        if (maxKeyBytes < 1 || maxKeyBytes > MAX_KEY_BYTES) {
            throw bad("maxKeyBytes=" + maxKeyBytes + ": must be in 1.." + MAX_KEY_BYTES);
        }
        if (keyCount < 0 || keyCount > MAX_KEYS) {
            throw bad("keyCount=" + Integer.toUnsignedString(keyCount) + ": must be in 0.." + MAX_KEYS);
        }
        if (!(decayBase >= DecayLottery.MIN_BASE && decayBase <= DecayLottery.MAX_BASE)) {
            throw bad("decayBase=" + decayBase + ": must be in [" + DecayLottery.MIN_BASE + ", "
                    + (long) DecayLottery.MAX_BASE + "]");
        }
        if (totalWeight < 0) {
            throw bad("totalWeight=" + Long.toUnsignedString(totalWeight) + ": must be >= 0");
        }
    }

    static SnapshotFormatException bad(String message) {
        return new SnapshotFormatException("bad snapshot: " + message);
    }
}
