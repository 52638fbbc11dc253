package io.hotkeeper.engine;

import java.util.Locale;
import java.util.Objects;

/**
 * Where the pages of a native region should live on a NUMA machine: a policy value, applied when the instance
 * allocates the region.
 *
 * <ul>
 *   <li>{@link #DEFAULT}: plain {@code arena.allocate}; the kernel's first-touch policy places each page on
 *       the node of the CPU that first writes it. The arena zero-fills the region, so that is the allocating
 *       thread.</li>
 *   <li>{@link #LOCAL}: bound to the node of the thread that allocates (the node of its CPU, or for a virtual
 *       thread of its carrier's CPU, at the time of the call).</li>
 *   <li>{@link #node(int)}: bound to one explicit node.</li>
 *   <li>{@link #INTERLEAVE}: spread page by page over every node the process may use.</li>
 * </ul>
 *
 * <p>A node number is checked against the machine only when the policy is applied
 * (when a region is allocated): {@code node(7)} is a valid value, and allocating with it on a machine
 * without node 7 is an {@link IllegalArgumentException} such as {@code node=7: available nodes are [0]}.
 *
 * <p>{@link #toString()} is the form {@link #parse(String)} reads: {@code default}, {@code local},
 * {@code interleave}, {@code node:3}.
 *
 * <p>Threads: immutable, any. Progress: wait-free.
 */
public final class Placement {

    /** The kinds of policy. */
    public enum Kind {
        /** First touch ({@code arena.allocate}). */
        DEFAULT,
        /** The node of the allocating thread. */
        LOCAL,
        /** One explicit node. */
        NODE,
        /** Interleaved over all allowed nodes. */
        INTERLEAVE
    }

    /** First touch: plain {@code arena.allocate}. */
    public static final Placement DEFAULT = new Placement(Kind.DEFAULT, -1);

    /** The node of the allocating thread ({@code Numa.currentNode()} when the region is allocated). */
    public static final Placement LOCAL = new Placement(Kind.LOCAL, -1);

    /** Page-by-page interleaving over all nodes the process may use. */
    public static final Placement INTERLEAVE = new Placement(Kind.INTERLEAVE, -1);

    private static final String SYNTAX = "expected default, local, interleave, node:N or N (N a node number)";

    private final Kind kind;
    private final int node;

    private Placement(Kind kind, int node) {
        this.kind = kind;
        this.node = node;
    }

    /**
     * The policy that binds a region to {@code node}. Whether the node exists is checked when the policy is
     * applied.
     *
     * <p>Threads: any. Progress: wait-free.
     *
     * @param node a node number, not negative
     * @return the policy
     * @throws IllegalArgumentException if {@code node} is negative
     */
    public static Placement node(int node) {
        if (node < 0) {
            throw new IllegalArgumentException("node=" + node + ": must not be negative");
        }
        return new Placement(Kind.NODE, node);
    }

    /**
     * Reads a policy as a command line gives it: {@code default}, {@code local}, {@code interleave},
     * {@code node:3} or {@code 3} (case-insensitive, surrounding blanks ignored).
     *
     * <p>Threads: any. Progress: wait-free.
     *
     * @param text the policy
     * @return the policy
     * @throws IllegalArgumentException if {@code text} is none of these, e.g.
     *         {@code placement="nod:3": expected default, local, interleave, node:N or N (N a node number)}
     * @throws NullPointerException if {@code text} is {@code null}
     */
    public static Placement parse(String text) {
        Objects.requireNonNull(text, "text");
        String s = text.strip().toLowerCase(Locale.ROOT);
        return switch (s) {
            case "default" -> DEFAULT;
            case "local" -> LOCAL;
            case "interleave" -> INTERLEAVE;
            default -> node(parseNode(text, s.startsWith("node:") ? s.substring("node:".length()) : s));
        };
    }

    private static int parseNode(String text, String digits) {
        if (digits.isEmpty() || digits.length() > 9 || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException("placement=\"" + text + "\": " + SYNTAX);
        }
        return Integer.parseInt(digits);
    }

    /**
     * The kind of policy.
     *
     * <p>Threads: any. Progress: wait-free.
     *
     * @return the kind
     */
    public Kind kind() {
        return kind;
    }

    /**
     * The node of a {@link Kind#NODE} policy.
     *
     * <p>Threads: any. Progress: wait-free.
     *
     * @return the node number, or {@code -1} for the other kinds
     */
    public int nodeNumber() {
        return node;
    }

    /**
     * Equal policies: the same kind and, for {@link Kind#NODE}, the same node.
     *
     * <p>Threads: any. Progress: wait-free.
     */
    @Override
    public boolean equals(Object o) {
        return o instanceof Placement p && p.kind == kind && p.node == node;
    }

    /**
     * Consistent with {@link #equals(Object)}.
     *
     * <p>Threads: any. Progress: wait-free.
     */
    @Override
    public int hashCode() {
        return kind.hashCode() * 31 + node;
    }

    /**
     * The form {@link #parse(String)} reads: {@code default}, {@code local}, {@code interleave} or
     * {@code node:N}.
     *
     * <p>Threads: any. Progress: wait-free.
     */
    @Override
    public String toString() {
        return kind == Kind.NODE ? "node:" + node : kind.name().toLowerCase(Locale.ROOT);
    }
}
