package io.hotkeeper.engine;

import java.lang.foreign.MemorySegment;

/**
 * Something that records observations of keys: every kind of key the sketch counts, each with and without a
 * weight, and batches of {@code long} keys. {@link Hotkeeper} (from any thread) and {@link HotkeeperWriter} (from
 * its own thread, with the worker looked up once) implement it with the same overloads, so code that observes
 * can take either:
 *
 * <pre>{@code
 * static void ingest(KeyObserver into, List<String> paths) {
 *     for (String p : paths) {
 *         into.observe(p);
 *     }
 * }
 * ingest(hot, paths);            // any thread
 * ingest(hot.writer(), paths);   // this thread, worker looked up once
 * }</pre>
 *
 * <h2>Keys</h2>
 * The sketch counts bytes: a {@code long} key is its 8 little-endian bytes, a {@code CharSequence} its UTF-8
 * bytes (encoded on the fly, without allocation), a {@code byte[]} or {@link MemorySegment} (heap, native or
 * mapped) the bytes given, whole or a range of them. So {@code observe(42L)} and {@code observe} of the 8
 * little-endian bytes of 42 are the same key, and {@code observe("GET /")} and {@code observe} of its UTF-8 bytes
 * too; {@link HeavyHitter#kind()} remembers which overload promoted a key, for printing. A key is only read during
 * the call: the caller keeps it (and a segment's arena) alive and unchanged for the call's duration, not after.
 *
 * <h2>Weights</h2>
 * A weighted observation records {@code weight} occurrences at once: one CAS where the key holds a slot or finds
 * an empty one, and about {@code log2(weight)} lottery draws, sampled from their geometric distribution, where
 * it challenges a full bucket (docs/design.md, "One observation"). It always goes to the table; an
 * unweighted observation may be held in the caller's hot-key combiner first (see
 * {@link HotkeeperBuilder#combining(CombiningMode)}). A weight is any {@code long} from 1 up.
 *
 * <h2>Threads, progress, exceptions</h2>
 * Every method is lock-free and allocates nothing. On a {@link Hotkeeper} any thread may call it; on a
 * {@link HotkeeperWriter} only the thread that made the writer, and from another thread it throws
 * {@link IllegalStateException} and records nothing. Once the sketch is closed every method throws
 * {@link IllegalStateException} with the message {@value Hotkeeper#CLOSED_MESSAGE}. Arguments are checked as
 * listed per method, with the same exception types on both implementations (the writer checks its thread
 * first).
 *
 * <h2>Why only the writing side, and why sealed</h2>
 * The reads ({@code estimate}, {@code contains}, {@code bounds}) take the same six kinds of key but stay on
 * {@link Hotkeeper} and are not an interface: a writer has no reads of its own (it is the observing side, bound to
 * one thread, and reads are wait-free from any thread on the sketch), and the one other type that answers
 * {@code estimate}, {@link io.hotkeeper.engine.snapshot.HotkeeperSnapshot}, means something else by it (it cannot
 * hash, so it knows tracked keys only and answers 0 for every other key, where the sketch looks the key's slots
 * up). An interface with one implementation would abstract over nothing and only fix the read side's shape;
 * a final class can gain methods freely.
 *
 * <p>The interface is sealed for the same reason: a method added to an interface that other code implements
 * breaks that code, so a new kind of key could not be added here; sealed, it grows with the two classes (and
 * unsealing it later is compatible, sealing it later would not be). It has no default methods: each
 * implementation is final and concrete, so calls on either class stay monomorphic, and a call site through the
 * interface sees at most two receivers.
 */
public sealed interface KeyObserver permits Hotkeeper, HotkeeperWriter {

    /**
     * Records one occurrence of {@code key} (its 8 little-endian bytes) and returns its estimate afterwards. Threads:
     * any for the sketch, its own for a writer. Progress: lock-free; no allocation.
     *
     * @return the key's estimate after the observation, 0 if it holds no slot
     * @throws IllegalStateException if the sketch is closed (a writer: also from another thread)
     */
    long observe(long key);

    /**
     * Records {@code weight} occurrences of {@code key} in O(log weight) steps and returns its estimate afterwards.
     * Threads: any for the sketch, its own for a writer. Progress: lock-free; no allocation.
     *
     * @return the key's estimate after the observation, 0 if it holds no slot
     * @throws IllegalArgumentException if {@code weight < 1}
     * @throws IllegalStateException    if the sketch is closed (a writer: also from another thread)
     */
    long observe(long key, long weight);

    /**
     * Records one occurrence of the byte-string key and returns its estimate afterwards. Threads: any for the sketch,
     * its own for a writer. Progress: lock-free; no allocation.
     *
     * @return the key's estimate after the observation, 0 if it holds no slot
     * @throws NullPointerException  if {@code key} is null
     * @throws IllegalStateException if the sketch is closed (a writer: also from another thread)
     */
    long observe(byte[] key);

    /**
     * Records {@code weight} occurrences of the byte-string key and returns its estimate afterwards. Threads: any for
     * the sketch, its own for a writer. Progress: lock-free; no allocation.
     *
     * @return the key's estimate after the observation, 0 if it holds no slot
     * @throws NullPointerException     if {@code key} is null
     * @throws IllegalArgumentException if {@code weight < 1}
     * @throws IllegalStateException    if the sketch is closed (a writer: also from another thread)
     */
    long observe(byte[] key, long weight);

    /**
     * Records one occurrence of the key {@code key[offset, offset + length)} and returns its estimate afterwards.
     * Threads: any for the sketch, its own for a writer. Progress: lock-free; no allocation.
     *
     * @return the key's estimate after the observation, 0 if it holds no slot
     * @throws NullPointerException      if {@code key} is null
     * @throws IndexOutOfBoundsException if the range is outside the array
     * @throws IllegalStateException     if the sketch is closed (a writer: also from another thread)
     */
    long observe(byte[] key, int offset, int length);

    /**
     * Records {@code weight} occurrences of the key {@code key[offset, offset + length)} and returns its estimate
     * afterwards. Threads: any for the sketch, its own for a writer. Progress: lock-free; no allocation.
     *
     * @return the key's estimate after the observation, 0 if it holds no slot
     * @throws IllegalArgumentException  if {@code weight < 1}
     * @throws NullPointerException      if {@code key} is null
     * @throws IndexOutOfBoundsException if the range is outside the array
     * @throws IllegalStateException     if the sketch is closed (a writer: also from another thread)
     */
    long observe(byte[] key, int offset, int length, long weight);

    /**
     * Records one occurrence of the UTF-8 bytes of {@code key}, encoded on the fly, and returns its estimate
     * afterwards. Threads: any for the sketch, its own for a writer. Progress: lock-free; no allocation.
     *
     * @return the key's estimate after the observation, 0 if it holds no slot
     * @throws NullPointerException  if {@code key} is null
     * @throws IllegalStateException if the sketch is closed (a writer: also from another thread)
     */
    long observe(CharSequence key);

    /**
     * Records {@code weight} occurrences of the UTF-8 bytes of {@code key} and returns its estimate afterwards.
     * Threads: any for the sketch, its own for a writer. Progress: lock-free; no allocation.
     *
     * @return the key's estimate after the observation, 0 if it holds no slot
     * @throws IllegalArgumentException if {@code weight < 1}
     * @throws NullPointerException     if {@code key} is null
     * @throws IllegalStateException    if the sketch is closed (a writer: also from another thread)
     */
    long observe(CharSequence key, long weight);

    /**
     * Records one occurrence of the bytes of {@code key} (any segment: heap, native, mapped) and returns its estimate
     * afterwards. Threads: any for the sketch, its own for a writer. Progress: lock-free; no allocation.
     *
     * @return the key's estimate after the observation, 0 if it holds no slot
     * @throws NullPointerException  if {@code key} is null
     * @throws IllegalStateException if the sketch is closed, or {@code key}'s own arena is (a writer: also from another
     *                               thread)
     */
    long observe(MemorySegment key);

    /**
     * Records {@code weight} occurrences of the bytes of {@code key} and returns its estimate afterwards. Threads: any
     * for the sketch, its own for a writer. Progress: lock-free; no allocation.
     *
     * @return the key's estimate after the observation, 0 if it holds no slot
     * @throws NullPointerException     if {@code key} is null
     * @throws IllegalArgumentException if {@code weight < 1}
     * @throws IllegalStateException    if the sketch is closed, or {@code key}'s own arena is (a writer: also from
     *                                  another thread)
     */
    long observe(MemorySegment key, long weight);

    /**
     * Records one occurrence of the key {@code key[offset, offset + length)} and returns its estimate afterwards.
     * Threads: any for the sketch, its own for a writer. Progress: lock-free; no allocation.
     *
     * @return the key's estimate after the observation, 0 if it holds no slot
     * @throws NullPointerException      if {@code key} is null
     * @throws IndexOutOfBoundsException if the range is outside the segment
     * @throws IllegalStateException     if the sketch is closed, or {@code key}'s own arena is (a writer: also from
     *                                   another thread)
     */
    long observe(MemorySegment key, long offset, long length);

    /**
     * Records {@code weight} occurrences of the key {@code key[offset, offset + length)} and returns its estimate
     * afterwards. Threads: any for the sketch, its own for a writer. Progress: lock-free; no allocation.
     *
     * @return the key's estimate after the observation, 0 if it holds no slot
     * @throws IllegalArgumentException  if {@code weight < 1}
     * @throws NullPointerException      if {@code key} is null
     * @throws IndexOutOfBoundsException if the range is outside the segment
     * @throws IllegalStateException     if the sketch is closed, or {@code key}'s own arena is (a writer: also from
     *                                   another thread)
     */
    long observe(MemorySegment key, long offset, long length, long weight);

    /**
     * Records one occurrence of each key of {@code keys}, in order: the same as {@link #observe(long)} on each, faster
     * when the table does not fit the caches. While it observes one key it has already loaded the bucket lines of the
     * next {@value Hotkeeper#BATCH_LOOKAHEAD}, so their memory latencies overlap instead of adding up. The caller keeps
     * the array stable during the call. Threads: any for the sketch, its own for a writer. Progress: lock-free; no
     * allocation.
     *
     * @throws NullPointerException  if {@code keys} is null
     * @throws IllegalStateException if the sketch is closed (a writer: also from another thread)
     */
    void observeAll(long[] keys);

    /**
     * Records one occurrence of each of {@code keys[from, to)}, in order; see {@link #observeAll(long[])}. The caller
     * keeps the range stable during the call. Threads: any for the sketch, its own for a writer. Progress: lock-free;
     * no allocation.
     *
     * @throws NullPointerException      if {@code keys} is null
     * @throws IndexOutOfBoundsException if the range is outside the array
     * @throws IllegalStateException     if the sketch is closed (a writer: also from another thread)
     */
    void observeAll(long[] keys, int from, int to);
}
