package io.hotkeeper.engine;

import io.hotkeeper.engine.core.Internals;
import io.hotkeeper.engine.shard.KeyShards;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The API is the exported packages only: no public method of an API type takes or returns a type of an internal
 * (unexported) package, and the module exports exactly the API packages. Internals are reachable for the
 * project's own tools through {@link Internals}, which follows the close rule.
 */
class ApiSurfaceTest {
    private static final Set<String> API_PACKAGES = Set.of("io.hotkeeper.engine", "io.hotkeeper.engine.snapshot");

    @Test
    void theModuleExportsOnlyTheApiPackages() {
        Module module = Hotkeeper.class.getModule();
        if (!module.isNamed()) {
            // Surefire may run the engine on the class path; the descriptor is then read from the compiled file.
            var descriptor = java.lang.module.ModuleFinder.of(java.nio.file.Path.of("target/classes"))
                    .find("io.hotkeeper.engine").orElseThrow().descriptor();
            Set<String> exported = new java.util.TreeSet<>();
            descriptor.exports().forEach(e -> {
                assertTrue(e.targets().isEmpty(), "qualified export " + e);
                exported.add(e.source());
            });
            assertEquals(new java.util.TreeSet<>(API_PACKAGES), exported);
            return;
        }
        for (String p : module.getPackages()) {
            assertEquals(API_PACKAGES.contains(p), module.isExported(p), p);
        }
    }

    /** Dependency-free: the JDK (java.base, and jdk.jfr for named sketches' events) and the bindings only. */
    @Test
    void theModuleReadsOnlyTheJdkAndTheBindings() {
        Module module = Hotkeeper.class.getModule();
        var descriptor = module.isNamed() ? module.getDescriptor()
                : java.lang.module.ModuleFinder.of(java.nio.file.Path.of("target/classes"))
                        .find("io.hotkeeper.engine").orElseThrow().descriptor();
        Set<String> required = new java.util.TreeSet<>();
        descriptor.requires().forEach(r -> required.add(r.name()));
        assertEquals(new java.util.TreeSet<>(Set.of("java.base", "io.hotkeeper.numa", "jdk.jfr")), required);
    }

    @Test
    void noPublicApiMethodMentionsAnInternalType() throws Exception {
        List<String> leaks = new ArrayList<>();
        for (Class<?> api : apiTypes()) {
            for (Method m : api.getMethods()) {
                if (m.getDeclaringClass() == Object.class || m.getDeclaringClass().isEnum() && api != m.getDeclaringClass()) {
                    continue;
                }
                check(api, m, m.getGenericReturnType(), leaks);
                for (Type p : m.getGenericParameterTypes()) {
                    check(api, m, p, leaks);
                }
            }
        }
        assertTrue(leaks.isEmpty(), "API methods that expose internal types: " + leaks);
    }

    /**
     * The table's slot word (fingerprint, SECOND bit, count packed in a long) is the engine's encoding: no public
     * method or constructor of an API type is named after it or takes or returns words. A batch of keys
     * ({@code observeAll(long[])}) is not words, so arrays of long are refused in the snapshot package only.
     */
    @Test
    void noPublicApiMethodShowsTheSlotWordLayout() throws Exception {
        List<String> shown = new ArrayList<>();
        for (Class<?> api : apiTypes()) {
            List<java.lang.reflect.Executable> members = new ArrayList<>(List.of(api.getMethods()));
            members.addAll(List.of(api.getConstructors()));
            for (java.lang.reflect.Executable m : members) {
                if (m.getDeclaringClass() != api) {
                    continue;
                }
                if (m.getName().toLowerCase(java.util.Locale.ROOT).contains("word")) {
                    shown.add(api.getSimpleName() + "." + m.getName());
                }
                if (!api.getPackageName().endsWith(".snapshot")) {
                    continue;
                }
                List<Type> types = new ArrayList<>(List.of(m.getGenericParameterTypes()));
                if (m instanceof Method method) {
                    types.add(method.getGenericReturnType());
                }
                for (Type t : types) {
                    if (mentionsLongArray(t)) {
                        shown.add(api.getSimpleName() + "." + m.getName() + " -> " + t.getTypeName());
                    }
                }
            }
        }
        assertEquals(List.of(), shown, "API members that show slot words");
    }

    private static boolean mentionsLongArray(Type t) {
        if (t instanceof ParameterizedType p) {
            for (Type a : p.getActualTypeArguments()) {
                if (mentionsLongArray(a)) {
                    return true;
                }
            }
            return false;
        }
        return t == long[].class || t instanceof java.lang.reflect.GenericArrayType g
                && mentionsLongArray(g.getGenericComponentType());
    }

    /** The kinds of key, as parameter lists: each has an observe with and without a weight, and every read. */
    private static final List<List<Class<?>>> KEY_KINDS = List.of(
            List.of(long.class),
            List.of(byte[].class),
            List.of(byte[].class, int.class, int.class),
            List.of(CharSequence.class),
            List.of(java.lang.foreign.MemorySegment.class),
            List.of(java.lang.foreign.MemorySegment.class, long.class, long.class));

    /**
     * One set of observe overloads (issue #29): every observe overload of the sketch is declared by
     * {@link KeyObserver}, which the sketch and its writer implement, each as a final class with its own concrete
     * methods (no default method stands in for one on the hot path); the interface is sealed to the two.
     */
    @Test
    void theSketchAndItsWriterObserveThroughOneInterface() throws Exception {
        assertTrue(KeyObserver.class.isInterface() && KeyObserver.class.isSealed());
        assertEquals(Set.of(Hotkeeper.class, HotkeeperWriter.class), Set.of(KeyObserver.class.getPermittedSubclasses()));
        Set<String> declared = new java.util.TreeSet<>();
        for (Method m : KeyObserver.class.getMethods()) {
            assertFalse(m.isDefault(), "default method " + m);
            declared.add(m.getName() + List.of(m.getParameterTypes()));
        }
        Set<String> expected = new java.util.TreeSet<>();
        for (List<Class<?>> kind : KEY_KINDS) {
            expected.add("observe" + kind);
            List<Class<?>> weighted = new ArrayList<>(kind);
            weighted.add(long.class);
            expected.add("observe" + weighted);
        }
        expected.add("observeAll" + List.of(long[].class));
        expected.add("observeAll" + List.of(long[].class, int.class, int.class));
        assertEquals(expected, declared, "every kind of key, with and without a weight, and the batches");
        for (Class<?> c : List.of(Hotkeeper.class, HotkeeperWriter.class)) {
            assertTrue(KeyObserver.class.isAssignableFrom(c), c + " implements KeyObserver");
            assertTrue(java.lang.reflect.Modifier.isFinal(c.getModifiers()), c + " is final");
            Set<String> observes = new java.util.TreeSet<>();
            for (Method m : c.getMethods()) {
                if (m.getName().startsWith("observe") && !java.lang.reflect.Modifier.isStatic(m.getModifiers())) {
                    observes.add(m.getName() + List.of(m.getParameterTypes()));
                    assertEquals(c, m.getDeclaringClass(), "concrete in the class: " + m);
                }
            }
            assertEquals(declared, observes, c.getSimpleName() + "'s observe overloads are the interface's");
        }
    }

    /** The reads take every kind of key the sketch observes: estimate, contains and bounds (at a confidence). */
    @Test
    void everyKindOfKeyHasEveryRead() {
        List<String> missing = new ArrayList<>();
        for (List<Class<?>> kind : KEY_KINDS) {
            Class<?>[] key = kind.toArray(Class<?>[]::new);
            List<Class<?>> withConfidence = new ArrayList<>(kind);
            withConfidence.add(double.class);
            read(missing, "estimate", long.class, key);
            read(missing, "contains", boolean.class, key);
            read(missing, "bounds", io.hotkeeper.engine.snapshot.KeyBounds.class,
                    withConfidence.toArray(Class<?>[]::new));
        }
        assertEquals(List.of(), missing);
    }

    private static void read(List<String> missing, String name, Class<?> returns, Class<?>... parameters) {
        try {
            assertEquals(returns, Hotkeeper.class.getMethod(name, parameters).getReturnType());
        } catch (NoSuchMethodException e) {
            missing.add(name + List.of(parameters));
        }
    }

    /**
     * HotkeeperInfo can grow (issue #29): a final class with accessors, not a record whose canonical constructor
     * every new field would break, and no public constructor at all.
     */
    @Test
    void hotkeeperInfoHasNoPublicConstructor() {
        assertFalse(HotkeeperInfo.class.isRecord());
        assertTrue(java.lang.reflect.Modifier.isFinal(HotkeeperInfo.class.getModifiers()));
        assertEquals(0, HotkeeperInfo.class.getConstructors().length);
        for (var c : HotkeeperInfo.class.getDeclaredConstructors()) {
            int modifiers = c.getModifiers();
            assertFalse(java.lang.reflect.Modifier.isPublic(modifiers) || java.lang.reflect.Modifier.isProtected(modifiers),
                    c.toString());
        }
    }

    @Test
    void internalsFollowTheCloseRule() {
        Hotkeeper hk = Hotkeeper.builder().memoryBytes(4096).build();
        hk.observe(1L);
        KeyShards shards = Internals.keyShards(hk);
        assertNotNull(shards);
        assertEquals(List.of(shards), Internals.keyShardSets(hk));
        hk.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Internals.keyShards(hk));
        assertEquals(Hotkeeper.CLOSED_MESSAGE, e.getMessage());
        assertThrows(IllegalStateException.class, () -> Internals.install(h -> null), "installed once");
    }

    private static void check(Class<?> api, Method m, Type t, List<String> leaks) {
        if (t instanceof ParameterizedType p) {
            check(api, m, p.getRawType(), leaks);
            for (Type a : p.getActualTypeArguments()) {
                check(api, m, a, leaks);
            }
        } else if (t instanceof Class<?> c) {
            while (c.isArray()) {
                c = c.getComponentType();
            }
            if (c.getPackageName().startsWith("io.hotkeeper.") && !API_PACKAGES.contains(c.getPackageName())) {
                leaks.add(api.getSimpleName() + "." + m.getName() + " -> " + c.getName());
            }
        }
    }

    /** The public types of the API packages, found from the compiled classes. */
    private static List<Class<?>> apiTypes() throws Exception {
        List<Class<?>> out = new ArrayList<>();
        for (String p : API_PACKAGES) {
            java.nio.file.Path dir = java.nio.file.Path.of("target/classes", p.replace('.', '/'));
            try (var files = java.nio.file.Files.list(dir)) {
                for (java.nio.file.Path f : files.filter(x -> x.toString().endsWith(".class")).toList()) {
                    String name = f.getFileName().toString();
                    Class<?> c = Class.forName(p + "." + name.substring(0, name.length() - 6));
                    if (java.lang.reflect.Modifier.isPublic(c.getModifiers())) {
                        out.add(c);
                    }
                }
            }
        }
        assertTrue(out.size() > 10, "API types found: " + out);
        return out;
    }
}
