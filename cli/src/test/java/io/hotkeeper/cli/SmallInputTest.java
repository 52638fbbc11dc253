package io.hotkeeper.cli;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The smallest inputs are counted exactly with the defaults: no `--min-count` needed (docs/cli.md). */
class SmallInputTest {
    @Test
    void threeLinesOnStdinGiveExactCountsWithTheDefaults() {
        Cli.Result r = Cli.run("a\nb\na\n".getBytes(StandardCharsets.UTF_8), "top", "--format", "tsv", "-");
        assertEquals(0, r.exit(), r.err());
        assertEquals(List.of("1\ta\t2\t0", "2\tb\t1\t0"), r.lines());
    }
}
