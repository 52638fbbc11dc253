package io.hotkeeper.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of {@code ./hotkeeper}: no arguments runs the demo. */
@Command(name = "hotkeeper", mixinStandardHelpOptions = true, version = "hotkeeper 0.1.0",
        description = "Finds the heavy hitters of a stream with Hotkeeper's concurrent off-heap sketch.",
        subcommands = {DemoCommand.class})
public final class Main implements Runnable {

    @Override
    public void run() {
        new CommandLine(new DemoCommand()).execute();
    }

    public static void main(String[] args) {
        CommandLine cli = new CommandLine(new Main());
        System.exit(cli.execute(args));
    }
}
