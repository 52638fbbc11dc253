package io.hotkeeper.engine;

import io.hotkeeper.engine.combine.CombinerLayout;
import io.hotkeeper.engine.core.Internals;
import io.hotkeeper.engine.salt.SaltLayout;
import io.hotkeeper.engine.shard.KeyShards;
import io.hotkeeper.engine.shard.ShardLayout;
import io.hotkeeper.engine.stats.StatsLayout;
import io.hotkeeper.engine.table.TableLayout;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every layout descriptor's {@code describe} decodes what the engine wrote. */
class LayoutDescribeTest {
    @Test
    void aTableDescribesItsSlots() {
        try (Hotkeeper hk = Hotkeeper.builder().memoryBytes(4096).build()) {
            for (int i = 0; i < 5; i++) {
                hk.observe(42L);
            }
            MemorySegment table = Internals.tables(hk).table(0).segment();
            String all = TableLayout.describe(table, 0, Integer.MAX_VALUE);
            assertEquals(table.byteSize() / TableLayout.BUCKET_BYTES, all.lines().count());
            assertEquals(1, all.lines().filter(l -> l.contains("count=5 T")).count(), all);
            assertEquals("empty", TableLayout.describeWord(0));
            assertEquals("fp=0x1f count=3 T P", TableLayout.describeWord(TableLayout.word(0x1f, 3)
                    | TableLayout.TRACKED | TableLayout.PROMOTING));
            assertEquals("fp=0x1f count=3 S", TableLayout.describeWord(TableLayout.word(0x1f, 3)
                    | TableLayout.SECOND));
        }
    }

    @Test
    void aShardDescribesItsPagesAndEntries() {
        try (Hotkeeper hk = Hotkeeper.builder().memoryBytes(4096).build()) {
            for (int i = 0; i < 3; i++) {
                hk.observe("alpha");
            }
            hk.observe(42L);
            KeyShards shards = Internals.keyShards(hk);
            String text = ShardLayout.describe(shards.shards().get(0).segment(), shards.maxKeyBytes());
            assertTrue(text.startsWith("inUse=2 live=2 "), text);
            assertTrue(text.contains("page 0: class "), text);
            assertEquals(2, text.lines().filter(l -> l.contains(" MEMBER")).count(), text);
            assertTrue(text.contains(" len=5 kind=" + ShardLayout.KIND_TEXT), text);
            assertTrue(text.contains(" len=8 kind=" + ShardLayout.KIND_LONG), text);
        }
    }

    @Test
    void saltStatsAndCombinerSegmentsDescribeTheirWords() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment salt = arena.allocate(SaltLayout.segmentBytes(2));
            salt.set(ValueLayout.JAVA_LONG, SaltLayout.counterOffset(1), 77);
            assertEquals("salt shard 0: counter=0\nsalt shard 1: counter=77\n", SaltLayout.describe(salt));

            MemorySegment stats = arena.allocate(2 * StatsLayout.STRIPE_BYTES);
            stats.set(ValueLayout.JAVA_LONG, StatsLayout.stripeOffset(1) + StatsLayout.OBSERVED_WEIGHT, 9);
            stats.set(ValueLayout.JAVA_LONG, StatsLayout.stripeOffset(1) + StatsLayout.CLAIMS, 4);
            String stripe = StatsLayout.describe(stats, 1);
            assertTrue(stripe.startsWith("stripe 1: refreshes=0 claims=4 "), stripe);
            assertTrue(stripe.endsWith(" combined=0 weight=9\n"), stripe);

            MemorySegment block = arena.allocate(CombinerLayout.blockBytes(16));
            long entry = CombinerLayout.HEADER_BYTES + 3L * CombinerLayout.ENTRY_BYTES;
            block.set(ValueLayout.JAVA_LONG, entry + CombinerLayout.HASH, 0xabcL);
            block.set(ValueLayout.JAVA_LONG, entry + CombinerLayout.STATE, CombinerLayout.state(100, 7));
            assertEquals("gate=0\nentry 3: hash=0xabc base=100 pending=7\n", CombinerLayout.describe(block));
        }
    }
}
