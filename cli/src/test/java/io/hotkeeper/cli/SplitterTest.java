package io.hotkeeper.cli;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SplitterTest {
    /** Field n of line, or null if the line has fewer fields. */
    private static String field(Splitter s, String line, int n) {
        byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
        MemorySegment seg = MemorySegment.ofArray(bytes);
        long from = s.fieldStart(seg, 0, bytes.length, n);
        if (from < 0) {
            return null;
        }
        return new String(bytes, (int) from, (int) (s.fieldEnd(seg, from, bytes.length) - from),
                StandardCharsets.UTF_8);
    }

    private static boolean blank(Splitter s, String line) {
        byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
        return s.blank(MemorySegment.ofArray(bytes), 0, bytes.length);
    }

    @Test
    void blanksSplitLikeAwk() {
        Splitter s = Splitter.BLANKS;
        String line = "  -rw-r--r--   1 alice\t\tstaff  42 ";
        assertEquals("-rw-r--r--", field(s, line, 1));
        assertEquals("1", field(s, line, 2));
        assertEquals("alice", field(s, line, 3));
        assertEquals("staff", field(s, line, 4));
        assertEquals("42", field(s, line, 5));
        assertEquals(null, field(s, line, 6)); // trailing blanks make no empty field
        assertEquals(null, field(s, "   ", 1));
        assertEquals(null, field(s, "", 1));
        assertEquals("x", field(s, "x", 1));
        assertTrue(blank(s, " \t "));
        assertFalse(blank(s, " a "));
    }

    @Test
    void singleBytesSplitLikeCut() {
        Splitter s = Splitter.single((byte) ' ');
        assertEquals("", field(s, "a  b", 2));
        assertEquals("b", field(s, "a  b", 3));
        assertEquals("", field(s, " a", 1));
        assertEquals(null, field(s, "a b", 3));
        assertEquals("", field(s, "a ", 2));
        Splitter comma = Splitter.single((byte) ',');
        assertEquals("b", field(comma, "a,b,c", 2));
        assertEquals("c", field(comma, "a,b,c", 3));
        assertTrue(blank(comma, ""));
        assertFalse(blank(comma, " "));
    }
}
