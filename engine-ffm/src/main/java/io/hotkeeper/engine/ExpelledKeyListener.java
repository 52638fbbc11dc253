package io.hotkeeper.engine;

/**
 * Receives tracked keys that lost their table slot to another key (RedisBloom's {@code TOPK.ADD} reply).
 *
 * <p>Threads: called on the observing thread whose eviction expelled the key, synchronously, at the end of the
 * {@code observe} (or {@code flush}) call that expelled it, once the sketch's own state is consistent again: it
 * may call back into the same {@link Hotkeeper} (keys expelled by those calls are delivered by the same loop). It
 * runs on the observer's hot path, so it should be fast and should not block. If it throws, the exception leaves
 * that {@code observe} call (whose observation is recorded) and keys not yet delivered to this thread's listener
 * are delivered at its next expulsion.
 */
@FunctionalInterface
public interface ExpelledKeyListener {
    /** {@code expelled} held a slot until now; its estimate is the count it had before the lottery took it. */
    void expelled(HeavyHitter expelled);
}
