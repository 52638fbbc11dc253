package io.hotkeeper.numa;

import io.hotkeeper.numa.generated.numa_h;
import io.hotkeeper.numa.internal.ErrnoCalls;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Binds a range of pages to one node with {@code mbind(MPOL_BIND, MPOL_MF_MOVE)}: what
 * {@code numa_tonode_memory} does, except that failures come back as {@code errno} (through the errno
 * capturing downcall) instead of being printed by libnuma's {@code numa_error} and lost.
 */
final class NodeBinder {

    private static final int BITS_PER_WORD = Long.SIZE;

    private NodeBinder() {
    }

    static void bind(MemorySegment segment, int node, int maxNode) {
        int words = maxNode / BITS_PER_WORD + 1;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mask = arena.allocate(ValueLayout.JAVA_LONG, words);
            mask.setAtIndex(ValueLayout.JAVA_LONG, node / BITS_PER_WORD, 1L << (node % BITS_PER_WORD));
            MemorySegment callState = ErrnoCalls.allocateCallState(arena);
            // maxnode counts one bit more than the mask holds: the kernel drops the last bit (see mbind(2)).
            long result = ErrnoCalls.mbind(callState, segment, segment.byteSize(), numa_h.MPOL_BIND(), mask,
                    (long) words * BITS_PER_WORD + 1, numa_h.MPOL_MF_MOVE());
            if (result != 0) {
                throw new NumaException("mbind(address=0x" + Long.toHexString(segment.address())
                        + ", bytes=" + segment.byteSize() + ", node=" + node + ", MPOL_BIND, MPOL_MF_MOVE)",
                        ErrnoCalls.errno(callState));
            }
        }
    }
}
