package io.hotkeeper.engine;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * A heavy hitter: a key (as the bytes it was observed with), the kind of key it was observed as, and its
 * estimate.
 *
 * <p>The sketch counts bytes: {@code observe(42L)} and {@code observe(the 8 little-endian bytes of 42)} are the
 * same key. {@link #kind()} is how the key was observed when it was promoted into the top keys, so that it can be
 * printed as the application wrote it: {@link #keyAsString()} renders a {@code long} as a number, text as text,
 * and other bytes escaped.
 *
 * <p>An instance is immutable apart from {@link #key()}, which returns the record's own array (do not modify
 * it). Every method may be called from any thread and is wait-free.
 *
 * @param key       the key bytes (a {@code long} key is its 8 little-endian bytes, a {@code CharSequence} its
 *                  UTF-8 bytes); at most {@code maxKeyBytes}, see {@code truncated}
 * @param estimate  the sketch's estimate when the key was read
 * @param truncated whether the key was longer than {@code maxKeyBytes} and only its prefix is here (a text key is
 *                  cut at a character boundary)
 * @param kind      how the key was observed when it entered the top keys
 */
public record HeavyHitter(byte[] key, long estimate, boolean truncated, Kind kind) {

    /** How a key was observed: which {@code observe} overload recorded it when it was promoted. */
    public enum Kind {
        /** {@code observe(long)}: the key bytes are the 8 little-endian bytes of the {@code long}. */
        LONG,
        /** {@code observe(CharSequence)}: the key bytes are the text's UTF-8 bytes. */
        TEXT,
        /** {@code observe(byte[])} or {@code observe(MemorySegment)}: the key bytes as given. */
        BYTES
    }

    /**
     * The canonical constructor.
     *
     * <p>Threads: any. Progress: wait-free.
     *
     * @throws NullPointerException if {@code key} or {@code kind} is null
     */
    public HeavyHitter {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(kind, "kind");
    }

    /**
     * A heavy hitter whose key is plain bytes ({@link Kind#BYTES}).
     *
     * <p>Threads: any. Progress: wait-free.
     *
     * @throws NullPointerException if {@code key} is null
     */
    public HeavyHitter(byte[] key, long estimate, boolean truncated) {
        this(key, estimate, truncated, Kind.BYTES);
    }

    /**
     * The key as a {@code long} (its 8 little-endian bytes), whatever its {@link #kind()}.
     *
     * <p>Threads: any. Progress: wait-free.
     *
     * @throws IllegalStateException if the key does not have 8 bytes
     */
    public long keyAsLong() {
        if (key.length != Long.BYTES) {
            throw new IllegalStateException("key has " + key.length + " bytes, not 8: it is not a long key");
        }
        return ByteBuffer.wrap(key).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    /**
     * Renders any key bytes as one readable line that maps back to exactly those bytes, with the escaping rules of
     * {@code hotkeeper top} (docs/cli.md, "Escaping"): well-formed UTF-8 characters as themselves, {@code \} as
     * {@code \\}, TAB, LF, CR as {@code \t}, {@code \n}, {@code \r}, and every byte of a control character,
     * U+2028, U+2029 or malformed UTF-8 as {@code \xHH}. The one implementation of those rules: the CLI's output
     * and {@link #keyAsString()} both use it.
     *
     * <p>Threads: any. Progress: wait-free.
     *
     * @param key the bytes, not modified
     * @return the rendering, never null
     */
    public static String escape(byte[] key) {
        return KeyText.escape(java.util.Objects.requireNonNull(key, "key"));
    }

    /**
     * The key as the application wrote it:
     * <ul>
     *   <li>{@link Kind#LONG}: the number in decimal ({@code "42"}); a {@code long} cut short by a
     *       {@code maxKeyBytes} below 8 is no number and is rendered like {@code BYTES};</li>
     *   <li>{@link Kind#TEXT}: the text itself, decoded from UTF-8 (a truncated key is a prefix of it);</li>
     *   <li>{@link Kind#BYTES}: one readable line that maps back to the exact bytes, with the escaping rules of
     *       {@code hotkeeper top} (docs/cli.md): well-formed UTF-8 characters as themselves, {@code \} as
     *       {@code \\}, TAB, LF, CR as {@code \t}, {@code \n}, {@code \r}, and every byte of a control character
     *       or of malformed UTF-8 as {@code \xHH} ({@code {1, 2, 3}} is {@code \x01\x02\x03}).</li>
     * </ul>
     *
     * <p>Threads: any. Progress: wait-free.
     *
     * @return the rendering, never null
     */
    public String keyAsString() {
        return switch (kind) {
            case LONG -> key.length == Long.BYTES ? Long.toString(keyAsLong()) : KeyText.escape(key);
            case TEXT -> new String(key, StandardCharsets.UTF_8);
            case BYTES -> KeyText.escape(key);
        };
    }

    /**
     * Equal if key bytes, estimate, truncation and kind are equal.
     *
     * <p>Threads: any. Progress: wait-free.
     */
    @Override
    public boolean equals(Object o) {
        return o instanceof HeavyHitter h && h.estimate == estimate && h.truncated == truncated && h.kind == kind
                && Arrays.equals(h.key, key);
    }

    /**
     * A hash of the key bytes, the estimate and the kind.
     *
     * <p>Threads: any. Progress: wait-free.
     */
    @Override
    public int hashCode() {
        return (Arrays.hashCode(key) * 31 + Long.hashCode(estimate)) * 31 + kind.ordinal();
    }

    /**
     * One line, e.g. {@code HeavyHitter[key=42, kind=LONG, estimate=1000]}: the key as {@link #keyAsString()}
     * renders it, except that text is escaped like bytes so that the line stays one line.
     *
     * <p>Threads: any. Progress: wait-free.
     */
    @Override
    public String toString() {
        String rendered = kind == Kind.TEXT ? KeyText.escape(key) : keyAsString();
        return "HeavyHitter[key=" + rendered + ", kind=" + kind + ", estimate=" + estimate
                + (truncated ? ", truncated" : "") + "]";
    }
}
