package io.hotkeeper.engine.placement;

import io.hotkeeper.engine.Placement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The policy value: factories, toString, parsing. */
class PlacementTest {

    @Test
    void factoriesAndToString() {
        assertEquals("default", Placement.DEFAULT.toString());
        assertEquals("local", Placement.LOCAL.toString());
        assertEquals("interleave", Placement.INTERLEAVE.toString());
        assertEquals("node:3", Placement.node(3).toString());
        assertEquals(Placement.Kind.NODE, Placement.node(3).kind());
        assertEquals(3, Placement.node(3).nodeNumber());
        assertEquals(-1, Placement.LOCAL.nodeNumber());
        assertEquals(Placement.node(3), Placement.node(3));
        assertEquals(Placement.node(3).hashCode(), Placement.node(3).hashCode());
        assertNotEquals(Placement.node(3), Placement.node(4));
        assertNotEquals(Placement.LOCAL, Placement.INTERLEAVE);
    }

    @Test
    void aNodeOfAnyNumberIsAValueButNotANegativeOne() {
        assertEquals("node:7", Placement.node(7).toString());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Placement.node(-1));
        assertEquals("node=-1: must not be negative", e.getMessage());
    }

    @Test
    void parsesTheCommandLineForms() {
        assertSame(Placement.DEFAULT, Placement.parse("default"));
        assertSame(Placement.LOCAL, Placement.parse(" LOCAL "));
        assertSame(Placement.INTERLEAVE, Placement.parse("Interleave"));
        assertEquals(Placement.node(3), Placement.parse("node:3"));
        assertEquals(Placement.node(3), Placement.parse("3"));
        assertEquals(Placement.node(12), Placement.parse("NODE:12"));
        assertEquals(Placement.node(0), Placement.parse("0"));
    }

    @Test
    void toStringParsesBack() {
        for (Placement p : new Placement[] {Placement.DEFAULT, Placement.LOCAL, Placement.INTERLEAVE,
                Placement.node(0), Placement.node(5)}) {
            assertEquals(p, Placement.parse(p.toString()));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "node:", "node:-1", "-1", "nod:3", "node:3x", "node: 3", "3.0",
            "99999999999", "first-touch", "local,interleave"})
    void rejectsABadString(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Placement.parse(text));
        assertEquals("placement=\"" + text + "\": expected default, local, interleave, node:N or N (N a node number)",
                e.getMessage());
    }

    @Test
    void rejectsNull() {
        assertThrows(NullPointerException.class, () -> Placement.parse(null));
    }
}
