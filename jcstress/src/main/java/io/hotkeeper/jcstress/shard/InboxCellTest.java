package io.hotkeeper.jcstress.shard;

import io.hotkeeper.engine.shard.PromotionInbox;
import io.hotkeeper.engine.shard.ShardLayout;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The inbox cell of a shared key shard ({@link PromotionInbox}): a promoter that found the shard busy copies
 * its key into a free cell and publishes it with a release store of FULL; the shard's owner takes a FULL cell
 * with an acquire load and frees it with a release store of EMPTY. Whatever the interleaving, the owner (or the
 * next owner, the arbiter) carries out each key left there exactly once and reads it whole.
 *
 * <p>Codes for what a take saw: 0 nothing, 1 key G whole, 2 key H whole, 4 anything else (a torn key: bytes or
 * hash not yet written).
 *
 * <p>Run: {@code jcstress/run -- -t InboxCellTest}.
 */
public final class InboxCellTest {
    /** Key bytes: long enough that a copy in progress spans several stores. */
    static final int KEY_BYTES = 256;
    static final long HASH_G = 0x6A09E667F3BCC908L;
    static final long HASH_H = 0xBB67AE8584CAA73BL;

    private InboxCellTest() {
    }

    /** A key of {@link #KEY_BYTES} bytes, each {@code fill}. */
    static MemorySegment key(byte fill) {
        MemorySegment key = Arena.ofAuto().allocate(KEY_BYTES);
        key.fill(fill);
        return key;
    }

    /** The code of what one take of {@code cells} saw (see the class comment). */
    static int take(PromotionInbox cells) {
        int[] seen = {0};
        cells.takeAll((hash, segment, offset, length, truncated, kind, worker) ->
                seen[0] |= code(hash, segment, offset, length, truncated, kind), 0);
        return seen[0];
    }

    static int code(long hash, MemorySegment segment, long offset, int length, boolean truncated, int kind) {
        byte fill = hash == HASH_G ? (byte) 0x11 : hash == HASH_H ? (byte) 0x22 : 0;
        if (fill == 0 || length != KEY_BYTES || truncated || kind != ShardLayout.KIND_BYTES) {
            return 4;
        }
        for (int i = 0; i < length; i++) {
            if (segment.get(java.lang.foreign.ValueLayout.JAVA_BYTE, offset + i) != fill) {
                return 4;
            }
        }
        return hash == HASH_G ? 1 : 2;
    }

    static PromotionInbox oneCell() {
        return new PromotionInbox(Arena.ofAuto().allocate(ShardLayout.inboxCellBytes(KEY_BYTES), 64), KEY_BYTES);
    }

    /** r1: the promoter's offer (1 left in the cell); r2: what the owner took; r3: what the arbiter took after. */
    @JCStressTest
    @Description("A promoter hands a key over while the owner takes the cells: read whole, carried out once")
    @Outcome(id = "1, 2, 0", expect = ACCEPTABLE,
            desc = "The owner's acquire load saw FULL: it read the whole key, carried it out, freed the cell")
    @Outcome(id = "1, 0, 2", expect = ACCEPTABLE,
            desc = "The owner came first (EMPTY or FILLING): the key waited for the next owner, who read it whole")
    @Outcome(id = ".*", expect = FORBIDDEN,
            desc = "A torn key (FULL seen before its bytes or hash), a key lost, or carried out twice")
    @State
    public static class PromoterVersusOwner {
        final PromotionInbox cells = oneCell();
        final MemorySegment h = key((byte) 0x22);

        @Actor
        public void promoter(III_Result r) {
            r.r1 = cells.offer(HASH_H, 0, h, 0, KEY_BYTES, null) ? 1 : 0;
        }

        @Actor
        public void owner(III_Result r) {
            r.r2 = take(cells);
        }

        @Arbiter
        public void arbiter(III_Result r) {
            r.r3 = take(cells);
        }
    }

    /**
     * The cell holds G when the test starts. r1: the promoter's offer of H; r2: what the owner took; r3: what the
     * arbiter took after.
     */
    @JCStressTest
    @Description("A promoter offers a key while the owner frees the cell's previous one: no overwrite, no loss")
    @Outcome(id = "0, 1, 0", expect = ACCEPTABLE,
            desc = "The promoter found the cell still FULL with G: no cell for H (dropped, as without cells)")
    @Outcome(id = "1, 1, 2", expect = ACCEPTABLE,
            desc = "The owner took G and freed the cell; the promoter's CAS then took it for H, which the next "
                    + "owner read whole")
    @Outcome(id = ".*", expect = FORBIDDEN,
            desc = "G overwritten before it was taken, H lost or torn, or either carried out twice")
    @State
    public static class PromoterVersusFreeing {
        final PromotionInbox cells = oneCell();
        final MemorySegment h = key((byte) 0x22);

        {
            cells.offer(HASH_G, 0, key((byte) 0x11), 0, KEY_BYTES, null);
        }

        @Actor
        public void promoter(III_Result r) {
            r.r1 = cells.offer(HASH_H, 0, h, 0, KEY_BYTES, null) ? 1 : 0;
        }

        @Actor
        public void owner(III_Result r) {
            r.r2 = take(cells);
        }

        @Arbiter
        public void arbiter(III_Result r) {
            r.r3 = take(cells);
        }
    }
}
