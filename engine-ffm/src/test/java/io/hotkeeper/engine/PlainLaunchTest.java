package io.hotkeeper.engine;

import io.hotkeeper.numa.Numa;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An application that does not ask for NUMA placement needs no JVM flag: {@link PlainLaunchMain} runs in a child
 * JVM launched as a user would ({@code java -cp ... Main}, no {@code --enable-native-access}, no
 * {@code --add-exports}) and must leave stderr empty, so the JDK printed no native-access warning. The control
 * asks for interleaved placement in the same launch and must see the JDK's warning, proving that the first test
 * would notice a restricted call.
 */
class PlainLaunchTest {

    @Test
    void theDefaultSketchRunsWithoutFlagsAndWithoutWarnings() throws Exception {
        Result run = launch();
        assertEquals(0, run.exit(), run.toString());
        assertEquals("", run.stderr(), run.toString());
        List<String> lines = run.stdout().lines().toList();
        assertEquals(3, lines.size(), run.toString());
        // The README sample's promise: a long key prints as a number, text as text, other bytes escaped.
        assertTrue(lines.contains("42 10000"), run.toString());
        assertTrue(lines.contains("GET /api/v1/quote 10000"), run.toString());
        assertTrue(lines.contains("\\x01\\x02\\x03 10000"), run.toString());
    }

    @Test
    void askingForNumaPlacementIsWhatMakesTheRestrictedCall() throws Exception {
        Result run = launch("interleave");
        assertEquals(0, run.exit(), run.toString());
        assertTrue(run.stderr().contains("WARNING: A restricted method in java.lang.foreign"), run.toString());
        assertTrue(run.stderr().contains("--enable-native-access=ALL-UNNAMED"), run.toString());
    }

    private record Result(int exit, String stdout, String stderr) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout\n" + stdout + "--- stderr\n" + stderr;
        }
    }

    private static Result launch(String... args) throws Exception {
        String classPath = String.join(File.pathSeparator, location(Numa.class), location(Hotkeeper.class),
                location(PlainLaunchMain.class));
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Path err = Files.createTempFile("plain-launch", ".err");
        try {
            List<String> command = new java.util.ArrayList<>(List.of(java.toString(), "-cp", classPath,
                    PlainLaunchMain.class.getName()));
            command.addAll(List.of(args));
            ProcessBuilder builder = new ProcessBuilder(command).redirectError(err.toFile());
            // Nothing from the test JVM's environment may add flags behind the test's back.
            builder.environment().remove("JAVA_TOOL_OPTIONS");
            builder.environment().remove("JDK_JAVA_OPTIONS");
            builder.environment().remove("_JAVA_OPTIONS");
            Process process = builder.start();
            String stdout = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(process.waitFor(60, TimeUnit.SECONDS), "child JVM finished");
            return new Result(process.exitValue(), stdout, Files.readString(err));
        } finally {
            Files.deleteIfExists(err);
        }
    }

    private static String location(Class<?> type) throws Exception {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }
}
