package io.hotkeeper.engine;

/**
 * Operation counts of one {@link Hotkeeper}, summed over its per-worker stripes at the moment of reading.
 *
 * @param refreshes        phase-1 increments of a tracked key
 * @param claims           phase-2 claims of an empty slot
 * @param evictionAttempts phase-3 draws
 * @param evictionWins     won draws (an occupant was chipped down by one)
 * @param replacements     won draws that took an occupant to zero and handed its slot to the challenger
 * @param saturations      increments that stopped at the maximum count
 * @param promotions       keys recorded in a key shard (a promotion left in the shard's inbox while it was busy counts
 *                         once carried out, in the stripe of the worker that carried it out)
 * @param promotionsMissed promotions skipped (shard busy with another thread that shares it and no inbox cell
 *                         free, full of entries it could not evict, or the slot changed meanwhile); retried on a
 *                         later observe
 * @param handOffs         tracked entries marked dead and handed to their owner's shard
 * @param combined         observations absorbed by hot-key combiners and since flushed to the table (each flush
 *                         is also one refresh, claim or eviction draw above)
 */
public record HotkeeperStats(long refreshes, long claims, long evictionAttempts, long evictionWins,
                             long replacements, long saturations, long promotions, long promotionsMissed,
                             long handOffs, long combined) {
}
