package dev.sluice.data;

import java.math.BigDecimal;
import java.time.Instant;

/**
 * Appends rows one typed value at a time, without an {@code Object[]} per row and without boxing: the cheap
 * form of {@code addRow(Object...)}. Obtain one from {@link Table#appender()} (or a bulk batch's
 * {@code appender()}); it is reused for every row of its table.
 *
 * <pre>{@code
 * RowAppender a = table.appender();
 * for (...) {
 *     a.setString(0, host).setDouble(1, cpu).setTimestamp(2, epochMillis).endRow();
 * }
 * }</pre>
 *
 * <p>Columns are addressed by index (schema order) or by name. Each value is checked as {@code addRow} checks it
 * (type, range, JSON text), and a value that does not fit throws an {@link InvalidDataException} naming table,
 * column and row: the row being built is then dropped, rows ended before it are kept, and the next setter starts
 * a new row. Columns left unset when the row ends are NULL; the time index must be set. Setting a column twice
 * in one row keeps the last value. Not thread-safe, like the table it appends to.
 */
public interface RowAppender {
    /**
     * Sets a Bool column.
     *
     * @param column the column index
     * @param value the value
     * @return this
     */
    RowAppender setBoolean(int column, boolean value);

    /**
     * Sets an integral column (range-checked), a Date column (days since 1970-01-01), a Timestamp or Time column
     * (a count of the column's unit), or a Float column (converted).
     *
     * @param column the column index
     * @param value the value
     * @return this
     */
    RowAppender setLong(int column, long value);

    /**
     * Sets a Float32 or Float64 column.
     *
     * @param column the column index
     * @param value the value
     * @return this
     */
    RowAppender setDouble(int column, double value);

    /**
     * Sets a String column, or a Json column with JSON text (validated). Text is stored as UTF-8; a lone
     * surrogate (half of a pair, which UTF-8 cannot encode) is stored as {@code '?'}, as the JDK's encoder and
     * protobuf's do, not refused: checking every text for it would cost a scan of every new value.
     *
     * @param column the column index
     * @param value the text; null sets NULL
     * @return this
     */
    RowAppender setString(int column, CharSequence value);

    /**
     * Sets a String column from text already encoded as UTF-8, as files, Parquet pages and message payloads hold
     * it: the bytes are checked and stored without being decoded into a {@code String} and encoded again. Bytes
     * that are not well-formed UTF-8 (RFC 3629) are refused, naming the first bad byte, whatever the column. A Json
     * column then takes the text as {@link #setString} does (decoded, then validated as JSON). The bytes may be kept,
     * not copied: do not change them afterwards.
     *
     * @param column the column index
     * @param utf8 an array holding the text; null sets NULL
     * @param offset where the text starts in it
     * @param length the text's length in bytes
     * @return this
     * @throws IndexOutOfBoundsException when {@code offset} and {@code length} fall outside the array (the row being
     *     built is dropped, as for a value that does not fit)
     */
    RowAppender setUtf8(int column, byte[] utf8, int offset, int length);

    /**
     * Sets a Binary column. The array is kept, not copied: do not change it afterwards.
     *
     * @param column the column index
     * @param value the bytes; null sets NULL
     * @return this
     */
    RowAppender setBytes(int column, byte[] value);

    /**
     * Sets a Timestamp column from an instant (truncated to the column's unit, range-checked).
     *
     * @param column the column index
     * @param value the instant; null sets NULL (refused for the time index at {@link #endRow()})
     * @return this
     */
    RowAppender setTimestamp(int column, Instant value);

    /**
     * Sets a Decimal128 column (never rounded: a value with more digits than the column's scale is refused).
     *
     * @param column the column index
     * @param value the value; null sets NULL
     * @return this
     */
    RowAppender setDecimal(int column, BigDecimal value);

    /**
     * Sets any column from a value of a Java type {@code addRow} accepts for it.
     *
     * @param column the column index
     * @param value the value; null sets NULL
     * @return this
     */
    RowAppender setValue(int column, Object value);

    /**
     * Sets a column to NULL (refused for the time index at {@link #endRow()}).
     *
     * @param column the column index
     * @return this
     */
    RowAppender setNull(int column);

    /**
     * Returns the index of a column, for the setters; look it up once, outside the row loop.
     *
     * @param name the column name (case-sensitive)
     * @return the index
     * @throws IllegalArgumentException naming the table when there is no such column
     */
    int columnIndex(String name);

    /**
     * Ends the row: unset columns become NULL and the row is added.
     *
     * @throws InvalidDataException when the time index was not set (the row is dropped)
     */
    void endRow();

    /**
     * Drops the row being built, if any; rows already ended are kept.
     */
    void cancelRow();
}
