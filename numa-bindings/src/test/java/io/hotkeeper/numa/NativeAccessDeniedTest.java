package io.hotkeeper.numa;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** With native access denied the facade must load unavailable, not throw. Runs a child JVM for the flag. */
class NativeAccessDeniedTest {

    @Test
    void deniedNativeAccessGivesAnUnavailableFacade() throws Exception {
        String classPath = location(Numa.class) + File.pathSeparator + location(DeniedNativeAccessMain.class);
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process process = new ProcessBuilder(List.of(java.toString(), "--illegal-native-access=deny",
                "-cp", classPath, DeniedNativeAccessMain.class.getName()))
                .redirectErrorStream(true)
                .start();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "child JVM finished");
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.exitValue(), output);
        assertTrue(output.contains("available=false"), output);
        assertTrue(output.contains("reason=native access is not enabled for ALL-UNNAMED:"
                + " run with --enable-native-access=ALL-UNNAMED"), output);
        assertTrue(output.contains("nodes=[0] currentNode=0 currentCpu=0"), output);
    }

    private static String location(Class<?> type) throws Exception {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }
}
