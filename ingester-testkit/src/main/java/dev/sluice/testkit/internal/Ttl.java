package dev.sluice.testkit.internal;

import dev.sluice.write.StatusCode;
import java.math.BigInteger;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code ttl} table option as the server reads and prints it (src/common/time/src/ttl.rs,
 * {@code TimeToLive::from_humantime_or_str} and its Display): {@code instant}, {@code forever} (also the empty
 * text and a zero duration) or a humantime duration, stored in humantime's own format ({@code 7d} reads back
 * as {@code 7days}, {@code 90m} as {@code 1h 30m}).
 */
final class Ttl {
    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    /** humantime's month and year: 30.44 and 365.25 days. */
    private static final long MONTH_SECONDS = 2_630_016L;
    private static final long YEAR_SECONDS = 31_557_600L;
    private static final Map<String, BigInteger> UNIT_NANOS = units();

    private Ttl() {
    }

    private static Map<String, BigInteger> units() {
        java.util.HashMap<String, BigInteger> m = new java.util.HashMap<>();
        put(m, 1, "nanos", "nsec", "ns");
        put(m, 1_000, "usec", "us");
        put(m, 1_000_000, "millis", "msec", "ms");
        put(m, NANOS_PER_SECOND, "seconds", "second", "secs", "sec", "s");
        put(m, 60 * NANOS_PER_SECOND, "minutes", "minute", "mins", "min", "m");
        put(m, 3600 * NANOS_PER_SECOND, "hours", "hour", "hrs", "hr", "h");
        put(m, 86_400 * NANOS_PER_SECOND, "days", "day", "d");
        put(m, 7 * 86_400 * NANOS_PER_SECOND, "weeks", "week", "w");
        put(m, MONTH_SECONDS * NANOS_PER_SECOND, "months", "month", "M");
        put(m, YEAR_SECONDS * NANOS_PER_SECOND, "years", "year", "y");
        return Map.copyOf(m);
    }

    private static void put(Map<String, BigInteger> m, long nanos, String... names) {
        for (String n : names) {
            m.put(n, BigInteger.valueOf(nanos));
        }
    }

    /**
     * Checks a ttl and returns it as the server stores it.
     *
     * @param value the option's text
     * @return {@code instant}, {@code forever} or the duration in humantime's format
     * @throws ServerError 1004 {@code Failed to parse table option, key: ttl, value: <value>}
     */
    static String normalise(String value) {
        String lower = value.toLowerCase(Locale.ROOT);
        if (lower.equals("instant")) {
            return "instant";
        }
        if (lower.equals("forever") || lower.isEmpty()) {
            return "forever";
        }
        BigInteger nanos = parse(value);
        if (nanos == null) {
            throw new ServerError(StatusCode.InvalidArguments, "Failed to parse table option, key: ttl, value: " + value);
        }
        return nanos.signum() == 0 ? "forever" : format(nanos);
    }

    /** humantime's parser: numbers each followed by a unit, optionally separated by spaces; null when invalid. */
    private static BigInteger parse(String s) {
        BigInteger total = BigInteger.ZERO;
        int i = 0;
        int n = s.length();
        boolean any = false;
        while (i < n) {
            while (i < n && s.charAt(i) == ' ') {
                i++;
            }
            if (i == n) {
                break;
            }
            int start = i;
            while (i < n && Character.isDigit(s.charAt(i))) {
                i++;
            }
            if (start == i) {
                return null;
            }
            BigInteger number = new BigInteger(s.substring(start, i));
            while (i < n && s.charAt(i) == ' ') {
                i++;
            }
            int unitStart = i;
            while (i < n && Character.isLetter(s.charAt(i))) {
                i++;
            }
            BigInteger unit = UNIT_NANOS.get(s.substring(unitStart, i));
            if (unit == null) {
                return null;
            }
            total = total.add(number.multiply(unit));
            any = true;
        }
        return any ? total : null;
    }

    /** humantime's formatter: years, months, days, h, m, s, ms, us, ns; zero parts left out, space-separated. */
    private static String format(BigInteger nanos) {
        BigInteger[] sn = nanos.divideAndRemainder(BigInteger.valueOf(NANOS_PER_SECOND));
        long secs = sn[0].longValueExact();
        long sub = sn[1].longValue();
        StringBuilder out = new StringBuilder();
        long years = secs / YEAR_SECONDS;
        long yearRest = secs % YEAR_SECONDS;
        long months = yearRest / MONTH_SECONDS;
        long monthRest = yearRest % MONTH_SECONDS;
        long days = monthRest / 86_400;
        long daySecs = monthRest % 86_400;
        plural(out, years, "year");
        plural(out, months, "month");
        plural(out, days, "day");
        item(out, daySecs / 3600, "h");
        item(out, daySecs % 3600 / 60, "m");
        item(out, daySecs % 60, "s");
        item(out, sub / 1_000_000, "ms");
        item(out, sub / 1_000 % 1_000, "us");
        item(out, sub % 1_000, "ns");
        return out.toString();
    }

    private static void plural(StringBuilder out, long v, String unit) {
        if (v > 0) {
            item(out, v, v == 1 ? unit : unit + "s");
        }
    }

    private static void item(StringBuilder out, long v, String unit) {
        if (v > 0) {
            if (out.length() > 0) {
                out.append(' ');
            }
            out.append(v).append(unit);
        }
    }
}
