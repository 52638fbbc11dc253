package io.hotkeeper.engine;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * The observing side of a {@link Hotkeeper}, bound to one thread: the same observations as the sketch's own
 * {@code observe} methods (both implement {@link KeyObserver}: the same overloads, the same checks), with the
 * thread's worker looked up once, when {@link Hotkeeper#writer()} made it, instead of on every call that needs it
 * (per-worker stats, the per-worker salt, approximate counting's coins, worker tables, engaged hot-key combining).
 * With none of those configured an observation needs no worker and the two are equally fast.
 *
 * <pre>{@code
 * HotkeeperWriter w = hot.writer();          // on the thread that will observe
 * for (long id : batch) {
 *     w.observe(id);
 * }
 * }</pre>
 *
 * <h2>Threads</h2>
 * A writer belongs to the thread that made it, and every method checks that it is called from that thread (one
 * comparison with {@code Thread.currentThread()}): from any other thread it throws
 * {@link IllegalStateException} and records nothing, because on a platform thread the writer names state that
 * only its thread may write (a stats stripe, a combiner block). A thread that has ended cannot use its writer,
 * so nothing it named is written once its worker id goes to a new thread.
 *
 * <p>On a virtual thread the writer keeps the worker of the carrier it was made on. Virtual threads take turns
 * on carriers and may move between them, so such a worker's state is always written with atomic updates or
 * under the carrier's try-lock, whichever carrier the virtual thread runs on later: a writer used after its
 * virtual thread moved is still correct, it only writes the first carrier's stripe (and promotes into its key
 * shard, whose busy gate admits one thread at a time). Make the writer on the virtual thread that uses it, as for
 * a platform thread.
 *
 * <p>Progress: as the sketch's methods (observations lock-free, no allocation). After the sketch is closed every
 * method throws {@link IllegalStateException} ({@link Hotkeeper#CLOSED_MESSAGE}).
 */
public final class HotkeeperWriter implements KeyObserver {
    private final Hotkeeper sketch;
    private final Thread owner;
    private final long worker;

    HotkeeperWriter(Hotkeeper sketch, long worker) {
        this.sketch = sketch;
        this.owner = Thread.currentThread();
        this.worker = worker;
    }

    /** The writer's worker (a {@code WorkerHandle}), after checking that the caller is the writer's thread. */
    private long worker() {
        if (Thread.currentThread() != owner) {
            throw new IllegalStateException("a HotkeeperWriter belongs to the thread that made it (" + owner
                    + "), not to " + Thread.currentThread());
        }
        return worker;
    }

    // The KeyObserver overloads, in its order (Threads: the writer's): each checks the thread first, then its
    // arguments in the order the sketch's own overload does, then observes with the writer's worker.

    /**
     * {@inheritDoc}
     *
     * @throws IllegalStateException {@inheritDoc}
     */
    @Override
    public long observe(long key) {
        return sketch.observeLong(key, 1, worker());
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException {@inheritDoc}
     * @throws IllegalStateException    {@inheritDoc}
     */
    @Override
    public long observe(long key, long weight) {
        long w = worker();
        return sketch.observeLong(key, Hotkeeper.checkWeight(weight), w);
    }

    /**
     * {@inheritDoc}
     *
     * @throws NullPointerException  {@inheritDoc}
     * @throws IllegalStateException {@inheritDoc}
     */
    @Override
    public long observe(byte[] key) {
        long w = worker();
        return sketch.observeArray(key, 0, Objects.requireNonNull(key, "key").length, 1, w);
    }

    /**
     * {@inheritDoc}
     *
     * @throws NullPointerException     {@inheritDoc}
     * @throws IllegalArgumentException {@inheritDoc}
     * @throws IllegalStateException    {@inheritDoc}
     */
    @Override
    public long observe(byte[] key, long weight) {
        long w = worker();
        return sketch.observeArray(key, 0, Objects.requireNonNull(key, "key").length, Hotkeeper.checkWeight(weight),
                w);
    }

    /**
     * {@inheritDoc}
     *
     * @throws NullPointerException      {@inheritDoc}
     * @throws IndexOutOfBoundsException {@inheritDoc}
     * @throws IllegalStateException     {@inheritDoc}
     */
    @Override
    public long observe(byte[] key, int offset, int length) {
        return sketch.observeArray(key, offset, length, 1, worker());
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException  {@inheritDoc}
     * @throws NullPointerException      {@inheritDoc}
     * @throws IndexOutOfBoundsException {@inheritDoc}
     * @throws IllegalStateException     {@inheritDoc}
     */
    @Override
    public long observe(byte[] key, int offset, int length, long weight) {
        long w = worker();
        return sketch.observeArray(key, offset, length, Hotkeeper.checkWeight(weight), w);
    }

    /**
     * {@inheritDoc}
     *
     * @throws NullPointerException  {@inheritDoc}
     * @throws IllegalStateException {@inheritDoc}
     */
    @Override
    public long observe(CharSequence key) {
        return sketch.observeChars(key, 1, worker());
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException {@inheritDoc}
     * @throws NullPointerException     {@inheritDoc}
     * @throws IllegalStateException    {@inheritDoc}
     */
    @Override
    public long observe(CharSequence key, long weight) {
        long w = worker();
        return sketch.observeChars(key, Hotkeeper.checkWeight(weight), w);
    }

    /**
     * {@inheritDoc}
     *
     * @throws NullPointerException  {@inheritDoc}
     * @throws IllegalStateException {@inheritDoc}
     */
    @Override
    public long observe(MemorySegment key) {
        long w = worker();
        return sketch.observeSegment(key, 0, Objects.requireNonNull(key, "key").byteSize(), 1, w);
    }

    /**
     * {@inheritDoc}
     *
     * @throws NullPointerException     {@inheritDoc}
     * @throws IllegalArgumentException {@inheritDoc}
     * @throws IllegalStateException    {@inheritDoc}
     */
    @Override
    public long observe(MemorySegment key, long weight) {
        long w = worker();
        return sketch.observeSegment(key, 0, Objects.requireNonNull(key, "key").byteSize(),
                Hotkeeper.checkWeight(weight), w);
    }

    /**
     * {@inheritDoc}
     *
     * @throws NullPointerException      {@inheritDoc}
     * @throws IndexOutOfBoundsException {@inheritDoc}
     * @throws IllegalStateException     {@inheritDoc}
     */
    @Override
    public long observe(MemorySegment key, long offset, long length) {
        return sketch.observeSegment(key, offset, length, 1, worker());
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException  {@inheritDoc}
     * @throws NullPointerException      {@inheritDoc}
     * @throws IndexOutOfBoundsException {@inheritDoc}
     * @throws IllegalStateException     {@inheritDoc}
     */
    @Override
    public long observe(MemorySegment key, long offset, long length, long weight) {
        long w = worker();
        return sketch.observeSegment(key, offset, length, Hotkeeper.checkWeight(weight), w);
    }

    /**
     * {@inheritDoc}
     *
     * @throws NullPointerException  {@inheritDoc}
     * @throws IllegalStateException {@inheritDoc}
     */
    @Override
    public void observeAll(long[] keys) {
        long w = worker();
        sketch.observeAll(keys, 0, Objects.requireNonNull(keys, "keys").length, w);
    }

    /**
     * {@inheritDoc}
     *
     * @throws NullPointerException      {@inheritDoc}
     * @throws IndexOutOfBoundsException {@inheritDoc}
     * @throws IllegalStateException     {@inheritDoc}
     */
    @Override
    public void observeAll(long[] keys, int from, int to) {
        sketch.observeAll(keys, from, to, worker());
    }

    /** The sketch this writer observes into. Threads: any. Progress: wait-free. */
    public Hotkeeper sketch() {
        return sketch;
    }
}
