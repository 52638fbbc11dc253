package io.hotkeeper.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/** Lays out a {@link PlacementReport} as an aligned text table. */
final class ReportTable {

    private static final String[] HEADER =
            {"region", "size", "requested", "effective", "pages", "untouched", "pages per node", "note"};
    /** Columns printed right-aligned (numbers). */
    private static final boolean[] RIGHT = {false, false, false, false, true, true, false, false};

    private ReportTable() {
    }

    static String format(PlacementReport report) {
        String fallback = "fallback: " + report.fallbackReason();
        boolean fellBack = false;
        List<String[]> rows = new ArrayList<>();
        rows.add(HEADER);
        for (RegionPlacement r : report.regions()) {
            String[] row = row(r);
            if (!report.fallbackReason().isEmpty() && row[7].startsWith(fallback)) {
                row[7] = "fallback" + row[7].substring(fallback.length());   // the reason is printed once, above
                fellBack = true;
            }
            rows.add(row);
        }
        int[] width = new int[HEADER.length];
        for (String[] row : rows) {
            for (int c = 0; c < row.length; c++) {
                width[c] = Math.max(width[c], row[c].length());
            }
        }
        StringBuilder out = new StringBuilder("NUMA: ").append(report.numa()).append('\n');
        if (fellBack) {
            out.append(fallback).append('\n');
        }
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder();
            for (int c = 0; c < row.length; c++) {
                String cell = c == row.length - 1 ? row[c]
                        : RIGHT[c] ? " ".repeat(width[c] - row[c].length()) + row[c]
                        : row[c] + " ".repeat(width[c] - row[c].length());
                line.append(cell).append(c == row.length - 1 ? "" : "  ");
            }
            out.append(line.toString().stripTrailing()).append('\n');
        }
        if (report.regions().isEmpty()) {
            out.append("(no regions)\n");
        }
        return out.toString();
    }

    private static String[] row(RegionPlacement r) {
        boolean known = r.placementKnown();
        String perNode = !known ? "?" : r.pagesPerNode().isEmpty() ? "-"
                : r.pagesPerNode().entrySet().stream().map(e -> e.getKey() + ":" + e.getValue())
                        .collect(Collectors.joining(" "));
        return new String[] {r.name(), size(r.bytes()), r.requested().toString(), r.effective().toString(),
                known ? Long.toString(r.pages()) : "?", known ? Long.toString(r.untouchedPages()) : "?",
                perNode, r.note()};
    }

    /** {@code 64 MiB}, {@code 12 KiB}, {@code 128 B}: the largest binary unit that divides the size exactly. */
    static String size(long bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
        int u = 0;
        while (u < units.length - 1 && bytes != 0 && bytes % 1024 == 0) {
            bytes /= 1024;
            u++;
        }
        return bytes + " " + units[u];
    }
}
