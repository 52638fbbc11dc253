package io.hotkeeper.jcstress.shard;

import io.hotkeeper.engine.shard.KeyShard;
import io.hotkeeper.engine.shard.ShardLayout;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJ_Result;

import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;

/**
 * NEGATIVE CONTROL, not a test of Hotkeeper: {@link DeleterVersusSameKeyReuseTest} with a deleter whose gate checks
 * the entry's recorded slot and hash instead of the link's generation, as a link without a generation (docs/design.md,
 * "A 4-byte link") would have to, and without that design's rule that only the holder of the slot's lock deletes.
 * When the owner has freed the entry and promoted the same key back into the same slot and entry first, slot and
 * hash match the new incarnation, so the delayed deleter marks the live key dead and the owner's drain deletes it:
 * ACCEPTABLE_INTERESTING; {@code jcstress/run --negative} fails if that never shows up.
 *
 * <p>Run: {@code jcstress/run --negative -- -t BrokenDeleterVersusSameKeyReuse}.
 */
@JCStressTest
@Description("NEGATIVE CONTROL: a deleter that checks slot and hash, not the generation, deletes the key promoted back")
@Outcome(id = "1, 1, 0", expect = ACCEPTABLE_INTERESTING,
        desc = "The owner reused the entry for the same key first; the deleter's slot-and-hash gate let it delete it")
@Outcome(id = ".*", expect = ACCEPTABLE, desc = "Other interleavings")
@State
public class BrokenDeleterVersusSameKeyReuseTest {
    /** Coordinates (MemorySegment, long byteOffset): an entry's state word, as KeyShard's own handle. */
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    final ShardFixture f = new ShardFixture();
    final long old = f.insert(DeleterVersusSameKeyReuseTest.FILL, DeleterVersusSameKeyReuseTest.HASH);
    long fresh;

    /** KeyShard.markDead with the generation check replaced by the recorded slot and hash (the bug). */
    static boolean markDeadBySlotAndHash(KeyShard shard, int entry, long slot, long hash) {
        long stateOffset = ShardLayout.entryOffset(entry) + ShardLayout.STATE;
        while (true) {
            long state = shard.state(entry);
            if ((state & ShardLayout.MEMBER) == 0 || (state & ShardLayout.DEAD) != 0
                    || shard.recordedSlot(entry) != slot || shard.recordedHash(entry) != hash) {
                return false;
            }
            if (LONG.compareAndSet(shard.segment(), stateOffset, state, (state | ShardLayout.DEAD) + ShardLayout.REF)) {
                return true;
            }
        }
    }

    @Actor
    public void deleter(JJJ_Result r) {
        int entry = ShardLayout.linkEntry(old);
        if (markDeadBySlotAndHash(f.shard, entry, 0, DeleterVersusSameKeyReuseTest.HASH)) {
            f.shard.push(entry);
            r.r1 = 1;
        }
    }

    @Actor
    public void owner(JJJ_Result r) {
        fresh = f.reinsertSameKey(old, DeleterVersusSameKeyReuseTest.FILL, DeleterVersusSameKeyReuseTest.HASH);
        r.r2 = fresh != 0 && ShardLayout.linkEntry(fresh) == ShardLayout.linkEntry(old) ? 1 : 0;
    }

    @Arbiter
    public void arbiter(JJJ_Result r) {
        f.drain();
        r.r3 = f.live(fresh);
    }
}
