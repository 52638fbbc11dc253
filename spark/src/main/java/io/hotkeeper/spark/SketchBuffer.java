package io.hotkeeper.spark;

import io.hotkeeper.engine.HeavyHitter;
import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.HotkeeperWriter;
import io.hotkeeper.engine.snapshot.HotkeeperSnapshot;
import io.hotkeeper.engine.snapshot.SnapshotFormatException;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The aggregation buffer of the Spark functions: a sketch kept on the heap as a {@link HotkeeperSnapshot}, the
 * keys that arrived since it was last brought up to date, and the count of null values (skipped, not sketched).
 *
 * <h2>Native memory</h2>
 * A buffer holds no native memory between calls, so a buffer Spark drops (a spill of the object hash
 * aggregate, a failed or cancelled task, a speculative duplicate) leaks nothing and needs no cleanup. Keys are
 * queued on the heap (long keys in a {@code long[]}, string and binary keys back to back in one {@code byte[]});
 * every {@value #LONG_BATCH} long keys or {@value #OBJECT_BATCH} others (or {@value #BYTES_BATCH} bytes of them),
 * and before this buffer is merged into another, serialized or evaluated, one call opens a sketch, replays the
 * snapshot into it (table by table: every sketch here has the same seed and size, see {@link SketchSpec}),
 * observes the queued keys, takes a new snapshot and closes the sketch, all within a try-with-resources block.
 * At most one sketch per running call is open; none is open between calls. Buffers merged into this one wait as
 * snapshots and are merged all at once ({@link #merge(SketchBuffer)}), on the heap.
 *
 * <h2>Wire form</h2>
 * {@link #toBytes()}: the snapshot's bytes (docs/format.md; absent while nothing was observed) followed by the
 * null count as 8 little-endian bytes.
 *
 * <p>Threads: confined; a buffer belongs to the one task thread Spark gives it to.
 */
public final class SketchBuffer {
    /**
     * Long keys queued on the heap (8 MiB at most) before they are observed in one sketch call. Each call costs
     * a sketch's open, replay, snapshot and close (a few milliseconds for a 64 KiB table), so batches are large.
     */
    static final int LONG_BATCH = 1 << 20;
    /**
     * Long keys per queue chunk: 256 KiB arrays, below G1's humongous-object threshold (half a region; regions are
     * at least 1 MiB), so a full queue is 32 ordinary young objects instead of one array that doubles into humongous
     * regions (which triggered a concurrent cycle per few partitions).
     */
    static final int LONG_CHUNK_BITS = 15;
    static final int LONG_CHUNK = 1 << LONG_CHUNK_BITS;
    /** String and binary keys queued, at most (their bytes are copied into one array, {@link #BYTES_BATCH}). */
    static final int OBJECT_BATCH = 1 << 18;
    /** Bytes of queued string and binary keys before a flush (a longer single key still fits: the array grows). */
    static final int BYTES_BATCH = 8 << 20;

    /** Snapshots waiting to be merged, at most (then they are merged into one). */
    static final int MAX_PARTS = 64;

    private final SketchSpec spec;
    private HotkeeperSnapshot snapshot;
    /** Snapshots merged into this buffer and not yet into {@link #snapshot} ({@link #collapse()}). */
    private final List<HotkeeperSnapshot> parts = new ArrayList<>();
    private long nulls;
    /** Queued long keys in chunks of {@link #LONG_CHUNK} (null until the first); key i is in chunk i >>> LONG_CHUNK_BITS. */
    private long[][] longs;
    /** Queued byte keys, back to back (null until the first); key i ends at {@code ends[i]}. */
    private byte[] bytes;
    private int[] ends;
    private int used;
    private int pending;

    /** An empty buffer: no native memory, no snapshot yet. */
    SketchBuffer(SketchSpec spec) {
        this.spec = spec;
    }

    /** The spec new sketches are opened with. */
    SketchSpec spec() {
        return spec;
    }

    /** Nulls counted (skipped by the sketch). */
    long nulls() {
        return nulls;
    }

    /** Counts one null value. */
    void addNull() {
        nulls++;
    }

    /** Queues a long key. */
    void add(long key) {
        if (pending == LONG_BATCH) {
            flush();
        }
        if (longs == null) {
            longs = new long[LONG_BATCH / LONG_CHUNK][];
            longs[0] = new long[256];
        }
        int at = pending & (LONG_CHUNK - 1);
        long[] chunk = longs[pending >>> LONG_CHUNK_BITS];
        if (chunk == null) {
            chunk = longs[pending >>> LONG_CHUNK_BITS] = new long[LONG_CHUNK];
        } else if (at == chunk.length) {
            // Only the first chunk starts short (small inputs); it doubles up to LONG_CHUNK.
            chunk = longs[0] = Arrays.copyOf(chunk, chunk.length * 2);
        }
        chunk[at] = key;
        pending++;
    }

    /** Queues a binary key (its bytes are copied). */
    void add(byte[] key) {
        int at = reserve(key.length);
        System.arraycopy(key, 0, bytes, at, key.length);
    }

    /**
     * Queues a string key as its UTF-8 bytes, copied straight from Spark's {@code UTF8String} (no
     * {@code java.lang.String}, no array per key).
     */
    void add(UTF8String key) {
        int at = reserve(key.numBytes());
        key.writeToMemory(bytes, Platform.BYTE_ARRAY_OFFSET + at);
    }

    /** Makes room for a byte key of {@code length} bytes, records its end and returns where it starts. */
    private int reserve(int length) {
        if (pending == OBJECT_BATCH || (long) used + length > BYTES_BATCH && pending > 0) {
            flush();
        }
        if (ends == null) {
            ends = new int[256];
            bytes = new byte[Math.max(4096, length)];
        }
        if (pending == ends.length) {
            ends = Arrays.copyOf(ends, Math.min(OBJECT_BATCH, ends.length * 2));
        }
        if ((long) used + length > bytes.length) {
            bytes = Arrays.copyOf(bytes, (int) Math.min(Integer.MAX_VALUE - 8,
                    Math.max((long) used + length, Math.min(BYTES_BATCH, 2L * bytes.length))));
        }
        int at = used;
        used += length;
        ends[pending++] = used;
        return at;
    }

    /**
     * Merges another buffer into this one: its snapshot joins the ones waiting to be merged, all of them in one
     * {@link HotkeeperSnapshot#mergeAll} when the merged snapshot is needed (one pass over all their tables, where
     * merging them two at a time would rebuild and check a table per input; Spark's final aggregation merges
     * every partition's buffer into one).
     */
    void merge(SketchBuffer other) {
        other.flush();
        nulls += other.nulls;
        if (other.snapshot != null) {
            merge(other.snapshot);
        }
        for (HotkeeperSnapshot part : other.parts) {
            merge(part);
        }
    }

    /** Merges a stored snapshot (already read) into this buffer (see {@link #merge(SketchBuffer)}). */
    void merge(HotkeeperSnapshot other) {
        if (parts.size() == MAX_PARTS) {
            collapse();
        }
        parts.add(other);
    }

    /** Merges the snapshots waiting in {@link #parts} into {@link #snapshot}, in one pass. */
    private void collapse() {
        if (parts.isEmpty()) {
            return;
        }
        if (snapshot == null && parts.size() == 1) {
            snapshot = parts.getFirst();
        } else {
            List<HotkeeperSnapshot> all = new ArrayList<>(parts.size() + 1);
            if (snapshot != null) {
                all.add(snapshot);
            }
            all.addAll(parts);
            snapshot = HotkeeperSnapshot.mergeAll(all).snapshot();
        }
        parts.clear();
    }

    /**
     * Observes the queued keys: opens a sketch, replays the snapshot into it, observes, snapshots and closes it,
     * all in this call. A no-op with nothing queued.
     */
    void flush() {
        if (pending == 0) {
            return;
        }
        collapse();
        try (Hotkeeper sketch = spec.open(promotionFloor(snapshot, spec.shardCapacity()))) {
            if (snapshot != null) {
                sketch.merge(snapshot);
            }
            HotkeeperWriter writer = sketch.writer();
            if (longs != null) {
                for (int from = 0; from < pending; from += LONG_CHUNK) {
                    long[] chunk = longs[from >>> LONG_CHUNK_BITS];
                    // A batch: observeAll loads the next keys' bucket lines while it observes one (Hotkeeper).
                    writer.observeAll(chunk, 0, Math.min(LONG_CHUNK, pending - from));
                }
            } else {
                int start = 0;
                for (int i = 0; i < pending; i++) {
                    writer.observe(bytes, start, ends[i] - start);
                    start = ends[i];
                }
            }
            snapshot = sketch.snapshot();
        }
        pending = 0;
        used = 0;
    }

    /**
     * The promotion floor to reopen a snapshot's sketch with: 1 while its shards had room (the snapshot keeps
     * fewer keys than the shard's capacity, {@link SketchSpec#shardCapacity()}), else the lowest estimate among its keys, the
     * floor a live sketch would have risen to. Without it every reopened sketch would start at 1 and make every
     * light key of the next batch a promotion candidate again. (A snapshot does not record the live floor.)
     */
    static long promotionFloor(HotkeeperSnapshot snapshot, int shardCapacity) {
        if (snapshot == null || snapshot.keys().size() < shardCapacity) {
            return 1;
        }
        return Math.max(1, snapshot.keys().getLast().estimate());
    }

    /**
     * The snapshot of everything observed: an empty sketch's if nothing was (opened and closed here).
     */
    HotkeeperSnapshot snapshot() {
        flush();
        collapse();
        if (snapshot == null) {
            try (Hotkeeper sketch = spec.open()) {
                snapshot = sketch.snapshot();
            }
        }
        return snapshot;
    }

    /**
     * The {@code k} keys with the highest estimates, highest first, as {@code (item, estimate)} pairs, with
     * {@code (null, nulls)} in its place by count if there were nulls (as Spark's {@code approx_top_k} does).
     */
    List<Object[]> top(int k, java.util.function.Function<HeavyHitter, Object> item) {
        flush();
        collapse();
        List<HeavyHitter> hitters = snapshot == null ? List.of() : snapshot.topK(k);
        List<Object[]> out = new ArrayList<>(Math.min(k, hitters.size() + 1));
        boolean nullAdded = nulls == 0;
        for (HeavyHitter h : hitters) {
            if (out.size() == k) {
                break;
            }
            if (!nullAdded && nulls > h.estimate()) {
                out.add(new Object[] {null, nulls});
                nullAdded = true;
                if (out.size() == k) {
                    break;
                }
            }
            out.add(new Object[] {item.apply(h), h.estimate()});
        }
        if (!nullAdded && out.size() < k) {
            out.add(new Object[] {null, nulls});
        }
        return out;
    }

    /** The wire form (class comment). */
    byte[] toBytes() {
        flush();
        collapse();
        byte[] sketch = snapshot == null ? new byte[0] : snapshot.toBytes();
        byte[] out = Arrays.copyOf(sketch, sketch.length + Long.BYTES);
        ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN).putLong(sketch.length, nulls);
        return out;
    }

    /**
     * A buffer from its wire form.
     *
     * @throws SnapshotFormatException if the bytes are not a buffer's
     */
    static SketchBuffer fromBytes(byte[] bytes, SketchSpec spec) {
        if (bytes.length < Long.BYTES) {
            throw new SnapshotFormatException("bad snapshot: an aggregation buffer of " + bytes.length
                    + " bytes (at least 8)");
        }
        SketchBuffer buffer = new SketchBuffer(spec);
        int sketchBytes = bytes.length - Long.BYTES;
        buffer.nulls = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getLong(sketchBytes);
        if (sketchBytes > 0) {
            buffer.snapshot = HotkeeperSnapshot.read(Arrays.copyOf(bytes, sketchBytes));
        }
        return buffer;
    }
}
