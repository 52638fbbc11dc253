package io.hotkeeper.cli;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code top --window DURATION}: the sketch counts only the last DURATION (the engine's sliding window, whose
 * rotation WindowTest checks with a controllable clock). Input read well inside the window is counted whole; a
 * window too short for its slices, or a bad duration, exits 2 with one line.
 */
class WindowOptionTest {
    private static final byte[] INPUT = "a\nb\na\nc\na\nb\n".getBytes(StandardCharsets.UTF_8);

    @Test
    void inputReadInsideTheWindowIsCountedWhole() {
        Cli.Result r = Cli.run(INPUT, "top", "--format", "tsv", "--window", "1h", "-");
        assertEquals(0, r.exit(), r.err());
        assertEquals(List.of("1\ta\t3\t0", "2\tb\t2\t0", "3\tc\t1\t0"), r.lines());
    }

    @Test
    void statsShowTheWindowsSlicesSharingTheMemory() {
        Cli.Result r = Cli.run(INPUT, "top", "--format", "tsv", "--window", "10m", "--stats", "-");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.err().contains("\"memoryBudget\":4194304"), r.err());
        long nativeBytes = Long.parseLong(r.err().replaceAll("(?s).*\"nativeBytes\":(\\d+).*", "$1"));
        assertTrue(nativeBytes <= 4194304, r.err());
    }

    @Test
    void aBadWindowIsAOneLineUsageError() {
        for (String bad : new String[] {"never", "0s", "-5m"}) {
            Cli.Result r = Cli.run(INPUT, "top", "--window", bad, "-");
            assertEquals(2, r.exit(), bad);
            assertTrue(r.err().startsWith("hotkeeper top: Invalid value for option '--window'"), r.err());
            assertFalse(r.err().contains("\tat "), r.err());
        }
    }
}
