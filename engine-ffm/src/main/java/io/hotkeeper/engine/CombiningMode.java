package io.hotkeeper.engine;

/**
 * When workers combine their hot keys' observations before they reach the shared table (see
 * {@link HotkeeperBuilder#combining(CombiningMode)}).
 */
public enum CombiningMode {
    /** Never: every observation writes the table. */
    OFF,
    /**
     * The default: combining engages once a second thread has seen a hot key, and stays engaged. One thread alone writes the table directly: with no other core writing its lines,
     * a table refresh costs what a combiner increment costs (measured, docs/performance.md), and a miss would pay
     * for both.
     */
    AUTO,
    /** Always, from the first hot key. */
    ON
}
