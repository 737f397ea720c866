package dev.sluice.importer.internal.source;

import java.io.Closeable;
import java.io.IOException;
import java.util.List;

/**
 * Reads the records of one tabular input (CSV, TSV, JSON Lines, Parquet) one at a time. Values are {@code String} (text
 * as read, {@code null} for the null token), or for JSON {@code Long}, {@code Double}, {@code BigDecimal},
 * {@code Boolean}, {@code String} and {@link JsonText} (a nested object or array), or for Parquet the typed values
 * {@link ParquetSource} lists.
 */
public interface RecordSource extends Closeable {
    /**
     * The source columns known so far (a JSON source learns names as it reads; their indexes never change).
     *
     * @return the names, by index
     */
    List<String> columns();

    /**
     * Reads the next record.
     *
     * @return false at the end of the input
     * @throws BadRecord when the record cannot be parsed (the source can go on with the next one)
     * @throws IOException when the input cannot be read any further
     */
    boolean next() throws IOException;

    /**
     * Returns the current record's value of a source column.
     *
     * @param column the source column index
     * @return the value, or null when absent
     */
    Object value(int column);

    /**
     * Returns the line the current record starts on (1-based).
     *
     * @return the line
     */
    long line();

    /**
     * Names the current record's position for messages: its line, or for Parquet its row group and row.
     *
     * @return the position, e.g. {@code line 7}
     */
    default String where() {
        return "line " + line();
    }

    /**
     * Returns the current record's position, as the resume state records how far an input was imported: by default
     * the records read so far, which the run counts and passes in (a record that cannot be parsed counts as one); a
     * source that places its records otherwise returns its own (line protocol: the record's last line).
     *
     * @param counted the records read so far, the current one included
     * @return the position, growing from record to record
     */
    default long position(long counted) {
        return counted;
    }

    /**
     * Skips the records up to a position (see {@link #position(long)}; by default, a number of records, counting a
     * record that cannot be parsed as one).
     *
     * @param n the position to skip to
     * @return the position reached (less at the end of the input)
     * @throws IOException when the input cannot be read any further
     */
    default long skip(long n) throws IOException {
        long done = 0;
        while (done < n) {
            try {
                if (!next()) {
                    break;
                }
            } catch (BadRecord b) {
                // counted like any record
            }
            done++;
        }
        return done;
    }

    /**
     * Tells the source that from now on each record's values are read before the next record is asked for, and not
     * kept: it may then reuse its buffers and value objects from record to record. Values read before the call stay
     * as they are.
     */
    default void readValuesAtOnce() {
    }

    /**
     * Returns how many lines held no record and were passed over (blank lines, comments), as read so far.
     *
     * @return the count; 0 for a format that does not count them
     */
    default long linesWithoutRecord() {
        return 0;
    }

    /**
     * Returns the current record's text as read (for rejects files).
     *
     * @return the raw text
     */
    String raw();

    /**
     * Keeps what {@link #raw()} renders for the current record, to render it only if it is ever asked for (a record
     * read ahead for the sample is rejected rarely, and rendering every sampled record's text would delay the start).
     *
     * @return the current record's raw text, rendered on demand
     */
    default java.util.function.Supplier<String> rawLater() {
        String r = raw();
        return () -> r;
    }

    /**
     * Closes a source that nothing more is read from, its failure to close left unsaid.
     *
     * @param src the source
     */
    static void closeQuietly(RecordSource src) {
        try {
            src.close();
        } catch (IOException ignored) {
            // nothing more is read from it
        }
    }

    /**
     * A nested JSON value kept as its JSON text.
     *
     * @param text the JSON text
     */
    record JsonText(String text) {
        @Override
        public String toString() {
            return text;
        }
    }

    /** A record that cannot be parsed; the message is the reason, {@link #description()} names line and reason. */
    final class BadRecord extends IOException {
        private static final long serialVersionUID = 1L;
        private final long line;
        private final String raw;
        private final String description;

        /**
         * Creates the exception.
         *
         * @param line the record's line
         * @param reason why it cannot be parsed
         * @param raw the record's text
         */
        public BadRecord(long line, String reason, String raw) {
            this(line, reason, raw, "line " + line + " " + reason);
        }

        private BadRecord(long line, String reason, String raw, String description) {
            super(reason);
            this.line = line;
            this.raw = raw;
            this.description = description;
        }

        /**
         * Creates the exception with a description of its own, for reasons that are not said of the line
         * ({@code line 3, character 12: ...} rather than {@code line 3 has 4 fields...}).
         *
         * @param line the record's line
         * @param description where and why, as messages show it
         * @param raw the record's text
         * @return the exception
         */
        public static BadRecord described(long line, String description, String raw) {
            return new BadRecord(line, description, raw, description);
        }

        /** @return where and why, as messages show it: {@code line 7 has 3 fields, the header 2} */
        public String description() {
            return description;
        }

        /** @return the record's line */
        public long line() {
            return line;
        }

        /** @return the record's text */
        public String raw() {
            return raw;
        }
    }
}
