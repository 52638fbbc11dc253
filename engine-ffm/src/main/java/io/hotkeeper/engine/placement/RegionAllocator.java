package io.hotkeeper.engine.placement;

import io.hotkeeper.numa.Numa;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Allocates Hotkeeper's named native regions ({@code "table"}, {@code "salt"}, {@code "stats"},
 * {@code "shard-3"}, ...) from a caller's {@link Arena} according to a {@link Placement}, through the
 * {@link Numa} facade, and remembers each one for {@link #report()}.
 *
 * <h2>Memory</h2>
 * Every region is zero-filled, aligned as asked, and owned by the arena: closing the arena frees it exactly
 * once ({@code numa_free} for libnuma memory, the arena's own free otherwise); afterwards any access throws
 * {@link IllegalStateException}. {@link Placement#DEFAULT} is {@code arena.allocate}, which zero-fills and
 * so first-touches every page from the allocating thread. The other policies take a fresh
 * {@code numa_alloc_*} mapping, zero by construction and page aligned: its pages stay untouched, and get
 * their node from the policy, when first written. An alignment above the page size is met by allocating
 * {@code alignment - pageSize} bytes more and returning an aligned slice.
 *
 * <h2>Fallback</h2>
 * When placement cannot work — libnuma missing or unusable ({@code numa_available() == -1}, native access
 * denied) or a machine with a single node — every policy other than {@code DEFAULT} is served by
 * {@code arena.allocate}: the region's effective policy is {@code default} and the reason is recorded. The
 * first such region logs one line through {@code System.getLogger("io.hotkeeper.placement")}
 * ({@code WARNING} when libnuma is unusable, {@code INFO} for one node); later ones log nothing. A
 * {@link Placement#node(int) node} that does not exist is never a fallback: it is an
 * {@link IllegalArgumentException} on every machine.
 *
 * <h2>Threads</h2>
 * Any thread may allocate and report at any time; the record of regions is a concurrent queue. The allocator
 * keeps each region's segment reachable (for the report), so use it with arenas that are closed explicitly.
 */
public final class RegionAllocator {

    /** Logger name of the one fallback line. */
    public static final String LOGGER_NAME = "io.hotkeeper.placement";

    private final Numa numa;
    private final System.Logger logger;
    private final String fallbackReason;
    private final AtomicBoolean fallbackLogged = new AtomicBoolean();
    private final Queue<Region> regions = new ConcurrentLinkedQueue<>();
    /** Bytes of the regions handed out and not yet reported freed (see {@link NativeBytes}). */
    private final AtomicLong allocatedBytes = new AtomicLong();

    /**
     * An allocator over the system libnuma ({@code Numa.system()}).
     *
     * <p>Threads: any. Progress: blocking on the first use of {@code Numa.system()} (loads libnuma), then
     * wait-free.
     */
    public RegionAllocator() {
        this(Numa.system());
    }

    /** An allocator over {@code numa} (tests: {@code Numa.load("libnuma-does-not-exist.so")}). */
    RegionAllocator(Numa numa) {
        this(numa, System.getLogger(LOGGER_NAME), false);
    }

    /**
     * The full constructor.
     *
     * @param numa the facade
     * @param logger receives the one fallback line
     * @param placeOnOneNode {@code true} to use libnuma even on a single-node machine (tests of the libnuma
     *        path; in production one node is a fallback, placement having no effect there)
     */
    RegionAllocator(Numa numa, System.Logger logger, boolean placeOnOneNode) {
        this.numa = Objects.requireNonNull(numa, "numa");
        this.logger = Objects.requireNonNull(logger, "logger");
        this.fallbackReason = !numa.isAvailable() ? "libnuma unavailable: " + numa.unavailableReason()
                : numa.nodeCount() == 1 && !placeOnOneNode
                ? "one NUMA node (nodes=" + numa.nodes() + "), placement has no effect"
                : "";
    }

    /**
     * Allocates region {@code name} of {@code bytes} bytes aligned to {@code alignment} from {@code arena},
     * placed by {@code placement}, and records it. See the class documentation for zeroing, lifetime and
     * fallback. {@link Placement#LOCAL} resolves to the node of the calling thread's CPU now.
     *
     * <p>Threads: any that may allocate from {@code arena}. Progress: blocking ({@code mmap},
     * {@code mbind}).
     *
     * @param arena owns the region
     * @param name the region's name in the report
     * @param bytes size, positive
     * @param alignment a power of two (Hotkeeper's regions use 128)
     * @param placement the policy
     * @return a zeroed native segment of {@code bytes} bytes, {@code alignment}-aligned, scoped to {@code arena}
     * @throws IllegalArgumentException if {@code name} is blank, {@code bytes <= 0}, {@code alignment} is not
     *         a power of two, or {@code placement} names a node that does not exist
     *         ({@code node=7: available nodes are [0]})
     * @throws IllegalStateException if {@code arena} is closed
     * @throws OutOfMemoryError if the memory cannot be allocated
     */
    public MemorySegment allocate(Arena arena, String name, long bytes, long alignment, Placement placement) {
        Objects.requireNonNull(arena, "arena");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(placement, "placement");
        if (name.isBlank()) {
            throw new IllegalArgumentException("name=\"" + name + "\": must not be blank");
        }
        if (bytes <= 0) {
            throw new IllegalArgumentException("bytes=" + bytes + ": must be positive");
        }
        if (alignment <= 0 || Long.bitCount(alignment) != 1) {
            throw new IllegalArgumentException("alignment=" + alignment + ": must be a power of two");
        }
        if (placement.kind() == Placement.Kind.NODE && !numa.nodes().contains(placement.nodeNumber())) {
            throw new IllegalArgumentException("node=" + placement.nodeNumber() + ": available nodes are "
                    + numa.nodes());
        }
        Region region;
        if (placement.kind() == Placement.Kind.DEFAULT) {
            region = new Region(name, bytes, placement, placement, "", arena.allocate(bytes, alignment));
        } else if (!fallbackReason.isEmpty()) {
            logFallbackOnce(name, placement);
            region = new Region(name, bytes, placement, Placement.DEFAULT, fallbackReason,
                    arena.allocate(bytes, alignment));
        } else {
            region = placeWithLibnuma(arena, name, bytes, alignment, placement);
        }
        regions.add(region);
        allocatedBytes.addAndGet(bytes);
        NativeBytes.add(bytes);
        return region.segment();
    }

    /**
     * Tells the allocator that the arena owning its regions was closed: the bytes of every region allocated so
     * far leave the process-wide count ({@link NativeBytes}). Call once per arena close, after the close.
     *
     * <p>Threads: any. Progress: wait-free.
     */
    public void arenaClosed() {
        NativeBytes.add(-allocatedBytes.getAndSet(0));
    }

    /**
     * Allocates a region owned by the calling thread — a per-thread key shard — on the node the calling
     * thread runs on now: {@link Placement#LOCAL} resolved at this call. A virtual thread gets the node of
     * the carrier it is mounted on. Call it from the owning thread, at its first use of the shard.
     *
     * <p>Threads: the owner of the region, with access to {@code arena}. Progress: blocking ({@code mmap},
     * {@code mbind}).
     *
     * @param arena owns the region
     * @param name the region's name in the report, e.g. {@code "shard-3"}
     * @param bytes size, positive
     * @param alignment a power of two
     * @return a zeroed native segment, as {@link #allocate} returns
     * @throws IllegalArgumentException if {@code name} is blank, {@code bytes <= 0} or {@code alignment} is
     *         not a power of two
     * @throws IllegalStateException if {@code arena} is closed
     * @throws OutOfMemoryError if the memory cannot be allocated
     */
    public MemorySegment allocateOnCurrentNode(Arena arena, String name, long bytes, long alignment) {
        return allocate(arena, name, bytes, alignment, Placement.LOCAL);
    }

    /**
     * Where every region allocated so far lives now: for each, its size, requested and effective policy, and
     * the nodes its pages sit on as the kernel reports them (pages not touched yet are counted as such).
     * Regions whose arena has closed are listed as freed.
     *
     * <p>Threads: any. Progress: blocking (one {@code move_pages} query per region).
     *
     * @return the report, regions in allocation order
     */
    public PlacementReport report() {
        List<RegionPlacement> placements = regions.stream().map(r -> PageCensus.of(numa, r)).toList();
        return new PlacementReport(numa.toString(), fallbackReason, placements);
    }

    /**
     * The native bytes of every region allocated so far, by part: a region's name up to its first {@code '['}
     * ({@code table}, {@code control}, {@code links}, {@code shard}, {@code combiner}, {@code salt},
     * {@code stats}), summed over the tables and workers that have one. The regions of a closed arena are
     * included (the figures describe what the instance allocated).
     *
     * <p>Threads: any. Progress: wait-free for a given number of regions (the list only grows).
     *
     * @return an unmodifiable map, parts in name order
     */
    public java.util.SortedMap<String, Long> bytesByPart() {
        java.util.TreeMap<String, Long> parts = new java.util.TreeMap<>();
        for (Region r : regions) {
            int bracket = r.name().indexOf('[');
            parts.merge(bracket < 0 ? r.name() : r.name().substring(0, bracket), r.bytes(), Long::sum);
        }
        return java.util.Collections.unmodifiableSortedMap(parts);
    }

    /**
     * Why policies other than {@code default} fall back on this allocator.
     *
     * <p>Threads: any. Progress: wait-free.
     *
     * @return the reason, or the empty string when placement is applied
     */
    public String fallbackReason() {
        return fallbackReason;
    }

    private Region placeWithLibnuma(Arena arena, String name, long bytes, long alignment, Placement placement) {
        long pageSize = numa.pageSize();
        long extra = Math.max(0, alignment - pageSize);
        long size = bytes + extra;
        Placement effective;
        MemorySegment raw;
        switch (placement.kind()) {
            case LOCAL -> {
                int node = numa.currentNode();
                effective = Placement.node(node);
                raw = numa.allocateOnNode(arena, size, node);
            }
            case NODE -> {
                effective = placement;
                raw = numa.allocateOnNode(arena, size, placement.nodeNumber());
            }
            case INTERLEAVE -> {
                effective = placement;
                raw = numa.allocateInterleaved(arena, size);
            }
            default -> throw new AssertionError(placement);
        }
        long pad = (alignment - raw.address() % alignment) % alignment;
        return new Region(name, bytes, placement, effective, "", raw.asSlice(pad, bytes));
    }

    private void logFallbackOnce(String name, Placement placement) {
        if (fallbackLogged.compareAndSet(false, true)) {
            System.Logger.Level level = numa.isAvailable() ? System.Logger.Level.INFO : System.Logger.Level.WARNING;
            logger.log(level, "NUMA placement off, regions use plain arena allocation (effective placement "
                    + "default): " + fallbackReason + " (first: region " + name + ", requested " + placement
                    + ")");
        }
    }
}
