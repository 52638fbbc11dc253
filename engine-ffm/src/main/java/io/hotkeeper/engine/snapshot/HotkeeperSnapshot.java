package io.hotkeeper.engine.snapshot;

import io.hotkeeper.engine.HeavyHitter;
import io.hotkeeper.engine.stats.Weights;
import io.hotkeeper.engine.table.SlotLinks;
import io.hotkeeper.engine.table.TableGeometry;
import io.hotkeeper.engine.table.TableLayout;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * An immutable copy of a Hotkeeper sketch: its parameters, its tracked keys with their estimates, and its bucket
 * table (slot words with fingerprint and count; the key-shard bits are cleared). It lives on the heap, owes
 * nothing to the instance it came from (which may be closed), serializes to a documented, versioned,
 * checksummed format (docs/format.md) and merges with other snapshots and into live instances.
 *
 * <h2>What it carries of the hash function</h2>
 * Not the seed: a {@linkplain #seedFingerprint() fingerprint} of the hash function (8 bytes of SHA-256 over the
 * hashes of fixed probe keys), which tells whether two sketches hash alike without revealing how. Merging tables
 * slot by slot needs equal hashing, so it happens only between snapshots with equal fingerprints and table sizes,
 * or into an instance built with the same {@code Builder.seed} (a self-seeded instance matches only itself).
 * Otherwise merges fall back to the tracked keys and their estimates. Because the snapshot cannot hash,
 * {@link #estimate(byte[])} answers for tracked keys only.
 *
 * <h2>Consistency with concurrent observers</h2>
 * See {@code Hotkeeper.snapshot()}: every table word is one atomic (acquire) read, each bucket is read from its
 * last slot to its first so its occupied slots stay a prefix, and the keys are a {@code topK} of all tracked keys;
 * the copy is not a single instant of the sketch, but every count in it is a count the sketch held during the
 * call, and a snapshot of a quiescent sketch is exact.
 *
 * <p>Threads: any; instances are immutable. Progress: wait-free, except the I/O methods (blocking).
 *
 * <p>Size: the snapshot value with its queries (estimate, topK, bounds) and both merges, each a few lines with its
 * javadoc; the byte format lives in SnapshotFormat and the table merge in TableMerge.
 */
public final class HotkeeperSnapshot {
    /**
     * The newest format version this class writes and reads (it reads every version up to this one; a snapshot is
     * written in {@link #formatVersion()}).
     */
    public static final int FORMAT_VERSION = SnapshotFormat.VERSION;

    static {
        // The engine's way to the slot words, which the API does not show (SnapshotTables, docs/format.md).
        io.hotkeeper.engine.core.SnapshotTables.install(new io.hotkeeper.engine.core.SnapshotTables.Access() {
            @Override
            public HotkeeperSnapshot of(long bucketCount, int candidates, int k, int maxKeyBytes, double decayBase,
                                        long seedFingerprint, boolean seeded, long totalWeight,
                                        List<long[]> tables, List<SnapshotKey> keys) {
                return HotkeeperSnapshot.of(bucketCount, candidates, k, maxKeyBytes, decayBase, seedFingerprint,
                        seeded, totalWeight, tables, keys);
            }

            @Override
            public long slotWord(HotkeeperSnapshot snapshot, int index) {
                return snapshot.slotWord(index);
            }
        });
    }

    /** Bucket count and hash mapping of the sketch's table (kept for a snapshot of keys only too). */
    private final TableGeometry geometry;
    private final int k;
    private final int maxKeyBytes;
    private final double decayBase;
    private final long seedFingerprint;
    private final boolean seeded;
    private final long totalWeight;
    /** Slot words, bucket after bucket; null for a snapshot of keys only. */
    private final long[] table;
    /** Canonical order: estimate descending, then key bytes (unsigned), then untruncated first. */
    private final List<SnapshotKey> keys;
    /** Untruncated keys by their bytes. */
    private final Map<ByteBuffer, SnapshotKey> byKey;

    private HotkeeperSnapshot(TableGeometry geometry, int k, int maxKeyBytes, double decayBase, long seedFingerprint,
                              boolean seeded, long totalWeight, long[] table, List<SnapshotKey> keys,
                              Map<ByteBuffer, SnapshotKey> byKey) {
        this.geometry = geometry;
        this.k = k;
        this.maxKeyBytes = maxKeyBytes;
        this.decayBase = decayBase;
        this.seedFingerprint = seedFingerprint;
        this.seeded = seeded;
        this.totalWeight = totalWeight;
        this.table = table;
        this.keys = keys;
        this.byKey = byKey;
    }

    /**
     * A snapshot of keys only: counts from elsewhere (an exact count, another tool's top list) in the form
     * {@link #mergeAll} and {@code Hotkeeper.merge} take, merged by key. The table's slot words are the engine's
     * encoding and no part of the API; {@code Hotkeeper.snapshot()} is the way to a snapshot with a table. A
     * located key loses its location (there is no table to locate it in).
     *
     * @param bucketCount     buckets of the sketch the keys are for (64..2^20)
     * @param candidates      its candidate buckets per key, 1 or 2
     * @param k               its k (1..100,000)
     * @param maxKeyBytes     the longest key stored whole (1..4096)
     * @param decayBase       its lottery's base
     * @param seedFingerprint its hash function's fingerprint ({@link #fingerprintOf})
     * @param seeded          whether it was built with an explicit seed
     * @param totalWeight     the stream length behind the counts (>= 0)
     * @param keys            the keys, each at most {@code maxKeyBytes} long, no two untruncated ones equal
     * @return the snapshot. Threads: any. Progress: wait-free.
     * @throws SnapshotFormatException naming the argument, if a parameter is out of its range or a key invalid
     * @throws NullPointerException    if {@code keys} or one of the keys is null
     */
    public static HotkeeperSnapshot ofKeys(long bucketCount, int candidates, int k, int maxKeyBytes,
                                           double decayBase, long seedFingerprint, boolean seeded, long totalWeight,
                                           List<SnapshotKey> keys) {
        return of(bucketCount, candidates, k, maxKeyBytes, decayBase, seedFingerprint, seeded, totalWeight, List.of(),
                keys);
    }

    /**
     * A snapshot of a sketch's contents (what {@code Hotkeeper.snapshot()} builds). Several tables (per-node or
     * worker tables) are folded into one with the merge of {@link #mergeAll(List)}. Each located key's slot count
     * is raised to the key's estimate (which adds pending combined counts to the table's), so the table and the
     * keys agree; a located key whose slot is not in the table copy (it was replaced meanwhile, or dropped by the
     * fold) loses its location. The arrays are taken over, not copied.
     *
     * @param bucketCount     buckets of the sketch's table (64..2^20, any count: {@link TableGeometry})
     * @param candidates      candidate buckets per key of the sketch's table: 1, or 2 (a key's word may sit in
     *                        either of its buckets; docs/format.md)
     * @param k               the sketch's k (1..100,000)
     * @param maxKeyBytes     the longest key stored whole (1..4096)
     * @param decayBase       the lottery's base
     * @param seedFingerprint the hash function's fingerprint ({@link #fingerprintOf})
     * @param seeded          whether the sketch was built with an explicit seed
     * @param totalWeight     the stream length the sketch saw (>= 0)
     * @param tables          slot words ({@code 8 * bucketCount} in each, every bucket's occupied slots first),
     *                        one array per table; empty for a snapshot of keys only
     * @param keys            tracked keys, each at most {@code maxKeyBytes} long, none both truncated and located,
     *                        no two untruncated ones with equal bytes (truncated prefixes may repeat: distinct
     *                        keys can share one)
     * @return the snapshot. Threads: any. Progress: wait-free.
     * @throws SnapshotFormatException (an {@link IllegalArgumentException}) naming the argument, before anything
     *         is merged or raised, if a parameter is out of its range, a table is null or not
     *         {@code 8 * bucketCount} words long ({@code tables[1]: 256 words, bucketCount=64 needs 512}) or
     *         holds a malformed word, or a key is invalid (too long, truncated and located, a location wider
     *         than bucket and fingerprint bits, the same bytes as an earlier key)
     * @throws NullPointerException if {@code tables}, {@code keys} or one of the keys is null
     */
    static HotkeeperSnapshot of(long bucketCount, int candidates, int k, int maxKeyBytes, double decayBase,
                                       long seedFingerprint, boolean seeded, long totalWeight, List<long[]> tables,
                                       List<SnapshotKey> keys) {
        TableGeometry geometry = SnapshotFormat.geometry(bucketCount, candidates);
        SnapshotFormat.checkParameters(k, maxKeyBytes, Math.min(keys.size(), SnapshotFormat.MAX_KEYS + 1),
                decayBase, totalWeight);
        // Every argument is checked before the merge and the raise read it (an input of the wrong length would
        // otherwise fail there with an index out of bounds, or be merged silently).
        for (int i = 0; i < tables.size(); i++) {
            checkTable("tables[" + i + "]", tables.get(i), geometry);
        }
        checkKeys(keys, geometry, maxKeyBytes);
        long[] table = null;
        if (tables.size() == 1) {
            table = tables.getFirst();
        } else if (tables.size() > 1) {
            table = TableMerge.merge(tables, geometry, new long[1]);
        }
        List<SnapshotKey> fixed = new ArrayList<>(keys.size());
        for (SnapshotKey key : keys) {
            if (key.located() && (table == null || !raiseSlot(table, geometry, key))) {
                key = key.with(key.estimate(), SnapshotKey.NO_LOCATION);
            }
            fixed.add(key);
        }
        // One table was checked above and raising keeps its words well-formed; a merged one is checked again.
        return validated(geometry, k, maxKeyBytes, decayBase, seedFingerprint, seeded, totalWeight, table, fixed,
                false, tables.size() == 1);
    }

    /** Raises the count of the key's slot to its estimate; false if the slot is not in the table. */
    private static boolean raiseSlot(long[] table, TableGeometry geometry, SnapshotKey key) {
        int slot = slotIndex(table, geometry, key.location());
        if (slot < 0) {
            return false;
        }
        long word = table[slot];
        long count = Math.min(TableLayout.MAX_COUNT, Math.max(TableLayout.count(word), key.estimate()));
        table[slot] = (word & ~TableLayout.COUNT_MASK) | count; // fingerprint and SECOND kept
        return true;
    }

    /**
     * The index of the word at {@code location} (bucket and fingerprint) in {@code table}, or -1: its bucket, then
     * its other candidate, as observe looks. Both buckets are read whole: a table read from a file need not keep
     * the observe path's rule (a merged one does: TableMerge).
     */
    private static int slotIndex(long[] table, TableGeometry geometry, long location) {
        long fp = geometry.fingerprint(location);
        long bucket = geometry.bucket(location);
        long second = geometry.alternate(bucket, fp);
        for (long b = bucket; ; b = second) {
            int base = (int) (b * TableLayout.SLOTS_PER_BUCKET);
            for (int s = 0; s < TableLayout.SLOTS_PER_BUCKET; s++) {
                long word = table[base + s];
                if (word == 0) {
                    break;
                }
                if (TableLayout.fingerprint(word) == fp) {
                    return base + s;
                }
            }
            if (b == second) {
                return -1;
            }
        }
    }

    /**
     * The fingerprint of a hash function: the first 8 bytes (little-endian) of SHA-256 over the hashes of three
     * fixed probe keys (of 0, 5 and 16 bytes, so both of the hasher's paths take part). Equal functions give equal
     * fingerprints; the hash outputs themselves cannot be recovered from it, let alone the seed. Threads: any.
     * Progress: wait-free.
     */
    public static long fingerprintOf(java.util.function.ToLongFunction<byte[]> hash) {
        ByteBuffer hashes = ByteBuffer.allocate(3 * Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        hashes.putLong(hash.applyAsLong(new byte[0]));
        hashes.putLong(hash.applyAsLong("hotke".getBytes(StandardCharsets.US_ASCII)));
        hashes.putLong(hash.applyAsLong("hotkeeper-seedfp".getBytes(StandardCharsets.US_ASCII)));
        try {
            byte[] digest = java.security.MessageDigest.getInstance("SHA-256").digest(hashes.array());
            return ByteBuffer.wrap(digest).order(ByteOrder.LITTLE_ENDIAN).getLong();
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java platform", e);
        }
    }

    static HotkeeperSnapshot validated(TableGeometry geometry, int k, int maxKeyBytes, double decayBase,
                                       long seedFingerprint, boolean seeded, long totalWeight, long[] table,
                                       List<SnapshotKey> keys, boolean requireCanonical) {
        return validated(geometry, k, maxKeyBytes, decayBase, seedFingerprint, seeded, totalWeight, table, keys,
                requireCanonical, false);
    }

    private static HotkeeperSnapshot validated(TableGeometry geometry, int k, int maxKeyBytes, double decayBase,
                                               long seedFingerprint, boolean seeded, long totalWeight, long[] table,
                                               List<SnapshotKey> keys, boolean requireCanonical,
                                               boolean tableChecked) {
        SnapshotFormat.checkParameters(k, maxKeyBytes, Math.min(keys.size(), SnapshotFormat.MAX_KEYS + 1),
                decayBase, totalWeight);
        if (table != null && !tableChecked) {
            checkTable("table", table, geometry);
        }
        checkKeys(keys, geometry, maxKeyBytes);
        List<SnapshotKey> sorted = new ArrayList<>(keys);
        sorted.sort(HotkeeperSnapshot::canonical);
        if (requireCanonical && !sorted.equals(keys)) {
            throw SnapshotFormat.bad("keys are not in canonical order");
        }
        return new HotkeeperSnapshot(geometry, k, maxKeyBytes, decayBase, seedFingerprint, seeded, totalWeight,
                table, List.copyOf(sorted), distinctKeys(keys));
    }

    /**
     * Checks a table argument ({@code name}: "table", or "tables[i]" of {@link #of}): not null, {@code 8 *
     * bucketCount} words, each 0 or a well-formed word (no shard bits, count >= 1, fingerprint within the
     * geometry's bits), and in each bucket the occupied slots first.
     */
    private static void checkTable(String name, long[] table, TableGeometry geometry) {
        if (table == null) {
            throw SnapshotFormat.bad(name + " is null");
        }
        long bucketCount = geometry.bucketCount();
        long slots = TableLayout.SLOTS_PER_BUCKET * bucketCount;
        if (table.length != slots) {
            throw SnapshotFormat.bad(name + ": " + table.length + " words, bucketCount=" + bucketCount + " needs "
                    + slots);
        }
        long fpLimit = 1L << geometry.fingerprintBits();
        for (int i = 0; i < table.length; i++) {
            long word = table[i];
            if (word == 0) {
                continue;
            }
            long bucket = i / TableLayout.SLOTS_PER_BUCKET;
            if (!SlotLinks.unlinked(word) || TableLayout.count(word) == 0
                    || TableLayout.fingerprint(word) >= fpLimit || TableLayout.second(word)
                    && geometry.alternate(bucket, TableLayout.fingerprint(word)) == bucket) {
                // SECOND where the key has no other bucket (one candidate, or both candidates coincide).
                throw SnapshotFormat.bad(name + " word " + i + " (" + Long.toHexString(word) + ") is malformed");
            }
            if (i % TableLayout.SLOTS_PER_BUCKET != 0 && table[i - 1] == 0) {
                throw SnapshotFormat.bad(name + " word " + i + " follows an empty slot of its bucket");
            }
        }
    }

    /**
     * Checks each key on its own: not null, at most {@code maxKeyBytes} long, not both truncated and located (a
     * truncated key's bytes do not give its hash, so it has no location), a location within the bucket index and
     * fingerprint bits.
     */
    private static void checkKeys(List<SnapshotKey> keys, TableGeometry geometry, int maxKeyBytes) {
        long locationLimit = geometry.locationLimit();
        for (int i = 0; i < keys.size(); i++) {
            SnapshotKey key = Objects.requireNonNull(keys.get(i), "key");
            if (key.truncated() && key.located()) {
                throw SnapshotFormat.bad("key " + i + ": both truncated and located");
            }
            if (key.located() && key.location() >= locationLimit) {
                throw SnapshotFormat.bad("key " + i + ": location " + Long.toHexString(key.location())
                        + " has bits above the bucket index and fingerprint");
            }
            if (key.key().length > maxKeyBytes) {
                throw SnapshotFormat.bad("key " + i + ": " + key.key().length + " bytes, longer than maxKeyBytes="
                        + maxKeyBytes);
            }
        }
    }

    /**
     * The untruncated keys by their bytes, checking that no two have equal bytes (one key, one entry: its
     * estimate would otherwise be ambiguous and a merge would count it twice). Truncated keys may repeat their
     * bytes: distinct keys can share a {@code maxKeyBytes} prefix.
     */
    private static Map<ByteBuffer, SnapshotKey> distinctKeys(List<SnapshotKey> keys) {
        Map<ByteBuffer, SnapshotKey> byKey = new HashMap<>(keys.size() * 2);
        for (int i = 0; i < keys.size(); i++) {
            SnapshotKey key = keys.get(i);
            if (!key.truncated() && byKey.putIfAbsent(ByteBuffer.wrap(key.key()), key) != null) {
                int first = 0;
                while (!Arrays.equals(keys.get(first).key(), key.key()) || keys.get(first).truncated()) {
                    first++;
                }
                throw SnapshotFormat.bad("key " + i + ": the same bytes as key " + first + " (duplicate entry)");
            }
        }
        return byKey;
    }

    private static int canonical(SnapshotKey a, SnapshotKey b) {
        int c = Long.compare(b.estimate(), a.estimate());
        if (c == 0) {
            c = Arrays.compareUnsigned(a.key(), b.key());
        }
        if (c == 0) {
            c = Boolean.compare(a.truncated(), b.truncated());
        }
        if (c == 0) {
            c = Long.compare(a.location(), b.location());
        }
        return c == 0 ? Integer.compare(SnapshotFormat.kindCode(a.kind()), SnapshotFormat.kindCode(b.kind())) : c;
    }

    /**
     * Of two entries of one key (equal bytes, so equal under the hash, whatever the overload that observed them),
     * the one whose kind says more: a {@code long} or text over plain bytes.
     */
    private static SnapshotKey kindOf(SnapshotKey a, SnapshotKey b) {
        return a.kind() == HeavyHitter.Kind.BYTES && b.kind() != HeavyHitter.Kind.BYTES ? b : a;
    }

    // ---------------------------------------------------------------- contents

    /**
     * The format version this snapshot is written in: {@link #FORMAT_VERSION} (docs/format.md; versions 1 and 2
     * are read, not written). Threads: any. Progress: wait-free.
     */
    public int formatVersion() {
        return SnapshotFormat.versionFor(geometry);
    }

    /** {@code ceil(log2 bucketCount())}. Threads: any. Progress: wait-free. */
    public int indexBits() {
        return geometry.indexBits();
    }

    /** Buckets of the table (8 slots each; any count, not only a power of two). Threads: any. Progress: wait-free. */
    public long bucketCount() {
        return geometry.bucketCount();
    }

    /**
     * Candidate buckets per key of the table: 2 for the snapshots of current sketches, 1 for those written before
     * two candidates (docs/format.md, flag 4). Threads: any. Progress: wait-free.
     */
    public int candidates() {
        return geometry.candidates();
    }

    /** How the sketch's table maps a hash to bucket and fingerprint (internal: the format and merges). */
    TableGeometry geometry() {
        return geometry;
    }

    /** Bytes of the sketch's table ({@code 64 * bucketCount()}). Threads: any. Progress: wait-free. */
    public long tableBytes() {
        return geometry.tableBytes();
    }

    /** The sketch's k. Threads: any. Progress: wait-free. */
    public int k() {
        return k;
    }

    /** The longest key stored whole. Threads: any. Progress: wait-free. */
    public int maxKeyBytes() {
        return maxKeyBytes;
    }

    /** The lottery's decay base. Threads: any. Progress: wait-free. */
    public double decayBase() {
        return decayBase;
    }

    /** The fingerprint of the hash function (not the seed). Threads: any. Progress: wait-free. */
    public long seedFingerprint() {
        return seedFingerprint;
    }

    /** Whether the sketch was built with {@code Builder.seed}. Threads: any. Progress: wait-free. */
    public boolean seeded() {
        return seeded;
    }

    /** The stream length (sum of weights) the sketch had seen. Threads: any. Progress: wait-free. */
    public long totalWeight() {
        return totalWeight;
    }

    /**
     * This snapshot with the stream length {@code totalWeight} instead of its own: for a caller that counted the
     * stream exactly itself (as {@code hotkeeper top} does), where the sketch without
     * {@code HotkeeperBuilder.recordStats()} only derives a lower bound from its slots, and the stats stripes
     * would have taken part of a {@code memory(...)} budget. Everything else is shared with this snapshot
     * (immutable). Threads: any. Progress: wait-free.
     *
     * @throws IllegalArgumentException if {@code totalWeight} is negative
     */
    public HotkeeperSnapshot withTotalWeight(long totalWeight) {
        if (totalWeight < 0) {
            throw new IllegalArgumentException("totalWeight=" + totalWeight + ": must be >= 0");
        }
        return new HotkeeperSnapshot(geometry, k, maxKeyBytes, decayBase, seedFingerprint, seeded, totalWeight,
                table, keys, byKey);
    }

    /** Whether the table is included (false after a merge by keys). Threads: any. Progress: wait-free. */
    public boolean hasTable() {
        return table != null;
    }

    /** Slots of the table, {@code 8 * bucketCount()}; 0 without a table. Threads: any. Progress: wait-free. */
    public int slotCount() {
        return table == null ? 0 : table.length;
    }

    /**
     * Slot word {@code index} (bucket {@code index / 8}, slot {@code index % 8}): fingerprint at bit 41 and up,
     * bit 38 set if the word sits in its key's second candidate bucket, count in the low 38 bits, 0 for an empty
     * slot (docs/format.md). Threads: any. Progress: wait-free.
     *
     * @throws IllegalStateException     without a table
     * @throws IndexOutOfBoundsException if {@code index} is not in 0..slotCount()-1
     */
    long slotWord(int index) {
        if (table == null) {
            throw new IllegalStateException("this snapshot has no table (a merge by keys)");
        }
        return table[Objects.checkIndex(index, table.length)];
    }

    /** The table itself, for the encoder (not copied: callers in this package do not modify it). */
    long[] table() {
        return table;
    }

    /** The sum of the table's counts (0 without a table). Threads: any. Progress: wait-free. */
    public long tableWeight() {
        long sum = 0;
        if (table != null) {
            for (long word : table) {
                sum += TableLayout.count(word);
            }
        }
        return sum;
    }

    /** Every tracked key, highest estimate first (ties by key bytes). Threads: any. Progress: wait-free. */
    public List<SnapshotKey> keys() {
        return keys;
    }

    /** The {@code n} tracked keys with the highest estimates, highest first. Threads: any. Progress: wait-free. */
    public List<HeavyHitter> topK(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("n=" + n + ": must be >= 0");
        }
        List<HeavyHitter> out = new ArrayList<>(Math.min(n, keys.size()));
        for (int i = 0; i < Math.min(n, keys.size()); i++) {
            SnapshotKey key = keys.get(i);
            out.add(new HeavyHitter(key.key().clone(), key.estimate(), key.truncated(), key.kind()));
        }
        return out;
    }

    /** The top {@code k()} keys. Threads: any. Progress: wait-free. */
    public List<HeavyHitter> topK() {
        return topK(k);
    }

    /**
     * Every tracked key whose estimate is at least {@code phi * totalWeight()}, highest first. Threads: any.
     * Progress: wait-free.
     *
     * @throws IllegalArgumentException if {@code phi} is not in (0, 1]
     */
    public List<HeavyHitter> heavyHitters(double phi) {
        double threshold = threshold(phi, totalWeight);
        int n = 0;
        while (n < keys.size() && keys.get(n).estimate() >= threshold) {
            n++;
        }
        return topK(n);
    }

    /**
     * {@code phi * total} (at least 1), after checking {@code phi} (shared with {@code Hotkeeper.heavyHitters}).
     * Threads: any. Progress: wait-free.
     */
    public static double threshold(double phi, long total) {
        if (!(phi > 0 && phi <= 1)) {
            throw new IllegalArgumentException("phi=" + phi + ": must be in (0, 1]");
        }
        return Math.max(1, phi * total);
    }

    /**
     * The estimate of a tracked (untruncated) key, 0 for any other key: a snapshot cannot hash keys, so it cannot
     * look up untracked table slots. Threads: any. Progress: wait-free.
     */
    public long estimate(byte[] key) {
        SnapshotKey found = byKey.get(ByteBuffer.wrap(Objects.requireNonNull(key, "key")));
        return found == null ? 0 : found.estimate();
    }

    /** {@link #estimate(byte[])} of the UTF-8 bytes of {@code key}. Threads: any. Progress: wait-free. */
    public long estimate(CharSequence key) {
        return estimate(key.toString().getBytes(StandardCharsets.UTF_8));
    }

    /** {@link #estimate(byte[])} of the 8 little-endian bytes of {@code key}. Threads: any. Progress: wait-free. */
    public long estimate(long key) {
        return estimate(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(key).array());
    }

    /**
     * Bounds on the true count of {@code key} at {@code confidence} (see {@link KeyBounds}). Threads: any.
     * Progress: wait-free.
     */
    public KeyBounds bounds(byte[] key, double confidence) {
        return KeyBounds.of(estimate(key), totalWeight, geometry.bucketCount(), geometry.candidates(),
                geometry.fingerprintBits(), confidence);
    }

    // ---------------------------------------------------------------- serialization

    /** The snapshot in format version {@link #formatVersion()}. Threads: any. Progress: wait-free. */
    public byte[] toBytes() {
        return SnapshotFormat.encode(this);
    }

    /** Size of {@link #toBytes()}. Threads: any. Progress: wait-free. */
    public long encodedBytes() {
        return SnapshotFormat.encodedBytes(this);
    }

    /** Writes {@link #toBytes()} to {@code out}. Threads: any. Progress: blocking. */
    public void writeTo(OutputStream out) throws IOException {
        out.write(toBytes());
    }

    /** Writes {@link #toBytes()} to {@code channel}, all of it. Threads: any. Progress: blocking. */
    public void writeTo(WritableByteChannel channel) throws IOException {
        ByteBuffer bytes = ByteBuffer.wrap(toBytes());
        while (bytes.hasRemaining()) {
            channel.write(bytes);
        }
    }

    /**
     * The default bound on the heap a read may allocate for the snapshot it decodes (1 GiB): a reader refuses,
     * before allocating, an input whose table and keys would take more ({@code read(..., maxDecodedBytes)} sets
     * another bound). The decoded size is the table's {@code 64 * bucketCount} bytes, plus 512 bytes per key entry
     * and its key bytes (docs/format.md, "Reading bad bytes"): a file of 16-byte entries of empty keys decodes to
     * 32 times its size, so 1 GiB admits about 2 million keys (with a table of 2^20 buckets, 1.9 million).
     */
    public static final long DEFAULT_MAX_DECODED_BYTES = SnapshotFormat.DEFAULT_MAX_DECODED_BYTES;

    /**
     * Reads a snapshot from exactly {@code bytes}, with the default bound {@link #DEFAULT_MAX_DECODED_BYTES}.
     * Threads: any. Progress: wait-free.
     *
     * @throws SnapshotFormatException if the bytes are not a valid snapshot (docs/format.md), or would decode to
     *                                 more than the bound
     */
    public static HotkeeperSnapshot read(byte[] bytes) {
        return read(bytes, DEFAULT_MAX_DECODED_BYTES);
    }

    /**
     * Reads a snapshot from exactly {@code bytes}, refusing (before allocating) one that would decode to more than
     * {@code maxDecodedBytes} bytes of heap ({@link #DEFAULT_MAX_DECODED_BYTES}). Threads: any. Progress:
     * wait-free.
     *
     * @throws SnapshotFormatException  if the bytes are not a valid snapshot, or would decode to more than
     *                                  {@code maxDecodedBytes}
     * @throws IllegalArgumentException if {@code maxDecodedBytes < 0}
     */
    public static HotkeeperSnapshot read(byte[] bytes, long maxDecodedBytes) {
        return SnapshotFormat.decode(MemorySegment.ofArray(Objects.requireNonNull(bytes, "bytes")), maxDecodedBytes);
    }

    /**
     * Reads a snapshot from exactly the bytes of {@code segment} (heap, native or mapped), with the default bound
     * {@link #DEFAULT_MAX_DECODED_BYTES}. Threads: any. Progress: wait-free.
     *
     * @throws SnapshotFormatException if the bytes are not a valid snapshot, or would decode to more than the bound
     * @throws IllegalStateException   if the segment's arena is closed
     */
    public static HotkeeperSnapshot read(MemorySegment segment) {
        return read(segment, DEFAULT_MAX_DECODED_BYTES);
    }

    /**
     * Reads a snapshot from exactly the bytes of {@code segment}, refusing one that would decode to more than
     * {@code maxDecodedBytes}. Threads: any. Progress: wait-free.
     *
     * @throws SnapshotFormatException  if the bytes are not a valid snapshot, or would decode to more than
     *                                  {@code maxDecodedBytes}
     * @throws IllegalArgumentException if {@code maxDecodedBytes < 0}
     * @throws IllegalStateException    if the segment's arena is closed
     */
    public static HotkeeperSnapshot read(MemorySegment segment, long maxDecodedBytes) {
        return SnapshotFormat.decode(Objects.requireNonNull(segment, "segment"), maxDecodedBytes);
    }

    /**
     * Reads one snapshot from {@code channel}, consuming exactly its bytes, with the default bound
     * {@link #DEFAULT_MAX_DECODED_BYTES}. Memory grows with the bytes that arrive, never with what a header
     * claims. Threads: any. Progress: blocking.
     *
     * @throws SnapshotFormatException if the bytes are not a valid snapshot (including a channel that ends early),
     *                                 or would decode to more than the bound
     * @throws IOException             if the channel fails
     */
    public static HotkeeperSnapshot read(ReadableByteChannel channel) throws IOException {
        return read(channel, DEFAULT_MAX_DECODED_BYTES);
    }

    /**
     * Reads one snapshot from {@code channel}, consuming exactly its bytes, refusing one whose header announces a
     * snapshot that would decode to more than {@code maxDecodedBytes} (before reading its body). Threads: any.
     * Progress: blocking.
     *
     * @throws SnapshotFormatException  if the bytes are not a valid snapshot, or would decode to more than
     *                                  {@code maxDecodedBytes}
     * @throws IllegalArgumentException if {@code maxDecodedBytes < 0}
     * @throws IOException              if the channel fails
     */
    public static HotkeeperSnapshot read(ReadableByteChannel channel, long maxDecodedBytes) throws IOException {
        return SnapshotFormat.read(Objects.requireNonNull(channel, "channel"), maxDecodedBytes);
    }

    // ---------------------------------------------------------------- merging

    /** A merged snapshot and what the merge could not keep. */
    public record Merged(HotkeeperSnapshot snapshot, MergeReport report) {
    }

    /**
     * Merges snapshots; see {@link #mergeAll(List)}. Threads: any. Progress: wait-free.
     */
    public static HotkeeperSnapshot merge(HotkeeperSnapshot first, HotkeeperSnapshot... more) {
        List<HotkeeperSnapshot> all = new ArrayList<>(1 + more.length);
        all.add(Objects.requireNonNull(first, "first"));
        all.addAll(Arrays.asList(more));
        return mergeAll(all).snapshot();
    }

    /**
     * Merges snapshots into one. Commutative; associative within the loss below.
     *
     * <p><b>By table</b>, when every input has a table of the same size and the same hash fingerprint: the counts
     * of each key (a fingerprint and its key's first bucket, which a slot word records) are summed and each bucket
     * keeps the 8 largest sums (ordered by count, then fingerprint), with a key's second bucket taking what its
     * first cannot, where the key's next observation looks for it (TableMerge); a tracked key's estimate becomes
     * the merged count of its slot, so it includes what other inputs counted for it without tracking it. Two keys
     * are never summed into one slot. Loss: the sums that did not fit in their buckets (reported as dropped
     * weight), and the keys whose slot was dropped.
     *
     * <p><b>By keys</b> otherwise: tracked keys are unioned by their bytes and their estimates summed; the result
     * has no table. Loss: whatever an input counted in slots it did not track (a key tracked in one input and
     * not in another gets nothing from the other: merged estimates only err low), reported as the inputs' table
     * weight not covered by their tracked keys.
     *
     * <p>Parameters: k and maxKeyBytes are the largest of the inputs', the decay base the first input's, the total
     * weight the sum, saturating at {@code Long.MAX_VALUE}. Threads: any. Progress: wait-free.
     */
    public static Merged mergeAll(List<HotkeeperSnapshot> inputs) {
        if (inputs.isEmpty()) {
            throw new IllegalArgumentException("nothing to merge");
        }
        HotkeeperSnapshot first = inputs.getFirst();
        boolean byTable = true;
        int k = 0;
        int maxKeyBytes = 0;
        TableGeometry widest = first.geometry;
        long total = 0;
        boolean seeded = true;
        for (HotkeeperSnapshot s : inputs) {
            Objects.requireNonNull(s, "snapshot");
            byTable &= s.hasTable() && s.geometry.equals(first.geometry) && s.seedFingerprint == first.seedFingerprint;
            seeded &= s.seeded && s.seedFingerprint == first.seedFingerprint;
            k = Math.max(k, s.k);
            maxKeyBytes = Math.max(maxKeyBytes, s.maxKeyBytes);
            widest = s.bucketCount() > widest.bucketCount() ? s.geometry : widest;
            total = Weights.saturatedAdd(total, s.totalWeight);
        }
        long[] dropped = {0};
        long merged = 0;
        List<SnapshotKey> keys = new ArrayList<>();
        long[] table = null;
        if (byTable) {
            List<long[]> tables = new ArrayList<>(inputs.size());
            for (HotkeeperSnapshot s : inputs) {
                tables.add(s.table);
                merged = Weights.saturatedAdd(merged, s.tableWeight());
            }
            table = TableMerge.merge(tables, first.geometry, dropped);
            Map<KeyId, SnapshotKey> union = new LinkedHashMap<>();
            for (HotkeeperSnapshot s : inputs) {
                for (SnapshotKey key : s.keys) {
                    union.merge(new KeyId(key), key, (a, b) -> a.located() ? a
                            : b.located() ? b : kindOf(a, b).with(Weights.saturatedAdd(a.estimate(), b.estimate()),
                                    SnapshotKey.NO_LOCATION));
                }
            }
            for (SnapshotKey key : union.values()) {
                if (!key.located()) {
                    keys.add(key);
                    continue;
                }
                long count = slotCount(table, first.geometry, key.location());
                if (count > 0) {
                    keys.add(key.with(count, key.location()));
                }
            }
        } else {
            Map<KeyId, SnapshotKey> union = new LinkedHashMap<>();
            for (HotkeeperSnapshot s : inputs) {
                long covered = 0;
                for (SnapshotKey key : s.keys) {
                    covered = Weights.saturatedAdd(covered, key.estimate());
                    union.merge(new KeyId(key), key.with(key.estimate(), SnapshotKey.NO_LOCATION),
                            (a, b) -> kindOf(a, b).with(Weights.saturatedAdd(a.estimate(), b.estimate()),
                                    SnapshotKey.NO_LOCATION));
                }
                merged = Weights.saturatedAdd(merged, covered);
                dropped[0] = Weights.saturatedAdd(dropped[0], Math.max(0, s.tableWeight() - covered));
            }
            keys.addAll(union.values());
            if (keys.size() > SnapshotFormat.MAX_KEYS) {
                keys.sort(HotkeeperSnapshot::canonical);
                for (SnapshotKey key : keys.subList(SnapshotFormat.MAX_KEYS, keys.size())) {
                    dropped[0] = Weights.saturatedAdd(dropped[0], key.estimate());
                }
                keys = new ArrayList<>(keys.subList(0, SnapshotFormat.MAX_KEYS));
            }
        }
        HotkeeperSnapshot out = validated(byTable ? first.geometry : widest, k, maxKeyBytes, first.decayBase,
                seeded || byTable ? first.seedFingerprint : 0, seeded, total, table, keys, false);
        return new Merged(out, new MergeReport(byTable, merged, dropped[0]));
    }

    /** The count of the slot at {@code location} (bucket index and fingerprint) in {@code table}, or 0. */
    static long slotCount(long[] table, TableGeometry geometry, long location) {
        int slot = slotIndex(table, geometry, location);
        return slot < 0 ? 0 : TableLayout.count(table[slot]);
    }

    /** A key's identity across snapshots: its bytes and whether they are a prefix. */
    private record KeyId(ByteBuffer bytes, boolean truncated) {
        KeyId(SnapshotKey key) {
            this(ByteBuffer.wrap(key.key()), key.truncated());
        }
    }

    @Override
    public String toString() {
        return "HotkeeperSnapshot[v" + SnapshotFormat.versionFor(geometry) + ", " + tableBytes() + " table bytes"
                + (table == null ? " (keys only)" : "") + ", k=" + k + ", keys=" + keys.size() + ", totalWeight="
                + totalWeight + ", seedFingerprint=" + Long.toHexString(seedFingerprint) + "]";
    }
}
