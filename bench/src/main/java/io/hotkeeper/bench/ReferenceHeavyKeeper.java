package io.hotkeeper.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The HeavyKeeper of the paper, sequential and on-heap, as the algorithmic baseline of docs/peers.md: Gong et
 * al., "HeavyKeeper: An Accurate Algorithm for Finding Top-k Elephant Flows", USENIX ATC 2018, the basic version
 * (no selective increment, no fingerprint-collision check).
 *
 * <p>{@code d} arrays of {@code w} buckets, each a 32-bit fingerprint and a 32-bit counter packed in one
 * {@code long} (8 bytes per bucket). For a key, in each array's bucket: same fingerprint, increment; counter 0,
 * claim with count 1; otherwise decay the counter by one with probability {@code b^-C} and, at 0, the key takes
 * the bucket with count 1. The estimate is the largest counter among buckets holding the key's fingerprint. A
 * min-heap of {@code k} (key, count) entries (16 bytes each) keeps the top k: a key in the heap has its count
 * raised to the estimate; a key not in it enters when the heap is not full or its estimate exceeds the heap's
 * minimum, which it then replaces.
 *
 * <p>Threads: one. Not for production: a baseline to judge Hotkeeper's accuracy against.
 */
final class ReferenceHeavyKeeper {
    /** The paper's decay base. */
    static final double PAPER_BASE = 1.08;
    /** Bytes per bucket: fingerprint (4) + counter (4). */
    static final int BYTES_PER_BUCKET = 8;
    /** Bytes charged per heap entry: key (8) + count (8). */
    static final int BYTES_PER_HEAP_ENTRY = 16;

    private final int depth;
    private final int width;
    private final long[][] buckets;
    private final long[] seeds;
    /** {@code b^-C} for every C that can still decay; counters at or above its length never do. */
    private final double[] decay;
    private final SplittableRandom random;
    private final TopKHeap heap;

    /** A sketch within {@code memoryBytes} (buckets plus heap), {@code depth} arrays, decay base {@code base}. */
    ReferenceHeavyKeeper(long memoryBytes, int depth, double base, int k, long seed) {
        this(depth, widthFor(memoryBytes, depth, k), base, k, seed);
    }

    /** A sketch of {@code depth} arrays of {@code width} buckets, decay base {@code base}, a heap of {@code k}. */
    ReferenceHeavyKeeper(int depth, int width, double base, int k, long seed) {
        if (depth < 1 || width < 1 || k < 1 || !(base > 1)) {
            throw new IllegalArgumentException("depth=" + depth + ", width=" + width + ", base=" + base + ", k=" + k);
        }
        this.depth = depth;
        this.width = width;
        this.buckets = new long[depth][width];
        this.seeds = new long[depth + 1];
        SplittableRandom seeder = new SplittableRandom(seed);
        for (int i = 0; i <= depth; i++) {
            seeds[i] = seeder.nextLong();
        }
        // b^-C below 2^-53 is below the resolution of nextDouble() (a multiple of 2^-53): such a counter decays
        // only when the draw is exactly 0, once in 2^53 draws, so it is treated as never decaying. b = 1.08: 478
        // entries (3.7 KiB).
        int limit = (int) Math.ceil(53 * Math.log(2) / Math.log(base));
        this.decay = new double[limit];
        for (int c = 0; c < limit; c++) {
            decay[c] = Math.pow(base, -c);
        }
        this.random = seeder.split();
        this.heap = new TopKHeap(k);
    }

    /** Buckets per array for {@code memoryBytes} by {@link PeerSizing}'s rule: (memory - 16 k) / (8 d). */
    static int widthFor(long memoryBytes, int depth, int k) {
        long bucketBytes = memoryBytes - (long) BYTES_PER_HEAP_ENTRY * k;
        if (bucketBytes < (long) BYTES_PER_BUCKET * depth) {
            throw new IllegalArgumentException("memoryBytes=" + memoryBytes + " too small for k=" + k);
        }
        return (int) (bucketBytes / ((long) BYTES_PER_BUCKET * depth));
    }

    /** Buckets per array. */
    int width() {
        return width;
    }

    /**
     * Heap bytes of the arrays this sketch holds (compressed oops: 16-byte array headers, 4-byte references):
     * the buckets ({@code d x w} longs), the heap of k (keys and counts), the heap's key index, the seeds and the
     * table of decay probabilities ({@code b^-C} while it is at least 2^-53: 478 doubles at b = 1.08).
     */
    long heldBytes() {
        long arrays = 16 + 4L * depth + depth * (16 + (long) BYTES_PER_BUCKET * width);
        return arrays + 16 + 8L * seeds.length + 16 + 8L * decay.length + heap.heldBytes();
    }

    /** Counts one occurrence of {@code key}. */
    void observe(long key) {
        int fp = (int) mix(key ^ seeds[depth]);
        long estimate = 0;
        for (int j = 0; j < depth; j++) {
            long[] row = buckets[j];
            int i = (int) Long.remainderUnsigned(mix(key ^ seeds[j]), width);
            long b = row[i];
            int bfp = (int) (b >>> 32);
            long count = b & 0xffff_ffffL;
            if (count == 0) {
                row[i] = pack(fp, 1);
                estimate = Math.max(estimate, 1);
            } else if (bfp == fp) {
                if (count < 0xffff_ffffL) {
                    count++;
                }
                row[i] = pack(fp, count);
                estimate = Math.max(estimate, count);
            } else if (count < decay.length && random.nextDouble() < decay[(int) count]) {
                count--;
                if (count == 0) {
                    row[i] = pack(fp, 1);
                    estimate = Math.max(estimate, 1);
                } else {
                    row[i] = pack(bfp, count);
                }
            }
        }
        heap.offer(key, estimate);
    }

    /** The estimate of {@code key}: its heap count if it is in the heap, else its largest matching counter. */
    long estimate(long key) {
        long inHeap = heap.count(key);
        if (inHeap >= 0) {
            return inHeap;
        }
        int fp = (int) mix(key ^ seeds[depth]);
        long estimate = 0;
        for (int j = 0; j < depth; j++) {
            long b = buckets[j][(int) Long.remainderUnsigned(mix(key ^ seeds[j]), width)];
            if ((int) (b >>> 32) == fp) {
                estimate = Math.max(estimate, b & 0xffff_ffffL);
            }
        }
        return estimate;
    }

    /** The heap's entries, highest count first. */
    List<long[]> topK() {
        return heap.sorted();
    }

    private static long pack(int fp, long count) {
        return ((long) fp << 32) | count;
    }

    /** Murmur3's 64-bit finalizer. */
    static long mix(long z) {
        z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
        z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return z ^ (z >>> 33);
    }

    /** A min-heap of at most k (key, count) entries with an open-addressing key -> heap index map. */
    static final class TopKHeap {
        private final int capacity;
        private final long[] keys;
        private final long[] counts;
        private int size;
        private final long[] mapKeys;
        private final int[] mapSlots;
        private final int mapMask;

        TopKHeap(int capacity) {
            this.capacity = capacity;
            this.keys = new long[capacity];
            this.counts = new long[capacity];
            // Load at most 1/2 (linear probing): k = 100 takes 256 slots.
            int mapSize = Integer.highestOneBit(Math.max(4, capacity * 2) - 1) << 1;
            this.mapKeys = new long[mapSize];
            this.mapSlots = new int[mapSize];
            Arrays.fill(mapSlots, -1);
            this.mapMask = mapSize - 1;
        }

        /** Bytes of the heap's arrays: keys and counts (16 B per entry) and the index (12 B per map slot). */
        long heldBytes() {
            return 2 * (16 + 8L * capacity) + 16 + 8L * mapKeys.length + 16 + 4L * mapSlots.length;
        }

        void offer(long key, long estimate) {
            int at = find(key);
            if (at >= 0) {
                int h = mapSlots[at];
                if (estimate > counts[h]) {
                    counts[h] = estimate;
                    siftDown(h);
                }
            } else if (estimate == 0) {
                return;
            } else if (size < capacity) {
                keys[size] = key;
                counts[size] = estimate;
                put(key, size);
                siftUp(size++);
            } else if (estimate > counts[0]) {
                remove(keys[0]);
                keys[0] = key;
                counts[0] = estimate;
                put(key, 0);
                siftDown(0);
            }
        }

        long count(long key) {
            int at = find(key);
            return at < 0 ? -1 : counts[mapSlots[at]];
        }

        List<long[]> sorted() {
            List<long[]> out = new ArrayList<>(size);
            for (int i = 0; i < size; i++) {
                out.add(new long[] {keys[i], counts[i]});
            }
            out.sort(Comparator.comparingLong((long[] e) -> e[1]).reversed());
            return out;
        }

        private void siftUp(int i) {
            while (i > 0) {
                int parent = (i - 1) >>> 1;
                if (counts[parent] <= counts[i]) {
                    return;
                }
                swap(i, parent);
                i = parent;
            }
        }

        private void siftDown(int i) {
            while (true) {
                int l = 2 * i + 1;
                if (l >= size) {
                    return;
                }
                int m = l + 1 < size && counts[l + 1] < counts[l] ? l + 1 : l;
                if (counts[i] <= counts[m]) {
                    return;
                }
                swap(i, m);
                i = m;
            }
        }

        private void swap(int a, int b) {
            long k = keys[a];
            keys[a] = keys[b];
            keys[b] = k;
            long c = counts[a];
            counts[a] = counts[b];
            counts[b] = c;
            mapSlots[find(keys[a])] = a;
            mapSlots[find(keys[b])] = b;
        }

        private int find(long key) {
            for (int i = (int) mix(key) & mapMask; ; i = (i + 1) & mapMask) {
                if (mapSlots[i] < 0) {
                    return -1;
                }
                if (mapKeys[i] == key) {
                    return i;
                }
            }
        }

        private void put(long key, int slot) {
            int i = (int) mix(key) & mapMask;
            while (mapSlots[i] >= 0) {
                i = (i + 1) & mapMask;
            }
            mapKeys[i] = key;
            mapSlots[i] = slot;
        }

        /** Removes {@code key} from the map with backward-shift deletion (linear probing). */
        private void remove(long key) {
            int i = find(key);
            mapSlots[i] = -1;
            for (int j = (i + 1) & mapMask; mapSlots[j] >= 0; j = (j + 1) & mapMask) {
                int home = (int) mix(mapKeys[j]) & mapMask;
                // move j back to i if home is not cyclically in (i, j]
                if (((j - home) & mapMask) >= ((j - i) & mapMask)) {
                    mapKeys[i] = mapKeys[j];
                    mapSlots[i] = mapSlots[j];
                    mapSlots[j] = -1;
                    i = j;
                }
            }
        }
    }
}
