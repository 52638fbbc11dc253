package io.hotkeeper.cli;

import io.hotkeeper.engine.SaltMode;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** picocli converters for sizes, delimiters, periods and the salt mode. */
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
     * A field delimiter, as a {@link Splitter}: {@code ' '}, {@code space}, {@code blank} or {@code whitespace}
     * split on runs of spaces and tabs as awk does; {@code single-space} splits on every single space as
     * {@code cut -d ' '} does; any other ASCII character other than LF and CR, or {@code \t}, {@code tab},
     * {@code comma}, {@code semicolon}, {@code pipe}, splits on every single occurrence ({@code cut -d}).
     */
    static final class Delimiter implements ITypeConverter<Splitter> {
        @Override
        public Splitter convert(String value) {
            return parse(value);
        }

        static Splitter parse(String value) {
            String v = value.toLowerCase(Locale.ROOT);
            char c = switch (v) {
                case " ", "space", "blank", "blanks", "whitespace" -> {
                    yield 0;
                }
                case "single-space" -> ' ';
                case "\\t", "tab" -> '\t';
                case "comma" -> ',';
                case "semicolon" -> ';';
                case "pipe" -> '|';
                default -> {
                    if (value.length() != 1) {
                        throw new TypeConversionException("'" + value + "' is not a delimiter: give one ASCII "
                                + "character, \\t, tab, space (runs of blanks), single-space, comma, semicolon "
                                + "or pipe");
                    }
                    yield value.charAt(0);
                }
            };
            if (c == 0) {
                return Splitter.BLANKS;
            }
            if (c >= 0x80 || c == '\n' || c == '\r') {
                throw new TypeConversionException("'" + value
                        + "' is not a delimiter: it must be one ASCII character other than CR and LF");
            }
            return Splitter.single((byte) c);
        }
    }

    /**
     * A period: a positive number and a unit, {@code ms}, {@code s}, {@code m} or {@code h} ({@code 500ms},
     * {@code 1s}, {@code 2m}), or an ISO-8601 duration ({@code PT1S}); 10ms..24h.
     */
    static final class Period implements ITypeConverter<Duration> {
        private static final Pattern SIMPLE = Pattern.compile("(\\d{1,9})(ms|s|m|h)");
        private static final Duration MIN = Duration.ofMillis(10);
        private static final Duration MAX = Duration.ofHours(24);

        @Override
        public Duration convert(String value) {
            return parse(value);
        }

        /** {@code d} as this converter reads it: 250ms, 1s, 2m, 1h (the largest unit that divides it). */
        static String format(Duration d) {
            long ms = d.toMillis();
            if (ms % 3_600_000 == 0) {
                return ms / 3_600_000 + "h";
            } else if (ms % 60_000 == 0) {
                return ms / 60_000 + "m";
            } else if (ms % 1000 == 0) {
                return ms / 1000 + "s";
            }
            return ms + "ms";
        }

        static Duration parse(String value) {
            String v = value.strip().toLowerCase(Locale.ROOT);
            Matcher m = SIMPLE.matcher(v);
            Duration d;
            if (m.matches()) {
                d = Duration.of(Long.parseLong(m.group(1)), switch (m.group(2)) {
                    case "ms" -> ChronoUnit.MILLIS;
                    case "s" -> ChronoUnit.SECONDS;
                    case "m" -> ChronoUnit.MINUTES;
                    default -> ChronoUnit.HOURS;
                });
            } else {
                try {
                    d = Duration.parse(value.strip());
                } catch (DateTimeParseException e) {
                    throw new TypeConversionException("'" + value + "' is not a duration (examples: 500ms, 1s, 2m, "
                            + "1h)");
                }
            }
            if (d.compareTo(MIN) < 0 || d.compareTo(MAX) > 0) {
                throw new TypeConversionException("'" + value + "' is out of range: 10ms..24h");
            }
            return d;
        }
    }

    /** {@code shared}, {@code sharded}, {@code per-worker} or {@code per-table}, case-insensitive. */
    static final class Salt implements ITypeConverter<SaltMode> {
        @Override
        public SaltMode convert(String value) {
            return switch (value.toLowerCase(Locale.ROOT)) {
                case "shared" -> SaltMode.SHARED;
                case "sharded" -> SaltMode.SHARDED;
                case "per-worker", "perworker" -> SaltMode.PER_WORKER;
                case "per-table", "pertable" -> SaltMode.PER_TABLE;
                default -> throw new TypeConversionException(
                        "'" + value + "' is not a salt mode (shared, sharded, per-worker, per-table)");
            };
        }
    }

    /** {@code --numa}: a placement policy ({@code default}, {@code local}, {@code interleave}, {@code node:N}). */
    static final class Numa implements ITypeConverter<io.hotkeeper.engine.Placement> {
        @Override
        public io.hotkeeper.engine.Placement convert(String value) {
            try {
                return io.hotkeeper.engine.Placement.parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    /** Completion candidates for {@code --salt}. */
    static final class SaltModes implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return java.util.List.of("shared", "sharded", "per-worker", "per-table").iterator();
        }
    }
}
