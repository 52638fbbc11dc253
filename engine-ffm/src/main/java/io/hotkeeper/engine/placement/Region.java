package io.hotkeeper.engine.placement;

import io.hotkeeper.engine.Placement;
import java.lang.foreign.MemorySegment;

/**
 * One region a {@link RegionAllocator} handed out, as it was allocated.
 *
 * @param name the region's name ({@code "table"}, {@code "salt"}, {@code "shard-3"}, ...)
 * @param bytes its size
 * @param requested the policy asked for
 * @param effective the policy applied ({@code LOCAL} resolves to the node it found)
 * @param fallbackReason why {@code effective} differs from what was asked, or the empty string
 * @param segment the memory, for the page query; its arena decides when it is freed
 */
record Region(String name, long bytes, Placement requested, Placement effective, String fallbackReason,
              MemorySegment segment) {
}
