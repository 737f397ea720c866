package dev.sluice.importer.internal.plan;

import dev.sluice.data.DataType;
import dev.sluice.importer.internal.failure.UsageException;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoField;
import java.time.temporal.TemporalAccessor;
import java.util.Locale;

/**
 * How a time value is written in the input: epoch numbers in a unit, ISO-8601 (a {@code T} or a space between
 * date and time, optional fraction and offset; without an offset the {@code --timezone} applies), or a
 * {@link DateTimeFormatter} pattern.
 */
public final class TimeFormat {
    /** The kinds of time formats. */
    public enum Kind {
        /** Epoch count in {@link #unitsPerSecond}. */
        EPOCH,
        /** ISO-8601. */
        ISO,
        /** A DateTimeFormatter pattern. */
        PATTERN
    }

    private final Kind kind;
    private final long unitsPerSecond;
    private final DateTimeFormatter pattern;
    private final ZoneId zone;
    private final String text;
    /**
     * When a time more precise than the column is refused instead of cut: what to do about it; null to cut (a
     * timestamp field, which no row's key holds).
     */
    private final String exact;

    private TimeFormat(Kind kind, long unitsPerSecond, DateTimeFormatter pattern, ZoneId zone, String text, String exact) {
        this.kind = kind;
        this.unitsPerSecond = unitsPerSecond;
        this.pattern = pattern;
        this.zone = zone;
        this.text = text;
        this.exact = exact;
    }

    /**
     * The same format, refusing times more precise than the column they go to: for a time index, where a time cut to
     * the column's unit could land on another row's key and replace that row.
     *
     * @param advice what to do about such a time (the message ends with it)
     * @return the exact format
     */
    public TimeFormat exact(String advice) {
        return new TimeFormat(kind, unitsPerSecond, pattern, zone, text, advice);
    }

    /**
     * Parses a {@code --time-format}: {@code s}, {@code ms}, {@code us}, {@code ns} (epoch; also
     * {@code epoch_s}...), {@code iso}, or a pattern such as {@code yyyy-MM-dd HH:mm:ss}.
     *
     * @param spec the format
     * @param zone the zone for values without an offset
     * @return the format
     */
    public static TimeFormat parse(String spec, ZoneId zone) {
        String s = spec.toLowerCase(Locale.ROOT).replace("epoch_", "").replace("epoch-", "");
        switch (s) {
            case "s": case "sec": case "seconds": return epoch(1, zone);
            case "ms": case "millis": return epoch(1_000, zone);
            case "us": case "micros": return epoch(1_000_000, zone);
            case "ns": case "nanos": return epoch(1_000_000_000, zone);
            case "iso": case "iso8601": case "rfc3339": return new TimeFormat(Kind.ISO, 0, null, zone, "iso", null);
            default:
                try {
                    return new TimeFormat(Kind.PATTERN, 0, DateTimeFormatter.ofPattern(spec, Locale.ROOT), zone, spec, null);
                } catch (IllegalArgumentException e) {
                    throw new UsageException("--time-format '" + spec + "' is neither s, ms, us, ns, iso nor a valid"
                            + " date-time pattern: " + e.getMessage());
                }
        }
    }

    /**
     * An epoch format.
     *
     * @param unitsPerSecond 1, 1,000, 1,000,000 or 1,000,000,000
     * @param zone unused for epochs; kept for symmetry
     * @return the format
     */
    public static TimeFormat epoch(long unitsPerSecond, ZoneId zone) {
        String name = unitsPerSecond == 1 ? "s" : unitsPerSecond == 1_000 ? "ms" : unitsPerSecond == 1_000_000 ? "us" : "ns";
        return new TimeFormat(Kind.EPOCH, unitsPerSecond, null, zone, name, null);
    }

    /**
     * The epoch unit a number of this many digits most likely has (up to 10 digits seconds, 13 milliseconds,
     * 16 microseconds, else nanoseconds).
     *
     * @param value a sample epoch value
     * @return units per second
     */
    public static long guessEpochUnit(long value) {
        long a = Math.abs(value);
        if (a < 100_000_000_000L) {
            return 1;
        }
        if (a < 100_000_000_000_000L) {
            return 1_000;
        }
        if (a < 100_000_000_000_000_000L) {
            return 1_000_000;
        }
        return 1_000_000_000;
    }

    /** @return the kind */
    public Kind kind() {
        return kind;
    }

    /** @return units per second of an epoch format */
    public long unitsPerSecond() {
        return unitsPerSecond;
    }

    /**
     * The timestamp type that holds this format's values without loss (epochs: their unit; text: milliseconds).
     *
     * @return the type
     */
    public DataType naturalType() {
        if (kind != Kind.EPOCH) {
            return DataType.TimestampMillisecond;
        }
        return unitsPerSecond == 1 ? DataType.TimestampSecond : unitsPerSecond == 1_000 ? DataType.TimestampMillisecond
                : unitsPerSecond == 1_000_000 ? DataType.TimestampMicrosecond : DataType.TimestampNanosecond;
    }

    /**
     * Converts a value into a count of {@code targetUnitsPerSecond}.
     *
     * @param v a String, or a Long/Double epoch (JSON)
     * @param targetUnitsPerSecond the column's unit
     * @return the count
     * @throws IllegalArgumentException with the reason when the value does not fit the format
     */
    public long toUnits(Object v, long targetUnitsPerSecond) {
        if (kind == Kind.EPOCH) {
            long n;
            if (v instanceof Long l) {
                n = l;
            } else if (v instanceof Double d) {
                if (d != Math.rint(d)) {
                    double units = d * targetUnitsPerSecond / unitsPerSecond;
                    if (exact != null && units != Math.rint(units)) {
                        throw finer(v, targetUnitsPerSecond, exact);
                    }
                    return Math.round(units);
                }
                n = d.longValue();
            } else {
                String s = v.toString().strip();
                try {
                    n = Long.parseLong(s);
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("'" + s + "' is not an epoch number in " + text);
                }
            }
            if (exact != null && unitsPerSecond > targetUnitsPerSecond && n % (unitsPerSecond / targetUnitsPerSecond) != 0) {
                throw finer(v, targetUnitsPerSecond, exact);
            }
            try {
                return rescale(n, unitsPerSecond, targetUnitsPerSecond);
            } catch (ArithmeticException e) {
                throw beyond(v, targetUnitsPerSecond);
            }
        }
        if (!(v instanceof String)) {
            throw new IllegalArgumentException("'" + v + "' is not a " + (kind == Kind.ISO ? "ISO-8601" : "'" + text + "'")
                    + " time");
        }
        String s = ((String) v).strip();
        Instant i = kind == Kind.ISO ? iso(s, zone) : patterned(s);
        if (i == null) {
            throw new IllegalArgumentException("'" + s + "' is not a " + (kind == Kind.ISO ? "ISO-8601" : "'" + text + "'")
                    + " time");
        }
        if (exact != null && i.getNano() % (1_000_000_000L / targetUnitsPerSecond) != 0) {
            throw finer(s, targetUnitsPerSecond, exact);
        }
        try {
            return toUnits(i, targetUnitsPerSecond);
        } catch (ArithmeticException e) {
            throw beyond(s, targetUnitsPerSecond);
        }
    }

    /** A time beyond the range of the time index's unit. */
    private static IllegalArgumentException beyond(Object v, long targetUnitsPerSecond) {
        return new IllegalArgumentException("'" + v + "' is beyond " + range(targetUnitsPerSecond) + ", what a time"
                + " index in " + unitName(targetUnitsPerSecond) + " holds");
    }

    /**
     * The times a 64-bit count of a unit holds, as text.
     *
     * @param unitsPerSecond the unit
     * @return the first and last time, e.g. {@code 1677-09-21T00:12:43.145224192Z to 2262-04-11T23:47:16.854775807Z}
     */
    public static String range(long unitsPerSecond) {
        return edge(Long.MIN_VALUE, unitsPerSecond) + " to " + edge(Long.MAX_VALUE, unitsPerSecond);
    }

    private static String edge(long n, long unitsPerSecond) {
        try {
            return Instant.ofEpochSecond(Math.floorDiv(n, unitsPerSecond),
                    Math.floorMod(n, unitsPerSecond) * (1_000_000_000L / unitsPerSecond)).toString();
        } catch (java.time.DateTimeException e) {
            return (n < 0 ? "-" : "+") + "2^63 " + unitName(unitsPerSecond);
        }
    }

    /**
     * A time more precise than the column: cut to the column's unit it could land on another row's time and replace
     * that row, so it is refused instead.
     */
    private static IllegalArgumentException finer(Object v, long targetUnitsPerSecond, String advice) {
        return new IllegalArgumentException("'" + v + "' is more precise than the time index's unit ("
                + unitName(targetUnitsPerSecond) + "): cut to it, the row could replace another; " + advice);
    }

    /**
     * Names a time unit.
     *
     * @param unitsPerSecond 1, 1,000, 1,000,000 or 1,000,000,000
     * @return {@code seconds}, {@code milliseconds}, {@code microseconds} or {@code nanoseconds}
     */
    public static String unitName(long unitsPerSecond) {
        return unitsPerSecond == 1 ? "seconds" : unitsPerSecond == 1_000 ? "milliseconds"
                : unitsPerSecond == 1_000_000 ? "microseconds" : "nanoseconds";
    }

    static long toUnits(Instant i, long unitsPerSecond) {
        long perUnit = 1_000_000_000L / unitsPerSecond;
        return Math.addExact(Math.multiplyExact(i.getEpochSecond(), unitsPerSecond), i.getNano() / perUnit);
    }

    /**
     * Converts a count of one time unit to another, rounding down.
     *
     * @param n the count
     * @param from its units per second
     * @param to the wanted units per second
     * @return the count in the wanted unit
     */
    public static long rescale(long n, long from, long to) {
        if (from == to) {
            return n;
        }
        return from < to ? Math.multiplyExact(n, to / from) : Math.floorDiv(n, from / to);
    }

    private Instant patterned(String s) {
        try {
            TemporalAccessor t = pattern.parse(s);
            if (t.isSupported(ChronoField.INSTANT_SECONDS)) {
                return Instant.from(t);
            }
            if (t.isSupported(ChronoField.HOUR_OF_DAY)) {
                return LocalDateTime.from(t).atZone(zone).toInstant();
            }
            return LocalDate.from(t).atStartOfDay(zone).toInstant();
        } catch (DateTimeException e) {
            return null;
        }
    }

    /**
     * Parses ISO-8601 date-times: {@code 2024-01-01T10:00:00Z}, {@code 2024-01-01 10:00:00.123+08:00},
     * {@code 2024-01-01T10:00} (in the zone), {@code 2024-01-01} (midnight in the zone).
     *
     * @param s the text
     * @param zone the zone for values without an offset
     * @return the instant, or null when the text is not such a value
     */
    public static Instant iso(String s, ZoneId zone) {
        int n = s.length();
        if (n < 10 || s.charAt(4) != '-' || s.charAt(7) != '-' || !Character.isDigit(s.charAt(0))) {
            return null;
        }
        try {
            if (n == 10) {
                return LocalDate.parse(s).atStartOfDay(zone).toInstant();
            }
            char sep = s.charAt(10);
            if (sep != 'T' && sep != ' ' && sep != 't') {
                return null;
            }
            String t = sep == 'T' ? s : s.substring(0, 10) + 'T' + s.substring(11);
            char last = t.charAt(t.length() - 1);
            if (last == 'Z' || last == 'z') {
                return Instant.parse(last == 'z' ? t.substring(0, t.length() - 1) + 'Z' : t);
            }
            if (hasOffset(t)) {
                return ZonedDateTime.parse(t, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
            }
            return LocalDateTime.parse(t).atZone(zone).toInstant();
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    /**
     * Counts the fraction digits of an ISO time, to pick the timestamp unit that keeps them.
     *
     * @param s the text
     * @return digits after the decimal point of the seconds
     */
    public static int fractionDigits(String s) {
        int dot = s.indexOf('.', 16);
        if (dot < 0) {
            return 0;
        }
        int i = dot + 1;
        while (i < s.length() && Character.isDigit(s.charAt(i))) {
            i++;
        }
        return i - dot - 1;
    }

    private static boolean hasOffset(String t) {
        int i = t.length() - 6;
        return i > 16 && (t.charAt(i) == '+' || t.charAt(i) == '-') && t.charAt(i + 3) == ':';
    }

    @Override
    public String toString() {
        return text;
    }
}
