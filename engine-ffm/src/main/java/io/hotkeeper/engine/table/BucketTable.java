package io.hotkeeper.engine.table;

import io.hotkeeper.engine.lottery.DecayLottery;
import io.hotkeeper.engine.salt.EvictionSalt;
import io.hotkeeper.engine.stats.StatsLayout;
import io.hotkeeper.engine.stats.StatsStripes;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

import static io.hotkeeper.engine.table.TableLayout.BUCKET_SHIFT;
import static io.hotkeeper.engine.table.TableLayout.MAX_COUNT;
import static io.hotkeeper.engine.table.TableLayout.SLOTS_PER_BUCKET;
import static io.hotkeeper.engine.table.TableLayout.SLOT_BYTES;

/**
 * The HeavyKeeper-family bucket table: the three phases of an observation over packed slot words in one
 * off-heap segment.
 *
 * <p>Happens-before: a slot word written by a successful CAS (release) is seen whole by any later load of that
 * slot. Loads on the update path are plain: every write there is a CAS whose expected value is the word loaded,
 * so a stale load can only fail the CAS (a retry re-reads after an acquire fence), never store a wrong word;
 * {@link #estimate} reads plain loads between two acquire fences. {@link #laSlot} pairs with the release
 * CAS for readers that must also see what the writer did before it.
 *
 * <p>Access-mode names (JCTools style, docs/design.md "Memory order of every shared access"): {@code lv} volatile
 * load, {@code la} acquire load, {@code lo} opaque load, {@code cas} volatile CAS, {@code casRel} release CAS.
 *
 * <p>Threads: any number, concurrently. Progress: {@link #observe} is lock-free (a failed CAS means another
 * thread's CAS on the same bucket succeeded); phase-3 retries are bounded; {@link #estimate} is wait-free.
 */
/*
 * Design (HeavyKeeper, Gong et al., USENIX ATC'18 / ToN'19; HeavyGuardian, KDD'18; the salt decision,
 * docs/decisions/salt.md):
 *
 *  1. One bucket is one cache line of 8 slots, so an observation reads one line (two when its first candidate is
 *     full without the key: point 6) and writes at most one word.
 *  2. The scan is read-only: every slot is loaded once (opaque), and a write happens only when the state changes.
 *     A lost lottery writes nothing to the table; a saturated count writes nothing at all. Under contention the
 *     cost of an observation is the number of lines it writes, so every avoided store is a cache-line transfer
 *     not made.
 *  3. Phase 1 (refresh) adds the weight with one CAS, saturating at MAX_COUNT. Phase 2 (claim) CASes 0 -> word.
 *     Phase 3 nominates the weakest occupant and draws against it with a fresh salt value; a won draw CASes the
 *     occupant's count down by one, and at zero the challenger takes the slot with its remaining weight.
 *  4. Slots never return to empty: a count only reaches zero in the same CAS that hands the slot to the
 *     challenger. That monotonicity is what lets two racing claimants of one new key meet in the same slot
 *     (the loser's CAS fails, its re-scan finds the winner's word and refreshes it).
 *  5. Weighted observations: a refresh or claim adds the weight in one CAS. A challenge of weight w samples the
 *     number of trials until the next won draw from the geometric distribution (one draw per decrement instead
 *     of one per unit), so it costs O(log w) draws; all decrements land in one CAS.
 *  6. Two candidate buckets per key (when the geometry says so: TableGeometry#alternate), the d-left / cuckoo
 *     idea, at the cost of a second line only on a miss in a full first bucket. A key is claimed in its first
 *     bucket while that has room, in its second only once the first is full; a refresh finds it in either; phase
 *     3 draws against the weakest occupant of both. Since slots never empty, "the first bucket has an empty slot"
 *     proves the key is not in the second, which keeps a hit in the first bucket (the common case) at one line.
 *     Reset does empty slots: a claim in a second bucket re-checks the first after it (claimedInSecond), so
 *     that a reset that overtook it cannot leave the key where no scan looks.
 *     A claim in the second bucket (phase 2 or 3) sets the word's SECOND bit, a constant chosen by the bucket
 *     claimed, so that a replay of the word elsewhere (a merge) knows its key's first bucket (TableLayout); a
 *     refresh keeps it, as it keeps every bit above the count.
 *
 * <p>Size: the three phases and the accessors they share, kept in one class so that every access to a slot word, and
 * its mode, is in one file; the bit and offset arithmetic lives in TableLayout and TableGeometry.
 */
public final class BucketTable {
    /** Coordinates (MemorySegment, long byteOffset); the segment is 128-byte aligned, so every mode is legal. */
    private static final VarHandle SLOT = ValueLayout.JAVA_LONG.varHandle();
    /**
     * Bytes of the control region: the promotion floor at offset 0, the rescale count at offset 8 (how many times
     * reset, decay or a window's rotation rescaled this table's counts; written only then, so it shares the floor's
     * line, which observers only read), the rest padding.
     */
    public static final int CONTROL_BYTES = 128;
    private static final long FLOOR_OFFSET = 0;
    private static final long RESCALES_OFFSET = 8;
    /** Phase-3 rounds after a lost CAS before the challenger is treated as having lost its draw. */
    public static final int MAX_LOTTERY_ROUNDS = 8;
    /**
     * Flag in an {@link #observe} result: the key's slot is untracked and its count reached the promotion
     * floor, so the caller should record the key in its shard. The estimate is {@code result & COUNT_MASK}.
     */
    public static final long PROMOTE = 1L << 62;
    /** Flag in an {@link #observe} result: a sampled refresh of a tracked slot, to mark its entry visited. */
    public static final long VISIT = 1L << 61;
    /**
     * Flag in an {@link #observe} result: the observation expelled a tracked key and queued it for the
     * expelled-key listener, which the caller runs once it has left the sketch's internals.
     */
    public static final long EXPELLED = 1L << 60;
    /**
     * A tracked refresh reports {@link #VISIT} when its count crosses a multiple of {@code 2^VISIT_SAMPLE_BITS}
     * (one refresh in 64 for unit weights; every weighted refresh of 64 or more, such as a combiner's flush).
     */
    public static final int VISIT_SAMPLE_BITS = 6;

    private final MemorySegment table;
    /** Hash to bucket and fingerprint: the one mapping every reader and writer of this table uses. */
    private final TableGeometry geometry;
    private final DecayLottery lottery;
    private final EvictionSalt salt;
    private final StatsStripes stats;
    /**
     * The promotion floor and its rescale count, in a 128-byte control region (native, or a heap long[] for
     * fixtures): the floor is read (opaque) by every observation that leaves an untracked slot, raised (CAS max) by
     * shard owners whose full shard turns a candidate away, so that the floor settles where the shards are just
     * full, lowered when a shard reaps, and scaled or restored with the counts ({@link #rescalePromotionFloor}).
     */
    private final MemorySegment control;
    private final TrackedSlots trackedSlots;
    /**
     * Resets of this table under way (clearStarted .. clearEnded; several threads may reset at once). Volatile
     * read-modify-writes by the resetting threads, one volatile load by a claim in a second bucket (see
     * claimedInSecond); never touched on the rest of the observe path.
     */
    private final java.util.concurrent.atomic.AtomicInteger clearing = new java.util.concurrent.atomic.AtomicInteger();
    /** Counts at or above this are incremented probabilistically; Long.MAX_VALUE when counting is exact. */
    private final long approximateFrom;
    private final int approximateBits;
    /** Counts below this take the fast path: no saturation and no approximate counting can apply. */
    private final long fastLimit;
    /** The floor given at construction; the live floor (in the control region) never falls below it. */
    private final long initialFloor;

    /**
     * A table over an existing zeroed, 128-byte aligned segment of {@code geometry.tableBytes()} bytes. Untracked
     * keys whose count reaches {@code promotionFloor} are reported with {@link #PROMOTE}; replacements of tracked
     * slots go to the receiver {@code trackedSlots} builds from the table itself (the key shards need the table
     * they serve; they must not call it before this constructor returns; it may return null: nothing tracked).
     * Approximate counting from {@code 2^approximateBits} on ({@code 0}: exact counting). A
     * refresh of a count {@code c >= 2^t} adds {@code 2^j} with probability {@code 2^-j}, {@code j =
     * floor(log2 c) - t + 1}: unbiased, a relative standard error of about {@code 1.63 * 2^(-t/2)}, and a
     * write for only one in {@code 2^j} refreshes of a hot key (docs/performance.md).
     */
    public BucketTable(MemorySegment table, TableGeometry geometry, DecayLottery lottery, EvictionSalt salt,
                       StatsStripes stats, long promotionFloor,
                       java.util.function.Function<BucketTable, TrackedSlots> trackedSlots, int approximateBits,
                       MemorySegment control) {
        if (approximateBits != 0 && (approximateBits < 4 || approximateBits > 32)) {
            throw new IllegalArgumentException("approximateBits=" + approximateBits + ": must be 0 or in 4..32");
        }
        this.approximateBits = approximateBits;
        this.approximateFrom = approximateBits == 0 ? Long.MAX_VALUE : 1L << approximateBits;
        this.fastLimit = Math.min(approximateFrom, MAX_COUNT);
        if (table.byteSize() != geometry.tableBytes() || table.address() % TableLayout.TABLE_ALIGNMENT != 0) {
            throw new IllegalArgumentException("table segment: size=" + table.byteSize() + ", address="
                    + table.address() + ": must be " + geometry.tableBytes() + " bytes, 128-byte aligned");
        }
        this.table = table;
        this.geometry = geometry;
        this.lottery = lottery;
        this.salt = salt;
        this.stats = stats;
        if (promotionFloor < 1) {
            throw new IllegalArgumentException("promotionFloor=" + promotionFloor + ": must be >= 1");
        }
        if (control.byteSize() < CONTROL_BYTES) {
            throw new IllegalArgumentException("control: size=" + control.byteSize() + ": must be >= " + CONTROL_BYTES);
        }
        this.control = control;
        this.initialFloor = promotionFloor;
        SLOT.setRelease(control, FLOOR_OFFSET, promotionFloor);
        this.trackedSlots = trackedSlots.apply(this);
    }

    /** Number of buckets. Threads: any. Progress: wait-free. */
    public long bucketCount() {
        return geometry.bucketCount();
    }

    /** How this table maps a hash to bucket and fingerprint. Threads: any. Progress: wait-free. */
    public TableGeometry geometry() {
        return geometry;
    }

    /** Table bytes. Threads: any. Progress: wait-free. */
    public long byteSize() {
        return table.byteSize();
    }

    /** The segment (diagnostics, placement reports). Threads: any. Progress: wait-free. */
    public MemorySegment segment() {
        return table;
    }

    /** Byte offset of the bucket of {@code hash}. Threads: any. Progress: wait-free. */
    public long bucketOffset(long hash) {
        return geometry.bucketOffset(hash);
    }

    /** Fingerprint of {@code hash}. Threads: any. Progress: wait-free. */
    public long fingerprint(long hash) {
        return geometry.fingerprint(hash);
    }

    /**
     * Records {@code weight >= 1} occurrences of the key with hash {@code hash} and returns its estimate after
     * the update (0 if the key is not in the table afterwards).
     *
     * <p>Threads: any; {@code worker}: the calling thread's
     * ({@link io.hotkeeper.engine.worker.WorkerSpace#current()}). Progress: lock-free.
     */
    public long observe(long hash, long weight, long worker) {
        // The hit path, small enough for C2 to inline into every caller (under FreqInlineSize, 325 bytecodes;
        // docs/performance.md "An observe that inlines"): a refresh below saturation and approximate counting, or a
        // claim of the lowest empty slot, in the key's first bucket. Occupied slots form a prefix of a bucket (a
        // claim always takes the lowest empty slot, and slots never empty again outside reset), so the first 0 word
        // ends the search; and a key enters its second bucket only while its first is full, so an empty slot in
        // the first bucket also proves the key is not in the second. A full first bucket without the key goes to
        // observeMiss (the second bucket and the lottery), anything else (a lost CAS, saturation, approximate
        // counting) to observeFull, which re-scans and retries.
        long base = bucketOffset(hash);
        long fp = fingerprint(hash);
        // The scan also keeps the bucket's weakest occupant (lowest count, lowest slot on a tie), which a miss
        // hands to observeMiss so that it does not scan this line again.
        long weakestOffset = base;
        long weakestCount = Long.MAX_VALUE;
        for (int s = 0; s < SLOTS_PER_BUCKET; s++) {
            long offset = base + (long) s * SLOT_BYTES;
            // Plain load: see observeFull; a stale word only fails the CAS and falls through to the full path.
            long word = (long) SLOT.get(table, offset);
            if (word == 0) {
                return claimFirst(hash, offset, fp, weight, worker);
            }
            if (TableLayout.fingerprint(word) == fp) {
                long next = TableLayout.count(word) + weight;
                if (weight < fastLimit && next < fastLimit && casRelSlot(offset, word, word + weight)) {
                    stats.add(worker, StatsLayout.REFRESHES, 1);
                    return flags(word, next);
                }
                return observeFull(hash, weight, worker);
            }
            long count = TableLayout.count(word);
            if (count < weakestCount) {
                weakestOffset = offset;
                weakestCount = count;
            }
        }
        return observeMiss(hash, weakestOffset, weight, worker);
    }

    /**
     * A claim of the empty slot at {@code offset}, the lowest of the key's first bucket (observe's scan found the
     * key in no slot before it). A method of its own, so that observe stays small; short enough to inline.
     */
    private long claimFirst(long hash, long offset, long fp, long weight, long worker) {
        long count = Math.min(weight, MAX_COUNT);
        if (casRelSlot(offset, 0L, TableLayout.word(fp, count))) {
            stats.add(worker, StatsLayout.CLAIMS, 1);
            return promoteIfAtFloor(count);
        }
        return observeFull(hash, weight, worker);
    }

    /**
     * observe's miss path: the key's first bucket was full without it, and its weakest occupant is the slot at
     * {@code weakestOffset}. The second candidate is scanned as observe scans the first (a refresh or a claim
     * there), else the lottery runs against the weakest occupant of both. The first bucket is not scanned again:
     * its weakest word is read once more (a plain load; the challenge's CAS checks it), and a word of the first
     * bucket that changed since observe's scan only makes the draw run against an occupant that was the weakest a
     * moment before, as a scan racing that change would.
     */
    private long observeMiss(long hash, long weakestOffset, long weight, long worker) {
        long base = bucketOffset(hash);
        long fp = fingerprint(hash);
        long second = secondOffset(base, fp);
        // Plain loads throughout, as in observe.
        long weakestWord = (long) SLOT.get(table, weakestOffset);
        if (weakestWord == 0 || TableLayout.fingerprint(weakestWord) == fp) {
            // The bucket changed since observe's scan (a reset emptied it, or the key was claimed meanwhile).
            return observeFull(hash, weight, worker);
        }
        if (second != base) {
            for (int s = 0; s < SLOTS_PER_BUCKET; s++) {
                long offset = second + (long) s * SLOT_BYTES;
                long word = (long) SLOT.get(table, offset);
                if (word == 0) {
                    long count = Math.min(weight, MAX_COUNT);
                    // The second bucket: the claim marks the word SECOND (a constant), for replays (TableLayout).
                    if (casRelSlot(offset, 0L, TableLayout.word(fp, count) | TableLayout.SECOND)) {
                        return claimedInSecond(hash, offset, count, worker);
                    }
                    return observeFull(hash, weight, worker);
                }
                if (TableLayout.fingerprint(word) == fp) {
                    long next = TableLayout.count(word) + weight;
                    if (weight < fastLimit && next < fastLimit && casRelSlot(offset, word, word + weight)) {
                        stats.add(worker, StatsLayout.REFRESHES, 1);
                        return flags(word, next);
                    }
                    return observeFull(hash, weight, worker);
                }
                if (TableLayout.count(word) < TableLayout.count(weakestWord)) {
                    weakestOffset = offset;
                    weakestWord = word;
                }
            }
        }
        // Full candidates without the key: the lottery against the weakest occupant, from this one scan.
        long result = challenge(weakestOffset, weakestWord, base, fp, TableLayout.spare(hash), weight, worker);
        return result >= 0 ? result : observeFull(hash, weight, worker);
    }

    /**
     * Byte offset of the second candidate bucket of a key whose first bucket is at {@code base} and whose
     * fingerprint is {@code fp}; {@code base} itself with one candidate per key (TableGeometry#alternate).
     */
    private long secondOffset(long base, long fp) {
        return geometry.alternate(base >>> BUCKET_SHIFT, fp) << BUCKET_SHIFT;
    }

    /**
     * Whether the bucket at byte offset {@code bucketOffset} is one of the candidate buckets of {@code hash}: the
     * check that a slot may hold a key (the key shards' link checks). Threads: any. Progress: wait-free.
     */
    public boolean candidate(long hash, long bucketOffset) {
        long base = bucketOffset(hash);
        return bucketOffset == base || bucketOffset == secondOffset(base, fingerprint(hash));
    }

    /** The full observation: all three phases, saturation, approximate counting, and the retry loops. */
    private long observeFull(long hash, long weight, long worker) {
        long base = bucketOffset(hash);
        long fp = fingerprint(hash);
        long second = secondOffset(base, fp);
        int scanned = second == base ? SLOTS_PER_BUCKET : 2 * SLOTS_PER_BUCKET;
        int lotteryRounds = 0;
        boolean retry = false;
        scan:
        while (true) {
            if (retry) {
                // A CAS lost: force fresh loads of the bucket (the JIT may not reuse the previous scan's values).
                VarHandle.acquireFence();
            }
            retry = true;
            long empty = -1;
            long weakest = -1;
            long weakestWord = 0;
            for (int i = 0; i < scanned; i++) {
                if (i == SLOTS_PER_BUCKET && empty >= 0) {
                    break; // the first bucket has room, so the key is not in the second (see observe)
                }
                long offset = (i < SLOTS_PER_BUCKET ? base : second) + (long) (i & (SLOTS_PER_BUCKET - 1)) * SLOT_BYTES;
                // Plain load (measured: half the cost of an opaque scan). Safe: every write below is a CAS whose
                // expected value is this word, so a stale (or, on a JVM that split 64-bit loads, torn) read can
                // only fail a CAS, never store a wrong word; and a retry re-reads after the acquire fence below.
                long word = (long) SLOT.get(table, offset);
                if (word == 0) {
                    if (empty < 0) {
                        empty = offset;
                    }
                } else if (TableLayout.fingerprint(word) == fp) {
                    long result = refresh(offset, word, weight, worker);
                    if (result >= 0) {
                        return result;
                    }
                    // Lost the CAS: the bucket changed under us; scan again.
                    continue scan;
                } else if (weakest < 0 || TableLayout.count(word) < TableLayout.count(weakestWord)) {
                    weakest = offset;
                    weakestWord = word;
                }
            }
            if (empty >= 0) {
                long count = Math.min(weight, MAX_COUNT);
                // Release CAS 0 -> word: pairs with laSlot. Fails only if another thread claimed it.
                if (casRelSlot(empty, 0L, TableLayout.word(fp, count) | placement(empty, base))) {
                    if ((empty - base) >>> BUCKET_SHIFT != 0) {
                        return claimedInSecond(hash, empty, count, worker);
                    }
                    stats.add(worker, StatsLayout.CLAIMS, 1);
                    return promoteIfAtFloor(count);
                }
                continue;
            }
            long result = challenge(weakest, weakestWord, base, fp, TableLayout.spare(hash), weight, worker);
            if (result >= 0) {
                return result;
            }
            if (++lotteryRounds >= MAX_LOTTERY_ROUNDS) {
                return 0;
            }
        }
    }

    /**
     * Strong CAS with release semantics: the new word and everything the writer did before it become visible to
     * a reader that loads the word with acquire ({@link #laSlot}). Strong, because a spurious failure
     * would cost a full re-scan of the bucket.
     */
    private boolean casRelSlot(long offset, long expected, long next) {
        return (long) SLOT.compareAndExchangeRelease(table, offset, expected, next) == expected;
    }

    /**
     * After this thread claimed {@code count} units of the key of {@code hash} at {@code offset}, in the key's
     * second candidate bucket: the claim stands if no reset of this table is under way and the key's first
     * bucket is still full without the key; otherwise the claim is taken back (takeBack). The claim rests on a
     * scan that found the first bucket full, and only a reset empties slots: one that emptied the first bucket
     * after that scan would leave the word in a second bucket whose first has room, where no scan looks (estimate
     * and observe stop at the first bucket's empty slot), so its units would be invisible and the key's next
     * observation would claim a second slot in its first bucket.
     *
     * <p>Why this suffices: reset raises {@link #clearing} (volatile) before it reads or empties any slot and
     * lowers it after its last; the claim is a release CAS, then the full fence below, then the volatile load of
     * {@code clearing} (a Dekker pair with reset's raise and its read of this slot). Either reset's read of this
     * slot sees the claim (and reset empties it, with the rest), or this load sees the reset under way; or the
     * reset was over before it (the lowered count synchronizes with this load), and then the loads of the first
     * bucket below see every slot that reset emptied (empty, or claimed again since). A first bucket found full
     * without the key here stays so until the next reset, which starts after the claim and so empties it too.
     * Cold: only a claim in a second bucket, itself the rarest outcome of an observation, comes here.
     */
    private long claimedInSecond(long hash, long offset, long count, long worker) {
        stats.add(worker, StatsLayout.CLAIMS, 1);
        // Full fence: the claim's CAS before the loads below (StoreLoad), the other half of the Dekker pair.
        VarHandle.fullFence();
        if (clearing.get() == 0 && firstFullWithout(hash)) {
            return promoteIfAtFloor(count);
        }
        return takeBack(hash, offset, worker);
    }

    /** Whether the first candidate bucket of {@code hash} is full and none of its slots holds the key (volatile loads). */
    private boolean firstFullWithout(long hash) {
        long base = bucketOffset(hash);
        long fp = fingerprint(hash);
        for (int s = 0; s < SLOTS_PER_BUCKET; s++) {
            long word = (long) SLOT.getVolatile(table, base + (long) s * SLOT_BYTES);
            if (word == 0 || TableLayout.fingerprint(word) == fp) {
                return false;
            }
        }
        return true;
    }

    /**
     * Takes back a claim in a second bucket that a reset overtook (claimedInSecond): empties the key's word at
     * {@code offset} with a volatile CAS (other threads may have refreshed it meanwhile: their units go with it),
     * then, if no reset is under way by then, observes those units again, now in the state after the reset; if
     * one still is, they count as cleared with the state before it (each of them overlapped it, and an
     * observation overlapping a reset may count toward either side), and the result is 0: observing them again
     * while the reset has yet to empty the first bucket would only find it full and claim here again. Left in
     * place: a word that a challenger replaced or the reset emptied meanwhile (nothing of the key is left
     * there), and a word another thread's refresh got tracked meanwhile (the key shards' protocol owns it; see
     * Hotkeeper.reset).
     */
    private long takeBack(long hash, long offset, long worker) {
        long fp = fingerprint(hash);
        long word = (long) SLOT.getVolatile(table, offset);
        while (true) {
            if (word == 0 || TableLayout.fingerprint(word) != fp) {
                return 0;
            }
            if (!SlotLinks.unlinked(word)) {
                return TableLayout.count(word);
            }
            // Volatile CAS: the word is untracked and unlocked, so no key-shard link names the slot.
            long witness = (long) SLOT.compareAndExchange(table, offset, word, 0L);
            if (witness == word) {
                break;
            }
            word = witness;
        }
        // Volatile load, after the CAS: with a reset still under way the units count as cleared (see above).
        return clearing.get() != 0 ? 0 : observeFull(hash, TableLayout.count(word), worker);
    }

    /**
     * A reset of this table begins: called by the resetting thread before it reads or empties any slot, and
     * paired with {@link #clearEnded} (see claimedInSecond). Volatile increment. Threads: any. Progress:
     * lock-free.
     */
    public void clearStarted() {
        clearing.getAndIncrement();
    }

    /**
     * The reset begun by {@link #clearStarted} is over: called after its last slot. Volatile decrement.
     * Threads: the thread that called clearStarted. Progress: lock-free.
     */
    public void clearEnded() {
        clearing.getAndDecrement();
    }

    /** Phase 1. Returns the new count, or -1 if the CAS lost. */
    private long refresh(long offset, long word, long weight, long worker) {
        long count = TableLayout.count(word);
        if (count == MAX_COUNT) {
            // Saturated: nothing changes, so nothing is written.
            stats.add(worker, StatsLayout.SATURATIONS, 1);
            return flags(word, MAX_COUNT);
        }
        if (count >= approximateFrom && weight < count >>> approximateBits) {
            // Approximate counting: add 2^j with probability 2^-j; most refreshes of a hot key write nothing.
            int j = 64 - Long.numberOfLeadingZeros(count) - approximateBits;
            long coin = stats.random(worker);
            stats.add(worker, StatsLayout.REFRESHES, 1);
            if ((coin & ((1L << j) - 1)) != 0) {
                return flags(word, count);
            }
            long increment = weight << j;
            // Once the coin says "write", retry only the CAS (a re-drawn coin would bias counts down under
            // contention); give up to a full re-scan only if the slot changed key.
            while (true) {
                long next = Math.min(MAX_COUNT, TableLayout.count(word) + increment);
                long witness = (long) SLOT.compareAndExchangeRelease(table, offset, word,
                        (word & ~TableLayout.COUNT_MASK) | next);
                if (witness == word) {
                    return flags(word, next);
                }
                if (witness == 0 || TableLayout.fingerprint(witness) != TableLayout.fingerprint(word)) {
                    return -1;
                }
                word = witness;
            }
        }
        boolean saturates = weight >= MAX_COUNT - count;
        long next = saturates ? MAX_COUNT : count + weight;
        if (!casRelSlot(offset, word, (word & ~TableLayout.COUNT_MASK) | next)) {
            return -1;
        }
        stats.add(worker, StatsLayout.REFRESHES, 1);
        if (saturates) {
            stats.add(worker, StatsLayout.SATURATIONS, 1);
        }
        return flags(word, next);
    }

    /**
     * {@code count}, flagged PROMOTE if an untracked key with it should be recorded. The live floor never drops
     * below the initial one, so below it the control region is not read at all.
     */
    private long promoteIfAtFloor(long count) {
        return count >= initialFloor && count >= promotionFloor() ? count | PROMOTE : count;
    }

    /** The observe result for a refreshed slot: the count, plus PROMOTE or a sampled VISIT. */
    private long flags(long word, long count) {
        if (!TableLayout.tracked(word)) {
            return promoteIfAtFloor(count);
        }
        return (TableLayout.count(word) >>> VISIT_SAMPLE_BITS) != (count >>> VISIT_SAMPLE_BITS) ? count | VISIT : count;
    }

    /**
     * {@link TableLayout#SECOND} if the slot at {@code offset} is not in the bucket at {@code base} (the claiming
     * key's first bucket), else 0: what a claim of that slot ORs into its word.
     */
    private static long placement(long offset, long base) {
        return ((offset ^ base) >>> BUCKET_SHIFT) == 0 ? 0 : TableLayout.SECOND;
    }

    /**
     * Phase 3 against the slot at {@code offset} holding {@code victim}, for a challenger whose first bucket is at
     * {@code base}. Returns the challenger's estimate (0 when it did not take the slot), or -1 if the CAS lost and
     * the caller should scan again.
     */
    private long challenge(long offset, long victim, long base, long fp, long spare, long weight, long worker) {
        long count = TableLayout.count(victim);
        long remaining = weight;
        long decrements = 0;
        long draws = 0;
        long taken = 0;
        while (true) {
            long draw = lottery.draw(spare, salt.next(spare, worker));
            draws++;
            long trials = weight == 1 ? (lottery.wins(draw, count) ? 1 : Long.MAX_VALUE)
                    : lottery.trialsToFirstWin(draw, count);
            if (trials > remaining) {
                break;
            }
            remaining -= trials;
            decrements++;
            if (--count == 0) {
                // The winning unit is the challenger's first; the rest of the weight follows it.
                taken = Math.min(remaining + 1, MAX_COUNT);
                break;
            }
            if (remaining == 0) {
                break;
            }
        }
        stats.add(worker, StatsLayout.EVICTION_ATTEMPTS, draws);
        if (decrements == 0) {
            return 0;
        }
        if (taken == 0) {
            if (!casRelSlot(offset, victim, victim - decrements)) {
                return -1;
            }
            stats.add(worker, StatsLayout.EVICTION_WINS, decrements);
            return 0;
        }
        // Volatile CAS: with the promoter's volatile link store and re-check (KeyShard.promote), at least one of
        // the two sees the other, so a tracked entry is never stranded (Dekker-style, sequentially consistent).
        // The challenger's word is untracked, marked SECOND if the slot is in its second bucket. It keeps the link
        // lock if another thread holds it; if the victim was tracked and unlocked, the same CAS takes the lock for
        // this thread (SlotLinks.replacementLock; KeyShards.replaced gives it back, SlotLinks.takeVictimLink).
        boolean tracked = TableLayout.tracked(victim) && trackedSlots != null;
        long lock = SlotLinks.replacementLock(victim, tracked);
        if (!SLOT.compareAndSet(table, offset, victim, TableLayout.word(fp, taken) | placement(offset, base) | lock)) {
            return -1;
        }
        stats.add(worker, StatsLayout.EVICTION_WINS, decrements);
        stats.add(worker, StatsLayout.REPLACEMENTS, 1);
        long expelled = 0;
        if (tracked && trackedSlots.replaced(offset, victim, !TableLayout.promoting(victim))) {
            expelled = EXPELLED;
        }
        return promoteIfAtFloor(taken) | expelled;
    }

    /**
     * The estimate of the key with hash {@code hash}, without changing anything.
     *
     * <p>Threads: any. Progress: wait-free.
     */
    public long estimate(long hash) {
        long base = bucketOffset(hash);
        long fp = fingerprint(hash);
        // Acquire fence before: no load below is satisfied from an earlier call's (a caller polling estimate in a
        // loop reads the bucket afresh every time).
        VarHandle.acquireFence();
        long count = 0;
        long bucket = base;
        scan:
        for (int candidate = 0; candidate < 2; candidate++) {
            for (int s = 0; s < SLOTS_PER_BUCKET; s++) {
                // Plain loads (measured: an acquire load per slot cost ~2 ns each, as its barrier keeps the segment's
                // checks from being combined); the fences around the loop give the ordering.
                long word = (long) SLOT.get(table, bucket + (long) s * SLOT_BYTES);
                if (word == 0) {
                    break scan; // occupied slots are a prefix, and a key with room in its first bucket has no second
                }
                if (TableLayout.fingerprint(word) == fp) {
                    count = TableLayout.count(word);
                    break scan;
                }
            }
            long second = secondOffset(base, fp);
            if (second == base) {
                break;
            }
            bucket = second;
        }
        // Acquire fence after: the loads above are ordered before the caller's next loads. With the writers' release
        // CAS this is an acquire read: a caller that reads a hot-key combiner's pending counts next sees no unit
        // that the word it read already includes (HotKeyCombiners).
        VarHandle.acquireFence();
        return count;
    }

    /** {@code ceil(log2 bucketCount())} ({@link TableGeometry#indexBits}). Threads: any. Progress: wait-free. */
    public int indexBits() {
        return geometry.indexBits();
    }

    /** The promotion floor. Threads: any. Progress: wait-free. */
    public long promotionFloor() {
        // Opaque: the freshest value without ordering; a stale floor only delays or repeats a promotion attempt.
        return (long) SLOT.getOpaque(control, FLOOR_OFFSET);
    }

    /**
     * Lowers the promotion floor a quarter of the way back to its initial value: a key shard made room (an entry
     * whose key left the table was reaped), so candidates lighter than the ones turned away before may fit again.
     * Rejections raise it again ({@link #raisePromotionFloor}), so the floor follows the shards' lightest tracked
     * counts down as well as up. Threads: any. Progress: lock-free.
     */
    public void lowerPromotionFloor() {
        while (true) {
            long current = (long) SLOT.getOpaque(control, FLOOR_OFFSET);
            if (current <= initialFloor) {
                return;
            }
            long lowered = current - Math.max(1, (current - initialFloor) >>> 2);
            if (SLOT.compareAndSet(control, FLOOR_OFFSET, current, lowered)) {
                return;
            }
        }
    }

    /**
     * Raises the promotion floor to at least {@code floor} (never lowers it), as decided from counts read now.
     * Threads: any. Progress: lock-free.
     */
    public void raisePromotionFloor(long floor) {
        raisePromotionFloor(floor, rescales());
    }

    /**
     * Raises the promotion floor to at least {@code floor}, as decided from counts read after {@link #rescales()}
     * returned {@code rescales}. What holds: a raise decided from counts read before a rescale ({@code reset},
     * {@code decay}, a window's rotation) either takes effect before the rescale's floor store, which then
     * overwrites it (a clear) or scales it with the counts (a decay), or is taken back before this call returns; it
     * never stands unscaled over rescaled counts for longer than the raiser's own call.
     *
     * <p>Why it holds: the rescaler increments the count (volatile) after its last slot CAS and before its floor
     * store (volatile CAS); this raise is a volatile CAS followed by a volatile load of the count. All four are in
     * one total order, so a raise whose CAS follows the rescale's floor store reads the incremented count, and
     * lowers the floor back to at most what its CAS replaced. Lowering is always safe (it only costs promotion
     * attempts that the shards turn away again), so the give-back is a CAS-min that may also undo a newer raise.
     *
     * <p>Threads: any. Progress: lock-free.
     */
    public void raisePromotionFloor(long floor, long rescales) {
        while (true) {
            // Volatile load and CAS: the CAS must precede the re-check below in the total order of volatile
            // accesses (a release CAS followed by an acquire load could be reordered: store-load).
            long current = (long) SLOT.getVolatile(control, FLOOR_OFFSET);
            if (floor <= current) {
                return;
            }
            if (SLOT.compareAndSet(control, FLOOR_OFFSET, current, floor)) {
                if (rescales() != rescales) {
                    lowerPromotionFloorTo(current);
                }
                return;
            }
        }
    }

    /** CAS-min: the floor becomes at most {@code ceiling} (volatile CAS loop; never raises it). Lock-free. */
    private void lowerPromotionFloorTo(long ceiling) {
        while (true) {
            long current = (long) SLOT.getVolatile(control, FLOOR_OFFSET);
            if (current <= ceiling || SLOT.compareAndSet(control, FLOOR_OFFSET, current, ceiling)) {
                return;
            }
        }
    }

    /**
     * How many times this table's counts were rescaled ({@link #rescalePromotionFloor}). A shard owner reads it
     * before the counts it decides a rejection from and hands it to {@link #raisePromotionFloor(long, long)}.
     * Volatile load: it takes part in the total order that raise relies on. Threads: any. Progress: wait-free.
     */
    public long rescales() {
        return (long) SLOT.getVolatile(control, RESCALES_OFFSET);
    }

    /**
     * Tells the floor that every count of this table was just multiplied by {@code factor} in [0, 1) (0: the
     * table was emptied, by reset or a window's rotation): counts the rescale count up, then sets the floor to
     * {@code max(initial, floor(floor x factor))}, the configured floor after a clear. The floor follows the
     * counts both ways: a key that becomes heavy again reaches it, where before it could wait for a floor raised
     * by counts that are gone. Call it after the last slot is rescaled. Raises racing with it: see
     * {@link #raisePromotionFloor(long, long)}.
     *
     * <p>Threads: any (concurrent rescales leave the lower of their floors or the last one's). Progress: lock-free.
     */
    public void rescalePromotionFloor(double factor) {
        // Volatile getAndAdd, after the caller's last slot CAS and before the floor CAS: a raiser that reads the
        // new count also sees the rescaled slots, and a raise landing after the floor CAS reads the new count.
        SLOT.getAndAdd(control, RESCALES_OFFSET, 1L);
        while (true) {
            // Volatile CAS loop: a raise that landed just before is scaled with the rest (or undone by a clear).
            long current = (long) SLOT.getVolatile(control, FLOOR_OFFSET);
            long scaled = Math.max(initialFloor, (long) Math.floor(current * factor));
            if (scaled >= current || SLOT.compareAndSet(control, FLOOR_OFFSET, current, scaled)) {
                return;
            }
        }
    }

    /**
     * Byte offset of the slot holding the fingerprint of {@code hash} in its first candidate bucket, else in its
     * second, or -1 (volatile loads: used by the key shards' promotion protocol; the order is the one observe
     * refreshes in). Threads: any. Progress: wait-free.
     */
    public long findSlot(long hash) {
        long base = bucketOffset(hash);
        long fp = fingerprint(hash);
        long second = secondOffset(base, fp);
        for (long bucket = base; ; bucket = second) {
            for (int s = 0; s < SLOTS_PER_BUCKET; s++) {
                long offset = bucket + (long) s * SLOT_BYTES;
                long word = (long) SLOT.getVolatile(table, offset);
                if (word != 0 && TableLayout.fingerprint(word) == fp) {
                    return offset;
                }
            }
            if (bucket == second) {
                return -1;
            }
        }
    }

    /**
     * Loads the first word of the bucket of {@code hash} and returns it: a caller that observes a batch touches
     * the buckets of keys a few places ahead, so that their lines are on their way while it works on the
     * current one. Plain load: the value is only a hint (the caller folds it into a branch that never fires,
     * which keeps the JIT from dropping the load). Threads: any. Progress: wait-free.
     */
    public long touch(long hash) {
        return (long) SLOT.get(table, bucketOffset(hash));
    }

    /** The slot word at byte offset {@code offset}, volatile load. Threads: any. Progress: wait-free. */
    public long lvSlot(long offset) {
        return (long) SLOT.getVolatile(table, offset);
    }

    /** The slot word at byte offset {@code offset}, opaque load. Threads: any. Progress: wait-free. */
    public long loSlot(long offset) {
        return (long) SLOT.getOpaque(table, offset);
    }

    /**
     * Volatile CAS of the slot word at {@code offset} (sets or clears the tracked bit in the shard protocol).
     * Threads: any. Progress: wait-free (one CAS).
     */
    public boolean casSlot(long offset, long expected, long next) {
        return SLOT.compareAndSet(table, offset, expected, next);
    }

    /**
     * Slot {@code slot} of bucket {@code bucket}, loaded with acquire semantics (pairs with the release CAS of
     * the writer). Threads: any. Progress: wait-free.
     */
    public long laSlot(long bucket, int slot) {
        return (long) SLOT.getAcquire(table, (bucket << BUCKET_SHIFT) + (long) slot * SLOT_BYTES);
    }

    /**
     * Stores {@code word} into a slot without any race check: only for building test and benchmark fixtures
     * before the table is shared. Threads: one, before publication. Progress: wait-free.
     */
    public void putSlot(long bucket, int slot, long word) {
        SLOT.setRelease(table, (bucket << BUCKET_SHIFT) + (long) slot * SLOT_BYTES, word);
    }
}
