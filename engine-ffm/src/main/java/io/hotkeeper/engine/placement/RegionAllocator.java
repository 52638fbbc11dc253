package io.hotkeeper.engine.placement;

import io.hotkeeper.engine.Placement;
import io.hotkeeper.engine.PlacementReport;
import io.hotkeeper.engine.RegionPlacement;
import io.hotkeeper.numa.Numa;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

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
 * <h2>Native access</h2>
 * The production allocator ({@link #RegionAllocator()}) does not touch libnuma until it is needed: the first
 * allocation with a policy other than {@link Placement#DEFAULT}, the first {@link #report()} or the first
 * {@link #fallbackReason()}. Only then does it load the {@code Numa} facade, whose downcalls are restricted
 * methods: an allocator used with {@code DEFAULT} placement only makes no restricted call, so an application
 * needs no {@code --enable-native-access} and gets no native-access warning from the JDK.
 *
 * <h2>Threads</h2>
 * Any thread may allocate and report at any time; the record of regions is a concurrent queue. The allocator
 * keeps each region's segment reachable (for the report), so use it with arenas that are closed explicitly.
 */
public final class RegionAllocator {

    /** Logger name of the one fallback line. */
    public static final String LOGGER_NAME = "io.hotkeeper.placement";

    /** The facade, loaded on first need (see "Native access"); always the same instance once loaded. */
    private final Supplier<Numa> numaSource;
    private final System.Logger logger;
    private final boolean placeOnOneNode;
    /** The loaded facade and its fallback reason; null until first needed. Racing loads publish equal values. */
    private volatile Loaded loaded;
    private final AtomicBoolean fallbackLogged = new AtomicBoolean();
    private final Queue<Region> regions = new ConcurrentLinkedQueue<>();
    /**
     * Bytes of the regions handed out and not yet reported freed, as counted in {@link NativeBytes}: exact when an
     * allocation races the arena's close (see {@link HeldBytes}).
     */
    private final HeldBytes held = new HeldBytes(NativeBytes::add);

    /**
     * An allocator over the system libnuma ({@code Numa.system()}), loaded only when first needed: an allocator
     * asked for {@link Placement#DEFAULT} regions only never loads it (see "Native access").
     *
     * <p>Threads: any. Progress: wait-free (loads nothing).
     */
    public RegionAllocator() {
        this(Numa::system, System.getLogger(LOGGER_NAME), false);
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
        this(supplierOf(Objects.requireNonNull(numa, "numa")), logger, placeOnOneNode);
        this.loaded = load();
    }

    private RegionAllocator(Supplier<Numa> numaSource, System.Logger logger, boolean placeOnOneNode) {
        this.numaSource = numaSource;
        this.logger = Objects.requireNonNull(logger, "logger");
        this.placeOnOneNode = placeOnOneNode;
    }

    private static Supplier<Numa> supplierOf(Numa numa) {
        return () -> numa;
    }

    /** The facade and why placement falls back on it. */
    private record Loaded(Numa numa, String fallbackReason) {
    }

    private Loaded load() {
        Numa numa = Objects.requireNonNull(numaSource.get(), "numa");
        return new Loaded(numa, !numa.isAvailable() ? "libnuma unavailable: " + numa.unavailableReason()
                : numa.nodeCount() == 1 && !placeOnOneNode
                ? "one NUMA node (nodes=" + numa.nodes() + "), placement has no effect"
                : "");
    }

    /** The loaded facade, loading it on first call (the only place that makes restricted calls). */
    private Loaded loaded() {
        Loaded l = loaded;
        if (l == null) {
            // Racing first calls each load; Numa.system() is one instance, so they compute equal values.
            l = load();
            loaded = l;
        }
        return l;
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
        Region region;
        if (placement.kind() == Placement.Kind.DEFAULT) {
            // No libnuma here: the default path makes no restricted call (see "Native access").
            region = new Region(name, bytes, placement, placement, "", arena.allocate(bytes, alignment));
        } else {
            Loaded l = loaded();
            if (placement.kind() == Placement.Kind.NODE && !l.numa().nodes().contains(placement.nodeNumber())) {
                throw new IllegalArgumentException("node=" + placement.nodeNumber() + ": available nodes are "
                        + l.numa().nodes());
            }
            if (!l.fallbackReason().isEmpty()) {
                logFallbackOnce(l, name, placement);
                region = new Region(name, bytes, placement, Placement.DEFAULT, l.fallbackReason(),
                        arena.allocate(bytes, alignment));
            } else {
                region = placeWithLibnuma(l.numa(), arena, name, bytes, alignment, placement);
            }
        }
        regions.add(region);
        // Not counted if the arena was closed and reported since it handed out the region: that close freed it.
        held.add(bytes);
        return region.segment();
    }

    /**
     * Tells the allocator that the arena owning its regions was closed: the bytes of every region allocated so
     * far leave the process-wide count ({@link NativeBytes}), and a region allocated before the close but counted
     * after this call (a thread racing the close) is never counted: the count ends exact (see {@link HeldBytes}).
     * Call it after the arena's close; later calls do nothing.
     *
     * <p>Threads: any. Progress: wait-free.
     */
    public void arenaClosed() {
        held.close();
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
     * <p>The report asks the kernel through libnuma, so it loads the facade if no allocation did: a restricted
     * call, which needs native access like placement itself.
     *
     * <p>Threads: any. Progress: blocking (loads libnuma on first need; one {@code move_pages} query per region).
     *
     * @return the report, regions in allocation order
     */
    public PlacementReport report() {
        Loaded l = loaded();
        List<RegionPlacement> placements = regions.stream().map(r -> PageCensus.of(l.numa(), r)).toList();
        return new PlacementReport(l.numa().toString(), l.fallbackReason(), placements);
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
     * Why policies other than {@code default} fall back on this allocator. Loads the facade if nothing did yet
     * (a restricted call, see "Native access").
     *
     * <p>Threads: any. Progress: blocking on first need (loads libnuma), then wait-free.
     *
     * @return the reason, or the empty string when placement is applied
     */
    public String fallbackReason() {
        return loaded().fallbackReason();
    }

    private static Region placeWithLibnuma(Numa numa, Arena arena, String name, long bytes, long alignment,
                                           Placement placement) {
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

    private void logFallbackOnce(Loaded l, String name, Placement placement) {
        if (fallbackLogged.compareAndSet(false, true)) {
            System.Logger.Level level = l.numa().isAvailable() ? System.Logger.Level.INFO
                    : System.Logger.Level.WARNING;
            logger.log(level, "NUMA placement off, regions use plain arena allocation (effective placement "
                    + "default): " + l.fallbackReason() + " (first: region " + name + ", requested " + placement
                    + ")");
        }
    }
}
