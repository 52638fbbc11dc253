package io.hotkeeper.engine;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** HotkeeperInfo stays a value after it stopped being a record: equality, hash and a record's toString. */
class HotkeeperInfoTest {

    /** The record's components, in its order: the accessors keep these names, toString lists them so. */
    private static final List<String> NAMES = List.of("k", "tableBytes", "buckets", "decayBase", "saltMode",
            "saltShards", "keepsKeys", "shards", "shardCapacity", "maxKeyBytes", "promotionFloor", "shardBytes",
            "tables", "combining", "combiningEngaged", "combinerEntries", "flushThreshold", "combiners",
            "nativeBytesByPart", "memoryBudget", "shardLimit", "candidateBuckets", "partitioning");

    /** The figures: every public no-argument accessor but the derived {@code nativeBytes()}. */
    private static List<Method> figures() {
        List<Method> out = new ArrayList<>();
        for (Method m : HotkeeperInfo.class.getDeclaredMethods()) {
            if (Modifier.isPublic(m.getModifiers()) && !Modifier.isStatic(m.getModifiers())
                    && m.getParameterCount() == 0 && !List.of("nativeBytes", "hashCode", "toString")
                    .contains(m.getName())) {
                out.add(m);
            }
        }
        return out;
    }

    @Test
    void equalFiguresAreEqualInfosAndToStringNamesEveryFigure() throws Exception {
        try (Hotkeeper hk = Hotkeeper.builder().memoryBytes(8192).seed(1).build()) {
            hk.observe(1L);
            HotkeeperInfo one = hk.info();
            HotkeeperInfo two = hk.info();
            assertEquals(one, two);
            assertEquals(one.hashCode(), two.hashCode());
            assertEquals(one.toString(), two.toString());
            String text = one.toString();
            assertTrue(text.startsWith("HotkeeperInfo[k=100, tableBytes=8192, "), text);
            assertTrue(text.endsWith("]"), text);
            int at = 0;
            for (String name : NAMES) {
                String named = name + "=" + HotkeeperInfo.class.getMethod(name).invoke(one);
                int found = text.indexOf(named, at);
                assertTrue(found > 0, named + " in " + text);
                at = found;
            }
            hk.observe(2L); // same shape
            assertEquals(one, hk.info());
            Thread other = new Thread(() -> hk.observe(3L)); // a second shard: other figures
            other.start();
            other.join();
            assertNotEquals(one, hk.info());
            assertThrows(UnsupportedOperationException.class, () -> one.nativeBytesByPart().put("x", 1L));
        }
        try (Hotkeeper a = Hotkeeper.builder().memoryBytes(8192).build();
             Hotkeeper b = Hotkeeper.builder().memoryBytes(16384).build()) {
            assertNotEquals(a.info(), b.info());
            assertNotEquals(a.info(), null);
            assertNotEquals(a.info(), a.info().toString());
        }
    }

    @Test
    void accessorsKeepTheRecordsNames() {
        assertEquals(new TreeSet<>(NAMES), new TreeSet<>(figures().stream().map(Method::getName).toList()));
        assertTrue(Arrays.stream(HotkeeperInfo.class.getMethods()).anyMatch(m -> m.getName().equals("nativeBytes")));
    }
}
