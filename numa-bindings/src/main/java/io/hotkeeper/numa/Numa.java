package io.hotkeeper.numa;

import io.hotkeeper.numa.internal.CurrentCpu;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Safe facade over libnuma: NUMA topology, node-local allocation tied to an {@link Arena}, binding pages to
 * a node and asking where pages live.
 *
 * <h2>Availability and fallback</h2>
 * Creating a facade never throws for an environment problem. It is <em>unavailable</em>, with
 * {@link #unavailableReason()} saying why, when the library cannot be loaded (not installed, wrong name),
 * when {@code numa_available()} returns {@code -1} (no kernel NUMA support, or {@code get_mempolicy}
 * denied by a container's seccomp profile), or when native access is denied to this module
 * ({@code --illegal-native-access=deny} without {@code --enable-native-access}). An unavailable facade
 * behaves like a machine with one node:
 * <ul>
 *   <li>{@link #nodeCount()} is 1, {@link #nodes()} is {@code [0]}, {@link #nodeOfCpu(int)} and
 *       {@link #currentNode()} are 0, {@link #cpuCount()} is {@link Runtime#availableProcessors()} and
 *       {@link #pageSize()} is 4096;</li>
 *   <li>allocation falls back to {@code arena.allocate(byteSize, pageSize())};</li>
 *   <li>{@link #bindToNode(MemorySegment, int)} to node 0 does nothing;</li>
 *   <li>{@link #nodesOfPages(MemorySegment)} and {@link #pagesPerNode(MemorySegment)} return empty
 *       results: page placement is unknown.</li>
 * </ul>
 * Asking for a node that does not exist is always an {@link IllegalArgumentException} naming the node and
 * the existing ones, e.g. {@code node=7: available nodes are [0]}, in both modes.
 *
 * <h2>Memory</h2>
 * Memory from {@code numa_alloc_*} is a fresh anonymous mapping: page aligned, zero-filled, and physically
 * placed when first touched. Its lifetime is the caller's arena: closing the arena calls {@code numa_free}
 * exactly once; the segment is then inaccessible ({@link IllegalStateException}).
 *
 * <h2>Threads</h2>
 * An instance is immutable apart from its allocation counters; every method may be called from any thread.
 * The topology (nodes, CPU to node table, page size) is read once, when the facade is loaded. Native
 * access must be enabled for this module ({@code --enable-native-access=io.hotkeeper.numa}, or
 * {@code ALL-UNNAMED} on the class path).
 *
 * <p>Size: the safe facade over every libnuma call the project uses, each with its errno handling and fallback; the
 * generated bindings live in the generated package.
 */
public final class Numa {

    /** The library the generated bindings load: the runtime soname, present without development packages. */
    public static final String DEFAULT_LIBRARY = NumaProbe.DEFAULT_LIBRARY;

    /** Page status from {@link #nodesOfPages(MemorySegment)}: the page has not been touched yet ({@code -ENOENT}). */
    public static final int PAGE_NOT_PRESENT = -2;

    private final String libraryName;
    private final Topology topology;
    private final String unavailableReason;
    private final NodeAllocator allocator;

    private Numa(String libraryName, NumaProbe.Outcome outcome) {
        this.libraryName = libraryName;
        this.topology = outcome.isAvailable() ? outcome.topology() : Topology.singleNode();
        this.unavailableReason = outcome.isAvailable() ? "" : outcome.reason();
        this.allocator = outcome.isAvailable() ? new NodeAllocator() : null;
    }

    /**
     * The facade over the system libnuma ({@value #DEFAULT_LIBRARY}), probed once on first use.
     *
     * <p>Threads: any. Progress: blocking on first call (loads the library, reads the topology), wait-free
     * afterwards.
     *
     * @return the shared instance; never {@code null}, possibly unavailable
     */
    public static Numa system() {
        return SystemHolder.INSTANCE;
    }

    /**
     * Loads a facade bound to {@code libraryName}, a name or path as {@code dlopen} takes it (e.g.
     * {@code "libnuma.so.1"}, {@code "/usr/lib/x86_64-linux-gnu/libnuma.so.1"}). The downcalls are the
     * jextract-generated ones, linked against {@value #DEFAULT_LIBRARY}; the facade is available only if
     * {@code libraryName} loads and is that same library. Meant for tests and diagnostics: a missing
     * library gives an unavailable facade, it does not throw.
     *
     * <p>Threads: any. Progress: blocking (loads the library, reads the topology).
     *
     * @param libraryName the library to load
     * @return a new facade, available or not
     * @throws IllegalArgumentException if {@code libraryName} is blank
     */
    public static Numa load(String libraryName) {
        return new Numa(libraryName, NumaProbe.probe(libraryName));
    }

    /**
     * Whether libnuma is usable; if not, this facade falls back as the class documentation describes.
     *
     * <p>Threads: any. Progress: wait-free.
     *
     * @return {@code true} if calls go to libnuma
     */
    public boolean isAvailable() {
        return allocator != null;
    }

    /**
     * Why libnuma is not usable, e.g. {@code "library=libnuma-does-not-exist.so: cannot be loaded (...)"}.
     *
     * <p>Threads: any. Progress: wait-free.
     *
     * @return the reason, or the empty string when {@link #isAvailable()}
     */
    public String unavailableReason() {
        return unavailableReason;
    }

    /**
     * The library name this facade was loaded with.
     *
     * <p>Threads: any. Progress: wait-free.
     *
     * @return the name given to {@link #load(String)}, or {@value #DEFAULT_LIBRARY}
     */
    public String libraryName() {
        return libraryName;
    }

    /**
     * Number of NUMA nodes that exist (memoryless nodes included).
     *
     * <p>Threads: any. Progress: wait-free.
     *
     * @return at least 1; 1 when unavailable
     */
    public int nodeCount() {
        return topology.nodeCount();
    }

    /**
     * The node numbers that exist, ascending. Usually {@code 0..nodeCount()-1}, but node numbers may have
     * gaps.
     *
     * <p>Threads: any. Progress: wait-free.
     *
     * @return an unmodifiable list; {@code [0]} when unavailable
     */
    public List<Integer> nodes() {
        return topology.nodes();
    }

    /**
     * The highest node number that exists ({@code numa_max_node()} at load time).
     *
     * <p>Threads: any. Progress: wait-free.
     *
     * @return the highest node number; 0 when unavailable
     */
    public int maxNode() {
        return topology.maxNode();
    }

    /**
     * Number of configured CPUs ({@code numa_num_configured_cpus()}); CPU numbers are
     * {@code 0..cpuCount()-1}.
     *
     * <p>Threads: any. Progress: wait-free.
     *
     * @return the CPU count; {@link Runtime#availableProcessors()} when unavailable
     */
    public int cpuCount() {
        return topology.cpuCount();
    }

    /**
     * The system page size, the alignment of every segment this facade allocates.
     *
     * <p>Threads: any. Progress: wait-free.
     *
     * @return {@code numa_pagesize()} at load time; 4096 when unavailable
     */
    public long pageSize() {
        return topology.pageSize();
    }

    /**
     * The node of a CPU ({@code numa_node_of_cpu}, read once at load time).
     *
     * <p>Threads: any. Progress: wait-free.
     *
     * @param cpu a CPU number in {@code [0, cpuCount())}
     * @return the node, {@code -1} for a CPU on no node (offline at load time); 0 when unavailable
     * @throws IllegalArgumentException if {@code cpu} is not a configured CPU (when unavailable: if negative)
     */
    public int nodeOfCpu(int cpu) {
        if (!isAvailable()) {
            if (cpu < 0) {
                throw new IllegalArgumentException("cpu=" + cpu + ": must not be negative");
            }
            return 0;
        }
        return topology.nodeOfCpu(topology.requireCpu(cpu));
    }

    /**
     * The CPU the calling thread is running on ({@code sched_getcpu}, a critical downcall). The thread may
     * migrate right after; use the answer as a placement hint.
     *
     * <p>Threads: any. Progress: wait-free.
     *
     * @return the CPU number, or 0 if it cannot be determined ({@code sched_getcpu} unusable)
     */
    public int currentCpu() {
        int cpu = CurrentCpu.schedGetcpu();
        return Math.max(cpu, 0);
    }

    /**
     * The node of the CPU the calling thread is running on.
     *
     * <p>Threads: any. Progress: wait-free (table look-up after {@code sched_getcpu}).
     *
     * @return the node; 0 when unavailable; the lowest node if the CPU has no known node
     */
    public int currentNode() {
        if (!isAvailable()) {
            return 0;
        }
        int node = topology.nodeOfCpu(currentCpu());
        return node >= 0 ? node : topology.nodes().getFirst();
    }

    /**
     * Allocates {@code byteSize} bytes on {@code node} ({@code numa_alloc_onnode}: the pages are bound to
     * the node). Page aligned, zero-filled; freed with {@code numa_free} exactly once when {@code arena}
     * closes. When unavailable: {@code arena.allocate(byteSize, pageSize())}.
     *
     * <p>Threads: any that may use {@code arena}. Progress: blocking ({@code mmap}, {@code mbind}).
     *
     * @param arena owns the memory
     * @param byteSize bytes to allocate, positive
     * @param node an existing node
     * @return a native segment of {@code byteSize} bytes, scoped to {@code arena}
     * @throws IllegalArgumentException if {@code byteSize <= 0} or {@code node} does not exist
     * @throws OutOfMemoryError if libnuma cannot allocate
     * @throws IllegalStateException if {@code arena} is closed
     */
    public MemorySegment allocateOnNode(Arena arena, long byteSize, int node) {
        checkAllocation(arena, byteSize);
        topology.requireNode(node);
        return isAvailable() ? allocator.onNode(arena, byteSize, node) : fallbackAllocate(arena, byteSize);
    }

    /**
     * Allocates {@code byteSize} bytes interleaved page by page over the nodes this thread may use
     * ({@code numa_alloc_interleaved}). Page aligned, zero-filled; freed with {@code numa_free} exactly once
     * when {@code arena} closes. When unavailable: {@code arena.allocate(byteSize, pageSize())}.
     *
     * <p>Threads: any that may use {@code arena}. Progress: blocking ({@code mmap}, {@code mbind}).
     *
     * @param arena owns the memory
     * @param byteSize bytes to allocate, positive
     * @return a native segment of {@code byteSize} bytes, scoped to {@code arena}
     * @throws IllegalArgumentException if {@code byteSize <= 0}
     * @throws OutOfMemoryError if libnuma cannot allocate
     * @throws IllegalStateException if {@code arena} is closed
     */
    public MemorySegment allocateInterleaved(Arena arena, long byteSize) {
        checkAllocation(arena, byteSize);
        return isAvailable() ? allocator.interleaved(arena, byteSize) : fallbackAllocate(arena, byteSize);
    }

    /**
     * Allocates {@code byteSize} bytes on the node of the CPU that first touches each page
     * ({@code numa_alloc_local}). Page aligned, zero-filled; freed with {@code numa_free} exactly once when
     * {@code arena} closes. When unavailable: {@code arena.allocate(byteSize, pageSize())}.
     *
     * <p>Threads: any that may use {@code arena}. Progress: blocking ({@code mmap}).
     *
     * @param arena owns the memory
     * @param byteSize bytes to allocate, positive
     * @return a native segment of {@code byteSize} bytes, scoped to {@code arena}
     * @throws IllegalArgumentException if {@code byteSize <= 0}
     * @throws OutOfMemoryError if libnuma cannot allocate
     * @throws IllegalStateException if {@code arena} is closed
     */
    public MemorySegment allocateLocal(Arena arena, long byteSize) {
        checkAllocation(arena, byteSize);
        return isAvailable() ? allocator.local(arena, byteSize) : fallbackAllocate(arena, byteSize);
    }

    /**
     * Binds the pages of {@code segment} to {@code node} ({@code mbind(MPOL_BIND)}, what
     * {@code numa_tonode_memory} does) and moves pages already touched ({@code MPOL_MF_MOVE}). The policy
     * covers whole pages, so the segment must start on a page boundary and should own the pages it spans
     * (segments from this class do). When unavailable: checks the arguments and does nothing.
     *
     * <p>Threads: any that may access {@code segment} (it is kept alive during the call). Progress: blocking
     * (system call, may migrate pages).
     *
     * @param segment a native, page-aligned segment
     * @param node an existing node
     * @throws IllegalArgumentException if the segment is not native or not page aligned, or {@code node}
     *         does not exist
     * @throws IllegalStateException if the segment's arena is closed
     * @throws NumaException if {@code mbind} fails (carries the errno)
     */
    public void bindToNode(MemorySegment segment, int node) {
        checkNative(segment);
        if (segment.address() % pageSize() != 0) {
            throw new IllegalArgumentException("segment.address=0x" + Long.toHexString(segment.address())
                    + ": not aligned to the page size " + pageSize());
        }
        topology.requireNode(node);
        if (isAvailable() && segment.byteSize() > 0) {
            NodeBinder.bind(segment, node, topology.maxNode());
        }
    }

    /**
     * The node of each page spanned by {@code segment} ({@code numa_move_pages} with no target nodes: a
     * query, nothing moves). Entry {@code i} is for the page holding byte
     * {@code alignDown(segment.address(), pageSize()) + i * pageSize()}: a node number, or a negative errno
     * such as {@link #PAGE_NOT_PRESENT} for a page not touched yet, or {@code -EFAULT} ({@code -14}) for a
     * page that maps no memory of its own (e.g. the shared zero page after reads only).
     *
     * <p>Threads: any. Progress: blocking (system calls). A segment whose arena closes during the call
     * reports stale or negative entries; it is never written.
     *
     * @param segment a native segment
     * @return one entry per page; an empty array when unavailable (placement unknown)
     * @throws IllegalArgumentException if the segment is not native
     * @throws IllegalStateException if the segment's arena is closed
     * @throws NumaException if {@code numa_move_pages} fails (carries the errno)
     */
    public int[] nodesOfPages(MemorySegment segment) {
        checkNative(segment);
        if (!isAvailable()) {
            return new int[0];
        }
        return PageLocator.nodesOfPages(segment, pageSize());
    }

    /**
     * How many pages of {@code segment} live on each node: {@link #nodesOfPages(MemorySegment)} summed,
     * leaving out pages not present.
     *
     * <p>Threads: any. Progress: blocking (system calls).
     *
     * @param segment a native segment
     * @return an unmodifiable map from node to page count, ascending by node; empty when unavailable
     * @throws IllegalArgumentException if the segment is not native
     * @throws IllegalStateException if the segment's arena is closed
     * @throws NumaException if {@code numa_move_pages} fails (carries the errno)
     */
    public Map<Integer, Long> pagesPerNode(MemorySegment segment) {
        TreeMap<Integer, Long> counts = new TreeMap<>();
        for (int node : nodesOfPages(segment)) {
            if (node >= 0) {
                counts.merge(node, 1L, Long::sum);
            }
        }
        return Collections.unmodifiableMap(counts);
    }

    /**
     * Number of {@code numa_alloc_*} allocations of this facade not yet freed by their arena. Fallback
     * allocations (unavailable facade) are the arena's own and are not counted.
     *
     * <p>Threads: any. Progress: wait-free.
     *
     * @return the live allocation count
     */
    public long liveAllocations() {
        return isAvailable() ? allocator.liveAllocations() : 0;
    }

    /**
     * Bytes requested by the {@code numa_alloc_*} allocations of this facade not yet freed by their arena.
     *
     * <p>Threads: any. Progress: wait-free.
     *
     * @return the live byte count
     */
    public long liveBytes() {
        return isAvailable() ? allocator.liveBytes() : 0;
    }

    /**
     * Describes the facade, e.g. {@code Numa[library=libnuma.so.1, available, nodes=[0], cpus=2, pageSize=4096]}.
     *
     * <p>Threads: any. Progress: wait-free.
     */
    @Override
    public String toString() {
        return "Numa[library=" + libraryName + ", "
                + (isAvailable() ? "available" : "unavailable: " + unavailableReason) + ", " + topology + "]";
    }

    private MemorySegment fallbackAllocate(Arena arena, long byteSize) {
        return arena.allocate(byteSize, pageSize());
    }

    private static void checkAllocation(Arena arena, long byteSize) {
        Objects.requireNonNull(arena, "arena");
        if (byteSize <= 0) {
            throw new IllegalArgumentException("byteSize=" + byteSize + ": must be positive");
        }
    }

    private static void checkNative(MemorySegment segment) {
        Objects.requireNonNull(segment, "segment");
        if (!segment.isNative()) {
            throw new IllegalArgumentException("segment=" + segment + ": must be a native segment");
        }
        if (!segment.scope().isAlive()) {
            throw new IllegalStateException("segment=" + segment + ": its arena is already closed");
        }
    }

    private static final class SystemHolder {
        private static final Numa INSTANCE = load(DEFAULT_LIBRARY);
    }
}
