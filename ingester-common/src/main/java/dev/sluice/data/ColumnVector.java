package dev.sluice.data;

/**
 * Read access to one column of a {@link Table}, in the form values are held in memory.
 *
 * <p>Which getter applies follows the column's {@link DataType}: {@link #getLong} for integers (unsigned
 * 64-bit values as their bit pattern), dates (days), timestamps and times (in the column's unit);
 * {@link #getDouble} for Float32/Float64; {@link #getBool}; {@link #getString} for String and Json (JSON
 * text); {@link #getBytes} for Binary (and Vector, as little-endian float32s); {@link #getDecimal} for
 * Decimal128. Check {@link #isNull} first: a null slot holds an unspecified value.
 */
public interface ColumnVector {
    /**
     * Returns the column's type.
     *
     * @return the data type
     */
    DataType dataType();

    /**
     * Tells whether a row's value is null.
     *
     * @param row zero-based row index
     * @return true for null
     */
    boolean isNull(int row);

    /**
     * Reads a long-backed value.
     *
     * @param row zero-based row index
     * @return the value
     */
    long getLong(int row);

    /**
     * Reads a Float32 or Float64 value.
     *
     * @param row zero-based row index
     * @return the value
     */
    double getDouble(int row);

    /**
     * Reads a Bool value.
     *
     * @param row zero-based row index
     * @return the value
     */
    boolean getBool(int row);

    /**
     * Reads a String or Json value, decoded from the UTF-8 bytes the column holds (a new {@code String} each
     * call; prefer {@link #getBytes} to avoid the decoding).
     *
     * @param row zero-based row index
     * @return the text
     */
    String getString(int row);

    /**
     * Reads a Binary value, a Vector value (its little-endian float32s), or the UTF-8 bytes of a String or Json
     * value. This may be the array the column holds, not a copy, and it may be shared: a text column stores one
     * array per distinct {@code String} instance it saw (other rows, and later fills of a reused table, can hold
     * the same array). Never modify it; copy it first if you need to. A {@code Table} never writes over an array it
     * returned here, even after {@code reset()}: the larger arrays it packs long text into (64 characters or more),
     * which a refill reuses, are copied out on each call.
     *
     * @param row zero-based row index
     * @return the bytes (read only)
     */
    byte[] getBytes(int row);

    /**
     * Reads a Decimal128 value, with the column's scale.
     *
     * @param row zero-based row index
     * @return the value
     */
    java.math.BigDecimal getDecimal(int row);
}
