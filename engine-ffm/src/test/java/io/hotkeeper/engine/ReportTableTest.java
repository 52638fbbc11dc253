package io.hotkeeper.engine;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The placement report's size column (ReportTable is package-private). */
class ReportTableTest {
    @Test
    void sizesUseTheLargestExactUnit() {
        assertEquals("128 B", ReportTable.size(128));
        assertEquals("12 KiB", ReportTable.size(12 * 1024));
        assertEquals("1025 KiB", ReportTable.size(1025 * 1024));
        assertEquals("3 GiB", ReportTable.size(3L << 30));
        assertEquals("100 B", ReportTable.size(100));
    }
}
