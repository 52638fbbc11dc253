package io.hotkeeper.cli;

import io.hotkeeper.engine.SaltMode;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.TypeConversionException;

import java.time.Duration;

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
        assertEquals(Splitter.single((byte) '\t'), Converters.Delimiter.parse("\\t"));
        assertEquals(Splitter.single((byte) '\t'), Converters.Delimiter.parse("\t"));
        assertEquals(Splitter.single((byte) '\t'), Converters.Delimiter.parse("TAB"));
        assertEquals(Splitter.BLANKS, Converters.Delimiter.parse(" "));
        assertEquals(Splitter.BLANKS, Converters.Delimiter.parse("space"));
        assertEquals(Splitter.BLANKS, Converters.Delimiter.parse("whitespace"));
        assertEquals(Splitter.single((byte) ' '), Converters.Delimiter.parse("single-space"));
        assertEquals(Splitter.single((byte) ','), Converters.Delimiter.parse(","));
        assertEquals(Splitter.single((byte) ','), Converters.Delimiter.parse("comma"));
        assertEquals(Splitter.single((byte) ';'), Converters.Delimiter.parse(";"));
        assertEquals(Splitter.single((byte) '|'), Converters.Delimiter.parse("pipe"));
        for (String bad : new String[] {"", ",,", "\n", "\r", "é", "ab"}) {
            assertThrows(TypeConversionException.class, () -> Converters.Delimiter.parse(bad), bad);
        }
    }

    @Test
    void periods() {
        assertEquals(Duration.ofMillis(500), Converters.Period.parse("500ms"));
        assertEquals(Duration.ofSeconds(1), Converters.Period.parse("1s"));
        assertEquals(Duration.ofMinutes(2), Converters.Period.parse("2m"));
        assertEquals(Duration.ofHours(1), Converters.Period.parse("1H"));
        assertEquals(Duration.ofSeconds(3), Converters.Period.parse("PT3S"));
        for (String bad : new String[] {"", "1", "soon", "1.5s", "-1s", "0s", "5ms", "25h", "1 s", "PT-1S"}) {
            assertThrows(TypeConversionException.class, () -> Converters.Period.parse(bad), bad);
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
