package io.hotkeeper.numa;

import java.util.Arrays;
import java.util.List;

/**
 * Immutable snapshot of the machine's NUMA layout, taken once when a {@link Numa} is loaded: which nodes
 * exist, how many CPUs are configured, the node of each CPU and the page size.
 */
final class Topology {

    /** Page size assumed when libnuma is unavailable. */
    static final long FALLBACK_PAGE_SIZE = 4096;

    private final int[] nodes;
    private final List<Integer> nodeList;
    private final int[] nodeOfCpu;
    private final int cpuCount;
    private final long pageSize;

    private Topology(int[] nodes, int[] nodeOfCpu, int cpuCount, long pageSize) {
        this.nodes = nodes.clone();
        this.nodeList = Arrays.stream(nodes).boxed().toList();
        this.nodeOfCpu = nodeOfCpu.clone();
        this.cpuCount = cpuCount;
        this.pageSize = pageSize;
    }

    /**
     * A topology read from libnuma.
     *
     * @param nodes existing node numbers, ascending, at least one
     * @param nodeOfCpu node of each configured CPU, {@code -1} for a CPU on no node
     * @param pageSize the system page size
     */
    static Topology of(int[] nodes, int[] nodeOfCpu, long pageSize) {
        if (nodes.length == 0) {
            throw new IllegalArgumentException("nodes=[]: at least one node must exist");
        }
        return new Topology(nodes, nodeOfCpu, nodeOfCpu.length, pageSize);
    }

    /** The single-node topology used when libnuma is unavailable: node 0 owns every CPU. */
    static Topology singleNode() {
        return new Topology(new int[] {0}, new int[0], Runtime.getRuntime().availableProcessors(),
                FALLBACK_PAGE_SIZE);
    }

    List<Integer> nodes() {
        return nodeList;
    }

    int nodeCount() {
        return nodes.length;
    }

    int maxNode() {
        return nodes[nodes.length - 1];
    }

    int cpuCount() {
        return cpuCount;
    }

    long pageSize() {
        return pageSize;
    }

    /** The node of {@code cpu} from the snapshot, or {@code -1} if the snapshot has no entry for it. */
    int nodeOfCpu(int cpu) {
        return cpu >= 0 && cpu < nodeOfCpu.length ? nodeOfCpu[cpu] : -1;
    }

    boolean hasNode(int node) {
        return Arrays.binarySearch(nodes, node) >= 0;
    }

    /** Checks that {@code node} exists; the message names the node and the existing ones. */
    int requireNode(int node) {
        if (!hasNode(node)) {
            throw new IllegalArgumentException("node=" + node + ": available nodes are " + nodeList);
        }
        return node;
    }

    /** Checks that {@code cpu} is a configured CPU number. */
    int requireCpu(int cpu) {
        if (cpu < 0 || cpu >= cpuCount) {
            throw new IllegalArgumentException("cpu=" + cpu + ": available cpus are [0, " + cpuCount + ")");
        }
        return cpu;
    }

    @Override
    public String toString() {
        return "nodes=" + nodeList + ", cpus=" + cpuCount + ", pageSize=" + pageSize;
    }
}
