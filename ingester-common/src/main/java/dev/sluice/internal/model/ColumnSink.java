package dev.sluice.internal.model;

/**
 * Where a validated, converted value lands: a {@code Table}'s arrays or a bulk batch's Arrow vectors.
 *
 * <p>Writes address an explicit row so that a row that fails half-way can simply be written again at the
 * same index: nothing is committed until the caller advances its row count.
 */
public interface ColumnSink {
    /**
     * Marks the row's value as null.
     *
     * @param row the row index
     */
    void setNull(int row);

    /**
     * Integral, date, timestamp and time columns; unsigned 64-bit values arrive as their bit pattern.
     *
     * @param row the row index
     * @param value the value
     */
    void setLong(int row, long value);

    /**
     * Float32 and Float64 columns (a Float32 value is exactly representable as float).
     *
     * @param row the row index
     * @param value the value
     */
    void setDouble(int row, double value);

    /**
     * Boolean columns.
     *
     * @param row the row index
     * @param value the value
     */
    void setBool(int row, boolean value);

    /**
     * String and JSON columns: the sink converts the text to UTF-8 (long ASCII text through {@link AsciiText},
     * with no array per value).
     *
     * @param row the row index
     * @param text the text
     */
    void setText(int row, String text);

    /**
     * String and JSON columns, already UTF-8 (copying between columns).
     *
     * @param row the row index
     * @param utf8 an array holding the text's UTF-8 bytes (a whole array may be kept, not copied; never modify it)
     * @param offset where the text starts in it
     * @param length the text's length in bytes
     */
    void setUtf8(int row, byte[] utf8, int offset, int length);

    /**
     * Binary columns.
     *
     * @param row the row index
     * @param value the bytes (kept, not copied)
     */
    void setBytes(int row, byte[] value);

    /**
     * Decimal columns: the unscaled two's-complement 128-bit value in two halves.
     *
     * @param row the row index
     * @param hi the high 64 bits
     * @param lo the low 64 bits
     */
    void setDecimal(int row, long hi, long lo);
}
