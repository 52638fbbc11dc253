package io.hotkeeper.engine;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * A heavy hitter: a key (as the bytes it was observed with) and its estimate.
 *
 * @param key       the key bytes (a {@code long} key is its 8 little-endian bytes, a {@code CharSequence} its
 *                  UTF-8 bytes); at most {@code maxKeyBytes}, see {@code truncated}
 * @param estimate  the sketch's estimate when the key was read
 * @param truncated whether the key was longer than {@code maxKeyBytes} and only its prefix is here
 */
public record HeavyHitter(byte[] key, long estimate, boolean truncated) {
    /** The key as a {@code long} (its 8 little-endian bytes). Threads: any. Progress: wait-free. */
    public long keyAsLong() {
        if (key.length != Long.BYTES) {
            throw new IllegalStateException("key has " + key.length + " bytes, not 8: it is not a long key");
        }
        return ByteBuffer.wrap(key).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    /** The key decoded as UTF-8 (malformed bytes become U+FFFD). Threads: any. Progress: wait-free. */
    public String keyAsString() {
        return new String(key, StandardCharsets.UTF_8);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof HeavyHitter h && h.estimate == estimate && h.truncated == truncated
                && Arrays.equals(h.key, key);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(key) * 31 + Long.hashCode(estimate);
    }

    @Override
    public String toString() {
        return "HeavyHitter[key=" + HexFormat.of().formatHex(key) + ", estimate=" + estimate
                + (truncated ? ", truncated" : "") + "]";
    }
}
