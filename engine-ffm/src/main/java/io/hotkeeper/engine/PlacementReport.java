package io.hotkeeper.engine;

import java.util.List;
import java.util.Objects;

/**
 * Where every native region of one instance lives, queried from the kernel when the report was made.
 * {@link #format()} prints it as a table for operators, e.g.
 *
 * <pre>
 * NUMA: Numa[library=libnuma.so.1, available, nodes=[0, 1], cpus=64, pageSize=4096]
 * region   size    requested  effective  pages  untouched  pages per node  note
 * table    1 MiB   local      node:1       256        128  1:128
 * salt     128 B   local      node:1         1          0  1:1
 * shard-0  64 KiB  local      node:0        16          0  0:16
 * </pre>
 *
 * @param numa the facade the allocator used ({@code Numa.toString()}: library, availability, nodes)
 * @param fallbackReason why placement falls back to plain allocation (no libnuma, one node, no native access),
 *                       or the empty string
 * @param regions one entry per region, in allocation order
 */
public record PlacementReport(String numa, String fallbackReason, List<RegionPlacement> regions) {

    /**
     * Checks the components and freezes {@code regions}.
     *
     * <p>Threads: any. Progress: wait-free (copies the list).
     */
    public PlacementReport {
        Objects.requireNonNull(numa, "numa");
        Objects.requireNonNull(fallbackReason, "fallbackReason");
        regions = List.copyOf(regions);
    }

    /**
     * The entry for the first region called {@code name}.
     *
     * <p>Threads: any. Progress: wait-free (linear scan).
     *
     * @param name a region name
     * @return the entry
     * @throws java.util.NoSuchElementException if no region has that name
     */
    public RegionPlacement region(String name) {
        return regions.stream().filter(r -> r.name().equals(name)).findFirst()
                .orElseThrow(() -> new java.util.NoSuchElementException("region=" + name + ": not in the report"));
    }

    /**
     * The report as a readable table: a line naming the NUMA facade, a {@code fallback:} line with the reason
     * if some region fell back, then one row per region with its size, requested and effective policy, pages
     * spanned, pages not touched yet, resident pages per node ({@code node:pages}) and the note ({@code ?}
     * where placement is unknown; {@code fallback} stands for the reason printed above).
     *
     * <p>Threads: any. Progress: wait-free.
     *
     * @return the table, lines separated by {@code \n}, ending with a newline
     */
    public String format() {
        return ReportTable.format(this);
    }

    /**
     * Same as {@link #format()}.
     *
     * <p>Threads: any. Progress: wait-free.
     */
    @Override
    public String toString() {
        return format();
    }
}
