package io.hotkeeper.engine.placement;

import io.hotkeeper.engine.RegionPlacement;
import io.hotkeeper.numa.Numa;
import io.hotkeeper.numa.NumaException;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Asks the kernel, through {@link Numa#nodesOfPages}, where a region's pages are. */
final class PageCensus {

    private PageCensus() {
    }

    /** The placement of {@code region} now; never throws for a freed region or a failed query. */
    static RegionPlacement of(Numa numa, Region region) {
        List<String> notes = new ArrayList<>();
        if (!region.fallbackReason().isEmpty()) {
            notes.add("fallback: " + region.fallbackReason());
        }
        int[] status = query(numa, region, notes);
        if (status == null) {
            return new RegionPlacement(region.name(), region.bytes(), region.requested(), region.effective(),
                    -1, Map.of(), 0, String.join("; ", notes));
        }
        TreeMap<Integer, Long> perNode = new TreeMap<>();
        long untouched = 0;
        long other = 0;
        for (int s : status) {
            if (s >= 0) {
                perNode.merge(s, 1L, Long::sum);
            } else if (s == Numa.PAGE_NOT_PRESENT) {
                untouched++;
            } else {
                other++;
            }
        }
        if (other > 0) {
            notes.add(other + " pages without memory of their own (read but never written, or unmapped)");
        }
        return new RegionPlacement(region.name(), region.bytes(), region.requested(), region.effective(),
                status.length, perNode, untouched, String.join("; ", notes));
    }

    /** The per-page status, or {@code null} with a note saying why it is unknown. */
    private static int[] query(Numa numa, Region region, List<String> notes) {
        if (!numa.isAvailable()) {
            // A fallback note already says why libnuma is unavailable; do not repeat it.
            notes.add(region.fallbackReason().isEmpty() ? "pages unknown: " + numa.unavailableReason()
                    : "pages unknown");
            return null;
        }
        if (!region.segment().scope().isAlive()) {
            notes.add("freed: its arena is closed");
            return null;
        }
        try {
            return numa.nodesOfPages(region.segment());
        } catch (IllegalStateException e) {
            notes.add("freed: its arena is closed");
        } catch (NumaException e) {
            notes.add("page query failed: " + e.getMessage());
        }
        return null;
    }
}
