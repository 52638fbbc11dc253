package io.hotkeeper.engine;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * Where one region's pages actually are, as the kernel reports them ({@code numa_move_pages} in query mode).
 *
 * @param name the region's name
 * @param bytes its size in bytes
 * @param requested the policy asked for
 * @param effective the policy applied: {@code default} after a fallback, {@code node:N} for {@code local}
 * @param pages pages the region spans, or {@code -1} when placement is unknown (libnuma unavailable,
 *              region freed, query failed: {@code note} says which)
 * @param pagesPerNode resident pages per node, ascending by node; empty when unknown
 * @param untouchedPages pages not faulted in yet (never written): they have no node until first touch
 * @param note the fallback reason and anything else an operator should know, or the empty string
 */
public record RegionPlacement(String name, long bytes, Placement requested, Placement effective, long pages,
                              Map<Integer, Long> pagesPerNode, long untouchedPages, String note) {

    /**
     * Checks the components and freezes {@code pagesPerNode} in node order.
     *
     * <p>Threads: any. Progress: wait-free (copies the map).
     */
    public RegionPlacement {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(requested, "requested");
        Objects.requireNonNull(effective, "effective");
        Objects.requireNonNull(note, "note");
        pagesPerNode = Collections.unmodifiableMap(new TreeMap<>(Objects.requireNonNull(pagesPerNode, "pagesPerNode")));
    }

    /**
     * Whether the page query answered for this region.
     *
     * <p>Threads: any. Progress: wait-free.
     *
     * @return {@code true} if {@link #pages()}, {@link #pagesPerNode()} and {@link #untouchedPages()} are facts
     */
    public boolean placementKnown() {
        return pages >= 0;
    }

    /**
     * The nodes holding at least one page of the region.
     *
     * <p>Threads: any. Progress: wait-free.
     *
     * @return the nodes, ascending; empty if nothing is resident or placement is unknown
     */
    public Set<Integer> nodes() {
        return pagesPerNode.keySet();
    }
}
