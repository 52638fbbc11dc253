package io.hotkeeper.engine.placement;

import io.hotkeeper.numa.Numa;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * With native access denied the production allocator falls back, says why in the report and logs one
 * WARNING line. Runs {@link PlacementExample} in a child JVM for the flag.
 */
class PlacementNativeAccessDeniedTest {

    @Test
    void deniedNativeAccessFallsBackWithOneLogLine() throws Exception {
        String classPath = String.join(File.pathSeparator, location(Numa.class), location(RegionAllocator.class),
                location(PlacementExample.class));
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process process = new ProcessBuilder(List.of(java.toString(), "--illegal-native-access=deny",
                "-cp", classPath, PlacementExample.class.getName(), "interleave"))
                .redirectErrorStream(true)
                .start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "child JVM finished");
        assertEquals(0, process.exitValue(), output);
        String reason = "libnuma unavailable: native access is not enabled for ALL-UNNAMED:"
                + " run with --enable-native-access=ALL-UNNAMED";
        assertTrue(output.contains("\nfallback: " + reason), output);
        assertTrue(output.contains("\ntable    1 MiB   interleave  default        ?          ?  ?               "
                + "fallback; pages unknown\n"), output);
        assertEquals(1, output.split("NUMA placement off", -1).length - 1, output);
        assertTrue(output.contains("WARNING: NUMA placement off, regions use plain arena allocation (effective "
                + "placement default): " + reason), output);
        assertTrue(output.contains("(first: region table, requested interleave)"), output);
    }

    private static String location(Class<?> type) throws Exception {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }
}
