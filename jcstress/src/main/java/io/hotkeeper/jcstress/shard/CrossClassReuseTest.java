package io.hotkeeper.jcstress.shard;

import io.hotkeeper.engine.shard.KeyShard;
import io.hotkeeper.engine.shard.ShardLayout;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJ_Result;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * A location reused across generations by a key of another size class: a shard of one page (the largest class,
 * 16-byte keys) has no page left for the 8-byte class, so after the owner deletes a 16-byte key, its next
 * {@code long} key takes that very entry, a larger one, which keeps its position and size. A reader holding the
 * old link copies the key by (entry, generation) meanwhile: it finds the state word where the link says, and its
 * seqlock returns the old key whole or nothing, never the long key's 8 bytes under the old link, never a mix,
 * never a length the old key did not have.
 *
 * <p>r1: the reader got 0 nothing, 1 the old key (16 x 0x55), 2 the new key, 3 anything else; r2: the owner's
 * long key reused the old entry (1); r3: the new key's class (1, the largest, as the only room left).
 * Run: {@code jcstress/run -- -t CrossClassReuseTest}.
 */
@JCStressTest
@Description("readKey vs reuse of the entry by a key of a smaller class: the old key whole, or nothing")
@Outcome(id = "1, 1, 1", expect = ACCEPTABLE, desc = "The reader copied the old key before the owner freed it")
@Outcome(id = "0, 1, 1", expect = ACCEPTABLE,
        desc = "The reader saw the entry dead, freed or reused (generation changed) and returned nothing")
@Outcome(id = ".*", expect = FORBIDDEN,
        desc = "The long key (or a mix) under the old link, or the entry not reused by the smaller class")
@State
public class CrossClassReuseTest {
    static final int MAX_KEY_BYTES = 16;

    final KeyShard shard;
    final long old;

    public CrossClassReuseTest() {
        MemorySegment segment = Arena.ofAuto().allocate(ShardLayout.shardBytesForPages(1, MAX_KEY_BYTES),
                ShardLayout.ALIGNMENT);
        shard = new KeyShard(0, segment, 4, MAX_KEY_BYTES, ShardFixture.NO_EVICTIONS);
        if (!shard.tryEnter()) {
            throw new IllegalStateException("fresh shard busy");
        }
        try {
            old = shard.insertBytes(55, 0, MemorySegment.ofArray(new byte[MAX_KEY_BYTES]).fill((byte) 0x55), 0,
                    MAX_KEY_BYTES, 1);
        } finally {
            shard.exit();
        }
    }

    @Actor
    public void reader(JJJ_Result r) {
        KeyShard.Key key = shard.readKey(ShardLayout.linkEntry(old), ShardLayout.linkGeneration(old));
        if (key == null) {
            r.r1 = 0;
            return;
        }
        byte[] b = key.bytes();
        boolean allOld = b.length == MAX_KEY_BYTES;
        for (byte x : b) {
            allOld &= x == 0x55;
        }
        r.r1 = allOld ? 1 : b.length == Long.BYTES ? 2 : 3;
    }

    @Actor
    public void owner(JJJ_Result r) {
        if (!shard.tryEnter()) {
            return;
        }
        try {
            shard.deleteOwn(ShardLayout.linkEntry(old), ShardLayout.linkGeneration(old));
            long fresh = shard.insertLong(66, 0, 0x6666_6666_6666_6666L, 1);
            r.r2 = ShardLayout.linkEntry(fresh) == ShardLayout.linkEntry(old) ? 1 : 0;
            r.r3 = shard.pageClassOf(ShardLayout.linkEntry(fresh));
        } finally {
            shard.exit();
        }
    }
}
