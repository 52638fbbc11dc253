package io.hotkeeper.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shape of {@code --every} output, in-process (the timing and the real pipe: StreamingIT). Input that ends at
 * once gives the final block only.
 */
class EveryTest {
    private static final byte[] INPUT = "a\nb\na\n".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;

    private static String run(boolean terminal, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = Main.execute(args, () -> new ByteArrayInputStream(INPUT), out, err,
                new Terminals(terminal, false), Interrupts.none());
        assertEquals(0, exit, err.toString(StandardCharsets.UTF_8));
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void intoAPipeBlocksAreHeadedByATimestampLine() {
        String out = run(false, "top", "--every", "1s", "--format", "tsv", "--min-count", "1");
        List<String> lines = out.lines().toList();
        assertEquals(3, lines.size(), out);
        assertTrue(lines.get(0).matches("# \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z \\(final\\)"), out);
        assertEquals(List.of("1\ta\t2\t0", "2\tb\t1\t0"), lines.subList(1, 3));
        assertFalse(out.contains("\u001b"), out);
    }

    @Test
    void onATerminalEachPrintRedrawsTheScreen() {
        String out = run(true, "top", "--every", "1s", "--min-count", "1");
        assertTrue(out.startsWith("\u001b[H\u001b[2J# "), out);
        assertTrue(out.contains("rank  estimate  key"), out);
    }

    @Test
    void jsonBlocksAreOneObjectPerLine() throws Exception {
        String out = run(false, "top", "--every", "500ms", "--format", "json", "--min-count", "1");
        List<String> lines = out.lines().toList();
        assertEquals(1, lines.size(), out);
        JsonNode block = new ObjectMapper().readTree(lines.getFirst());
        assertFalse(block.get("partial").asBoolean());
        assertTrue(block.get("time").asText().endsWith("Z"));
        assertEquals("a", block.get("top").get(0).get("key").asText());
        assertEquals(2, block.get("top").get(0).get("estimate").asLong());
    }

    @Test
    void followTakesExactlyOneFile() throws Exception {
        Path a = Inputs.write(dir, "a.log", List.of("x"));
        for (String[] args : new String[][] {{"top", "--follow"}, {"top", "--follow", "-"},
                {"top", "-f", a.toString(), a.toString()}}) {
            Cli.Result r = Cli.run(args);
            assertEquals(2, r.exit(), String.join(" ", args));
            assertTrue(r.err().startsWith("hotkeeper top: --follow needs exactly one FILE"), r.err());
        }
    }
}
