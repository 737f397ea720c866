package dev.sluice.importer.internal;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * A parser of InfluxDB line protocol, one line at a time:
 * {@code measurement[,tag_key=tag_value...] field_key=field_value[,field_key=field_value...] [timestamp]}.
 *
 * <p>Escapes, per element, as InfluxDB's own parser reads them: in a measurement a backslash makes the next comma
 * or space literal; in tag keys, tag values and field keys the next comma, equals sign or space; in a string field
 * value (double-quoted) the next double quote or backslash. A backslash before any other character is kept as
 * it is. Field values: floats ({@code 1}, {@code -1.5}, {@code 1e3}), signed integers ({@code 12i}), unsigned
 * integers ({@code 12u}), strings ({@code "text"}), booleans ({@code t T true True TRUE f F false False FALSE}).
 * The timestamp is an optional signed integer in the import's precision. Lines that are empty or start with
 * {@code #} hold no point.
 */
public final class LineProtocol {
    private LineProtocol() {
    }

    /**
     * One point.
     *
     * @param measurement the measurement
     * @param tagKeys tag keys, in line order
     * @param tagValues tag values
     * @param fieldKeys field keys, in line order (a key given twice keeps its last value)
     * @param fieldValues {@code Double}, {@code Long}, {@code BigInteger} (unsigned), {@code String} or {@code Boolean}
     * @param timestamp the timestamp, or null when the line has none
     */
    public record Point(String measurement, List<String> tagKeys, List<String> tagValues, List<String> fieldKeys,
            List<Object> fieldValues, Long timestamp) {
    }

    /** A line that does not follow the grammar; the message says where (1-based character) and why. */
    public static final class ParseException extends Exception {
        private static final long serialVersionUID = 1L;
        private final int column;

        ParseException(int column, String reason) {
            super("character " + column + ": " + reason);
            this.column = column;
        }

        /** @return the 1-based character position */
        public int column() {
            return column;
        }
    }

    /**
     * Tells whether a line holds no point (empty, blank, or a comment).
     *
     * @param line the line
     * @return true to skip it
     */
    public static boolean isEmpty(String line) {
        int i = 0;
        while (i < line.length() && (line.charAt(i) == ' ' || line.charAt(i) == '\t')) {
            i++;
        }
        return i == line.length() || line.charAt(i) == '#' || line.charAt(i) == '\r' && i == line.length() - 1;
    }

    /**
     * Parses one line.
     *
     * @param line the line, without its newline
     * @return the point
     * @throws ParseException when the line does not follow the grammar
     */
    public static Point parse(String line) throws ParseException {
        Cursor c = new Cursor(line.endsWith("\r") ? line.substring(0, line.length() - 1) : line);
        while (c.more() && (c.peek() == ' ' || c.peek() == '\t')) {
            c.i++;
        }
        String measurement = c.name(",  ", false);
        if (measurement.isEmpty()) {
            throw c.error("missing measurement");
        }
        List<String> tagKeys = new ArrayList<>();
        List<String> tagValues = new ArrayList<>();
        while (c.more() && c.peek() == ',') {
            c.i++;
            String k = c.name(",= ", true);
            if (k.isEmpty()) {
                throw c.error("empty tag key");
            }
            if (!c.more() || c.peek() != '=') {
                throw c.error("tag '" + k + "' has no '='");
            }
            c.i++;
            String v = c.name(",= ", true);
            if (v.isEmpty()) {
                throw c.error("tag '" + k + "' has an empty value (omit the tag instead)");
            }
            tagKeys.add(k);
            tagValues.add(v);
        }
        if (!c.more() || c.peek() != ' ') {
            throw c.error(c.more() ? "unexpected '" + c.peek() + "' (escape it with a backslash)" : "missing fields");
        }
        c.skipSpaces();
        List<String> fieldKeys = new ArrayList<>();
        List<Object> fieldValues = new ArrayList<>();
        while (true) {
            String k = c.name(",= ", true);
            if (k.isEmpty()) {
                throw c.error(c.more() ? "empty field key" : "missing fields");
            }
            if (!c.more() || c.peek() != '=') {
                throw c.error("field '" + k + "' has no '='");
            }
            c.i++;
            Object v = c.fieldValue(k);
            int existing = fieldKeys.indexOf(k);
            if (existing >= 0) {
                fieldValues.set(existing, v);
            } else {
                fieldKeys.add(k);
                fieldValues.add(v);
            }
            if (c.more() && c.peek() == ',') {
                c.i++;
                continue;
            }
            break;
        }
        Long ts = null;
        if (c.more()) {
            if (c.peek() != ' ') {
                throw c.error("unexpected '" + c.peek() + "' after field values");
            }
            c.skipSpaces();
            if (c.more()) {
                int start = c.i;
                if (c.peek() == '-') {
                    c.i++;
                }
                while (c.more() && Character.isDigit(c.peek())) {
                    c.i++;
                }
                String t = c.s.substring(start, c.i);
                if (t.isEmpty() || t.equals("-") || c.more() && c.peek() != ' ') {
                    throw new ParseException(start + 1, "the timestamp is not an integer");
                }
                try {
                    ts = Long.parseLong(t);
                } catch (NumberFormatException e) {
                    throw new ParseException(start + 1, "the timestamp " + t + " is out of range");
                }
                c.skipSpaces();
                if (c.more()) {
                    throw c.error("unexpected text after the timestamp");
                }
            }
        }
        return new Point(measurement, tagKeys, tagValues, fieldKeys, fieldValues, ts);
    }

    private static final class Cursor {
        final String s;
        int i;

        Cursor(String s) {
            this.s = s;
        }

        boolean more() {
            return i < s.length();
        }

        char peek() {
            return s.charAt(i);
        }

        void skipSpaces() {
            while (more() && peek() == ' ') {
                i++;
            }
        }

        ParseException error(String reason) {
            return new ParseException(i + 1, reason);
        }

        /** Reads up to an unescaped stop character; a backslash escapes a stop character, else it is literal. */
        String name(String stops, boolean equalsEscapable) {
            StringBuilder sb = null;
            int start = i;
            while (more()) {
                char ch = peek();
                if (ch == '\\' && i + 1 < s.length()) {
                    char n = s.charAt(i + 1);
                    if (n == ',' || n == ' ' || equalsEscapable && n == '=') {
                        if (sb == null) {
                            sb = new StringBuilder(s.substring(start, i));
                        }
                        sb.append(n);
                        i += 2;
                        continue;
                    }
                }
                if (stops.indexOf(ch) >= 0) {
                    break;
                }
                if (sb != null) {
                    sb.append(ch);
                }
                i++;
            }
            return sb != null ? sb.toString() : s.substring(start, i);
        }

        Object fieldValue(String key) throws ParseException {
            if (!more()) {
                throw error("field '" + key + "' has no value");
            }
            if (peek() == '"') {
                int start = i;
                i++;
                StringBuilder sb = new StringBuilder();
                while (true) {
                    if (!more()) {
                        throw new ParseException(start + 1, "field '" + key + "': the string has no closing quote");
                    }
                    char ch = peek();
                    if (ch == '\\' && i + 1 < s.length() && (s.charAt(i + 1) == '"' || s.charAt(i + 1) == '\\')) {
                        sb.append(s.charAt(i + 1));
                        i += 2;
                        continue;
                    }
                    if (ch == '"') {
                        i++;
                        break;
                    }
                    sb.append(ch);
                    i++;
                }
                if (more() && peek() != ',' && peek() != ' ') {
                    throw error("field '" + key + "': unexpected '" + peek() + "' after the string");
                }
                return sb.toString();
            }
            int start = i;
            while (more() && peek() != ',' && peek() != ' ') {
                i++;
            }
            String v = s.substring(start, i);
            switch (v) {
                case "t": case "T": case "true": case "True": case "TRUE": return Boolean.TRUE;
                case "f": case "F": case "false": case "False": case "FALSE": return Boolean.FALSE;
                default: break;
            }
            if (v.isEmpty()) {
                throw new ParseException(start + 1, "field '" + key + "' has no value");
            }
            char last = v.charAt(v.length() - 1);
            if (last == 'i' || last == 'u') {
                String digits = v.substring(0, v.length() - 1);
                boolean ok = !digits.isEmpty();
                for (int k = 0; k < digits.length() && ok; k++) {
                    char d = digits.charAt(k);
                    ok = Character.isDigit(d) || k == 0 && d == '-' && last == 'i' && digits.length() > 1;
                }
                if (!ok) {
                    throw new ParseException(start + 1, "field '" + key + "': '" + v + "' is not an "
                            + (last == 'i' ? "integer" : "unsigned integer"));
                }
                try {
                    if (last == 'i') {
                        return Long.parseLong(digits);
                    }
                    BigInteger u = new BigInteger(digits);
                    if (u.bitLength() > 64) {
                        throw new NumberFormatException();
                    }
                    return u;
                } catch (NumberFormatException e) {
                    throw new ParseException(start + 1, "field '" + key + "': " + v + " is out of range");
                }
            }
            boolean numeric = true;
            for (int k = 0; k < v.length() && numeric; k++) {
                char d = v.charAt(k);
                numeric = Character.isDigit(d) || d == '.' || d == '-' || d == '+' || d == 'e' || d == 'E';
            }
            if (numeric) {
                try {
                    double d = Decimals.parseDouble(v);
                    if (!Double.isInfinite(d)) {
                        return d;
                    }
                } catch (NumberFormatException e) {
                    // reported below
                }
            }
            throw new ParseException(start + 1, "field '" + key + "': '" + v + "' is not a float, integer (1i),"
                    + " unsigned (1u), string (\"...\") or boolean");
        }
    }
}
