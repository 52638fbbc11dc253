package io.hotkeeper.engine;

import io.hotkeeper.engine.hash.KeyHasher;
import io.hotkeeper.engine.lottery.DecayLottery;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A plain, single-threaded model of Hotkeeper's algorithm for the differential test: a bucket array of 8 slots
 * (fingerprint, count, tracked, key) per bucket, two candidate buckets per key, and the three phases written as
 * directly as possible.
 * It uses the engine's own {@link KeyHasher} and {@link DecayLottery} (same seed, same draw key) and the salt
 * sequence the engine's one writing thread draws (0, 1, 2, ... under the shared salt; i, i + N, ... from the
 * counter i of its worker id under the per-worker salt), so on one thread it should make exactly the engine's
 * decisions.
 * Not thread-safe.
 */
final class SequentialModel {
    private static final int SLOTS = 8;

    private final KeyHasher hasher;
    private final DecayLottery lottery;
    private final int indexBits;
    private final long buckets;
    private final long fingerprintMask;
    private final long promotionFloor;
    private final long[] fingerprint;
    private final long[] count;
    private final boolean[] tracked;
    private final long[] key;
    private long salt;
    private final long saltStride;

    /**
     * A model of a sketch built with {@code memoryBytes}, {@code seed}, {@code decayBase} and the floor, whose
     * draws take the salt values {@code saltStart}, {@code saltStart + saltStride}, ...
     */
    SequentialModel(long memoryBytes, long seed, double decayBase, long promotionFloor, long saltStart,
                    long saltStride) {
        this.salt = saltStart;
        this.saltStride = saltStride;
        this.hasher = KeyHasher.seeded(seed);
        // The engine's draw key for a seeded sketch (Hotkeeper's constructor).
        this.lottery = new DecayLottery(decayBase, KeyHasher.splitMix(seed ^ 0x5a17L));
        long buckets = memoryBytes / 64;
        this.buckets = buckets;
        // ceil(log2 buckets): any bucket count, not only a power of two.
        int bits = 0;
        while ((1L << bits) < buckets) {
            bits++;
        }
        this.indexBits = bits;
        this.fingerprintMask = (1L << Math.min(23, 32 - indexBits)) - 1;
        this.promotionFloor = promotionFloor;
        int slots = (int) (buckets * SLOTS);
        this.fingerprint = new long[slots];
        this.count = new long[slots];
        this.tracked = new boolean[slots];
        this.key = new long[slots];
    }

    /**
     * The bucket: the low 32 hash bits with the low indexBits bits moved to the top, times the bucket count, high
     * half (written out here independently of the engine's TableGeometry).
     */
    private int bucketOf(long h) {
        long low = h & 0xFFFF_FFFFL;
        long x = ((low >>> indexBits) | (low << (32 - indexBits))) & 0xFFFF_FFFFL;
        return (int) ((x * buckets) >>> 32);
    }

    /**
     * The second candidate bucket of a key with fingerprint {@code fp} whose first is {@code bucket}: {@code d(fp)
     * - bucket} modulo the bucket count, where {@code d(fp)} is the high half of the golden-ratio multiple of the
     * fingerprint, times the bucket count, high half (written out independently of TableGeometry#alternate).
     */
    private int secondOf(int bucket, long fp) {
        long d = (((fp * 0x9E3779B97F4A7C15L) >>> 32) * buckets) >>> 32;
        return (int) Math.floorMod(d - bucket, buckets);
    }

    void observe(long k) {
        long h = hasher.hash(k);
        int first = bucketOf(h);
        long fp = (h >>> indexBits) & fingerprintMask;
        int second = secondOf(first, fp);
        int weakest = -1;
        // The first bucket, then (only when the first is full without the key) the second.
        int slots = first == second ? SLOTS : 2 * SLOTS;
        for (int i = 0; i < slots; i++) {
            int s = (i < SLOTS ? first : second) * SLOTS + i % SLOTS;
            if (count[s] == 0) { // phase 2: claim the lowest empty slot
                fingerprint[s] = fp;
                count[s] = 1;
                tracked[s] = false;
                promoteIfAtFloor(s, k);
                return;
            }
            if (fingerprint[s] == fp) { // phase 1: refresh
                count[s]++;
                promoteIfAtFloor(s, k);
                return;
            }
            if (weakest < 0 || count[s] < count[weakest]) {
                weakest = s;
            }
        }
        // Phase 3: one draw against the weakest occupant; a win decrements it, and at zero the key takes the slot.
        long draw = lottery.draw(h >>> 32, salt);
        salt += saltStride;
        if (lottery.wins(draw, count[weakest]) && --count[weakest] == 0) {
            fingerprint[weakest] = fp;
            count[weakest] = 1;
            tracked[weakest] = false;
            promoteIfAtFloor(weakest, k);
        }
    }

    private void promoteIfAtFloor(int s, long k) {
        if (!tracked[s] && count[s] >= promotionFloor) {
            tracked[s] = true;
            key[s] = k;
        }
    }

    /** The count of the slot holding {@code k}'s fingerprint in its first bucket, else its second, else 0. */
    long estimate(long k) {
        long h = hasher.hash(k);
        int first = bucketOf(h);
        long fp = (h >>> indexBits) & fingerprintMask;
        for (int b : new int[] {first, secondOf(first, fp)}) {
            for (int s = b * SLOTS; s < b * SLOTS + SLOTS; s++) {
                if (count[s] == 0) {
                    return 0; // room in the first bucket: the key was never sent to the second
                }
                if (fingerprint[s] == fp) {
                    return count[s];
                }
            }
        }
        return 0;
    }

    /** The {@code n} tracked slots with the highest counts, as (key, count), highest first. */
    List<long[]> topK(int n) {
        List<long[]> out = new ArrayList<>();
        for (int s = 0; s < count.length; s++) {
            if (tracked[s]) {
                out.add(new long[] {key[s], count[s]});
            }
        }
        out.sort(Comparator.comparingLong((long[] e) -> e[1]).reversed());
        return out.size() > n ? out.subList(0, n) : out;
    }
}
