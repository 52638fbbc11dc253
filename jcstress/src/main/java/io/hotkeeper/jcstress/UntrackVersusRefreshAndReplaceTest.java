package io.hotkeeper.jcstress;

import io.hotkeeper.engine.stats.StatsLayout;
import io.hotkeeper.engine.table.TableLayout;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIIII_Result;

import java.util.SplittableRandom;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * SIEVE eviction and its untrack, on the production path, against a refresh and against a replacement of the
 * victim's slot (docs/shards.md, "The link lock").
 *
 * <p>Protocol. Shard 1 (actor 1's) is full: 16 tracked keys, K0 the oldest with count 1 (slot 7 of bucket 1, the
 * bucket's weakest), K1..K15 at count 100 in buckets 1 and 2. Actor 1 promotes candidate C (count 50, bucket 0) with
 * {@code shardFor(worker 1).promote(...)}: the shard is full, so {@code allocate} runs {@code sieveEvict}, whose hand
 * starts at K0 (unvisited, lighter than C), calls {@code KeyShards.evicting} = {@code untrack} (volatile CAS adding
 * PROMOTING to K0's settled word; volatile link read under the lock; link cleared by a volatile store if it is K0's;
 * volatile CAS loop clearing TRACKED and PROMOTING, or only PROMOTING if a replacement cleared TRACKED), then {@code
 * deleteOwn}, then inserts C. Actor 2 meanwhile runs the facade's path for K0 (Refresh: weight 1) or for a new key Y of
 * bucket 1 (Replace: weight 2^20, which surely takes K0's slot), promoting as worker 2 when told to.
 *
 * <p>Why it holds. A refresh keeps PROMOTING and TRACKED (it CASes the count only), so its unit is never lost and
 * it reports PROMOTE only once untrack has cleared both bits in one CAS; a claim refuses a word carrying
 * PROMOTING, so no promotion's link store can be overwritten by untrack's clearing store. A replacement carries
 * PROMOTING into Y's word; the replacer reads the link (volatile) after its CAS and deletes what it names: K0's
 * entry if untrack had not cleared the link yet (the membership gate makes the owner's deleteOwn and the hand-off
 * one deletion), nothing otherwise. Untrack's loops are lock-free: a failed CAS is another thread's success.
 *
 * <p>Run: {@code jcstress/run --quick -- -t UntrackVersusRefreshAndReplace}.
 */
public final class UntrackVersusRefreshAndReplaceTest {
    private UntrackVersusRefreshAndReplaceTest() {
    }

    static final long KEY_C = 0xC0C0L;
    static final long KEY_Y = 0x5959L;

    /** Crafted keys: K0..K15 (K0 the weakest of bucket 1), C (bucket 0), Y (bucket 1, a new fingerprint). */
    static final class Keys {
        static final long[] HASH_K = new long[16];
        static final long[] COUNT_K = new long[16];
        static final long HASH_C;
        static final long HASH_Y;
        static final long COUNT_C = 50;

        static {
            SplittableRandom random = Fixtures.random("UntrackVersusRefreshAndReplace");
            long[] fps = Fixtures.fingerprints(random, 18);
            for (int i = 0; i < 16; i++) {
                // K0 .. K7 fill bucket 1 (K0 in slot 7), K8 .. K15 bucket 2.
                HASH_K[i] = hashIn(i < 8 ? 1 : 2, random.nextLong() >>> TableLayout.SPARE_SHIFT, fps[i]);
                COUNT_K[i] = i == 0 ? 1 : Fixtures.FILLER_COUNT;
            }
            HASH_C = hashIn(0, random.nextLong() >>> TableLayout.SPARE_SHIFT, fps[16]);
            HASH_Y = hashIn(1, random.nextLong() >>> TableLayout.SPARE_SHIFT, fps[17]);
        }

        private Keys() {
        }

        static long hashIn(long bucket, long spare, long fp) {
            return (spare << TableLayout.SPARE_SHIFT) | (fp << Fixtures.INDEX_BITS) | bucket;
        }

        static int slotIn(int i) {
            return i == 0 ? 7 : i < 8 ? i - 1 : i - 8;
        }
    }

    /** The table and a full shard 1, filled by the production promotion (K0 first: the SIEVE tail). */
    static LinkLockFixture fullShard() {
        LinkLockFixture f = new LinkLockFixture();
        for (int i = 0; i < 16; i++) {
            f.table.putSlot(i < 8 ? 1 : 2, Keys.slotIn(i),
                    TableLayout.word(f.table.fingerprint(Keys.HASH_K[i]), Keys.COUNT_K[i]));
        }
        f.table.putSlot(0, 0, TableLayout.word(f.table.fingerprint(Keys.HASH_C), Keys.COUNT_C));
        for (int i = 0; i < 16; i++) {
            f.shards.shardFor(f.worker1).promote(Keys.HASH_K[i], i, null, 0, 0, null, f.worker0);
        }
        return f;
    }

    /** Byte offset of K0's slot. */
    static final long SLOT_K0 = LinkLockFixture.slotOffset(1, 7);

    @JCStressTest
    @Description("SIEVE evicts K0 (untrack under the link lock) while another actor observes K0")
    @Outcome(id = "0, 2, 1, 0, 0", expect = ACCEPTABLE,
            desc = "The refresh landed before untrack's CAS or while it held PROMOTING (it saw TRACKED, no PROMOTE); "
                    + "untrack cleared the link, TRACKED and PROMOTING; K0 keeps both units, untracked")
    @Outcome(id = "2, 2, 1, 0, 1", expect = ACCEPTABLE_INTERESTING,
            desc = "The refresh came after untrack: PROMOTE, and K0 was promoted again into shard 2 at once")
    @Outcome(id = ".*", expect = FORBIDDEN,
            desc = "A lost unit, K0 tracked with a bad link, an untracked slot whose link was not cleared (-3), "
                    + "a lock left behind, a live entry nobody links, or C not tracked")
    @State
    public static class Refresh {
        final LinkLockFixture f = fullShard();

        @Actor
        public void evict(IIIII_Result r) {
            f.shards.shardFor(f.worker1).promote(Keys.HASH_C, KEY_C, null, 0, 0, null, f.worker1);
        }

        @Actor
        public void refresh(IIIII_Result r) {
            long result = f.observe(2, Keys.HASH_K[0], 0, 1, f.worker2);
            r.r5 = (result & io.hotkeeper.engine.table.BucketTable.PROMOTE) != 0 ? 1 : 0;
        }

        @Arbiter
        public void arbiter(IIIII_Result r) {
            r.r1 = k0State(f);
            r.r2 = (int) f.table.estimate(Keys.HASH_K[0]);
            r.r3 = (int) f.tracker(Keys.HASH_C);
            r.r4 = f.violations();
        }
    }

    /** K0's tracker, or -3 if its slot is untracked but still links something. */
    static int k0State(LinkLockFixture f) {
        int tracker = (int) f.tracker(Keys.HASH_K[0]);
        return tracker == 0 && f.shards.linkWord(SLOT_K0) != 0 ? -3 : tracker;
    }

    @JCStressTest
    @Description("SIEVE evicts K0 (untrack under the link lock) while another actor's weighted Y replaces K0's slot")
    @Outcome(id = "2, 1, 1, 0, 2", expect = ACCEPTABLE,
            desc = "Y replaced K0's slot before untrack took the lock: the replacer handed K0's entry over (1 "
                    + "hand-off), untrack found the slot untracked, deleteOwn unlinked the entry; Y promoted (shard 2)")
    @Outcome(id = "2, 0, 1, 0, 2", expect = ACCEPTABLE,
            desc = "Y replaced K0's slot after untrack cleared the link (no hand-off) and Y's claim came after the "
                    + "lock was given back: Y tracked by shard 2")
    @Outcome(id = "0, 0, 1, 0, 3", expect = ACCEPTABLE_INTERESTING,
            desc = "Y replaced K0's slot while untrack held PROMOTING, after it cleared the link: Y's claim was "
                    + "refused; untrack gave back only PROMOTING; Y's next observation (the arbiter's) promoted it")
    @Outcome(id = "0, 1, 0, 0, 3", expect = ACCEPTABLE_INTERESTING,
            desc = "Y replaced K0's slot while untrack held PROMOTING, before it cleared the link: the replacer "
                    + "handed K0's entry over and Y's claim was refused; the hand-off's reference kept K0's entry "
                    + "from the free list, so C was turned away (as below); the arbiter's observation promoted Y")
    @Outcome(id = "0, 1, 1, 0, 3", expect = ACCEPTABLE_INTERESTING,
            desc = "As the outcome before, but the hand-off reached the owner in time: allocate drained it after the "
                    + "eviction, K0's entry was freed, and C got it")
    @Outcome(id = "2, 1, 0, 0, 2", expect = ACCEPTABLE_INTERESTING,
            desc = "The replacer marked K0's entry DEAD after the owner's drain and before SIEVE reached it: the "
                    + "eviction unlinked it, but the hand-off's reference keeps it off the free list until the "
                    + "owner pops it, and every other entry is heavier than C: C turned away (no invariant broken; "
                    + "the floor rose to 51, C's next observation promotes it); Y promoted (shard 2)")
    @Outcome(id = ".*", expect = FORBIDDEN,
            desc = "A lock left behind, a tracked slot with a bad link, a live entry nobody links, two hand-offs, "
                    + "or Y not tracked after its next observation")
    @State
    public static class Replace {
        final LinkLockFixture f = fullShard();

        @Actor
        public void evict(IIIII_Result r) {
            f.shards.shardFor(f.worker1).promote(Keys.HASH_C, KEY_C, null, 0, 0, null, f.worker1);
        }

        @Actor
        public void replace(IIIII_Result r) {
            f.observe(2, Keys.HASH_Y, KEY_Y, LinkLockFixture.HEAVY, f.worker2);
        }

        @Arbiter
        public void arbiter(IIIII_Result r) {
            r.r1 = (int) f.tracker(Keys.HASH_Y);
            r.r2 = (int) f.stats.sum(StatsLayout.HAND_OFFS);
            r.r3 = (int) f.tracker(Keys.HASH_C);
            int bad = f.violations();
            f.observe(3, Keys.HASH_Y, KEY_Y, 1, f.worker3);
            r.r4 = bad | f.violations();
            r.r5 = (int) f.tracker(Keys.HASH_Y);
        }
    }
}
