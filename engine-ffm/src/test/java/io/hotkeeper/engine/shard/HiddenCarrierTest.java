package io.hotkeeper.engine.shard;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Virtual threads in a JVM that does not export jdk.internal.misc (carriers invisible) still get their keys
 * tracked: they share a few overflow shards through the busy gate. Runs a child JVM without the export.
 */
class HiddenCarrierTest {

    @Test
    void virtualThreadsWithoutCarrierVisibilityStillTrackKeys() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"), HiddenCarrierMain.class.getName())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.waitFor(), out);
        List<String> lines = out.lines().filter(l -> l.startsWith("result ")).toList();
        assertEquals(List.of("result carrierVisible=false top=hot:20000 shards<=64=true"), lines, out);
        assertTrue(out.contains("result"));
    }
}
