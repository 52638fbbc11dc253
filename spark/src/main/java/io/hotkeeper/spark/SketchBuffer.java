package io.hotkeeper.spark;

import io.hotkeeper.engine.HeavyHitter;
import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.HotkeeperWriter;
import io.hotkeeper.engine.snapshot.HotkeeperSnapshot;
import io.hotkeeper.engine.snapshot.SnapshotFormatException;

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
 * queued on the heap; every {@value #LONG_BATCH} long keys or {@value #OBJECT_BATCH} others, and before a merge, serialization or result, one call opens a
 * sketch, merges the snapshot into it (table by table: every sketch here has the same seed and size, see
 * {@link SketchSpec}), observes the queued keys, takes a new snapshot and closes the sketch, all within a
 * try-with-resources block. At most one sketch per running call is open; none is open between calls.
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
    /** String and binary keys queued (their arrays stay referenced until observed). */
    static final int OBJECT_BATCH = 1 << 18;

    private final SketchSpec spec;
    private HotkeeperSnapshot snapshot;
    private long nulls;
    private long[] longs;
    private Object[] objects;
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
        if (longs == null || pending == longs.length) {
            if (pending == LONG_BATCH) {
                flush();
            }
            longs = grow(longs);
        }
        longs[pending++] = key;
    }

    /** Queues a String or byte[] key (the array is not copied: Spark hands each row a fresh one). */
    void add(Object key) {
        if (objects == null || pending == objects.length) {
            if (pending == OBJECT_BATCH) {
                flush();
            }
            objects = objects == null ? new Object[256] : pending == 0 ? objects
                    : Arrays.copyOf(objects, Math.min(OBJECT_BATCH, objects.length * 2));
        }
        objects[pending++] = key;
    }

    private long[] grow(long[] a) {
        if (a == null) {
            return new long[256];
        }
        return pending == 0 ? a : Arrays.copyOf(a, Math.min(LONG_BATCH, a.length * 2));
    }

    /** Merges another buffer into this one (both brought up to date first; snapshot merge by table). */
    void merge(SketchBuffer other) {
        other.flush();
        flush();
        nulls += other.nulls;
        if (other.snapshot != null) {
            snapshot = snapshot == null ? other.snapshot : HotkeeperSnapshot.merge(snapshot, other.snapshot);
        }
    }

    /** Merges a stored snapshot (already read) into this buffer. */
    void merge(HotkeeperSnapshot other) {
        flush();
        snapshot = snapshot == null ? other : HotkeeperSnapshot.merge(snapshot, other);
    }

    /**
     * Observes the queued keys: opens a sketch, replays the snapshot into it, observes, snapshots and closes it,
     * all in this call. A no-op with nothing queued.
     */
    void flush() {
        if (pending == 0) {
            return;
        }
        try (Hotkeeper sketch = spec.open(promotionFloor(snapshot))) {
            if (snapshot != null) {
                sketch.merge(snapshot);
            }
            HotkeeperWriter writer = sketch.writer();
            if (longs != null) {
                for (int i = 0; i < pending; i++) {
                    writer.observe(longs[i]);
                }
            } else {
                for (int i = 0; i < pending; i++) {
                    Object key = objects[i];
                    if (key instanceof byte[] bytes) {
                        writer.observe(bytes);
                    } else {
                        writer.observe((String) key);
                    }
                    objects[i] = null;
                }
            }
            snapshot = sketch.snapshot();
        }
        pending = 0;
    }

    /**
     * The promotion floor to reopen a snapshot's sketch with: 1 while its shards had room (the snapshot keeps
     * fewer keys than the shards' default capacity, at least 1024), else the lowest estimate among its keys, the
     * floor a live sketch would have risen to. Without it every reopened sketch would start at 1 and make every
     * light key of the next batch a promotion candidate again. (A snapshot does not record the live floor.)
     */
    static long promotionFloor(HotkeeperSnapshot snapshot) {
        if (snapshot == null || snapshot.keys().size() < 1024) {
            return 1;
        }
        return Math.max(1, snapshot.keys().getLast().estimate());
    }

    /**
     * The snapshot of everything observed: an empty sketch's if nothing was (opened and closed here).
     */
    HotkeeperSnapshot snapshot() {
        flush();
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
    List<Object[]> top(int k, KeyType type) {
        flush();
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
            out.add(new Object[] {type.item(h), h.estimate()});
        }
        if (!nullAdded && out.size() < k) {
            out.add(new Object[] {null, nulls});
        }
        return out;
    }

    /** The wire form (class comment). */
    byte[] toBytes() {
        flush();
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
