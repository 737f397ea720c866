package dev.sluice.importer.internal.source;

import de.siegmar.fastcsv.reader.AbstractBaseCsvCallbackHandler;
import de.siegmar.fastcsv.reader.CommentStrategy;
import de.siegmar.fastcsv.reader.CsvParseException;
import de.siegmar.fastcsv.reader.CsvReader;
import dev.sluice.importer.internal.failure.UsageException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * CSV and TSV: RFC 4180 quoting (a quote inside a quoted value is doubled) read from the UTF-8 bytes by
 * {@link Utf8CsvReader} (through FastCSV for UTF-16 and UTF-32 input, known by its byte order mark), or, with an
 * escape character, backslash-style escapes through {@link EscapedReader}; UTF-8, BOM skipped. An unquoted empty value,
 * or an unquoted value equal to the null token, is NULL; a quoted value never is ({@code ""} is an empty string).
 */
public final class CsvSource implements RecordSource {
    /**
     * CSV settings.
     *
     * @param delimiter field separator
     * @param quote quote character
     * @param comment comment line prefix, or 0 for none
     * @param header whether the first record names the columns
     * @param columns column names given on the command line (null: from the header, or c1, c2...)
     * @param nullToken the text that stands for NULL when unquoted (an empty value by default)
     * @param escape the escape character, or 0 for none (RFC 4180)
     */
    public record Settings(char delimiter, char quote, char comment, boolean header, List<String> columns,
            String nullToken, char escape) {
    }

    /**
     * One record: its fields as ranges of UTF-8 bytes ({@code bytes} from {@code starts[i]} to {@code ends[i]}), or,
     * when {@code texts} is not null, as text; whether each was quoted; the line it starts on. Numbers are read from
     * the bytes without a String each, and text goes to a String column as the file's bytes.
     *
     * @param bytes the fields' bytes (null when the fields are text)
     * @param starts where each field's bytes start
     * @param ends where each field's bytes end
     * @param count the number of fields
     * @param texts every field as text, or null when the fields are bytes
     * @param quoted whether each field was quoted
     * @param line the line the record starts on
     */
    record Row(byte[] bytes, int[] starts, int[] ends, int count, String[] texts, boolean[] quoted, long line) {
        /** Makes a record of fields given as text. */
        static Row of(List<String> fields, boolean[] quoted, long line) {
            return new Row(null, null, null, fields.size(), fields.toArray(new String[0]), quoted, line);
        }

        /** @return field {@code i} as text */
        String field(int i) {
            if (texts != null) {
                return texts[i];
            }
            return new String(bytes, starts[i], ends[i] - starts[i], StandardCharsets.UTF_8);
        }

        /** @return field {@code i}: its text, or a range of this record's bytes */
        Object value(int i) {
            if (texts != null) {
                return texts[i];
            }
            return new FieldText(bytes, starts[i], ends[i]);
        }

        /** @return whether field {@code i} is exactly {@code s}, whose UTF-8 bytes are {@code utf8} */
        boolean fieldIs(int i, String s, byte[] utf8) {
            if (texts != null) {
                return texts[i].equals(s);
            }
            int from = starts[i];
            if (ends[i] - from != utf8.length) {
                return false;
            }
            for (int k = 0; k < utf8.length; k++) {
                if (bytes[from + k] != utf8[k]) {
                    return false;
                }
            }
            return true;
        }
    }

    /** Reads records one at a time. */
    interface Rows extends java.io.Closeable {
        /** @return the next record, or null at the end */
        Row next() throws IOException;

        /** @return whether the record {@link #next()} gave last ends inside a quote never closed */
        default boolean unclosedQuote() {
            return false;
        }

        /** From now on a record is used before the next one is read: its arrays may be reused then. */
        default void readAtOnce() {
        }
    }

    private final Rows rows;
    private final List<String> columns;
    private final Settings settings;
    private final byte[] nullToken;
    private Row current;
    private boolean firstRecordPending;
    /** Once values are read at once: one value object per column, pointed at each record's field in turn. */
    private FieldText[] fieldTexts;

    /**
     * Opens the source and reads the header, if any.
     *
     * @param in the decompressed input
     * @param settings the settings
     * @param inputName the input's name, for messages
     * @throws IOException when the header cannot be read
     */
    public CsvSource(InputStream in, Settings settings, String inputName) throws IOException {
        this.settings = settings;
        this.nullToken = settings.nullToken().getBytes(StandardCharsets.UTF_8);
        this.rows = settings.escape() != 0 ? new EscapedReader(new BufferedReader(new InputStreamReader(in,
                StandardCharsets.UTF_8), 1 << 16), settings, inputName) : rfc4180(in, settings, inputName);
        if (settings.header()) {
            Row h = rows.next();
            if (h == null) {
                throw new IOException("'" + inputName + "' is empty: no header line");
            }
            List<String> names = new ArrayList<>();
            for (int i = 0; i < h.count(); i++) {
                names.add(h.field(i).strip());
            }
            if (settings.columns() != null && settings.columns().size() != names.size()) {
                throw new UsageException("--columns names " + settings.columns().size() + " columns, but the header of '"
                        + inputName + "' has " + names.size() + " (" + String.join(",", names) + "): name every"
                        + " column, in the file's order");
            }
            if (settings.columns() == null) {
                checkNames(names, inputName);
            }
            this.columns = settings.columns() != null ? settings.columns() : names;
        } else if (settings.columns() != null) {
            this.columns = settings.columns();
        } else {
            // Name columns c1..cN after the first record's width.
            List<String> names = new ArrayList<>();
            current = rows.next();
            if (current != null) {
                firstRecordPending = true;
                for (int i = 1; i <= current.count(); i++) {
                    names.add("c" + i);
                }
            }
            this.columns = names;
        }
    }

    /** Refuses a header with an empty or a repeated name, which no table column can take. */
    private static void checkNames(List<String> names, String inputName) {
        java.util.Map<String, Integer> seen = new java.util.HashMap<>();
        for (int i = 0; i < names.size(); i++) {
            String n = names.get(i);
            if (n.isEmpty()) {
                throw new UsageException("'" + inputName + "': the header's column " + (i + 1) + " has no name: name it"
                        + " in the file, or give every column's name with --columns");
            }
            Integer before = seen.putIfAbsent(n, i + 1);
            if (before != null) {
                throw new UsageException("'" + inputName + "': the header names '" + n + "' twice (columns " + before
                        + " and " + (i + 1) + "): rename one in the file, or give every column's name with --columns");
            }
        }
    }

    /**
     * RFC 4180 CSV: read from its UTF-8 bytes by {@link Utf8CsvReader}; through FastCSV when the input starts with
     * a UTF-16 or UTF-32 byte order mark (FastCSV decodes it as the mark says) or a control character is not ASCII.
     */
    private static Rows rfc4180(InputStream in, Settings settings, String inputName) throws IOException {
        byte[] head = new byte[4];
        int n = 0;
        for (int r; n < head.length && (r = in.read(head, n, head.length - n)) >= 0; ) {
            n += r;
        }
        int b0 = n > 0 ? head[0] & 0xff : -1;
        int b1 = n > 1 ? head[1] & 0xff : -1;
        boolean wideMark = b0 == 0xFE && b1 == 0xFF || b0 == 0xFF && b1 == 0xFE
                || n == 4 && b0 == 0 && b1 == 0 && (head[2] & 0xff) == 0xFE && (head[3] & 0xff) == 0xFF;
        if (!wideMark && Utf8CsvReader.takes(settings)) {
            return new Utf8CsvReader(in, head, n, settings, inputName);
        }
        return fastCsv(new java.io.SequenceInputStream(new java.io.ByteArrayInputStream(head, 0, n), in), settings,
                inputName);
    }

    /** FastCSV's reading of the input, as the fallback of {@link #rfc4180} reads it. */
    static Rows fastCsv(InputStream in, Settings settings, String inputName) {
        CsvReader.CsvReaderBuilder b = CsvReader.builder().fieldSeparator(settings.delimiter())
                .quoteCharacter(settings.quote()).skipEmptyLines(true).allowExtraFields(true)
                .allowMissingFields(true).detectBomHeader(true);
        if (settings.comment() != 0) {
            b.commentStrategy(CommentStrategy.SKIP).commentCharacter(settings.comment());
        }
        Tail tail = new Tail(in);
        Handler handler = new Handler();
        CsvReader<Row> reader = b.build(handler, tail, StandardCharsets.UTF_8);
        Iterator<Row> it = reader.iterator();
        return new Rows() {
            private Row pending;
            private boolean started;

            private Row fetch() throws IOException {
                try {
                    return it.hasNext() ? it.next() : null;
                } catch (CsvParseException e) {
                    throw new IOException("'" + inputName + "' cannot be parsed as CSV: " + e.getMessage(), e);
                } catch (java.io.UncheckedIOException e) {
                    throw e.getCause();
                }
            }

            /**
             * One record ahead, so that the last one can be checked: FastCSV ends a quoted value left open at the end
             * of the input without a word, with every line after the quote inside it.
             */
            @Override
            public Row next() throws IOException {
                if (!started) {
                    pending = fetch();
                    started = true;
                }
                Row r = pending;
                if (r == null) {
                    return null;
                }
                pending = fetch();
                int last = r.count() - 1;
                unclosed = pending == null && last >= 0 && r.quoted()[last] && tail.lastNonNewline != settings.quote();
                return r;
            }

            private boolean unclosed;

            @Override
            public boolean unclosedQuote() {
                return unclosed;
            }

            @Override
            public void close() throws IOException {
                reader.close();
            }
        };
    }

    /** The input as read, remembering its last byte that is not a line break. */
    private static final class Tail extends java.io.FilterInputStream {
        int lastNonNewline = -1;

        Tail(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int c = super.read();
            if (c >= 0 && c != '\n' && c != '\r') {
                lastNonNewline = c;
            }
            return c;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            for (int i = off + n - 1; i >= off; i--) {
                if (b[i] != '\n' && b[i] != '\r') {
                    lastNonNewline = b[i] & 0xff;
                    break;
                }
            }
            return n;
        }
    }

    /** Collects FastCSV's fields, as text, with whether each was quoted. */
    private static final class Handler extends AbstractBaseCsvCallbackHandler<Row> {
        private final List<String> fields = new ArrayList<>();
        private boolean[] quoted = new boolean[16];

        @Override
        protected void handleBegin(long startingLineNumber) {
            fields.clear();
        }

        @Override
        protected void handleField(int fieldIdx, char[] buf, int offset, int len, boolean q) {
            if (fields.size() == quoted.length) {
                quoted = java.util.Arrays.copyOf(quoted, quoted.length * 2);
            }
            quoted[fields.size()] = q;
            fields.add(new String(buf, offset, len));
        }

        @Override
        protected Row buildRecord() {
            return Row.of(fields, java.util.Arrays.copyOf(quoted, fields.size()), getStartingLineNumber());
        }
    }

    /**
     * CSV with an escape character: it makes the next character literal (a delimiter, a quote, the escape itself, a
     * line break), inside quotes or not; {@code n}, {@code t}, {@code r} and {@code 0} after it are a line feed, a
     * tab, a carriage return and a NUL. A doubled quote inside quotes is a quote, as in RFC 4180.
     */
    static final class EscapedReader implements Rows {
        private final Reader in;
        private final Settings s;
        private final String inputName;
        private long line = 1;
        private int peeked = -2;
        private boolean first = true;

        EscapedReader(Reader in, Settings s, String inputName) {
            this.in = in;
            this.s = s;
            this.inputName = inputName;
        }

        private int read() throws IOException {
            if (peeked != -2) {
                int c = peeked;
                peeked = -2;
                return c;
            }
            return in.read();
        }

        private int peek() throws IOException {
            if (peeked == -2) {
                peeked = in.read();
            }
            return peeked;
        }

        /** Consumes a line break whose first character was read; counts the line. */
        private void lineBreak(int c) throws IOException {
            if (c == '\r' && peek() == '\n') {
                read();
            }
            line++;
        }

        @Override
        public Row next() throws IOException {
            int c;
            while (true) {
                c = read();
                if (first) {
                    first = false;
                    if (c == '\uFEFF') {
                        c = read();
                    }
                }
                if (c == -1) {
                    return null;
                }
                if (c == '\n' || c == '\r') {
                    lineBreak(c); // an empty line
                    continue;
                }
                if (s.comment() != 0 && c == s.comment()) {
                    while (c != -1 && c != '\n' && c != '\r') {
                        c = read();
                    }
                    if (c != -1) {
                        lineBreak(c);
                    }
                    continue;
                }
                break;
            }
            long start = line;
            List<String> fields = new ArrayList<>();
            List<Boolean> quoted = new ArrayList<>();
            StringBuilder f = new StringBuilder();
            boolean inQuotes = false;
            boolean wasQuoted = false;
            while (true) {
                if (c == -1) {
                    if (inQuotes) {
                        throw new IOException("'" + inputName + "' ends inside a quoted value that starts on line " + start
                                + ": close the quote, or escape it with " + s.escape());
                    }
                    break;
                }
                if (c == s.escape()) {
                    int e = read();
                    if (e == -1) {
                        throw new IOException("'" + inputName + "' ends with an escape character (line " + line + ")");
                    }
                    switch (e) {
                        case 'n': f.append('\n'); break;
                        case 't': f.append('\t'); break;
                        case 'r': f.append('\r'); break;
                        case '0': f.append('\0'); break;
                        default:
                            if (e == '\n' || e == '\r') {
                                lineBreak(e);
                                f.append('\n');
                            } else {
                                f.append((char) e);
                            }
                    }
                } else if (inQuotes) {
                    if (c == s.quote()) {
                        if (peek() == s.quote()) {
                            read();
                            f.append(s.quote());
                        } else {
                            inQuotes = false;
                        }
                    } else {
                        if (c == '\n' || c == '\r') {
                            lineBreak(c);
                            f.append(c == '\r' ? '\n' : (char) c);
                        } else {
                            f.append((char) c);
                        }
                    }
                } else if (c == s.quote() && f.length() == 0 && !wasQuoted) {
                    inQuotes = true;
                    wasQuoted = true;
                } else if (c == s.delimiter()) {
                    fields.add(f.toString());
                    quoted.add(wasQuoted);
                    f.setLength(0);
                    wasQuoted = false;
                } else if (c == '\n' || c == '\r') {
                    lineBreak(c);
                    break;
                } else {
                    f.append((char) c);
                }
                c = read();
            }
            fields.add(f.toString());
            quoted.add(wasQuoted);
            boolean[] q = new boolean[quoted.size()];
            for (int i = 0; i < q.length; i++) {
                q[i] = quoted.get(i);
            }
            return Row.of(fields, q, start);
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }

    @Override
    public List<String> columns() {
        return columns;
    }

    @Override
    public boolean next() throws IOException {
        if (firstRecordPending) {
            firstRecordPending = false;
        } else {
            current = rows.next();
            if (current == null) {
                return false;
            }
        }
        if (rows.unclosedQuote()) {
            throw new BadRecord(current.line(), "opens a quote that is never closed, so every line after it would be"
                    + " one value: close the quote", raw());
        }
        if (current.count() != columns.size()) {
            throw new BadRecord(current.line(), "has " + current.count() + " fields, the header "
                    + columns.size(), raw());
        }
        return true;
    }

    @Override
    public Object value(int column) {
        if (column >= current.count()) {
            return null;
        }
        if (!current.quoted()[column] && current.fieldIs(column, settings.nullToken(), nullToken)) {
            return null;
        }
        FieldText[] reused = fieldTexts;
        if (reused != null && current.texts() == null && column < reused.length) {
            return reused[column].at(current.bytes(), current.starts()[column], current.ends()[column]);
        }
        return current.value(column);
    }

    @Override
    public void readValuesAtOnce() {
        rows.readAtOnce();
        FieldText[] f = new FieldText[columns.size()];
        for (int i = 0; i < f.length; i++) {
            f[i] = new FieldText(null, 0, 0);
        }
        fieldTexts = f;
    }

    @Override
    public long line() {
        return current.line();
    }

    @Override
    public String raw() {
        return raw(current);
    }

    @Override
    public java.util.function.Supplier<String> rawLater() {
        Row kept = current;
        return () -> raw(kept);
    }

    /** The record as CSV text, quoted where it needs quotes. */
    private String raw(Row current) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < current.count(); i++) {
            if (i > 0) {
                sb.append(settings.delimiter());
            }
            String f = current.field(i);
            boolean quote = current.quoted()[i] || f.indexOf(settings.delimiter()) >= 0
                    || f.indexOf(settings.quote()) >= 0 || f.indexOf('\n') >= 0 || f.indexOf('\r') >= 0;
            if (quote) {
                String q = String.valueOf(settings.quote());
                sb.append(q).append(f.replace(q, q + q)).append(q);
            } else {
                sb.append(f);
            }
        }
        return sb.toString();
    }

    @Override
    public void close() throws IOException {
        rows.close();
    }
}
