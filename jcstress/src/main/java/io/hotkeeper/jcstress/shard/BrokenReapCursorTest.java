package io.hotkeeper.jcstress.shard;

import io.hotkeeper.engine.shard.ShardLayout;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJJJ_Result;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;

/**
 * NEGATIVE CONTROL for {@link ReapCursorTest}, not a test of Hotkeeper: the same race on {@link BrokenKeyShard},
 * whose pop unlinks a handed-over entry without checking MEMBER (generated at build time from KeyShard.java, with that
 * one edit: jcstress/src/build/java/GenerateBrokenKeyShard.java). Only the interleaving where the cursor unlinked
 * first goes wrong: A is unlinked twice (the shard's reference dropped twice, so A is freed under the pusher's
 * reference and the pop's release then underflows it). Results as in the real test.
 */
@JCStressTest
@Description("NEGATIVE CONTROL: a pop that unlinks without the MEMBER check double-unlinks what the cursor reaped")
@Outcome(id = "1, [02], 1, 1, 1", expect = ACCEPTABLE, desc = "The cursor did not meet a handed-over A")
@Outcome(id = "1, 1, .*", expect = ACCEPTABLE_INTERESTING,
        desc = "The cursor unlinked A before its pop, and the pop unlinked it again (any damage that follows "
                + "counts: the real test would show 1, 1, 1, 1, 1)")
@Outcome(id = ".*", expect = ACCEPTABLE, desc = "Other")
@State
public class BrokenReapCursorTest {
    static final int CAPACITY = ShardFixture.CAPACITY;
    static final int MAX_KEY_BYTES = ShardFixture.MAX_KEY_BYTES;

    final BrokenKeyShard shard;
    final long a;
    long fresh;

    public BrokenReapCursorTest() {
        MemorySegment segment = Arena.ofAuto().allocate(ShardLayout.shardBytes(CAPACITY, MAX_KEY_BYTES),
                ShardLayout.ALIGNMENT);
        shard = new BrokenKeyShard(0, segment, CAPACITY, MAX_KEY_BYTES, new BrokenKeyShard.Evictions() {
            @Override
            public long trackedCount(BrokenKeyShard s, int entry, long link) {
                return 0;
            }

            @Override
            public void rejected(long count) {
            }

            @Override
            public void evicting(BrokenKeyShard s, int entry, long link) {
            }

            @Override
            public void roomMade() {
            }
        });
        a = insert((byte) 0x41, 41);
    }

    long insert(byte fill, long hash) {
        if (!shard.tryEnter()) {
            return 0;
        }
        try {
            return shard.insertBytes(hash, 0, MemorySegment.ofArray(new byte[MAX_KEY_BYTES]).fill(fill), 0,
                    MAX_KEY_BYTES, 1);
        } finally {
            shard.exit();
        }
    }

    @Actor
    public void deleter(JJJJJ_Result r) {
        int entry = ShardLayout.linkEntry(a);
        if (shard.markDead(entry, ShardLayout.linkGeneration(a))) {
            shard.push(entry);
            r.r1 = 1;
        }
    }

    @Actor
    public void owner() {
        fresh = insert((byte) 0x42, 42);
    }

    @Arbiter
    public void arbiter(JJJJJ_Result r) {
        r.r2 = ReapCursorTest.classify(shard.state(ShardLayout.linkEntry(a)), ShardLayout.linkGeneration(a));
        if (shard.tryEnter()) {
            try {
                shard.drain();
            } finally {
                shard.exit();
            }
        }
        r.r3 = ShardLayout.generation(shard.state(ShardLayout.linkEntry(a))) - ShardLayout.linkGeneration(a);
        r.r4 = shard.live();
        r.r5 = fresh != 0 && shard.readKey(ShardLayout.linkEntry(fresh), ShardLayout.linkGeneration(fresh)) != null
                ? 1 : 0;
    }
}
