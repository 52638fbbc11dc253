import io.hotkeeper.engine.shard.ShardLayout;

/**
 * Prints {@code ShardLayout.shardBytes(capacity, maxKeyBytes)}: the bytes of a shard sized by
 * {@code shardCapacity(n)} (n keys of any lengths, a spare page per size class). Run against the engine classes
 * before and after a change to the classes:
 *
 * <pre>
 * for d in /tmp/wt-old .; do
 *   /usr/lib/jvm/temurin-25-jdk-amd64/bin/java -cp $d/engine-ffm/target/classes \
 *     docs/results/vm-2026-12-08/size-classes/ShardBytes.java
 * done
 * </pre>
 */
public class ShardBytes {
    public static void main(String[] args) {
        for (int maxKeyBytes : new int[] {8, 16, 64, 256, 4096}) {
            for (int capacity : new int[] {108, 200, 1024}) {
                System.out.println("maxKeyBytes " + maxKeyBytes + ", capacity " + capacity + ": "
                        + ShardLayout.shardBytes(capacity, maxKeyBytes) + " B");
            }
        }
    }
}
