package io.hotkeeper.cli;

import io.hotkeeper.engine.salt.SaltMode;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.TypeConversionException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ConvertersTest {
    @Test
    void sizes() {
        assertEquals(65536, Converters.Size.parse("65536"));
        assertEquals(16384, Converters.Size.parse("16KiB"));
        assertEquals(65536, Converters.Size.parse("64k"));
        assertEquals(65536, Converters.Size.parse("64K"));
        assertEquals(65536, Converters.Size.parse("64KB"));
        assertEquals(1 << 20, Converters.Size.parse("1MiB"));
        assertEquals(1 << 20, Converters.Size.parse("1m"));
        assertEquals(16L << 20, Converters.Size.parse("16MB"));
        assertEquals(1L << 30, Converters.Size.parse("1GiB"));
        assertEquals(100, Converters.Size.parse("100B"));
        for (String bad : new String[] {"", "k", "1x", "-1", "1.5MiB", "1 iB", "1KiBB", "99999999999999999g"}) {
            assertThrows(TypeConversionException.class, () -> Converters.Size.parse(bad), bad);
        }
    }

    @Test
    void delimiters() {
        assertEquals('\t', Converters.Delimiter.parse("\\t"));
        assertEquals('\t', Converters.Delimiter.parse("\t"));
        assertEquals('\t', Converters.Delimiter.parse("TAB"));
        assertEquals(' ', Converters.Delimiter.parse(" "));
        assertEquals(' ', Converters.Delimiter.parse("space"));
        assertEquals(',', Converters.Delimiter.parse(","));
        assertEquals(',', Converters.Delimiter.parse("comma"));
        assertEquals(';', Converters.Delimiter.parse(";"));
        assertEquals('|', Converters.Delimiter.parse("pipe"));
        for (String bad : new String[] {"", ",,", "\n", "\r", "é", "ab"}) {
            assertThrows(TypeConversionException.class, () -> Converters.Delimiter.parse(bad), bad);
        }
    }

    @Test
    void saltModes() {
        Converters.Salt salt = new Converters.Salt();
        assertEquals(SaltMode.SHARED, salt.convert("shared"));
        assertEquals(SaltMode.SHARDED, salt.convert("SHARDED"));
        assertThrows(TypeConversionException.class, () -> salt.convert("both"));
    }
}
