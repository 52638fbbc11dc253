package io.hotkeeper.numa;

import java.lang.foreign.Arena;

/** Child-JVM entry point of {@link NativeAccessDeniedTest}: prints what the facade reports. */
public final class DeniedNativeAccessMain {

    private DeniedNativeAccessMain() {
    }

    public static void main(String[] args) {
        Numa numa = Numa.system();
        System.out.println("available=" + numa.isAvailable());
        System.out.println("reason=" + numa.unavailableReason());
        System.out.println("nodes=" + numa.nodes() + " currentNode=" + numa.currentNode()
                + " currentCpu=" + numa.currentCpu());
        try (Arena arena = Arena.ofConfined()) {
            System.out.println("fallbackBytes=" + numa.allocateOnNode(arena, 64, 0).byteSize());
        }
    }
}
