package io.hotkeeper.jcstress.shard;

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
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * NEGATIVE CONTROL, not a test of Hotkeeper: {@link InboxCellTest.PromoterVersusOwner} with a copy of the
 * inbox cell that publishes FULL <em>before</em> it copies the hash and the key (one write early), so the
 * owner's acquire load can see FULL while the cell still holds nothing of the key. The production cell
 * ({@code PromotionInbox.offer}) copies first and publishes last, with a release store. The copy keeps the cell
 * layout of ShardLayout and the same owner side.
 *
 * <p>A store of FULL <em>after</em> the copy but plain (the pure memory-ordering variant) is not expected to show
 * anything on x86, which keeps stores in order; this control therefore plants the store one step early, as
 * {@code BrokenWorkerIdHandOverTest} does. {@code jcstress/run --negative} fails if the torn outcome never shows.
 *
 * <p>Run: {@code jcstress/run --negative -- -t BrokenInboxCell}.
 */
@JCStressTest
@Description("NEGATIVE CONTROL: a inbox cell published (FULL) before its key is copied in")
@Outcome(id = "1, 4, 0", expect = ACCEPTABLE_INTERESTING,
        desc = "The owner saw FULL and read the key before the promoter wrote it: a torn key carried out")
@Outcome(id = "1, 2, 0", expect = ACCEPTABLE, desc = "The owner came after the copy: it read the key whole")
@Outcome(id = "1, 0, 2", expect = ACCEPTABLE, desc = "The owner came before FULL: the arbiter read it whole")
@Outcome(id = ".*", expect = FORBIDDEN, desc = "Not expected even from the broken cell")
@State
public class BrokenInboxCellTest {
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    final MemorySegment cell = Arena.ofAuto().allocate(
            ShardLayout.inboxCellBytes(InboxCellTest.KEY_BYTES), 64);
    final MemorySegment h = InboxCellTest.key((byte) 0x22);

    /** The promoter's side with the bug: FULL first, then the hash, key word and bytes. */
    boolean brokenOffer(long hash, MemorySegment key) {
        if (!LONG.compareAndSet(cell, ShardLayout.INBOX_STATE, ShardLayout.INBOX_EMPTY,
                ShardLayout.INBOX_FILLING)) {
            return false;
        }
        // PLANTED BUG: published before anything of the request is in the cell.
        LONG.setRelease(cell, ShardLayout.INBOX_STATE, ShardLayout.INBOX_FULL);
        LONG.set(cell, ShardLayout.INBOX_HASH, hash);
        LONG.set(cell, ShardLayout.INBOX_KEY_WORD,
                ShardLayout.keyBits(InboxCellTest.KEY_BYTES, ShardLayout.KIND_BYTES));
        MemorySegment.copy(key, 0, cell, ShardLayout.INBOX_KEY, InboxCellTest.KEY_BYTES);
        return true;
    }

    /** The owner's side, as PromotionInbox.takeAll does it for one cell. */
    int take() {
        if ((long) LONG.getAcquire(cell, ShardLayout.INBOX_STATE) != ShardLayout.INBOX_FULL) {
            return 0;
        }
        long word = (long) LONG.get(cell, ShardLayout.INBOX_KEY_WORD);
        int code = InboxCellTest.code((long) LONG.get(cell, ShardLayout.INBOX_HASH), cell,
                ShardLayout.INBOX_KEY, ShardLayout.keyLength(word), (word & ShardLayout.TRUNCATED) != 0,
                ShardLayout.keyKind(word));
        LONG.setRelease(cell, ShardLayout.INBOX_STATE, ShardLayout.INBOX_EMPTY);
        return code;
    }

    @Actor
    public void promoter(III_Result r) {
        r.r1 = brokenOffer(InboxCellTest.HASH_H, h) ? 1 : 0;
    }

    @Actor
    public void owner(III_Result r) {
        r.r2 = take();
    }

    @Arbiter
    public void arbiter(III_Result r) {
        r.r3 = take();
    }
}
