package io.hotkeeper.cli;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The launcher's AOT training workload: silent, exit 0, hidden from the help, and a bad size is a usage error. */
class AotTrainingTest {
    @Test
    void runsSilentlyAndIsHidden() {
        Cli.Result r = Cli.run("aot-training", "--lines", "2000");
        assertEquals(0, r.exit(), r.err());
        assertEquals("", r.out());
        assertEquals("", r.err());
        assertFalse(Cli.run("help").out().contains("aot-training"));
        Cli.Result bad = Cli.run("aot-training", "--lines", "0");
        assertEquals(2, bad.exit());
        assertTrue(bad.err().startsWith("hotkeeper: aot-training: --lines"), bad.err());
    }

    @Test
    void theTrainingFileIsDocsCliMdsFormat() {
        String text = new String(AotTrainingCommand.zipfLines(1000, 1), StandardCharsets.US_ASCII);
        assertEquals(16_000, text.length());
        assertTrue(text.lines().allMatch(l -> l.matches("user-\\d{10}")), text.substring(0, 64));
    }
}
