package io.hotkeeper.engine.lottery;

import io.hotkeeper.engine.hash.KeyHasher;

/**
 * The phase-3 eviction lottery: a challenger chips the weakest occupant of a full bucket down by one with
 * probability {@code b^-count}.
 *
 * <p>The default base is {@code b = 1.02}, below the HeavyKeeper paper's 1.08 (RedisBloom's {@code decay} d is
 * {@code b = 1/d}): medium counts keep losing draws, so a stream whose keys arrive in runs does not freeze its
 * table with keys whose run has ended; the paper's base meets every accuracy target at equal memory where the
 * reference design's 2 does not, and 1.02 keeps those and lifts the run-ordered stream
 * (docs/decisions/decay-base.md). Bases other than 2 use a table of unsigned thresholds,
 * {@code threshold[c] = floor(b^-c * 2^64)}: a draw wins iff it is unsigned-below the threshold. Counts past the
 * table's end (where {@code b^-c < 2^-64}) never lose to a challenger. The default base's table is built once per
 * JVM and shared by every instance (2,241 entries, 17.5 KiB of heap); another base builds its own. With
 * {@link #REFERENCE_BASE} {@code b = 2} a draw wins iff it has at least {@code count} trailing zero bits, with no
 * table.
 *
 * <p>Threads: any; instances are immutable. Progress: wait-free.
 */
/*
 * Every draw folds a fresh, never-repeating salt value into the challenger's spare hash bits through a
 * bijective mixer keyed per instance: for a fixed challenger, distinct salts give distinct draws, so the same
 * challenger meeting the same victim never replays a losing (or winning) draw, and an adversary who knows the
 * hash cannot precompute outcomes (docs/decisions/salt.md, docs/theory.md).
 */
public final class DecayLottery {
    /** The reference design's base: a draw wins iff it has at least {@code count} trailing zeros. */
    public static final double REFERENCE_BASE = 2.0;
    /** The default base (docs/decisions/decay-base.md): 1.02; the HeavyKeeper paper's is 1.08. */
    public static final double DEFAULT_BASE = 1.02;
    /**
     * Smallest accepted base (inclusive). The threshold table has one entry per count c with
     * {@code b^-c * 2^64 >= 1}, about {@code 44.4 / ln b} of them: 4,459 entries (35 KiB) at 1.01, 2,241 at
     * the default 1.02, 577 at the paper's 1.08. Just above 1 it explodes: 44 million entries (355 MB) at
     * 1.000001, and about 2 * 10^17 at {@code Math.nextUp(1.0)}, where building it never ends. Bases that close
     * to 1 also stop protecting heavy keys (at 1.01 a count of 100 still loses a draw with probability 0.37).
     */
    public static final double MIN_BASE = 1.01;
    /** Largest accepted base (inclusive). */
    public static final double MAX_BASE = 1024.0;

    private static final double TWO_POW_64 = 0x1p64;
    /**
     * The default base's thresholds, shared by every instance using that base: built in the class initializer, which
     * publishes them to every thread (JLS 12.4.2), and never written again.
     */
    private static final long[] DEFAULT_THRESHOLDS = thresholds(DEFAULT_BASE);

    private final double base;
    private final long drawKey;
    /** Unsigned thresholds indexed by count (never written after construction), or {@code null} for base 2. */
    private final long[] thresholds;

    /**
     * A lottery with base {@code base} whose draws are keyed by {@code drawKey}.
     *
     * @throws IllegalArgumentException if {@code base} is not in [{@value #MIN_BASE}, {@value #MAX_BASE}]
     *         (see {@link #checkBase(double)})
     */
    public DecayLottery(double base, long drawKey) {
        this.base = checkBase(base);
        this.drawKey = drawKey;
        this.thresholds = base == REFERENCE_BASE ? null
                : base == DEFAULT_BASE ? DEFAULT_THRESHOLDS : thresholds(base);
    }

    /**
     * The one check of a decay base, shared by this constructor and {@code HotkeeperBuilder.decayBase}: returns
     * {@code base} if it is in [{@value #MIN_BASE}, {@value #MAX_BASE}] (NaN is not). Threads: any. Progress:
     * wait-free.
     *
     * @throws IllegalArgumentException naming the value and the range, e.g.
     *         {@code decayBase=1.000001: must be >= 1.01 and <= 1024.0}
     */
    public static double checkBase(double base) {
        if (!(base >= MIN_BASE && base <= MAX_BASE)) {
            throw new IllegalArgumentException("decayBase=" + base + ": must be >= " + MIN_BASE + " and <= "
                    + MAX_BASE);
        }
        return base;
    }

    /** At most 4,459 entries (base {@value #MIN_BASE}); see {@link #MIN_BASE}. */
    private static long[] thresholds(double base) {
        int n = 1;
        while (Math.pow(base, -n) * TWO_POW_64 >= 1.0) {
            n++;
        }
        long[] table = new long[n];
        for (int c = 0; c < n; c++) {
            double p = Math.pow(base, -c);
            // p * 2^64 in [1, 2^64]; c = 0 (p = 1) saturates to "always wins".
            table[c] = c == 0 ? -1L : toUnsigned(p * TWO_POW_64);
        }
        return table;
    }

    private static long toUnsigned(double v) {
        if (v >= 0x1p63) {
            return (long) (v - 0x1p63) + Long.MIN_VALUE;
        }
        return (long) v;
    }

    /** The decay base b. Threads: any. Progress: wait-free. */
    public double base() {
        return base;
    }

    /**
     * The draw of a challenger with spare bits {@code spare} and salt value {@code salt}: a bijection of the salt
     * for a fixed challenger. Threads: any. Progress: wait-free.
     */
    public long draw(long spare, long salt) {
        return KeyHasher.splitMix(salt ^ drawKey ^ (spare * 0xc2b2ae3d27d4eb4fL));
    }

    /** Whether {@code draw} wins against an occupant holding {@code count >= 1}. Threads: any. Progress: wait-free. */
    public boolean wins(long draw, long count) {
        long[] t = thresholds;
        if (t == null) {
            return Long.numberOfTrailingZeros(draw) >= count;
        }
        return count < t.length && Long.compareUnsigned(draw, t[(int) count]) < 0;
    }

    /** The probability that a single draw wins against {@code count}. Threads: any. Progress: wait-free. */
    public double winProbability(long count) {
        if (thresholds == null) {
            return count > 64 ? 0.0 : Math.scalb(1.0, (int) -count);
        }
        return count < thresholds.length ? Math.pow(base, -count) : 0.0;
    }

    /**
     * The number of independent trials, up to and including the first win, against {@code count}, sampled from
     * the geometric distribution with one draw; {@link Long#MAX_VALUE} if a win is impossible. This is how a
     * weighted challenge of weight w costs O(log w) draws instead of w.
     *
     * <p>Threads: any. Progress: wait-free.
     */
    public long trialsToFirstWin(long draw, long count) {
        double p = winProbability(count);
        if (p <= 0.0) {
            return Long.MAX_VALUE;
        }
        if (p >= 1.0) {
            return 1;
        }
        // u uniform in (0, 1]: 53 random bits, never 0.
        double u = ((draw >>> 11) + 1) * 0x1p-53;
        double trials = Math.ceil(Math.log(u) / Math.log1p(-p));
        if (!(trials < 0x1p62)) {
            return Long.MAX_VALUE;
        }
        return Math.max(1L, (long) trials);
    }
}
