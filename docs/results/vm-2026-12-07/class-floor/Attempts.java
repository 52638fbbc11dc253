import io.hotkeeper.engine.Hotkeeper;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Observes every non-empty line of a file as text with one thread and prints the engine's stats (promotions, and
 * promotions turned away), the ingest's milliseconds and the final promotion floor. Run twice, alternating the
 * engine classes before and after a change:
 *
 * <pre>
 * for i in $(seq 20); do cat /tmp/peers/jdk-legal-lines.txt; done > /tmp/legal20.txt
 * J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
 * for r in 1 2 3 4 5; do for d in /tmp/wt-old .; do
 *   $J --enable-native-access=ALL-UNNAMED -cp $d/engine-ffm/target/classes:$d/numa-bindings/target/classes \
 *     docs/results/vm-2026-12-07/class-floor/Attempts.java /tmp/legal20.txt 65536
 * done; done
 * </pre>
 */
public class Attempts {
    public static void main(String[] args) throws Exception {
        List<String> lines = Files.readAllLines(Path.of(args[0]));
        long memory = Long.parseLong(args[1]);
        try (Hotkeeper hk = Hotkeeper.builder().memory(memory).maxKeyBytes(256).seed(1).recordStats().build()) {
            long start = System.nanoTime();
            for (String line : lines) {
                if (!line.isEmpty()) {
                    hk.observe(line);
                }
            }
            long end = System.nanoTime();
            System.out.println(hk.stats() + " ms=" + (end - start) / 1_000_000 + " floor="
                    + hk.info().promotionFloor());
        }
    }
}
