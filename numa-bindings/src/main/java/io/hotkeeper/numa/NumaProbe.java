package io.hotkeeper.numa;

import io.hotkeeper.numa.generated.numa_h;
import io.hotkeeper.numa.internal.ErrnoCalls;
import io.hotkeeper.numa.internal.ErrnoNames;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Decides whether libnuma can be used and, if so, reads the {@link Topology}. Never throws for an
 * environment problem: every failure becomes a reason string.
 *
 * <p>The downcalls are the jextract-generated ones in {@code numa_h}, linked against
 * {@value #DEFAULT_LIBRARY}. A library name given to {@link #probe(String)} therefore has to resolve to that
 * same loaded library (same {@code numa_available} address); any other library is reported unavailable.
 */
final class NumaProbe {

    /** The soname the generated bindings load: shipped by the runtime package (libnuma1 on Debian). */
    static final String DEFAULT_LIBRARY = "libnuma.so.1";

    /** Result of a probe: a topology if libnuma is usable, otherwise the reason it is not. */
    record Outcome(Topology topology, String reason) {

        static Outcome available(Topology topology) {
            return new Outcome(topology, null);
        }

        static Outcome unavailable(String reason) {
            return new Outcome(null, reason);
        }

        boolean isAvailable() {
            return topology != null;
        }
    }

    private NumaProbe() {
    }

    static Outcome probe(String libraryName) {
        Objects.requireNonNull(libraryName, "libraryName");
        if (libraryName.isBlank()) {
            throw new IllegalArgumentException("libraryName=\"" + libraryName + "\": must not be blank");
        }
        try {
            String mismatch = checkSameLibrary(libraryName);
            if (mismatch != null) {
                return Outcome.unavailable(mismatch);
            }
            linkAll();
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment callState = ErrnoCalls.allocateCallState(arena);
                if (ErrnoCalls.numaAvailable(callState) < 0) {
                    return Outcome.unavailable("numa_available() returned -1 ("
                            + ErrnoNames.describe(ErrnoCalls.errno(callState))
                            + "): the kernel has no NUMA support or get_mempolicy(2) is denied,"
                            + " e.g. by a container seccomp profile without CAP_SYS_NICE");
                }
                return Outcome.available(readTopology(arena));
            }
        } catch (IllegalCallerException e) {
            return Outcome.unavailable(nativeAccessDenied(e));
        } catch (ExceptionInInitializerError | NoClassDefFoundError e) {
            return Outcome.unavailable(bindingsFailed(e));
        } catch (RuntimeException e) {
            return Outcome.unavailable("library=" + libraryName + ": probing libnuma failed (" + e + ")");
        }
    }

    /** Returns {@code null} if {@code libraryName} is the library behind the generated bindings. */
    private static String checkSameLibrary(String libraryName) {
        try (Arena arena = Arena.ofConfined()) {
            SymbolLookup lookup;
            try {
                lookup = SymbolLookup.libraryLookup(libraryName, arena);
            } catch (IllegalArgumentException e) {
                return "library=" + libraryName + ": cannot be loaded (" + e.getMessage() + ")";
            }
            Optional<MemorySegment> symbol = lookup.find("numa_available");
            if (symbol.isEmpty()) {
                return "library=" + libraryName + ": does not export numa_available, it is not libnuma";
            }
            MemorySegment generated = numa_h.numa_available$address();
            if (symbol.get().address() != generated.address()) {
                return "library=" + libraryName + ": is not the libnuma the generated bindings use ("
                        + DEFAULT_LIBRARY + ")";
            }
            return null;
        }
    }

    /** Resolves every libnuma symbol the facade uses, so that a missing one makes it unavailable up front. */
    private static void linkAll() {
        List.of(numa_h.numa_max_node$handle(), numa_h.numa_num_configured_cpus$handle(),
                numa_h.numa_node_of_cpu$handle(), numa_h.numa_node_size64$handle(), numa_h.numa_pagesize$handle(),
                numa_h.numa_alloc_onnode$handle(), numa_h.numa_alloc_interleaved$handle(),
                numa_h.numa_alloc_local$handle(), numa_h.numa_free$handle());
        ErrnoCalls.linkAll();
    }

    private static Topology readTopology(Arena arena) {
        int maxNode = numa_h.numa_max_node();
        MemorySegment freeBytes = arena.allocate(ValueLayout.JAVA_LONG);
        int[] nodes = new int[Math.max(maxNode + 1, 0)];
        int count = 0;
        for (int node = 0; node <= maxNode; node++) {
            if (numa_h.numa_node_size64(node, freeBytes) >= 0) {
                nodes[count++] = node;
            }
        }
        int cpus = numa_h.numa_num_configured_cpus();
        int[] nodeOfCpu = new int[Math.max(cpus, 0)];
        for (int cpu = 0; cpu < nodeOfCpu.length; cpu++) {
            nodeOfCpu[cpu] = numa_h.numa_node_of_cpu(cpu);
        }
        return Topology.of(Arrays.copyOf(nodes, count), nodeOfCpu, numa_h.numa_pagesize());
    }

    private static String nativeAccessDenied(IllegalCallerException e) {
        return "native access is not enabled for " + moduleName()
                + ": run with --enable-native-access=" + moduleName() + " (" + e.getMessage() + ")";
    }

    private static String bindingsFailed(Throwable e) {
        Throwable cause = e.getCause() != null ? e.getCause() : e;
        if (cause instanceof IllegalCallerException denied) {
            return nativeAccessDenied(denied);
        }
        return "library=" + DEFAULT_LIBRARY + ": the generated bindings cannot be initialised (" + cause
                + "); install the libnuma runtime (Debian: libnuma1)";
    }

    private static String moduleName() {
        Module module = NumaProbe.class.getModule();
        return module.isNamed() ? module.getName() : "ALL-UNNAMED";
    }
}
