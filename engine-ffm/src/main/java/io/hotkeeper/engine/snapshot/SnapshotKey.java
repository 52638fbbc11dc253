package io.hotkeeper.engine.snapshot;

import io.hotkeeper.engine.HeavyHitter;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * One tracked key of a snapshot.
 *
 * @param key       the key bytes (at most the snapshot's {@code maxKeyBytes}); the array is the snapshot's own
 *                  copy, callers must not modify it
 * @param estimate  its estimate when the snapshot was taken (table count plus pending combined counts)
 * @param truncated whether the key was longer than {@code maxKeyBytes} and only its prefix is here
 * @param kind      how the key was observed ({@link HeavyHitter.Kind}): a {@code long}, text, or bytes
 * @param location  the low {@code indexBits + fingerprintBits} bits of the key's hash (bucket index, then
 *                  fingerprint) under the sketch's hash function, or {@link #NO_LOCATION} when unknown (a truncated key, or a key whose slot was not in
 *                  the table copy)
 */
public record SnapshotKey(byte[] key, long estimate, boolean truncated, HeavyHitter.Kind kind, long location) {
    /** The location of a key whose slot is not known. */
    public static final long NO_LOCATION = -1L;

    /** Validates the fields. */
    public SnapshotKey {
        if (key == null) {
            throw new NullPointerException("key");
        }
        if (kind == null) {
            throw new NullPointerException("kind");
        }
        if (estimate < 0) {
            throw new IllegalArgumentException("estimate=" + estimate + ": must be >= 0");
        }
        if (location != NO_LOCATION && (location < 0 || location > 0xFFFF_FFFFL)) {
            throw new IllegalArgumentException("location=" + location + ": must be -1 or a 32-bit value");
        }
    }

    /** A key of kind {@link HeavyHitter.Kind#BYTES}. */
    public SnapshotKey(byte[] key, long estimate, boolean truncated, long location) {
        this(key, estimate, truncated, HeavyHitter.Kind.BYTES, location);
    }

    /** The same key with another estimate and location (merges). Threads: any. Progress: wait-free. */
    SnapshotKey with(long estimate, long location) {
        return new SnapshotKey(key, estimate, truncated, kind, location);
    }

    /** Whether {@link #location()} is known. Threads: any. Progress: wait-free. */
    public boolean located() {
        return location != NO_LOCATION;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SnapshotKey s && s.estimate == estimate && s.truncated == truncated
                && s.kind == kind && s.location == location && Arrays.equals(s.key, key);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(key) * 31 + Long.hashCode(estimate);
    }

    @Override
    public String toString() {
        return "SnapshotKey[key=" + HexFormat.of().formatHex(key) + ", estimate=" + estimate
                + (truncated ? ", truncated" : "") + (kind != HeavyHitter.Kind.BYTES ? ", " + kind : "") + (located() ? ", location=" + Long.toHexString(location) : "")
                + "]";
    }
}
