package io.hotkeeper.engine;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** Launches a child JVM as a user would (this JDK's {@code java}, no flags from the environment). */
final class ChildJvm {
    record Result(int exit, String stdout, String stderr) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout\n" + stdout + "--- stderr\n" + stderr;
        }
    }

    private ChildJvm() {
    }

    /** Runs {@code java ARGS...} and waits up to 60 s. */
    static Result run(List<String> args) throws Exception {
        return runTool("java", args);
    }

    /** Runs this JDK's {@code bin/TOOL ARGS...} ({@code java}, {@code javac}) and waits up to 60 s. */
    static Result runTool(String tool, List<String> args) throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", tool);
        Path err = Files.createTempFile("child-jvm", ".err");
        try {
            List<String> command = new ArrayList<>();
            command.add(java.toString());
            command.addAll(args);
            ProcessBuilder builder = new ProcessBuilder(command).redirectError(err.toFile());
            // Nothing from the test JVM's environment may add flags behind the test's back.
            builder.environment().remove("JAVA_TOOL_OPTIONS");
            builder.environment().remove("JDK_JAVA_OPTIONS");
            builder.environment().remove("_JAVA_OPTIONS");
            Process process = builder.start();
            String stdout = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(process.waitFor(60, TimeUnit.SECONDS), "child JVM finished");
            return new Result(process.exitValue(), stdout, Files.readString(err));
        } finally {
            Files.deleteIfExists(err);
        }
    }

    /** The class-path entry (a directory or a jar) that holds {@code type}. */
    static String location(Class<?> type) throws Exception {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }
}
