package io.hotkeeper.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** JSON keys escaped once (by Jackson), the TSV truncated column, and {@code hotkeeper unescape}. */
class OutputTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private static byte[] repeat(int times, byte[]... keys) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < times; i++) {
            for (int k = 0; k <= i % keys.length; k++) { // key 0 most often, then 1, ...
                out.writeBytes(keys[k]);
                out.write('\n');
            }
        }
        return out.toByteArray();
    }

    @Test
    void jsonKeysAreTheKeysTextEscapedOnlyByJson() throws Exception {
        byte[] tab = "a\tb".getBytes(StandardCharsets.UTF_8);
        byte[] slash = "c:\\dir \"q\"".getBytes(StandardCharsets.UTF_8);
        byte[] unicode = "日本\u0007".getBytes(StandardCharsets.UTF_8);
        Cli.Result r = Cli.run(repeat(30, tab, slash, unicode), "top", "--format", "json", "--min-count", "1");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("\"key\" : \"a\\tb\""), r.out()); // one level of escaping in the JSON text
        JsonNode rows = JSON.readTree(r.out());
        assertEquals("a\tb", rows.get(0).get("key").asText());
        assertEquals("c:\\dir \"q\"", rows.get(1).get("key").asText());
        assertEquals("日本\u0007", rows.get(2).get("key").asText());
        for (JsonNode row : rows) {
            assertFalse(row.has("keyBytes"), row.toString()); // well-formed UTF-8: the text is the key
        }
    }

    @Test
    void jsonGivesTheBytesOfKeysThatAreNotUtf8() throws Exception {
        byte[] latin1 = {'c', 'a', 'f', (byte) 0xE9};
        byte[] ok = "plain".getBytes(StandardCharsets.UTF_8);
        Cli.Result r = Cli.run(repeat(20, latin1, ok), "top", "--format", "json", "--min-count", "1");
        JsonNode rows = JSON.readTree(r.out());
        assertEquals("caf\uFFFD", rows.get(0).get("key").asText());
        assertArrayEquals(latin1, Base64.getDecoder().decode(rows.get(0).get("keyBytes").asText()));
        assertFalse(rows.get(1).has("keyBytes"));
    }

    @Test
    void tsvHasTheTruncatedFlag() throws Exception {
        String longKey = "x".repeat(40);
        byte[] data = (longKey + "\n" + longKey + "\nshort\n").getBytes(StandardCharsets.UTF_8);
        Cli.Result r = Cli.run(data, "top", "--format", "tsv", "--min-count", "1", "--max-key-bytes", "16");
        assertEquals(List.of("1\t" + "x".repeat(16) + "\t2\t1", "2\tshort\t1\t0"), r.lines());
    }

    @Test
    void unescapeGivesBackTheBytesOfEveryKey() throws Exception {
        List<byte[]> keys = new ArrayList<>();
        for (int b = 0; b < 256; b++) {
            if (b != '\n') {
                keys.add(new byte[] {(byte) b, 'k'});
            }
        }
        keys.add("日本語 \\t".getBytes(StandardCharsets.UTF_8));
        ByteArrayOutputStream input = new ByteArrayOutputStream();
        for (byte[] key : keys) {
            input.writeBytes(key);
            input.write('\n');
        }
        Cli.Result top = Cli.run(input.toByteArray(), "top", "--format", "tsv", "--min-count", "1", "-k", "1000");
        assertEquals(keys.size(), top.lines().size());
        StringBuilder column = new StringBuilder();
        for (String line : top.lines()) {
            column.append(line.split("\t")[1]).append('\n');
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int exit = Main.execute(new String[] {"unescape"}, // LF-terminated: no key holds an LF
                () -> new java.io.ByteArrayInputStream(column.toString().getBytes(StandardCharsets.UTF_8)), out,
                new ByteArrayOutputStream(), false);
        assertEquals(0, exit);
        List<String> got = new ArrayList<>();
        byte[] bytes = out.toByteArray();
        int from = 0;
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == '\n') {
                got.add(Arrays.toString(Arrays.copyOfRange(bytes, from, i)));
                from = i + 1;
            }
        }
        List<String> want = new ArrayList<>(keys.stream().map(Arrays::toString).toList());
        assertEquals(want.stream().sorted().toList(), got.stream().sorted().toList());
    }

    @Test
    void unescapeRejectsABadEscapeInOneLine() {
        for (String bad : new String[] {"a\\qb\n", "ok\n\\x4\n", "trailing\\\n"}) {
            Cli.Result r = Cli.run(bad.getBytes(StandardCharsets.UTF_8), "unescape");
            assertEquals(2, r.exit(), bad);
            assertTrue(r.err().startsWith("hotkeeper: unescape: line "), r.err());
            assertEquals(1, r.err().lines().count(), r.err());
        }
        Cli.Result ok = Cli.run("a\\tb\\\\\\x41\n".getBytes(StandardCharsets.UTF_8), "unescape");
        assertEquals("a\tb\\A\n", ok.out());
    }

    @Test
    void tiesAtTheKthPlaceGoByKeyOnEveryRun() throws Exception {
        // 60 keys with the same count: -k 10 reports the 10 smallest keys, the same ones on every run.
        StringBuilder text = new StringBuilder();
        for (int round = 0; round < 3; round++) {
            for (int i = 59; i >= 0; i--) {
                text.append(String.format("key-%02d%n", i));
            }
        }
        Path file = Files.writeString(dir.resolve("ties.txt"), text);
        List<String> want = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            want.add((i + 1) + String.format("\tkey-%02d\t3\t0", i));
        }
        for (int run = 0; run < 3; run++) {
            assertEquals(want, Cli.run("top", "--format", "tsv", "--min-count", "1", "-k", "10", file.toString())
                    .lines());
        }
    }
}
