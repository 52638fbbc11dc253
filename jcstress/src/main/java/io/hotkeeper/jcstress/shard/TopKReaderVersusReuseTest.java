package io.hotkeeper.jcstress.shard;

import io.hotkeeper.engine.shard.KeyShard;
import io.hotkeeper.engine.shard.ShardLayout;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;


import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * A top-k reader copies an entry's key by (generation, entry) while the owner deletes the entry and reuses it
 * for another key. The reader re-checks the generation after copying (a seqlock), so it returns the old key
 * whole or nothing: never the new key under the old link, never a mix of both.
 *
 * <p>r1: what the reader got: 0 nothing, 1 the old key (16 x 0x55), 2 the new key (16 x 0x66), 3 a mix;
 * r2: the owner reused the same entry (1). Run: {@code jcstress/run -- -t TopKReaderVersusReuseTest}.
 */
@JCStressTest
@Description("readKey vs the owner freeing and reusing the entry: the old key whole, or nothing")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "The reader copied the old key before the owner freed the entry")
@Outcome(id = "0, 1", expect = ACCEPTABLE,
        desc = "The reader saw the entry dead, freed or reused (generation changed) and returned nothing")
@Outcome(id = ".*", expect = FORBIDDEN,
        desc = "The new key reported under the old link, a torn key mixing both, or the entry not reused")
@State
public class TopKReaderVersusReuseTest {
    final ShardFixture f = new ShardFixture();
    final long old = f.insert((byte) 0x55, 55);

    @Actor
    public void reader(JJ_Result r) {
        KeyShard.Key key = f.shard.readKey(ShardLayout.linkEntry(old), ShardLayout.linkGeneration(old));
        r.r1 = classify(key);
    }

    @Actor
    public void owner(JJ_Result r) {
        r.r2 = f.replaceWithNewKey(old, (byte) 0x66);
    }

    private static long classify(KeyShard.Key key) {
        if (key == null) {
            return 0;
        }
        byte[] b = key.bytes();
        if (b.length != ShardFixture.MAX_KEY_BYTES) {
            return 3;
        }
        boolean allOld = true;
        boolean allNew = true;
        for (byte x : b) {
            allOld &= x == 0x55;
            allNew &= x == 0x66;
        }
        return allOld ? 1 : allNew ? 2 : 3;
    }
}
