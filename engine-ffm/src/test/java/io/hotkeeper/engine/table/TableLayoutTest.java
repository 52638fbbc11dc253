package io.hotkeeper.engine.table;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;

class TableLayoutTest {
    private static final StructLayout BUCKET = MemoryLayout.structLayout(
            MemoryLayout.sequenceLayout(TableLayout.SLOTS_PER_BUCKET, ValueLayout.JAVA_LONG.withName("word"))
                    .withName("slots")).withName("bucket");

    @Test
    void constantsMatchTheStructLayout() {
        assertEquals(BUCKET.byteSize(), TableLayout.BUCKET_BYTES);
        assertEquals(64, TableLayout.BUCKET_BYTES);
        assertEquals(1 << TableLayout.BUCKET_SHIFT, TableLayout.BUCKET_BYTES);
        for (int s = 0; s < TableLayout.SLOTS_PER_BUCKET; s++) {
            long expected = BUCKET.byteOffset(PathElement.groupElement("slots"), PathElement.sequenceElement(s));
            assertEquals(expected, TableLayout.slotOffset(0, s));
            assertEquals(1024 + expected, TableLayout.slotOffset(1024, s));
        }
        assertEquals(ValueLayout.JAVA_LONG.byteAlignment(), TableLayout.SLOT_BYTES);
    }

    @Test
    void slotWordPacksFingerprintAndCount() {
        long fp = (1L << TableLayout.MAX_FINGERPRINT_BITS) - 1;
        long word = TableLayout.word(fp, TableLayout.MAX_COUNT);
        assertEquals(-1L, word | TableLayout.SECOND | TableLayout.TRACKED | TableLayout.PROMOTING);
        assertEquals(false, TableLayout.second(word | TableLayout.TRACKED | TableLayout.PROMOTING));
        assertEquals(true, TableLayout.second(word | TableLayout.SECOND));
        assertEquals(TableLayout.MAX_COUNT, TableLayout.count(word | TableLayout.SECOND));
        assertEquals(fp, TableLayout.fingerprint(word | TableLayout.SECOND));
        assertEquals((1L << 38) - 1, TableLayout.MAX_COUNT, "docs/format.md: a count has 38 bits");
        assertEquals(false, TableLayout.promoting(word | TableLayout.TRACKED));
        assertEquals(true, TableLayout.settled(word | TableLayout.TRACKED));
        assertEquals(false, TableLayout.settled(word | TableLayout.TRACKED | TableLayout.PROMOTING));
        assertEquals(false, TableLayout.tracked(word));
        assertEquals(true, TableLayout.tracked(word | TableLayout.TRACKED));
        assertEquals(TableLayout.MAX_COUNT, TableLayout.count(word | TableLayout.TRACKED | TableLayout.PROMOTING));
        assertEquals(fp, TableLayout.fingerprint(word | TableLayout.TRACKED | TableLayout.PROMOTING));
        assertEquals(fp, TableLayout.fingerprint(word));
        assertEquals(TableLayout.MAX_COUNT, TableLayout.count(word));
        long w = TableLayout.word(0x123456, 42);
        assertEquals(0x123456, TableLayout.fingerprint(w));
        assertEquals(42, TableLayout.count(w));
    }

    @Test
    void bitBudgetKeepsFingerprintAndSpareDisjointFromTheIndex() {
        assertEquals(23, TableLayout.fingerprintBits(6));
        assertEquals(23, TableLayout.fingerprintBits(9));
        assertEquals(12, TableLayout.fingerprintBits(TableLayout.MAX_INDEX_BITS));
        for (int bits = TableLayout.MIN_INDEX_BITS; bits <= TableLayout.MAX_INDEX_BITS; bits++) {
            assertEquals(true, bits + TableLayout.fingerprintBits(bits) <= TableLayout.SPARE_SHIFT);
        }
        assertEquals(4096, TableLayout.MIN_TABLE_BYTES);
        assertEquals(64L << 20, TableLayout.MAX_TABLE_BYTES);
        assertEquals(0xFFFF_FFFFL, TableLayout.spare(-1L));
    }
}
