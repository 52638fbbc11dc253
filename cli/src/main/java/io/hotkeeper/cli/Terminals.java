package io.hotkeeper.cli;

/**
 * Which of stdout and stderr are terminals. The launcher knows ({@code test -t}) and passes
 * {@code -Dhotkeeper.stdout.tty} and {@code -Dhotkeeper.stderr.tty}; without them both follow
 * {@code System.console().isTerminal()}.
 */
record Terminals(boolean stdout, boolean stderr) {
    static final Terminals NONE = new Terminals(false, false);

    static Terminals detect() {
        java.io.Console console = System.console();
        boolean both = console != null && console.isTerminal();
        return new Terminals(flag("hotkeeper.stdout.tty", both), flag("hotkeeper.stderr.tty", both));
    }

    private static boolean flag(String property, boolean otherwise) {
        String v = System.getProperty(property);
        return v == null ? otherwise : Boolean.parseBoolean(v);
    }
}
