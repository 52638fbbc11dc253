package io.hotkeeper.engine.placement;

import io.hotkeeper.engine.Placement;
import io.hotkeeper.numa.Numa;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Prints the placement report of a Hotkeeper-shaped set of regions: a 1 MiB table (half of it touched),
 * the salt, one stats stripe per CPU, and one key shard per worker thread. For docs/deployment.md and for
 * running under numactl:
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp engine-ffm/target/classes:engine-ffm/target/test-classes:\
 * numa-bindings/target/classes io.hotkeeper.engine.placement.PlacementExample [placement] [--force-libnuma]
 * </pre>
 *
 * {@code --force-libnuma} applies placement through libnuma even on one node (what a multi-node machine
 * does); without it the production allocator is used.
 */
final class PlacementExample {

    private PlacementExample() {
    }

    public static void main(String[] args) throws InterruptedException {
        Placement placement = args.length > 0 && !args[0].startsWith("--") ? Placement.parse(args[0]) : Placement.LOCAL;
        boolean force = args.length > 0 && "--force-libnuma".equals(args[args.length - 1]);
        Numa numa = Numa.system();
        RegionAllocator allocator = force
                ? new RegionAllocator(numa, System.getLogger(RegionAllocator.LOGGER_NAME), true)
                : new RegionAllocator();
        try (Arena arena = Arena.ofShared()) {
            MemorySegment table = allocator.allocate(arena, "table", 1 << 20, 128, placement);
            allocator.allocate(arena, "salt", 128, 128, placement);
            allocator.allocate(arena, "stats", numa.cpuCount() * 128L, 128, placement);
            table.asSlice(0, table.byteSize() / 2).fill((byte) 0);   // a write: faults in the first half
            Thread[] workers = new Thread[2];
            for (int i = 0; i < workers.length; i++) {
                String name = "shard-" + i;
                workers[i] = Thread.ofPlatform().start(
                        () -> allocator.allocateOnCurrentNode(arena, name, 64 * 1024, 128).fill((byte) 0));
            }
            for (Thread worker : workers) {
                worker.join();
            }
            System.out.print(allocator.report().format());
        }
    }
}
