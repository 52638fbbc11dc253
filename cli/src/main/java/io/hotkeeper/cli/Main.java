package io.hotkeeper.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

import java.io.BufferedWriter;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Entry point of {@code ./hotkeeper}: no arguments runs the demo. Exit codes: 0 done, 1 internal error, 2 bad
 * option, bad value, or an input unreadable or truncated while read (one message line, never a stack trace; set
 * HOTKEEPER_DEBUG=1 to get the stack trace of an internal error); 130 and 143 after SIGINT and SIGTERM
 * ({@link Interrupts}, installed only by {@link #main}).
 */
@Command(name = "hotkeeper", mixinStandardHelpOptions = true, versionProvider = Version.class,
        subcommands = CommandLine.HelpCommand.class,
        description = "Finds the heavy hitters of a stream with Hotkeeper's concurrent off-heap sketch.",
        footer = {"", "With no command, runs the demo. Exit codes: 0 done, 1 internal error, 2 bad usage or input, "
                + "130/143 interrupted by SIGINT/SIGTERM (top prints the result so far)."})
public final class Main implements Runnable {
    /** Exit code of a run that finished. */
    public static final int OK = 0;
    /** Exit code of an internal error (a bug, or the machine ran out of something). */
    public static final int INTERNAL_ERROR = 1;
    /** Exit code of a bad option, bad value, or an input that cannot be read or shrank while it was read. */
    public static final int USAGE = 2;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "Missing command");
    }

    public static void main(String[] args) {
        System.exit(execute(args, () -> new FileInputStream(FileDescriptor.in), new FileOutputStream(FileDescriptor.out),
                new FileOutputStream(FileDescriptor.err), Terminals.detect(), Interrupts.install()));
    }

    /** {@link #execute(String[], Supplier, OutputStream, OutputStream, Terminals, Interrupts)} without signals. */
    static int execute(String[] args, Supplier<InputStream> stdin, OutputStream stdout, OutputStream stderr,
                       boolean terminal) {
        return execute(args, stdin, stdout, stderr, new Terminals(terminal, terminal), Interrupts.none());
    }

    /**
     * Runs the tool with the given streams (tests call this in-process) and returns the exit code. Output is
     * UTF-8 whatever the platform's encoding.
     */
    static int execute(String[] args, Supplier<InputStream> stdin, OutputStream stdout, OutputStream stderr,
                       Terminals terminals, Interrupts interrupts) {
        long started = System.nanoTime(); // --stats' phases count from here
        PrintWriter out = new PrintWriter(new BufferedWriter(new OutputStreamWriter(stdout, StandardCharsets.UTF_8),
                1 << 16));
        PrintWriter err = new PrintWriter(new OutputStreamWriter(stderr, StandardCharsets.UTF_8), true);
        try {
            Map<String, Supplier<Object>> commands = new LinkedHashMap<>();
            commands.put("demo", DemoCommand::new);
            commands.put("top", () -> new TopCommand(stdin, terminals, interrupts, started));
            commands.put("unescape", () -> new UnescapeCommand(stdin, stdout));
            commands.put("merge", MergeCommand::new);
            commands.put("show", ShowCommand::new);
            commands.put("aot-training", AotTrainingCommand::new);
            String[] run = args.length == 0 ? new String[] {"demo"} : args;
            CommandLine cli = new CommandLine(new Main());
            // picocli reads every registered command's annotations before it parses: a run naming its command
            // registers only that one (the options phase went from 0.143 to 0.110 s, docs/cli.md). Help,
            // version, and anything else get them all.
            Supplier<Object> named = commands.get(run[0]);
            if (named != null) {
                cli.addSubcommand(run[0], named.get());
            } else {
                commands.forEach((name, command) -> cli.addSubcommand(name, command.get()));
            }
            cli.setOut(out)
                    .setErr(err)
                    .setCaseInsensitiveEnumValuesAllowed(true)
                    .setParameterExceptionHandler(shortUsage())
                    .setExecutionExceptionHandler(errors());
            return cli.execute(run);
        } catch (Error e) {
            // picocli hands only Exceptions to the handler below; an Error (out of memory, a JVM fault turned into
            // an InternalError outside the ingest) gets the same one-line report instead of a raw stack trace.
            out.flush();
            return internalError(e, err);
        } finally {
            out.flush();
            err.flush();
        }
    }

    /** The problem, the synopsis, and where to find more: exit 2. */
    private static IParameterExceptionHandler shortUsage() {
        return (ex, args) -> {
            CommandLine cmd = ex.getCommandLine();
            PrintWriter err = cmd.getErr();
            err.println(cmd.getCommandSpec().qualifiedName() + ": " + ex.getMessage());
            UnmatchedArgumentException.printSuggestions(ex, err);
            err.print("Usage: " + cmd.getHelp().synopsis(0));
            err.printf("Try '%s --help' for more information.%n", cmd.getCommandSpec().qualifiedName());
            err.flush();
            return USAGE;
        };
    }

    /** User errors: one line, exit 2. Anything else: one line, exit 1 (stack trace only with HOTKEEPER_DEBUG). */
    private static IExecutionExceptionHandler errors() {
        return (ex, cmd, parseResult) -> {
            PrintWriter err = cmd.getErr();
            cmd.getOut().flush();
            if (ex instanceof UserException) {
                err.println("hotkeeper: " + ex.getMessage());
                err.flush();
                return USAGE;
            }
            return internalError(ex, err);
        };
    }

    /** One line naming the problem (the stack trace only with HOTKEEPER_DEBUG): exit 1. */
    private static int internalError(Throwable ex, PrintWriter err) {
        err.println("hotkeeper: internal error: " + Ingest.reason(ex));
        if (System.getenv("HOTKEEPER_DEBUG") != null) {
            ex.printStackTrace(err);
        } else {
            err.println("hotkeeper: (set HOTKEEPER_DEBUG=1 for the stack trace)");
        }
        err.flush();
        return INTERNAL_ERROR;
    }
}
