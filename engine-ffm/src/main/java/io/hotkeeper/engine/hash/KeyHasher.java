package io.hotkeeper.engine.hash;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.security.SecureRandom;
import java.util.Objects;

/**
 * A keyed 64-bit hash over byte strings, with allocation-free entry points for {@code long}, {@code byte[]}
 * ranges, {@code CharSequence} (hashed as its UTF-8 bytes) and {@link MemorySegment} slices.
 *
 * <p>Key identity is the byte string: {@code hash(long k)} equals the hash of the 8 little-endian bytes of
 * {@code k}, and {@code hash(CharSequence s)} equals the hash of {@code s.toString().getBytes(UTF_8)} (unpaired
 * surrogates become {@code '?'}, as in {@link String#getBytes(java.nio.charset.Charset)}).
 *
 * <p>Threads: any; instances are immutable. Progress: wait-free, O(key length), no allocation.
 */
/*
 * Design. Keys of exactly 8 bytes, and so every long key, take one keyed 64-bit mix: the word xor the secret k0,
 * then the MurmurHash3 fmix64 finalizer (two multiplies, three xor-shifts; every output bit depends on every
 * input bit). It is a bijection for a given k0, so two distinct long keys never share a full hash; where they
 * land (bucket, fingerprint, spare) is unpredictable without k0. It costs about half the general path below
 * (docs/performance.md), and byte and text keys of 8 bytes take the same mix, so key identity holds.
 * Other lengths: a wyhash-style multiply-fold: each 8-byte little-endian word w is absorbed as
 * h = mum(w ^ k1 ^ P0, h ^ P1), where mum(a, b) folds the 128-bit product a*b into 64 bits (lo ^ hi). The
 * 0..7 trailing bytes and the length are absorbed by a final mum and an xor-shift-multiply avalanche, so the
 * low bits (bucket index), middle bits (fingerprint) and high bits (spare) all depend on every input bit.
 * The 128-bit key (k0, k1) comes from SecureRandom per instance unless a seed is given; it makes bucket
 * placement, fingerprints and eviction draws unpredictable to anyone who does not know it (docs/theory.md).
 * This is not a cryptographic MAC: it resists blind hash flooding, not an attacker who can observe outputs
 * and run chosen-input analysis at scale.
 */
public final class KeyHasher {
    private static final long P0 = 0xa0761d6478bd642fL;
    private static final long P1 = 0xe7037ed1a0b428dbL;
    private static final long P2 = 0x8ebc6af09c88c6e3L;
    private static final long P3 = 0x589965cc75374cc3L;
    private static final long GOLDEN = 0x9e3779b97f4a7c15L;

    private static final VarHandle LONGS_LE =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong SEGMENT_LONG_LE =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final long k0;
    private final long k1;

    private KeyHasher(long k0, long k1) {
        this.k0 = k0;
        this.k1 = k1;
    }

    /** A hasher keyed from {@link SecureRandom}. Threads: any. Progress: blocking (entropy source). */
    public static KeyHasher selfSeeded() {
        SecureRandom random = new SecureRandom();
        return new KeyHasher(random.nextLong(), random.nextLong());
    }

    /**
     * A hasher keyed deterministically from {@code seed}: equal seeds give equal hashes in every process.
     * Threads: any. Progress: wait-free.
     */
    public static KeyHasher seeded(long seed) {
        long a = splitMix(seed);
        return new KeyHasher(a, splitMix(a));
    }

    /** The 64-bit hash of the 8 little-endian bytes of {@code key}. Threads: any. Progress: wait-free. */
    public long hash(long key) {
        long x = key ^ k0;
        x = (x ^ (x >>> 33)) * 0xff51afd7ed558ccdL;
        x = (x ^ (x >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return x ^ (x >>> 33);
    }

    /** The hash of {@code key}. Threads: any. Progress: wait-free. */
    public long hash(byte[] key) {
        return hash(key, 0, key.length);
    }

    /**
     * The hash of {@code key[offset, offset + length)}.
     *
     * <p>Threads: any (the caller keeps the range stable during the call). Progress: wait-free.
     *
     * @throws IndexOutOfBoundsException if the range is outside the array
     */
    public long hash(byte[] key, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, key.length);
        if (length == Long.BYTES) {
            return hash((long) LONGS_LE.get(key, offset));
        }
        long h = k0;
        int i = offset;
        int end = offset + length;
        for (; i + Long.BYTES <= end; i += Long.BYTES) {
            h = absorb(h, (long) LONGS_LE.get(key, i));
        }
        long tail = 0;
        for (int shift = 0; i < end; i++, shift += 8) {
            tail |= (key[i] & 0xFFL) << shift;
        }
        return finish(h, tail, length);
    }

    /**
     * The hash of the bytes of {@code key}. The slice is read with unaligned little-endian loads.
     *
     * <p>Threads: any (the caller keeps the bytes stable during the call). Progress: wait-free.
     */
    public long hash(MemorySegment key) {
        return hash(key, 0, key.byteSize());
    }

    /**
     * The hash of {@code key[offset, offset + length)}. The last {@code length % 8} bytes may be read with up to
     * seven bytes of the segment just before or just after the range, which are discarded (see tail): they are
     * never read outside the segment, and their values, even while another thread writes them, do not change the
     * hash.
     *
     * <p>Threads: any (the caller keeps the range's bytes stable during the call). Progress: wait-free.
     *
     * @throws IndexOutOfBoundsException if the range is outside the segment
     */
    public long hash(MemorySegment key, long offset, long length) {
        Objects.checkFromIndexSize(offset, length, key.byteSize());
        if (length == Long.BYTES) {
            return hash(key.get(SEGMENT_LONG_LE, offset));
        }
        long h = k0;
        long i = offset;
        long end = offset + length;
        for (; i + Long.BYTES <= end; i += Long.BYTES) {
            h = absorb(h, key.get(SEGMENT_LONG_LE, i));
        }
        return finish(h, tail(key, i, end), length);
    }

    /**
     * The {@code end - from < 8} bytes {@code key[from, end)} as a little-endian word: with one 8-byte load
     * wherever the segment has 8 bytes around them (a word that ends at {@code end}, shifted, or one that starts
     * at {@code from}, masked), else byte by byte. The same value as the byte loop: the bytes outside the range
     * are shifted or masked away. Both loads stay inside the segment ({@code end <= byteSize} was checked by the
     * caller; the second tests its own bound), so the outside bytes are the segment's own, whatever they hold. Measured (CliIngestBenchmark.hash less .scan, 15-byte keys from a mapped file):
     * 7.0 ns a key with the byte loop, 3.5 ns with the load (docs/performance.md).
     */
    private static long tail(MemorySegment key, long from, long end) {
        int bits = (int) (end - from) << 3;
        if (bits == 0) {
            return 0;
        }
        if (end >= Long.BYTES) {
            return key.get(SEGMENT_LONG_LE, end - Long.BYTES) >>> (64 - bits);
        }
        if (from + Long.BYTES <= key.byteSize()) {
            return key.get(SEGMENT_LONG_LE, from) & ((1L << bits) - 1);
        }
        long tail = 0;
        for (int shift = 0; from < end; from++, shift += 8) {
            tail |= (key.get(ValueLayout.JAVA_BYTE, from) & 0xFFL) << shift;
        }
        return tail;
    }

    /**
     * The hash of the UTF-8 encoding of {@code key}, computed without encoding it into a buffer.
     *
     * <p>Threads: any (the caller keeps the sequence stable during the call). Progress: wait-free.
     */
    public long hash(CharSequence key) {
        long h = k0;
        long first = 0;
        long word = 0;
        int filled = 0;
        int n = key.length();
        int i = 0;
        // ASCII runs, 8 characters to a word: the UTF-8 bytes are the characters themselves, so the words are the
        // ones the byte path absorbs. The first non-ASCII character hands the rest to the general loop below.
        for (; i + Long.BYTES <= n; i += Long.BYTES) {
            long w = ascii8(key, i);
            if (w < 0) {
                break;
            }
            if (i == 0) {
                first = w;
            }
            h = absorb(h, w);
        }
        long length = i;
        for (; i < n; i++) {
            long utf8 = Utf8.encode(key, i, n);
            int encoded = Utf8.bytesOf(utf8);
            int bytes = Utf8.lengthOf(utf8);
            if (bytes == 4) {
                i++; // the low surrogate was part of this character
            }
            for (int b = 0; b < bytes; b++) {
                word |= ((encoded >>> (b * 8)) & 0xFFL) << (filled * 8);
                if (++filled == Long.BYTES) {
                    if (length < Long.BYTES) {
                        first = word; // the whole key if it ends here: 8-byte keys take the long mix
                    }
                    h = absorb(h, word);
                    word = 0;
                    filled = 0;
                }
            }
            length += bytes;
        }
        return length == Long.BYTES ? hash(first) : finish(h, word, length);
    }

    /**
     * Characters {@code i .. i + 7} of {@code s} as one little-endian word if all are ASCII, else -1 (an ASCII
     * word never has its top bit set).
     */
    private static long ascii8(CharSequence s, int i) {
        char c0 = s.charAt(i);
        char c1 = s.charAt(i + 1);
        char c2 = s.charAt(i + 2);
        char c3 = s.charAt(i + 3);
        char c4 = s.charAt(i + 4);
        char c5 = s.charAt(i + 5);
        char c6 = s.charAt(i + 6);
        char c7 = s.charAt(i + 7);
        if ((c0 | c1 | c2 | c3 | c4 | c5 | c6 | c7) >= 0x80) {
            return -1;
        }
        return c0 | (long) c1 << 8 | (long) c2 << 16 | (long) c3 << 24 | (long) c4 << 32 | (long) c5 << 40
                | (long) c6 << 48 | (long) c7 << 56;
    }

    private long absorb(long h, long word) {
        return mum(word ^ k1 ^ P0, h ^ P1);
    }

    private long finish(long h, long tail, long length) {
        long x = mum(tail ^ k1 ^ P2, h ^ (length * GOLDEN) ^ P3);
        x ^= x >>> 29;
        x *= P1;
        return x ^ (x >>> 32);
    }

    private static long mum(long a, long b) {
        return (a * b) ^ Math.unsignedMultiplyHigh(a, b);
    }

    /** SplitMix64 finalizer: a bijective 64-bit mixer. Threads: any. Progress: wait-free. */
    public static long splitMix(long x) {
        long z = x + GOLDEN;
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
