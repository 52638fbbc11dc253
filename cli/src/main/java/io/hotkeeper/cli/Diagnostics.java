package io.hotkeeper.cli;

import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The engine's log lines (a NUMA fallback, through {@code System.getLogger}, which the JDK routes to
 * java.util.logging): off unless {@code --verbose}, so that stderr carries only the tool's own messages.
 */
final class Diagnostics {
    /** The parent of the engine's loggers; held so that its level is not lost to garbage collection. */
    private static final Logger ENGINE = Logger.getLogger("io.hotkeeper");

    private Diagnostics() {
    }

    static void engineLogging(boolean verbose) {
        ENGINE.setLevel(verbose ? Level.INFO : Level.OFF);
    }
}
