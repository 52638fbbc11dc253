package io.hotkeeper.engine.placement;

import io.hotkeeper.engine.Placement;
import io.hotkeeper.engine.PlacementReport;
import io.hotkeeper.engine.RegionPlacement;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The operator's table. */
class PlacementReportTest {

    @Test
    void formatsAnAlignedTable() {
        PlacementReport report = new PlacementReport(
                "Numa[library=libnuma.so.1, available, nodes=[0, 1], cpus=4, pageSize=4096]", "why",
                List.of(new RegionPlacement("table", 64L << 20, Placement.LOCAL, Placement.node(1), 16384,
                                Map.of(1, 16000L, 0, 4L), 380, ""),
                        new RegionPlacement("salt", 128, Placement.LOCAL, Placement.DEFAULT, -1, Map.of(), 0,
                                "fallback: why; pages unknown")));
        assertEquals("""
                NUMA: Numa[library=libnuma.so.1, available, nodes=[0, 1], cpus=4, pageSize=4096]
                fallback: why
                region  size    requested  effective  pages  untouched  pages per node  note
                table   64 MiB  local      node:1     16384        380  0:4 1:16000
                salt    128 B   local      default        ?          ?  ?               fallback; pages unknown
                """, report.format());
        assertEquals(report.format(), report.toString());
        assertEquals(List.of(0, 1), List.copyOf(report.region("table").nodes()));
        assertThrows(NoSuchElementException.class, () -> report.region("stats"));
    }

    @Test
    void noFallbackLineWhenNoRegionFellBack() {
        PlacementReport report = new PlacementReport("n", "one NUMA node",
                List.of(new RegionPlacement("table", 4096, Placement.DEFAULT, Placement.DEFAULT, 1, Map.of(0, 1L), 0,
                        "")));
        assertEquals("""
                NUMA: n
                region  size   requested  effective  pages  untouched  pages per node  note
                table   4 KiB  default    default        1          0  0:1
                """, report.format());
    }

    @Test
    void anEmptyReportSaysSo() {
        assertEquals("NUMA: n\nregion  size  requested  effective  pages  untouched  pages per node  note\n(no regions)\n",
                new PlacementReport("n", "", List.of()).format());
    }
}
