package io.hotkeeper.engine;

import io.hotkeeper.numa.Numa;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.util.List;

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
        ChildJvm.Result run = launch();
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
        ChildJvm.Result run = launch("interleave");
        assertEquals(0, run.exit(), run.toString());
        assertTrue(run.stderr().contains("WARNING: A restricted method in java.lang.foreign"), run.toString());
        assertTrue(run.stderr().contains("--enable-native-access=ALL-UNNAMED"), run.toString());
    }

    private static ChildJvm.Result launch(String... args) throws Exception {
        String classPath = String.join(File.pathSeparator, ChildJvm.location(Numa.class),
                ChildJvm.location(Hotkeeper.class), ChildJvm.location(PlainLaunchMain.class));
        List<String> command = new java.util.ArrayList<>(List.of("-cp", classPath, PlainLaunchMain.class.getName()));
        command.addAll(List.of(args));
        return ChildJvm.run(command);
    }
}
