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
 */
public record HotkeeperStats(long refreshes, long claims, long evictionAttempts, long evictionWins,
                             long replacements, long saturations) {
}
