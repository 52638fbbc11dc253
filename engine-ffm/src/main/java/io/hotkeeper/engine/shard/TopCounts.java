package io.hotkeeper.engine.shard;

import java.util.Arrays;

/**
 * A bounded min-heap of (count, slot index) pairs packed in one {@code long}: count in the high 40 bits, slot
 * index in the low 23 bits, so comparing packed values compares counts first.
 *
 * <p>Threads: one (a per-query object). Progress: wait-free.
 */
final class TopCounts {
    private static final int INDEX_BITS = 23;
    private static final long INDEX_MASK = (1L << INDEX_BITS) - 1;

    private final long[] heap;
    private int size;

    TopCounts(int capacity) {
        this.heap = new long[Math.max(1, capacity)];
    }

    static long index(long packed) {
        return packed & INDEX_MASK;
    }

    static long count(long packed) {
        return packed >>> INDEX_BITS;
    }

    void offer(long count, long slotIndex) {
        long packed = (count << INDEX_BITS) | slotIndex;
        if (size == heap.length && packed <= heap[0]) {
            return; // the common case once the heap is full: not among the top
        }
        if (size < heap.length) {
            heap[size] = packed;
            siftUp(size++);
        } else if (packed > heap[0]) {
            heap[0] = packed;
            siftDown(0);
        }
    }

    /** The smallest count that could still enter: 0 until full, then the heap minimum's count. */
    long admissionFloor() {
        return size < heap.length ? 0 : count(heap[0]);
    }

    long minCount() {
        return size == 0 ? 0 : count(heap[0]);
    }

    long[] descending() {
        long[] out = Arrays.copyOf(heap, size);
        Arrays.sort(out);
        for (int i = 0, j = out.length - 1; i < j; i++, j--) {
            long t = out[i];
            out[i] = out[j];
            out[j] = t;
        }
        return out;
    }

    private void siftUp(int i) {
        long v = heap[i];
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (heap[parent] <= v) {
                break;
            }
            heap[i] = heap[parent];
            i = parent;
        }
        heap[i] = v;
    }

    private void siftDown(int i) {
        long v = heap[i];
        int half = size >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            if (child + 1 < size && heap[child + 1] < heap[child]) {
                child++;
            }
            if (heap[child] >= v) {
                break;
            }
            heap[i] = heap[child];
            i = child;
        }
        heap[i] = v;
    }
}
