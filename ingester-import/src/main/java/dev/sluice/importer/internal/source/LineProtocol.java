package dev.sluice.importer.internal.source;

import dev.sluice.internal.model.Utf8;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A reader of InfluxDB line protocol, as InfluxDB's own parsers read it (the Go parser, {@code models/points.go} of
 * influxdata/influxdb, and the Rust one GreptimeDB and InfluxDB 3 use, {@code influxdb_line_protocol/src/lib.rs} of
 * influxdata/influxdb3_core): {@code measurement[,tag_key=tag_value...] field_key=field_value[,...] [timestamp]}.
 *
 * <p>Lines: a line ends at a line feed that is neither escaped nor inside a quoted string field value (a carriage
 * return is no line break; one just before the line feed is dropped). Leading spaces, tabs and NULs are skipped; a line
 * that is then empty or starts with {@code #} holds no point. A line's bytes must be well-formed UTF-8.
 *
 * <p>Escapes, per element: in a measurement a backslash makes the next comma, space or backslash literal; in tag
 * keys, tag values and field keys the next comma, equals sign, space or backslash; in a string field value
 * (double-quoted) the next double quote or backslash. A backslash before any other character is kept as it is. A
 * name may not end with a backslash, hold a control character, or give a tag key twice (a field key given twice
 * keeps its last value). Field values: floats ({@code 1}, {@code -1.5}, {@code 1e3}; no {@code +} sign, no NaN or
 * infinity), signed integers ({@code 12i}), unsigned integers ({@code 12u}), strings ({@code "text"}), booleans
 * ({@code t T true True TRUE f F false False FALSE}). The timestamp is an optional signed integer in the import's
 * precision.
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
            this("character ", column, reason);
        }

        private ParseException(String unit, int column, String reason) {
            super(unit + column + ": " + reason);
            this.column = column;
        }

        /** @return the 1-based position (a character, or a byte when the line is not UTF-8) */
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
        while (i < line.length() && isLeadingSpace(line.charAt(i))) {
            i++;
        }
        return i == line.length() || line.charAt(i) == '#' || line.charAt(i) == '\r' && i == line.length() - 1;
    }

    /**
     * Whether a character before the measurement is passed over: a space, a tab or a NUL, as InfluxDB's parser
     * passes them over ({@code skipWhitespace} in {@code models/points.go} of influxdata/influxdb).
     */
    private static boolean isLeadingSpace(char c) {
        return c == ' ' || c == '\t' || c == 0;
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
        while (c.more() && isLeadingSpace(c.peek())) {
            c.i++;
        }
        int at = c.i;
        String measurement = c.name(", ", false);
        if (measurement.isEmpty()) {
            throw c.error("missing measurement");
        }
        c.checkName(at, "the measurement", measurement);
        List<String> tagKeys = new ArrayList<>();
        List<String> tagValues = new ArrayList<>();
        while (c.more() && c.peek() == ',') {
            c.i++;
            at = c.i;
            String k = c.name(",= ", true);
            if (k.isEmpty()) {
                throw c.error("empty tag key");
            }
            c.checkName(at, "tag key '" + k + "'", k);
            if (tagKeys.contains(k)) {
                throw new ParseException(at + 1, "tag '" + k + "' is given twice (InfluxDB refuses a repeated tag key)");
            }
            if (!c.more() || c.peek() != '=') {
                throw c.error("tag '" + k + "' has no '='");
            }
            c.i++;
            at = c.i;
            String v = c.name(",= ", true);
            if (v.isEmpty()) {
                throw c.error("tag '" + k + "' has an empty value (omit the tag instead)");
            }
            c.checkName(at, "the value of tag '" + k + "'", v);
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
            at = c.i;
            String k = c.name(",= ", true);
            if (k.isEmpty()) {
                throw c.error(c.more() ? "empty field key" : "missing fields");
            }
            c.checkName(at, "field key '" + k + "'", k);
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
                while (c.more() && c.peek() >= '0' && c.peek() <= '9') {
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

        /** Refuses a name InfluxDB refuses: one ending with a backslash, or holding a control character. */
        void checkName(int start, String what, String name) throws ParseException {
            if (name.endsWith("\\")) {
                throw new ParseException(start + 1, what + " ends with a backslash (InfluxDB refuses it: escape it"
                        + " as \\\\ and follow it with another character)");
            }
            for (int k = 0; k < name.length(); k++) {
                char ch = name.charAt(k);
                if (Character.isISOControl(ch)) {
                    throw new ParseException(start + 1, what + " holds the control character "
                            + String.format("U+%04X", (int) ch) + " (InfluxDB refuses it in names)");
                }
            }
        }

        /**
         * Reads up to an unescaped stop character; a backslash escapes a stop character or a backslash, else it is
         * literal.
         */
        String name(String stops, boolean equalsEscapable) {
            StringBuilder sb = null;
            int start = i;
            while (more()) {
                char ch = peek();
                if (ch == '\\' && i + 1 < s.length()) {
                    char n = s.charAt(i + 1);
                    if (n == ',' || n == ' ' || n == '\\' || equalsEscapable && n == '=') {
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
                    ok = d >= '0' && d <= '9' || k == 0 && d == '-' && last == 'i' && digits.length() > 1;
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
            if (isFloat(v)) {
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

        /** A float as InfluxDB writes one: an optional minus, digits with at most one point, an optional exponent. */
        static boolean isFloat(String v) {
            int k = v.startsWith("-") ? 1 : 0;
            int digits = 0;
            boolean point = false;
            for (; k < v.length(); k++) {
                char d = v.charAt(k);
                if (d >= '0' && d <= '9') {
                    digits++;
                } else if (d == '.' && !point) {
                    point = true;
                } else {
                    break;
                }
            }
            if (digits == 0) {
                return false;
            }
            if (k < v.length() && (v.charAt(k) == 'e' || v.charAt(k) == 'E')) {
                k++;
                if (k < v.length() && (v.charAt(k) == '+' || v.charAt(k) == '-')) {
                    k++;
                }
                int exponent = k;
                while (k < v.length() && v.charAt(k) >= '0' && v.charAt(k) <= '9') {
                    k++;
                }
                if (k == exponent) {
                    return false;
                }
            }
            return k == v.length();
        }
    }

    /**
     * Reads an input's lines as InfluxDB splits them: a line ends at a line feed that is neither escaped by a
     * backslash nor inside a quoted string field value (a quote opens one after the first unescaped space, in a
     * field's value); a comment line ends at its first line feed. Lines are numbered by the line feeds before
     * them, so a line holding line feeds spans several numbers. A byte order mark at the start is skipped.
     */
    public static final class Reader implements Closeable {
        private final InputStream in;
        private final byte[] buf = new byte[1 << 16];
        private int pos;
        private int lim;
        private byte[] line = new byte[256];
        private int len;
        private long next = 1;
        private long first;
        private long last;
        private boolean started;
        private String text;

        /**
         * Reads from a stream.
         *
         * @param in the stream, closed with the reader
         */
        public Reader(InputStream in) {
            this.in = in;
        }

        private int read() throws IOException {
            if (pos == lim) {
                lim = in.read(buf, 0, buf.length);
                pos = 0;
                if (lim <= 0) {
                    lim = 0;
                    return -1;
                }
            }
            return buf[pos++] & 0xFF;
        }

        private void append(int b) {
            if (len == line.length) {
                line = Arrays.copyOf(line, len * 2);
            }
            line[len++] = (byte) b;
        }

        /**
         * Reads the next line.
         *
         * @return false at the end of the input
         * @throws IOException when the input cannot be read
         */
        public boolean next() throws IOException {
            len = 0;
            text = null;
            first = next;
            boolean any = false;
            boolean escaped = false;
            boolean blank = true; // only spaces and tabs so far
            boolean comment = false;
            boolean fields = false;
            boolean quoted = false;
            int equals = 0;
            int commas = 0;
            int b;
            while ((b = read()) >= 0) {
                any = true;
                if (b == '\n') {
                    next++;
                    if (escaped || quoted) {
                        escaped = false;
                        append(b);
                        continue;
                    }
                    break;
                }
                append(b);
                if (escaped) {
                    escaped = false;
                } else if (comment) {
                    continue;
                } else if (blank && b == '#') {
                    comment = true;
                } else if (b == '\\') {
                    escaped = true;
                } else if (b == ' ') {
                    fields |= !blank;
                } else if (fields && b == '=' && !quoted) {
                    equals++;
                } else if (fields && b == ',' && !quoted) {
                    commas++;
                } else if (fields && b == '"' && equals > commas) {
                    quoted = !quoted;
                }
                blank &= b == ' ' || b == '\t' || b == 0;
            }
            if (!any) {
                return false;
            }
            last = b == '\n' ? next - 1 : next;
            if (!started) {
                started = true;
                if (len >= 3 && (line[0] & 0xFF) == 0xEF && (line[1] & 0xFF) == 0xBB && (line[2] & 0xFF) == 0xBF) {
                    System.arraycopy(line, 3, line, 0, len - 3);
                    len -= 3;
                }
            }
            return true;
        }

        /** @return the number of the line's first line in the input, from 1 */
        public long firstLine() {
            return first;
        }

        /** @return the number of the line's last line in the input (the first, unless it holds line feeds) */
        public long lastLine() {
            return last;
        }

        /** @return the line as text (bytes that are not UTF-8 read as U+FFFD) */
        public String text() {
            if (text == null) {
                text = new String(line, 0, len, StandardCharsets.UTF_8);
            }
            return text;
        }

        /** @return whether the line holds no point (blank or a comment) */
        public boolean holdsNoPoint() {
            return isEmpty(text());
        }

        /**
         * Parses the line.
         *
         * @return the point
         * @throws ParseException when the line is not UTF-8 or does not follow the grammar
         */
        public Point point() throws ParseException {
            int bad = Utf8.malformedAt(line, 0, len);
            if (bad >= 0) {
                throw new ParseException("byte ", bad + 1, String.format("the line is not well-formed UTF-8 (0x%02X"
                        + " there), which InfluxDB refuses: fix the file's encoding", line[bad] & 0xFF));
            }
            return parse(text());
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
