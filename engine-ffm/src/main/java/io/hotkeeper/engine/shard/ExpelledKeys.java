package io.hotkeeper.engine.shard;

import io.hotkeeper.engine.ExpelledKeyListener;
import io.hotkeeper.engine.HeavyHitter;

import java.util.ArrayDeque;
import java.util.Objects;

/**
 * Delivery of expelled keys to the user's {@link ExpelledKeyListener}, outside the sketch's internals.
 *
 * <p>A tracked key is expelled inside a table observation, and that observation may run inside a worker's hot-key
 * combiner block (a flush, a displacement), whose single-writer state is half updated at that moment. Calling
 * user code there would let a listener that observes again corrupt the block. So the expelling thread only queues
 * the key here ({@link #queue}); the observation's result carries {@code BucketTable.EXPELLED}, and the facade
 * calls {@link #deliver} once the observation, its combiner work and any promotion are complete. A listener may
 * then call back into the same sketch: a nested expulsion is queued and delivered by the same loop.
 *
 * <p>Threads: each thread has its own queue; {@link #queue} and {@link #deliver} act on the caller's. Progress:
 * {@link #queue} is wait-free (amortised: an array deque append); {@link #deliver} runs the listener, so it is as
 * blocking as the listener is.
 */
public final class ExpelledKeys {
    private final ExpelledKeyListener listener;
    private final ThreadLocal<ArrayDeque<HeavyHitter>> queued = ThreadLocal.withInitial(ArrayDeque::new);

    /** Delivery to {@code listener}. */
    public ExpelledKeys(ExpelledKeyListener listener) {
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    /** Queues {@code expelled} for the calling thread's next {@link #deliver}. Threads: any. Progress: wait-free. */
    public void queue(HeavyHitter expelled) {
        queued.get().add(expelled);
    }

    /**
     * Hands the calling thread's queued keys to the listener, oldest first, until none is left (keys queued by the
     * listener's own calls included). If the listener throws, the exception propagates and the keys not yet
     * delivered stay queued for the thread's next delivery. Threads: any (its own queue). Progress: blocking as
     * the listener.
     */
    public void deliver() {
        ArrayDeque<HeavyHitter> queue = queued.get();
        for (HeavyHitter next = queue.poll(); next != null; next = queue.poll()) {
            listener.expelled(next);
        }
    }
}
