package io.hotkeeper.engine;

/**
 * Receives tracked keys that lost their table slot to another key (RedisBloom's {@code TOPK.ADD} reply).
 *
 * <p>Threads: called on the observing thread whose eviction expelled the key, synchronously, inside
 * {@code observe}; it must be fast, must not block and must not call back into the same {@link Hotkeeper}.
 */
@FunctionalInterface
public interface ExpelledKeyListener {
    /** {@code expelled} held a slot until now; its estimate is the count it had before the lottery took it. */
    void expelled(HeavyHitter expelled);
}
