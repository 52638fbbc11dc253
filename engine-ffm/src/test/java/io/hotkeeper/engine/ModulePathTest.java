package io.hotkeeper.engine;

import io.hotkeeper.numa.Numa;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The engine as a named module on the module path, as a modular application uses it: a consumer module that
 * {@code requires io.hotkeeper.engine} is compiled against the engine's and the bindings' module directories
 * (javac, as a child process, fails if the API it uses is not exported) and run with {@code java --module-path ... -m}, no other flag.
 * It builds the default sketch, named (so that it registers its JFR event, from a package the module does not
 * export), observes, and prints its top keys; stderr must stay empty (no native-access warning: the default sketch
 * makes no restricted call, whatever module it runs in; no JFR warning either).
 */
class ModulePathTest {
    private static final String MODULE_INFO = """
            module hotkeeper.consumer {
                requires io.hotkeeper.engine;
            }
            """;
    private static final String MAIN = """
            package consumer;

            import io.hotkeeper.engine.HeavyHitter;
            import io.hotkeeper.engine.Hotkeeper;

            public final class Main {
                public static void main(String[] args) {
                    try (Hotkeeper hot = Hotkeeper.builder().memory(64 * 1024).name("orders").build()) {
                        for (int i = 0; i < 1000; i++) {
                            hot.observe(7L);
                            hot.observe("GET /quote");
                        }
                        for (HeavyHitter h : hot.topK(2)) {
                            System.out.println(h.keyAsString() + " " + h.estimate());
                        }
                        System.out.println(Hotkeeper.class.getModule().getName() + " named="
                                + Hotkeeper.class.getModule().isNamed());
                    }
                }
            }
            """;

    @Test
    void aModularApplicationRunsTheEngineAsANamedModuleWithoutFlags(@TempDir Path dir) throws Exception {
        String modulePath = String.join(File.pathSeparator, ChildJvm.location(Numa.class),
                ChildJvm.location(Hotkeeper.class));
        Path src = dir.resolve("src");
        Files.createDirectories(src.resolve("consumer"));
        Files.writeString(src.resolve("module-info.java"), MODULE_INFO);
        Files.writeString(src.resolve("consumer/Main.java"), MAIN);
        Path out = dir.resolve("out");
        ChildJvm.Result compiled = ChildJvm.runTool("javac", List.of("--module-path", modulePath, "-d",
                out.toString(), src.resolve("module-info.java").toString(), src.resolve("consumer/Main.java").toString()));
        assertEquals(0, compiled.exit(), compiled.toString());

        ChildJvm.Result run = ChildJvm.run(List.of("--module-path", modulePath + File.pathSeparator + out,
                "-m", "hotkeeper.consumer/consumer.Main"));
        assertEquals(0, run.exit(), run.toString());
        assertEquals("", run.stderr(), run.toString());
        // The two keys tie at 1000, so their order is not fixed: compare as a set, and the module line last.
        List<String> lines = run.stdout().lines().toList();
        assertEquals(3, lines.size(), run.toString());
        assertEquals(java.util.Set.of("7 1000", "GET /quote 1000"), java.util.Set.copyOf(lines.subList(0, 2)),
                run.toString());
        assertEquals("io.hotkeeper.engine named=true", lines.get(2), run.toString());
    }
}
