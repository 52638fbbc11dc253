package io.hotkeeper.cli;

import io.hotkeeper.engine.salt.SaltMode;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** picocli converters for sizes, delimiters and the salt mode. */
final class Converters {
    private Converters() {
    }

    /**
     * A byte count: plain bytes ({@code 65536}) or a number with a binary unit, case-insensitive:
     * {@code k}, {@code KB}, {@code KiB} = 1024; {@code m}, {@code MB}, {@code MiB} = 1024^2; {@code g}, {@code GB},
     * {@code GiB} = 1024^3; {@code b}/{@code B} = 1.
     */
    static final class Size implements ITypeConverter<Long> {
        private static final Pattern SIZE = Pattern.compile("\\s*(\\d{1,15})\\s*([kmg]?)(i?b)?\\s*",
                Pattern.CASE_INSENSITIVE);

        @Override
        public Long convert(String value) {
            return parse(value);
        }

        static long parse(String value) {
            Matcher m = SIZE.matcher(value);
            if (!m.matches() || (m.group(2).isEmpty() && m.group(3) != null && m.group(3).length() == 2)) {
                throw new TypeConversionException("'" + value
                        + "' is not a size (examples: 65536, 64k, 64KiB, 1MiB, 16MB)");
            }
            long n = Long.parseLong(m.group(1));
            int shift = switch (m.group(2).toLowerCase(Locale.ROOT)) {
                case "k" -> 10;
                case "m" -> 20;
                case "g" -> 30;
                default -> 0;
            };
            if (n > (Long.MAX_VALUE >> shift)) {
                throw new TypeConversionException("'" + value + "' is too large");
            }
            return n << shift;
        }

        /** {@code n} in the largest binary unit that divides it: 1GiB, 64KiB, 100 (bytes). */
        static String format(long n) {
            if (n != 0 && n % (1L << 30) == 0) {
                return (n >> 30) + "GiB";
            }
            if (n != 0 && n % (1L << 20) == 0) {
                return (n >> 20) + "MiB";
            }
            if (n != 0 && n % 1024 == 0) {
                return (n >> 10) + "KiB";
            }
            return Long.toString(n);
        }
    }

    /**
     * A field delimiter: one ASCII character other than LF and CR, or {@code \t}, {@code tab}, {@code space},
     * {@code comma}, {@code semicolon}, {@code pipe}.
     */
    static final class Delimiter implements ITypeConverter<Byte> {
        @Override
        public Byte convert(String value) {
            return parse(value);
        }

        static byte parse(String value) {
            String v = value.toLowerCase(Locale.ROOT);
            char c = switch (v) {
                case "\\t", "tab" -> '\t';
                case "space" -> ' ';
                case "comma" -> ',';
                case "semicolon" -> ';';
                case "pipe" -> '|';
                default -> {
                    if (value.length() != 1) {
                        throw new TypeConversionException("'" + value
                                + "' is not a delimiter: give one ASCII character, \\t, tab or space");
                    }
                    yield value.charAt(0);
                }
            };
            if (c >= 0x80 || c == '\n' || c == '\r') {
                throw new TypeConversionException("'" + value
                        + "' is not a delimiter: it must be one ASCII character other than CR and LF");
            }
            return (byte) c;
        }
    }

    /** {@code shared} or {@code sharded}, case-insensitive. */
    static final class Salt implements ITypeConverter<SaltMode> {
        @Override
        public SaltMode convert(String value) {
            return switch (value.toLowerCase(Locale.ROOT)) {
                case "shared" -> SaltMode.SHARED;
                case "sharded" -> SaltMode.SHARDED;
                case "per-worker", "perworker" -> SaltMode.PER_WORKER;
                default -> throw new TypeConversionException(
                        "'" + value + "' is not a salt mode (shared, sharded, per-worker)");
            };
        }
    }

    /** {@code --numa}: a placement policy ({@code default}, {@code local}, {@code interleave}, {@code node:N}). */
    static final class Numa implements ITypeConverter<io.hotkeeper.engine.placement.Placement> {
        @Override
        public io.hotkeeper.engine.placement.Placement convert(String value) {
            try {
                return io.hotkeeper.engine.placement.Placement.parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    /** Completion candidates for {@code --salt}. */
    static final class SaltModes implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return java.util.List.of("shared", "sharded", "per-worker").iterator();
        }
    }
}
