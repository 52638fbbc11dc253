package io.hotkeeper.cli;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** Runs the tool in-process, with captured streams. */
final class Cli {
    record Result(int exit, String out, String err) {
        List<String> lines() {
            return out.isEmpty() ? List.of() : List.of(out.split("\n"));
        }

        /** The last line of stderr: the JSON object of --stats (lines about skipped input come before it). */
        String stats() {
            return err.isEmpty() ? "" : err.substring(err.lastIndexOf('\n', err.length() - 2) + 1);
        }
    }

    private Cli() {
    }

    static Result run(byte[] stdin, String... args) {
        return run(() -> new ByteArrayInputStream(stdin), args);
    }

    static Result run(java.util.function.Supplier<java.io.InputStream> stdin, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = Main.execute(args, stdin, out, err, false);
        return new Result(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    static Result run(String... args) {
        return run(new byte[0], args);
    }
}
