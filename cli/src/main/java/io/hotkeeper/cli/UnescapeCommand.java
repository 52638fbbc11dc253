package io.hotkeeper.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

/**
 * {@code hotkeeper unescape}: turns keys as {@code top} prints them (tsv, table) back into their bytes, one per
 * line of standard input.
 */
@Command(name = "unescape", mixinStandardHelpOptions = true, versionProvider = Version.class,
        description = {"Turns escaped keys (one per line of standard input, as 'hotkeeper top --format tsv' prints "
                + "them in its second column) back into their exact bytes, each followed by LF (or NUL with -z).",
                "Example: hotkeeper top --format tsv log | cut -f2 | hotkeeper unescape -z | xargs -0 ..."})
final class UnescapeCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = {"-z", "--zero"}, description = "End each key with NUL instead of LF (keys may hold LF).")
    boolean zero;

    private final Supplier<InputStream> stdin;
    private final OutputStream stdout;

    UnescapeCommand(Supplier<InputStream> stdin, OutputStream stdout) {
        this.stdin = stdin;
        this.stdout = stdout;
    }

    @Override
    public Integer call() throws IOException {
        spec.commandLine().getOut().flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(stdin.get(), StandardCharsets.UTF_8));
        OutputStream out = new java.io.BufferedOutputStream(stdout);
        long number = 0;
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            number++;
            try {
                out.write(KeyEscaper.unescape(line));
            } catch (IllegalArgumentException e) {
                out.flush();
                throw new UserException("unescape: line " + number + ": " + e.getMessage());
            }
            out.write(zero ? 0 : '\n');
        }
        out.flush();
        return 0;
    }
}
