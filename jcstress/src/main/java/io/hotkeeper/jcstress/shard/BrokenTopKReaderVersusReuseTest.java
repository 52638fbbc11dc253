package io.hotkeeper.jcstress.shard;

import io.hotkeeper.engine.shard.ShardLayout;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;

/**
 * Negative control for {@link TopKReaderVersusReuseTest}: the same race, but the reader copies the key bytes
 * straight out of the shard segment without the generation check. It can return the new key (or a mix) under
 * the old link: exactly what {@code KeyShard.readKey}'s seqlock prevents. Excluded from the normal run;
 * {@code jcstress/run --negative} expects the interesting outcome to show.
 */
@JCStressTest
@Description("Negative control: reading key bytes without the generation check sees the reused entry's key")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "Copied the old key before reuse")
@Outcome(id = "[23], 1", expect = ACCEPTABLE_INTERESTING,
        desc = "The unchecked reader returned the new key or a mix under the old link: the bug readKey prevents")
@Outcome(id = ".*", expect = ACCEPTABLE, desc = "Other interleavings")
@State
public class BrokenTopKReaderVersusReuseTest {
    final ShardFixture f = new ShardFixture();
    final long old = f.insert((byte) 0x55, 55);

    @Actor
    public void reader(JJ_Result r) {
        MemorySegment seg = f.shard.segment();
        long base = ShardLayout.entryOffset(ShardLayout.linkEntry(old)) + ShardLayout.KEY;
        boolean allOld = true;
        boolean allNew = true;
        for (int i = 0; i < ShardFixture.MAX_KEY_BYTES; i++) {
            byte x = seg.get(ValueLayout.JAVA_BYTE, base + i);
            allOld &= x == 0x55;
            allNew &= x == 0x66;
        }
        r.r1 = allOld ? 1 : allNew ? 2 : 3;
    }

    @Actor
    public void owner(JJ_Result r) {
        r.r2 = f.replaceWithNewKey(old, (byte) 0x66);
    }
}
