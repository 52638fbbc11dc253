package io.hotkeeper.jcstress;

import io.hotkeeper.engine.hash.KeyHasher;
import io.hotkeeper.engine.lottery.DecayLottery;
import io.hotkeeper.engine.salt.EvictionSalt;
import io.hotkeeper.engine.salt.SaltLayout;
import io.hotkeeper.engine.stats.StatsLayout;
import io.hotkeeper.engine.stats.StatsStripes;
import io.hotkeeper.engine.table.BucketTable;
import io.hotkeeper.engine.table.TableGeometry;
import io.hotkeeper.engine.table.TableLayout;
import io.hotkeeper.engine.table.TrackedSlots;
import io.hotkeeper.engine.worker.WorkerSpace;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;

/**
 * Deterministic fixtures shared by the stress tests: one seeded lottery, hashes crafted into bucket 0, and the
 * searches (run once per forked VM, at class initialisation) that pick spare bits and salt values whose draws
 * win or lose on purpose, so that every outcome of a test is decided by the interleaving alone, never by luck.
 *
 * <p>Memory: every test state owns an {@link Arena#ofAuto() automatic arena}; jcstress creates states by the
 * million and never closes them, so the garbage collector frees their native memory.
 *
 * <p>Public (the class, and the members tests in sub-packages use) only for those tests, such as
 * {@code reset.ResetVersusSecondBucketClaimTest}.
 */
public final class Fixtures {
    /** Seed of every search and of the lottery's draw key: same seed, same hashes, same outcomes. */
    static final long SEED = 0x486f_746b_6565_7072L;
    /** The smallest table: 64 buckets, 4 KiB. */
    public static final int INDEX_BITS = TableLayout.MIN_INDEX_BITS;
    /** The bucket every crafted hash lands in. */
    static final long BUCKET = 0;
    /**
     * Count of the filler occupants. With base 2 a draw beats count c iff it has at least c trailing zero bits;
     * a long has at most 64, so a filler above 64 can never lose a draw, and never becomes the weakest slot
     * while a key of the test holds a smaller count.
     */
    public static final long FILLER_COUNT = 100;
    /** The reference design's lottery (base 2), keyed from {@link #SEED}. Immutable, so shared by all states. */
    static final DecayLottery LOTTERY = new DecayLottery(DecayLottery.REFERENCE_BASE, KeyHasher.splitMix(SEED));

    /** A zeroed segment for a power-of-two table of {@code 2^indexBits} buckets, from {@code arena}. */
    public static MemorySegment tableSegment(Arena arena, int indexBits) {
        return arena.allocate((long) TableLayout.BUCKET_BYTES << indexBits, TableLayout.TABLE_ALIGNMENT);
    }

    /**
     * A power-of-two table over {@code segment} through the engine's one constructor: promotion from
     * {@code promotionFloor} ({@code Long.MAX_VALUE}: none), the tracked-slot receiver built from the table (a
     * lambda returning null: nothing tracked), approximate counting from {@code 2^approximateBits} (0: exact), and
     * its control words on the heap.
     */
    public static BucketTable table(MemorySegment segment, int indexBits, DecayLottery lottery, EvictionSalt salt,
                                    StatsStripes stats, long promotionFloor,
                                    java.util.function.Function<BucketTable, TrackedSlots> tracked,
                                    int approximateBits) {
        return new BucketTable(segment, TableGeometry.ofIndexBits(indexBits), lottery, salt, stats, promotionFloor,
                tracked, approximateBits, MemorySegment.ofArray(new long[BucketTable.CONTROL_BYTES / Long.BYTES]));
    }

    /** The fixtures' table geometry: the one hash-to-bucket mapping of the engine (TableGeometry). */
    static final TableGeometry GEOMETRY = TableGeometry.ofIndexBits(INDEX_BITS);
    private static final long FINGERPRINT_MASK = (1L << GEOMETRY.fingerprintBits()) - 1;
    private static final long SPARE_MASK = (1L << (Long.SIZE - TableLayout.SPARE_SHIFT)) - 1;

    private Fixtures() {
    }

    /** A seeded stream for one test class's searches. */
    public static SplittableRandom random(String salt) {
        return new SplittableRandom(SEED ^ salt.hashCode());
    }

    /** {@code n} distinct, non-zero fingerprints for a 4 KiB table. */
    public static long[] fingerprints(SplittableRandom random, int n) {
        long[] fps = new long[n];
        for (int i = 0; i < n; i++) {
            long fp;
            do {
                fp = random.nextLong() & FINGERPRINT_MASK;
            } while (fp == 0 || contains(fps, i, fp));
            fps[i] = fp;
        }
        return fps;
    }

    private static boolean contains(long[] values, int n, long v) {
        for (int i = 0; i < n; i++) {
            if (values[i] == v) {
                return true;
            }
        }
        return false;
    }

    /**
     * The hash of a key in bucket 0 with fingerprint {@code fp} and spare bits {@code spare}: the location
     * {@link TableGeometry#locationAt} gives for them, spare bits in the top 32 ({@link TableLayout}).
     */
    static long hash(long spare, long fp) {
        long hash = (spare << TableLayout.SPARE_SHIFT) | GEOMETRY.locationAt(BUCKET, fp);
        // The table is the authority on how a hash splits; check it agrees before any test relies on it.
        if (TableLayout.spare(hash) != spare || GEOMETRY.fingerprint(hash) != fp || GEOMETRY.bucket(hash) != BUCKET) {
            throw new IllegalStateException("crafted hash=" + Long.toHexString(hash) + " does not split into spare="
                    + spare + ", fp=" + fp + ", bucket=" + BUCKET);
        }
        return hash;
    }

    /**
     * Spare bits whose draws with the salt values {@code 0 .. draws-1} all lose against count 1 (an odd draw):
     * a key with these bits never evicts anyone in its first {@code draws} phase-3 draws from a fresh salt.
     */
    static long spareLosingFirstDraws(SplittableRandom random, int draws) {
        for (int attempt = 0; attempt < 1_000_000; attempt++) {
            long spare = random.nextLong() & SPARE_MASK;
            boolean allLose = true;
            for (long salt = 0; salt < draws && allLose; salt++) {
                allLose = !LOTTERY.wins(LOTTERY.draw(spare, salt), 1);
            }
            if (allLose) {
                return spare;
            }
        }
        throw new IllegalStateException("no spare loses its first " + draws + " draws");
    }

    /**
     * Spare bits whose draws with every salt value in {@code salts} win against every count in
     * 1..{@code maxCount}: a weight-1 challenger with these bits wins each of those draws, whichever of the
     * values the interleaving hands it.
     */
    static long spareWinning(SplittableRandom random, long[] salts, long maxCount) {
        for (int attempt = 0; attempt < 10_000_000; attempt++) {
            long spare = random.nextLong() & SPARE_MASK;
            boolean all = true;
            for (int i = 0; i < salts.length && all; i++) {
                // Base 2: winning against maxCount implies winning against every smaller count.
                all = LOTTERY.wins(LOTTERY.draw(spare, salts[i]), maxCount);
            }
            if (all) {
                return spare;
            }
        }
        throw new IllegalStateException("no spare wins all draws against count " + maxCount);
    }

    /** Spare bits whose draws with every salt value in {@code salts} lose against count 1 (so against all). */
    static long spareLosing(SplittableRandom random, long[] salts) {
        for (int attempt = 0; attempt < 1_000_000; attempt++) {
            long spare = random.nextLong() & SPARE_MASK;
            boolean all = true;
            for (int i = 0; i < salts.length && all; i++) {
                all = !LOTTERY.wins(LOTTERY.draw(spare, salts[i]), 1);
            }
            if (all) {
                return spare;
            }
        }
        throw new IllegalStateException("no spare loses all draws");
    }

    /**
     * Spare bits for a weighted challenger whose draws with every salt value in {@code salts} sample exactly one
     * trial to the first win against every count in 1..{@code maxCount}: each draw costs the challenger one unit
     * of weight and takes one count off the occupant, so a weighted challenge's outcome is a fixed function of
     * the occupant's count and the weight, whatever values the interleaving hands it.
     */
    static long spareFirstTrialWins(SplittableRandom random, long[] salts, long maxCount) {
        for (int attempt = 0; attempt < 10_000_000; attempt++) {
            long spare = random.nextLong() & SPARE_MASK;
            boolean all = true;
            for (int i = 0; i < salts.length && all; i++) {
                long draw = LOTTERY.draw(spare, salts[i]);
                for (long c = 1; c <= maxCount && all; c++) {
                    all = LOTTERY.trialsToFirstWin(draw, c) == 1;
                }
            }
            if (all) {
                return spare;
            }
        }
        throw new IllegalStateException("no spare wins its first trial on all draws against count " + maxCount);
    }

    /** The values {@code first, first + step, ...} ({@code n} of them): a per-worker salt counter's sequence. */
    static long[] saltSequence(long first, long step, int n) {
        long[] values = new long[n];
        for (int i = 0; i < n; i++) {
            values[i] = first + i * step;
        }
        return values;
    }

    /** The smallest salt value whose draw for {@code spare} wins against every count in 1..{@code maxCount}. */
    static long saltWinningUpTo(long spare, long maxCount) {
        for (long salt = 0; salt < 1_000_000; salt++) {
            // Base 2: winning against maxCount implies winning against every smaller count.
            if (LOTTERY.wins(LOTTERY.draw(spare, salt), maxCount)) {
                return salt;
            }
        }
        throw new IllegalStateException("no salt wins for spare=" + spare + " against count=" + maxCount);
    }

    /**
     * One test state's table: a zeroed 4 KiB table, a fresh single-counter salt (its first value is 0), and
     * stats with one exclusive stripe per actor, all in one automatic arena.
     */
    public static final class Table {
        public final BucketTable table;
        final EvictionSalt salt;
        final StatsStripes stats;
        /** Actor 1's worker: exclusive worker 0 (stats stripe 0). */
        public final long worker1;
        /** Actor 2's worker: exclusive worker 1 (stats stripe 1). */
        final long worker2;

        Table() {
            Arena arena = Arena.ofAuto();
            this.salt = new EvictionSalt(arena, 1);
            WorkerSpace workers = new WorkerSpace(2, 1);
            this.stats = new StatsStripes(arena, workers);
            this.table = table(tableSegment(arena, INDEX_BITS), INDEX_BITS, LOTTERY, salt, stats, Long.MAX_VALUE,
                    t -> null, 0);
            this.worker1 = workers.handleOf(0);
            this.worker2 = workers.handleOf(1);
        }

        /**
         * A table with a per-worker salt (actor 1 draws 0, 2, 4, ...; actor 2 draws 1, 3, 5, ...: each actor's
         * sequence is fixed whatever the interleaving), no promotion, and {@code tracked} told of every
         * replacement of a tracked slot (null: nothing tracked). One automatic arena, as above.
         */
        Table(TrackedSlots tracked) {
            Arena arena = Arena.ofAuto();
            this.salt = EvictionSalt.perWorker(arena.allocate(SaltLayout.segmentBytes(1) * 2, SaltLayout.ALIGNMENT), 2);
            WorkerSpace workers = new WorkerSpace(2, 1);
            this.stats = new StatsStripes(arena, workers);
            this.table = table(tableSegment(arena, INDEX_BITS), INDEX_BITS, LOTTERY, salt, stats, Long.MAX_VALUE,
                    t -> tracked, 0);
            this.worker1 = workers.handleOf(0);
            this.worker2 = workers.handleOf(1);
        }

        /**
         * A table of {@code geometry} (for example two candidate buckets per key), a fresh single-counter salt, no
         * promotion, nothing tracked, stats with one exclusive stripe for each of {@code actors} actors (workers
         * 0, 1, ... by {@link WorkerSpace#handleOf}).
         */
        public Table(TableGeometry geometry, int actors) {
            Arena arena = Arena.ofAuto();
            this.salt = new EvictionSalt(arena, 1);
            WorkerSpace workers = new WorkerSpace(actors, 1);
            this.stats = new StatsStripes(arena, workers);
            this.table = new BucketTable(arena.allocate(geometry.tableBytes(), TableLayout.TABLE_ALIGNMENT), geometry,
                    LOTTERY, salt, stats, Long.MAX_VALUE, t -> null, 0,
                    arena.allocate(BucketTable.CONTROL_BYTES, TableLayout.TABLE_ALIGNMENT));
            this.worker1 = workers.handleOf(0);
            this.worker2 = workers.handleOf(1);
        }

        /** Slots of the whole table whose fingerprint is {@code fp}. */
        public int slotsHoldingAnywhere(long fp) {
            return (int) anywhere(fp, false);
        }

        /** Sum of the counts of all slots of the whole table whose fingerprint is {@code fp}. */
        public long countAnywhere(long fp) {
            return anywhere(fp, true);
        }

        private long anywhere(long fp, boolean counts) {
            long n = 0;
            for (long b = 0; b < table.bucketCount(); b++) {
                for (int s = 0; s < TableLayout.SLOTS_PER_BUCKET; s++) {
                    long word = table.laSlot(b, s);
                    if (word != 0 && TableLayout.fingerprint(word) == fp) {
                        n += counts ? TableLayout.count(word) : 1;
                    }
                }
            }
            return n;
        }

        /** The first bucket holding fingerprint {@code fp}, or -1. */
        long bucketHolding(long fp) {
            for (long b = 0; b < table.bucketCount(); b++) {
                for (int s = 0; s < TableLayout.SLOTS_PER_BUCKET; s++) {
                    long word = table.laSlot(b, s);
                    if (word != 0 && TableLayout.fingerprint(word) == fp) {
                        return b;
                    }
                }
            }
            return -1;
        }

        /** Phase-3 draws made so far, by both actors (the stats' eviction-attempt counter). */
        long draws() {
            return stats.sum(StatsLayout.EVICTION_ATTEMPTS);
        }

        /** Fills slots {@code 0 .. words.length-1} of bucket 0 before the state is shared. */
        void prefill(long[] words) {
            for (int s = 0; s < words.length; s++) {
                table.putSlot(BUCKET, s, words[s]);
            }
        }

        /** Slot {@code slot} of bucket 0 (acquire load). */
        long slot(int slot) {
            return table.laSlot(BUCKET, slot);
        }

        /**
         * Number of slots of bucket 0 that hold a word the protocol cannot have produced: a prefilled slot
         * {@code s < prefill.length} must still hold {@code prefill[s]}; every other slot must hold 0 or one of
         * {@code allowed}. A torn word (halves of two writes) or a corrupted neighbour counts here.
         */
        int foreignWords(long[] prefill, long... allowed) {
            int foreign = 0;
            for (int s = 0; s < TableLayout.SLOTS_PER_BUCKET; s++) {
                long word = slot(s);
                boolean ok = s < prefill.length
                        ? word == prefill[s]
                        : word == 0 || contains(allowed, allowed.length, word);
                if (!ok) {
                    foreign++;
                }
            }
            return foreign;
        }

        /** Number of slots of bucket 0 whose fingerprint is {@code fp}. */
        int slotsHolding(long fp) {
            int n = 0;
            for (int s = 0; s < TableLayout.SLOTS_PER_BUCKET; s++) {
                long word = slot(s);
                if (word != 0 && TableLayout.fingerprint(word) == fp) {
                    n++;
                }
            }
            return n;
        }

        /** Sum of the counts of all slots of bucket 0 whose fingerprint is {@code fp}. */
        long countOf(long fp) {
            long sum = 0;
            for (int s = 0; s < TableLayout.SLOTS_PER_BUCKET; s++) {
                long word = slot(s);
                if (word != 0 && TableLayout.fingerprint(word) == fp) {
                    sum += TableLayout.count(word);
                }
            }
            return sum;
        }
    }

    /** Filler words for slots {@code 0 .. n-1}: the given fingerprints, each with {@link #FILLER_COUNT}. */
    static long[] fillers(long[] fps, int n) {
        long[] words = new long[n];
        for (int s = 0; s < n; s++) {
            words[s] = TableLayout.word(fps[s], FILLER_COUNT);
        }
        return words;
    }
}
