package io.hotkeeper.jcstress;

import io.hotkeeper.engine.table.BucketTable;
import io.hotkeeper.engine.table.SlotLinks;
import io.hotkeeper.engine.table.TableLayout;
import io.hotkeeper.engine.table.TrackedSlots;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJJJJJ_Result;
import org.openjdk.jcstress.infra.results.JJJJJJ_Result;

import java.lang.foreign.Arena;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Phase 1 (refresh) against phase 3 (an eviction challenge) on the same slot, both through the production
 * {@code BucketTable.observe(hash, weight, worker)}: the challenger is a key absent from a full bucket, so its
 * observe nominates the weakest occupant, takes a salt value from the table's own salt, draws, and CASes.
 *
 * <p>Protocol: every write to a slot is a CAS whose expected value is the word the writer scanned (refresh and
 * chip-down: {@code compareAndExchangeRelease}; the takeover that hands the slot to the challenger: a volatile
 * {@code compareAndSet}). Two writers of one word are therefore serialised by the word itself: each either
 * applies to the other's result or fails, and a failed writer re-scans (the refresh through observeFull; the
 * challenger's phase 3 returns -1 and observeFull scans and draws again with a fresh salt value). Happens-before
 * is not what makes it hold: atomicity of each CAS is. The arbiter reads with acquire ({@code laSlot},
 * {@code estimate}), which pairs with the release CASes, though jcstress's own join already orders it.
 *
 * <p>Determinism: the lottery (base 2) is seeded, and spare bits are searched at class initialisation so that
 * every draw an actor can make in any interleaving wins (challenger) or loses (K, should it ever challenge):
 * only the interleaving decides the outcome. The draw count (the stats' eviction attempts) tells a challenger's
 * retry after a lost CAS apart from a first-time success.
 *
 * <p>Bucket 0 of a 4 KiB table: slots 0..6 hold fillers (count 100, beyond any base-2 draw, so never the
 * weakest), slot 7 holds K. Run: {@code jcstress/run -- -t RefreshVsEvictionTest}.
 */
public final class RefreshVsEvictionTest {
    private RefreshVsEvictionTest() {
    }

    /** Slot of K. */
    static final int K_SLOT = TableLayout.SLOTS_PER_BUCKET - 1;

    /** The crafted keys of the shared-salt variants (LastUnit, Decrement). */
    static final class Keys {
        static final long FP_K;
        static final long FP_C;
        static final long HASH_K;
        static final long HASH_C;
        static final long[] FILLERS;

        static {
            SplittableRandom random = Fixtures.random("RefreshVsEviction");
            long[] fps = Fixtures.fingerprints(random, TableLayout.SLOTS_PER_BUCKET + 1);
            FP_K = fps[0];
            FP_C = fps[1];
            // One shared salt counter: its values 0, 1, 2, ... go to whichever actor draws next. At most three
            // draws happen in any interleaving; cover 0..3 for both keys.
            long[] salts = Fixtures.saltSequence(0, 1, 4);
            HASH_K = Fixtures.hash(Fixtures.spareLosing(random, salts), FP_K);
            HASH_C = Fixtures.hash(Fixtures.spareWinning(random, salts, 3), FP_C);
            FILLERS = Fixtures.fillers(java.util.Arrays.copyOfRange(fps, 2, fps.length), K_SLOT);
        }

        private Keys() {
        }

        static long[] allowedWords() {
            return new long[] {TableLayout.word(FP_K, 1), TableLayout.word(FP_K, 2), TableLayout.word(FP_K, 3),
                    TableLayout.word(FP_C, 1)};
        }
    }

    /**
     * K starts at count 1: a won draw takes its slot. r1: K's observe; r2: C's observe (its estimate: 1 took the
     * slot, 0 chipped K); r3: estimate of K; r4: count of C; r5: phase-3 draws made; r6: foreign words.
     */
    @JCStressTest
    @Description("observe(K) refreshes K (count 1, weakest) while observe(C) challenges it with a winning draw")
    @Outcome(id = "2, 0, 1, 0, 1, 0", expect = ACCEPTABLE,
            desc = "Refresh first (K 1 -> 2); C scanned K|2, drew once and chipped it to 1: +1 -1")
    @Outcome(id = "0, 1, 0, 1, 2, 0", expect = ACCEPTABLE,
            desc = "C first: K 1 -> 0 in the same volatile CAS that hands slot 7 to C|1. K's observe (a later scan, "
                    + "or a re-scan after its refresh CAS failed) finds no K, challenges C|1 and loses: 2 draws")
    @Outcome(id = "2, 0, 1, 0, 2, 0", expect = ACCEPTABLE_INTERESTING,
            desc = "C scanned K|1 and drew, K's refresh CAS landed first (K|2), C's CAS failed; observe re-scanned, "
                    + "drew again and chipped K|2 to 1: the production retry, nothing lost")
    @Outcome(id = ".*", expect = FORBIDDEN,
            desc = "A lost update (both CASes took effect on one old word), a count below zero, a torn word, or a "
                    + "changed filler")
    @State
    public static class LastUnit {
        final Fixtures.Table t = new Fixtures.Table();

        public LastUnit() {
            t.prefill(Keys.FILLERS);
            t.table.putSlot(Fixtures.BUCKET, K_SLOT, TableLayout.word(Keys.FP_K, 1));
        }

        @Actor
        public void refresher(JJJJJJ_Result r) {
            r.r1 = t.table.observe(Keys.HASH_K, 1, t.worker1);
        }

        @Actor
        public void challenger(JJJJJJ_Result r) {
            r.r2 = t.table.observe(Keys.HASH_C, 1, t.worker2);
        }

        @Arbiter
        public void arbiter(JJJJJJ_Result r) {
            r.r3 = t.table.estimate(Keys.HASH_K);
            r.r4 = t.countOf(Keys.FP_C);
            r.r5 = t.draws();
            r.r6 = t.foreignWords(Keys.FILLERS, Keys.allowedWords());
        }
    }

    /** K starts at count 2: a won draw chips it to 1, so every order ends at 2. Results as in LastUnit. */
    @JCStressTest
    @Description("observe(K) refreshes K (count 2, weakest) while observe(C) chips it with a winning draw: K ends "
            + "at 2 in every order")
    @Outcome(id = "3, 0, 2, 0, 1, 0", expect = ACCEPTABLE,
            desc = "Refresh first (K 2 -> 3); C then scanned K|3 and chipped it to 2: +1 -1")
    @Outcome(id = "2, 0, 2, 0, 1, 0", expect = ACCEPTABLE,
            desc = "C first (K 2 -> 1), then the refresh (1 -> 2), directly or after its CAS on K|2 failed and it "
                    + "re-scanned: -1 +1")
    @Outcome(id = "3, 0, 2, 0, 2, 0", expect = ACCEPTABLE_INTERESTING,
            desc = "C scanned K|2, the refresh landed first (K|3), C's CAS failed; C re-scanned, drew again and "
                    + "chipped K|3 to 2: the production retry")
    @Outcome(id = ".*", expect = FORBIDDEN,
            desc = "A lost increment (K 1) or lost decrement (K 3), a count below zero, a torn word, or a changed "
                    + "filler")
    @State
    public static class Decrement {
        final Fixtures.Table t = new Fixtures.Table();

        public Decrement() {
            t.prefill(Keys.FILLERS);
            t.table.putSlot(Fixtures.BUCKET, K_SLOT, TableLayout.word(Keys.FP_K, 2));
        }

        @Actor
        public void refresher(JJJJJJ_Result r) {
            r.r1 = t.table.observe(Keys.HASH_K, 1, t.worker1);
        }

        @Actor
        public void challenger(JJJJJJ_Result r) {
            r.r2 = t.table.observe(Keys.HASH_C, 1, t.worker2);
        }

        @Arbiter
        public void arbiter(JJJJJJ_Result r) {
            r.r3 = t.table.estimate(Keys.HASH_K);
            r.r4 = t.countOf(Keys.FP_C);
            r.r5 = t.draws();
            r.r6 = t.foreignWords(Keys.FILLERS, Keys.allowedWords());
        }
    }

    /** The crafted keys of the per-worker-salt variants (Weighted, TrackedRefreshVersusTakeover, ...). */
    static final class WorkerKeys {
        static final long FP_K;
        static final long FP_C;
        static final long FP_C2;
        static final long HASH_K;
        /** C for the weighted challenge: every draw it can make is a first-trial win against counts 1..3. */
        static final long HASH_C_WEIGHTED;
        /** C and C2 for the weight-1 challenges: every draw each can make wins against counts 1..2. */
        static final long HASH_C;
        static final long HASH_C2;
        static final long[] FILLERS;

        static {
            SplittableRandom random = Fixtures.random("RefreshVsEviction.PerWorker");
            long[] fps = Fixtures.fingerprints(random, TableLayout.SLOTS_PER_BUCKET + 2);
            FP_K = fps[0];
            FP_C = fps[1];
            FP_C2 = fps[2];
            // Per-worker salt over 2 stripes: actor 1 (stripe 0) draws 0, 2, 4, ...; actor 2 (stripe 1) 1, 3, 5.
            long[] actor1 = Fixtures.saltSequence(0, 2, 4);
            long[] actor2 = Fixtures.saltSequence(1, 2, 6);
            HASH_K = Fixtures.hash(Fixtures.spareLosing(random, actor1), FP_K);
            HASH_C_WEIGHTED = Fixtures.hash(Fixtures.spareFirstTrialWins(random, actor2, 3), FP_C);
            HASH_C = Fixtures.hash(Fixtures.spareWinning(random, actor2, 2), FP_C);
            HASH_C2 = Fixtures.hash(Fixtures.spareWinning(random, actor1, 2), FP_C2);
            FILLERS = Fixtures.fillers(java.util.Arrays.copyOfRange(fps, 3, fps.length), K_SLOT);
        }

        private WorkerKeys() {
        }
    }

    /**
     * A weighted challenger: C observes with weight 3 while K (count 2) is refreshed. Every draw C can make is a
     * first-trial win, so C's geometric sampling spends exactly one unit per count it takes off, and all of them
     * land in one CAS: against K|2 it takes the slot with 3 - 2 + 1 = 2, against K|3 with 3 - 3 + 1 = 1.
     *
     * <p>r1: K's observe; r2: C's observe; r3: estimate of K; r4: count of C; r5: draws; r6: foreign words.
     */
    @JCStressTest
    @Description("observe(C, weight 3) takes several counts of K (count 2) in one CAS while observe(K) refreshes it")
    @Outcome(id = "3, 1, 0, 1, 3, 0", expect = ACCEPTABLE,
            desc = "Refresh first (K 2 -> 3); C scanned K|3, drew 3 times and took the slot in one CAS with the "
                    + "one unit left: C|1")
    @Outcome(id = "0, 2, 0, 2, 3, 0", expect = ACCEPTABLE,
            desc = "C first: 2 draws, K|2 -> C|2 in one CAS; K's observe (directly, or after its refresh CAS "
                    + "failed) finds no K and loses its draw against C|2")
    @Outcome(id = "3, 1, 0, 1, 5, 0", expect = ACCEPTABLE_INTERESTING,
            desc = "C scanned K|2 and drew twice, the refresh landed first (K|3), C's CAS failed; it re-scanned and "
                    + "took K|3 with 3 fresh draws: the weighted retry, no decrement applied twice")
    @Outcome(id = ".*", expect = FORBIDDEN,
            desc = "A lost refresh (C|2 over K|3), decrements applied from a stale word, a torn word, or a changed "
                    + "filler")
    @State
    public static class Weighted {
        final Fixtures.Table t = new Fixtures.Table(null);

        public Weighted() {
            t.prefill(WorkerKeys.FILLERS);
            t.table.putSlot(Fixtures.BUCKET, K_SLOT, TableLayout.word(WorkerKeys.FP_K, 2));
        }

        @Actor
        public void refresher(JJJJJJ_Result r) {
            r.r1 = t.table.observe(WorkerKeys.HASH_K, 1, t.worker1);
        }

        @Actor
        public void challenger(JJJJJJ_Result r) {
            r.r2 = t.table.observe(WorkerKeys.HASH_C_WEIGHTED, 3, t.worker2);
        }

        @Arbiter
        public void arbiter(JJJJJJ_Result r) {
            r.r3 = t.table.estimate(WorkerKeys.HASH_K);
            r.r4 = t.countOf(WorkerKeys.FP_C);
            r.r5 = t.draws();
            r.r6 = t.foreignWords(WorkerKeys.FILLERS, TableLayout.word(WorkerKeys.FP_K, 2),
                    TableLayout.word(WorkerKeys.FP_K, 3), TableLayout.word(WorkerKeys.FP_C, 1),
                    TableLayout.word(WorkerKeys.FP_C, 2));
        }
    }

    /**
     * Records {@code TrackedSlots.replaced} calls: how many, and whether every one named slot 7 and K's tracked
     * word exactly. Written by the replacing actor, read by the arbiter after jcstress's join.
     */
    static final class Replacements implements TrackedSlots {
        final AtomicLong calls = new AtomicLong();
        final AtomicLong wrong = new AtomicLong();
        final long expectedWord;

        Replacements(long expectedWord) {
            this.expectedWord = expectedWord;
        }

        /** The links of the table whose link lock a replacement hands over; set before the state is shared. */
        SlotLinks links;

        @Override
        public boolean replaced(long slotOffset, long oldWord, boolean lockHeld) {
            calls.incrementAndGet();
            // K|T|1 carries no lock, so the replacing CAS must have taken it for the caller.
            if (slotOffset != TableLayout.slotOffset(Fixtures.BUCKET, K_SLOT) || oldWord != expectedWord || !lockHeld) {
                wrong.incrementAndGet();
            }
            if (lockHeld) {
                // As KeyShards.replaced does once it has read the link (SlotLinks.takeVictimLink).
                links.unlock(slotOffset);
            }
            return false;
        }
    }

    /** K's tracked word with count {@code c}. */
    static long trackedK(long c) {
        return TableLayout.word(WorkerKeys.FP_K, c) | TableLayout.TRACKED;
    }

    /**
     * Two challengers of a tracked K|T|1: the slot changes hands twice (K to the first, the first to the
     * second), and the table tells the shards exactly once, with K's tracked word: the second replacement's
     * victim is an untracked challenger.
     *
     * <p>r1, r2: C's and C2's observe; r3: replaced() calls; r4: calls that named the wrong slot or word; r5: who
     * holds slot 7 (1 = C, 2 = C2); r6: draws; r7: foreign words.
     */
    @JCStressTest
    @Description("Two challengers take a tracked slot in turn: TrackedSlots.replaced is called once, with K|T|1")
    @Outcome(id = "1, 1, 1, 0, 2, 2, 0", expect = ACCEPTABLE,
            desc = "C took K|T|1 (one callback with that word), then C2 took C|1 (untracked: no callback)")
    @Outcome(id = "1, 1, 1, 0, 1, 2, 0", expect = ACCEPTABLE, desc = "Mirror: C2 took K, then C took C2")
    @Outcome(id = "1, 1, 1, 0, [12], 3, 0", expect = ACCEPTABLE_INTERESTING,
            desc = "Both scanned K|T|1 and drew; one CAS failed, and its observe re-scanned and took the winner's "
                    + "slot with a fresh draw: still one callback")
    @Outcome(id = "1, 1, 1, 0, [12], 4, 0", expect = ACCEPTABLE_INTERESTING,
            desc = "As above, and the second CAS also failed: the winner gave back the link lock its replacement "
                    + "took (P cleared) between the loser's scan and its CAS; one more draw, still one callback")
    @Outcome(id = ".*", expect = FORBIDDEN,
            desc = "No callback, two callbacks (a replacement reported twice or an untracked one reported), a "
                    + "wrong old word or slot, a lost challenger, a torn word, or a changed filler")
    @State
    public static class TrackedTwoChallengers {
        final Replacements replacements = new Replacements(trackedK(1));
        final Fixtures.Table t = new Fixtures.Table(replacements);

        {
            replacements.links = new SlotLinks(t.table, Arena.ofAuto().allocate(t.table.byteSize(), 8));
        }

        public TrackedTwoChallengers() {
            t.prefill(WorkerKeys.FILLERS);
            t.table.putSlot(Fixtures.BUCKET, K_SLOT, trackedK(1));
        }

        @Actor
        public void challenger2(JJJJJJJ_Result r) {
            r.r2 = t.table.observe(WorkerKeys.HASH_C2, 1, t.worker1);
        }

        @Actor
        public void challenger(JJJJJJJ_Result r) {
            r.r1 = t.table.observe(WorkerKeys.HASH_C, 1, t.worker2);
        }

        @Arbiter
        public void arbiter(JJJJJJJ_Result r) {
            r.r3 = replacements.calls.get();
            r.r4 = replacements.wrong.get();
            long word = t.slot(K_SLOT);
            r.r5 = word == TableLayout.word(WorkerKeys.FP_C, 1) ? 1 : word == TableLayout.word(WorkerKeys.FP_C2, 1) ? 2 : 9;
            r.r6 = t.draws();
            r.r7 = t.foreignWords(WorkerKeys.FILLERS, TableLayout.word(WorkerKeys.FP_C, 1),
                    TableLayout.word(WorkerKeys.FP_C2, 1));
        }
    }

    /**
     * K|T|1 (tracked) is refreshed while a challenger's winning draw takes or chips it. The callback fires only
     * when the takeover CAS succeeded, and names the word that CAS replaced; a chip-down keeps the tracked bit.
     *
     * <p>r1: K's observe; r2: C's observe; r3: replaced() calls; r4: wrong calls; r5: estimate of K; r6: draws;
     * r7: foreign words.
     */
    @JCStressTest
    @Description("A tracked K|T|1 refreshed while a challenger takes or chips it: one callback with K|T|1, or none")
    @Outcome(id = "2, 0, 0, 0, 1, 1, 0", expect = ACCEPTABLE,
            desc = "Refresh first (K|T|2); C chipped it to K|T|1 (tracked bit kept, no callback)")
    @Outcome(id = "0, 1, 1, 0, 0, 2, 0", expect = ACCEPTABLE,
            desc = "C first: K|T|1 -> C|1 by the volatile CAS, one callback naming K|T|1; K's observe then lost "
                    + "its draw against C|1")
    @Outcome(id = "2, 0, 0, 0, 1, 2, 0", expect = ACCEPTABLE_INTERESTING,
            desc = "C scanned K|T|1, the refresh landed first, C's takeover CAS failed (no callback); its re-scan "
                    + "chipped K|T|2 to K|T|1")
    @Outcome(id = ".*", expect = FORBIDDEN,
            desc = "A callback for a replacement that did not happen or with a word that was not replaced, a lost "
                    + "refresh, a dropped tracked bit, a torn word, or a changed filler")
    @State
    public static class TrackedRefreshVersusTakeover {
        final Replacements replacements = new Replacements(trackedK(1));
        final Fixtures.Table t = new Fixtures.Table(replacements);

        {
            replacements.links = new SlotLinks(t.table, Arena.ofAuto().allocate(t.table.byteSize(), 8));
        }

        public TrackedRefreshVersusTakeover() {
            t.prefill(WorkerKeys.FILLERS);
            t.table.putSlot(Fixtures.BUCKET, K_SLOT, trackedK(1));
        }

        @Actor
        public void refresher(JJJJJJJ_Result r) {
            r.r1 = t.table.observe(WorkerKeys.HASH_K, 1, t.worker1);
        }

        @Actor
        public void challenger(JJJJJJJ_Result r) {
            r.r2 = t.table.observe(WorkerKeys.HASH_C, 1, t.worker2);
        }

        @Arbiter
        public void arbiter(JJJJJJJ_Result r) {
            r.r3 = replacements.calls.get();
            r.r4 = replacements.wrong.get();
            r.r5 = t.table.estimate(WorkerKeys.HASH_K);
            r.r6 = t.draws();
            r.r7 = t.foreignWords(WorkerKeys.FILLERS, trackedK(1), trackedK(2), TableLayout.word(WorkerKeys.FP_C, 1));
        }
    }
}
