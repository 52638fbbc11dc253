package io.hotkeeper.engine.core;

import io.hotkeeper.engine.CombiningMode;
import io.hotkeeper.engine.Hotkeeper;
import io.hotkeeper.engine.table.BucketTable;
import io.hotkeeper.engine.table.TableLayout;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The whole-table walks of decay and of the derived total weight visit every slot of a bucket, not only its
 * occupied prefix: a claim that raced a reset can leave a word above an empty slot (Hotkeeper.reset, "what holds
 * after a race"), and that word still holds units, which decay must scale and the total must count.
 */
class SlotWalkPastHoleTest {

    @Test
    void decayAndTheWeightWalkReachAWordAboveAnEmptySlot() {
        // Stats off: totalWeight is the walk over the slots (TableSet.slotWeight).
        try (Hotkeeper hk = Hotkeeper.builder().memoryBytes(4096).seed(5).combining(CombiningMode.OFF).build()) {
            BucketTable t = Internals.tables(hk).table(0);
            // What a racing claim leaves: bucket 3 holds a word in slot 2 above its empty slots 0 and 1, and
            // bucket 4 a word in its last slot only.
            t.putSlot(3, 2, TableLayout.word(0x155, 40));
            t.putSlot(4, TableLayout.SLOTS_PER_BUCKET - 1, TableLayout.word(0x2AA, 8));
            assertEquals(48, hk.totalWeight(), "the weight walk counts the words above the holes");

            hk.decay(0.5);

            assertEquals(20, TableLayout.count(t.laSlot(3, 2)), "decay scales the word above the hole");
            assertEquals(4, TableLayout.count(t.laSlot(4, TableLayout.SLOTS_PER_BUCKET - 1)));
            assertEquals(24, hk.totalWeight());
        }
    }
}
