package dev.sluice.data;

/**
 * Every GreptimeDB column type a client can write, with the Java values each one accepts.
 *
 * <p>The same conversion rules apply on every write path (regular, stream and bulk): a value accepted by
 * {@link Table#addRow(Object...)} is accepted, and stored identically, by a bulk batch. Integral values are
 * range-checked, never truncated; floating-point values are never accepted by integer or decimal columns.
 * {@code null} is accepted by every column except the time index.
 *
 * <p>{@code DATETIME} and the interval types are not offered: GreptimeDB cannot create columns of those
 * types from a write, so a client-side schema using them could never be written.
 */
public enum DataType {
    /** BOOLEAN. Accepts {@link Boolean}. */
    Bool(Storage.BOOL),
    /** INT8. Accepts {@link Byte}, {@link Short}, {@link Integer}, {@link Long} within [-128, 127]. */
    Int8(Storage.LONG),
    /** INT16. Accepts {@link Byte}, {@link Short}, {@link Integer}, {@link Long} within the 16-bit range. */
    Int16(Storage.LONG),
    /** INT32. Accepts {@link Byte}, {@link Short}, {@link Integer}, {@link Long} within the 32-bit range. */
    Int32(Storage.LONG),
    /** INT64. Accepts {@link Byte}, {@link Short}, {@link Integer}, {@link Long}, and {@link java.math.BigInteger} within range. */
    Int64(Storage.LONG),
    /** UINT8. Accepts non-negative {@link Byte}, {@link Short}, {@link Integer}, {@link Long} up to 255. */
    UInt8(Storage.LONG),
    /** UINT16. Accepts non-negative integral values up to 65,535. */
    UInt16(Storage.LONG),
    /** UINT32. Accepts non-negative integral values up to 4,294,967,295 (pass a {@link Long} above 2^31-1). */
    UInt32(Storage.LONG),
    /**
     * UINT64. Accepts non-negative {@link Byte}, {@link Short}, {@link Integer}, {@link Long} and a
     * {@link java.math.BigInteger} in [0, 2^64-1].
     */
    UInt64(Storage.LONG),
    /** FLOAT32. Accepts {@link Float}, {@link Double} within float range (or NaN/infinite), and integral boxes. */
    Float32(Storage.DOUBLE),
    /** FLOAT64. Accepts {@link Double}, {@link Float}, {@link Byte}, {@link Short}, {@link Integer}, {@link Long}. */
    Float64(Storage.DOUBLE),
    /** BINARY. Accepts {@code byte[]} (not copied: do not change it before the write) and {@link java.nio.ByteBuffer} (remaining bytes, copied). */
    Binary(Storage.BYTES),
    /** STRING. Accepts any {@link CharSequence}. */
    String(Storage.STRING),
    /** DATE (days since 1970-01-01). Accepts {@link java.time.LocalDate} and {@link Integer} days. */
    Date(Storage.LONG),
    /**
     * TIMESTAMP(0). Accepts integral boxes holding seconds since the epoch, {@link java.time.Instant},
     * {@link java.util.Date}, {@link java.time.OffsetDateTime} and {@link java.time.ZonedDateTime}; finer parts
     * of an instant are dropped (floor).
     */
    TimestampSecond(Storage.LONG),
    /** TIMESTAMP(3). Like {@link #TimestampSecond} but in milliseconds. */
    TimestampMillisecond(Storage.LONG),
    /** TIMESTAMP(6). Like {@link #TimestampSecond} but in microseconds. */
    TimestampMicrosecond(Storage.LONG),
    /** TIMESTAMP(9). Like {@link #TimestampSecond} but in nanoseconds (instants in years 1677..2262). */
    TimestampNanosecond(Storage.LONG),
    /** TIME(0), time of day. Accepts {@link java.time.LocalTime} and integral boxes holding seconds. */
    TimeSecond(Storage.LONG),
    /** TIME(3). Accepts {@link java.time.LocalTime} and integral boxes holding milliseconds. */
    TimeMillisecond(Storage.LONG),
    /** TIME(6). Accepts {@link java.time.LocalTime} and integral boxes holding microseconds. */
    TimeMicrosecond(Storage.LONG),
    /** TIME(9). Accepts {@link java.time.LocalTime} and integral boxes holding nanoseconds. */
    TimeNanosecond(Storage.LONG),
    /**
     * DECIMAL(precision, scale), (38, 10) unless the column declares a {@link DecimalType}. Accepts
     * {@link java.math.BigDecimal}, {@link java.math.BigInteger} and integral boxes. A value with more fraction
     * digits than the scale, or more digits than the precision, is rejected rather than rounded.
     */
    Decimal128(Storage.DECIMAL),
    /**
     * JSON. Accepts a {@link CharSequence} holding JSON text (checked), or a {@link java.util.Map} /
     * {@link java.util.List} tree of maps, lists, strings, numbers, booleans and nulls, serialised to JSON text.
     */
    Json(Storage.STRING),
    /**
     * VECTOR(dim): a fixed number of float32 elements, declared with a {@link VectorType}. Accepts a
     * {@code float[]}, a {@code double[]} (each element must fit a float; NaN and infinities are kept) or a
     * {@link java.util.List} of {@link Number}s, holding exactly {@code dim} elements; any other length is
     * rejected. Sent as {@code dim} little-endian float32s in {@code binary_value}, as GreptimeDB stores it.
     */
    Vector(Storage.BYTES);

    /** How a column of this type is held in memory (a vector as its little-endian float32 bytes). Not part of the public contract. */
    enum Storage { BOOL, LONG, DOUBLE, STRING, BYTES, DECIMAL }

    private final Storage storage;

    DataType(Storage storage) {
        this.storage = storage;
    }

    /**
     * Tells whether this type may be the time index.
     *
     * @return true for the four timestamp types
     */
    public boolean isTimestamp() {
        return this == TimestampSecond || this == TimestampMillisecond
                || this == TimestampMicrosecond || this == TimestampNanosecond;
    }

    /**
     * Tells whether this type is a time of day.
     *
     * @return true for the four time types
     */
    public boolean isTime() {
        return this == TimeSecond || this == TimeMillisecond || this == TimeMicrosecond || this == TimeNanosecond;
    }

    /**
     * Tells whether values of this type are held as 64-bit integers in a {@link ColumnVector}.
     *
     * @return true for integers, dates, timestamps and times
     */
    public boolean isLongBacked() {
        return storage == Storage.LONG;
    }

    /**
     * Tells whether values of this type are held as doubles in a {@link ColumnVector}.
     *
     * @return true for Float32 and Float64
     */
    public boolean isDoubleBacked() {
        return storage == Storage.DOUBLE;
    }

    /**
     * Tells whether values of this type are held as strings in a {@link ColumnVector}.
     *
     * @return true for String and Json
     */
    public boolean isStringBacked() {
        return storage == Storage.STRING;
    }

    /**
     * Returns how many units of this timestamp or time type make one second.
     *
     * @return 1, 1,000, 1,000,000 or 1,000,000,000
     * @throws IllegalStateException for a type that is neither a timestamp nor a time
     */
    public long unitsPerSecond() {
        switch (this) {
            case TimestampSecond: case TimeSecond: return 1L;
            case TimestampMillisecond: case TimeMillisecond: return 1_000L;
            case TimestampMicrosecond: case TimeMicrosecond: return 1_000_000L;
            case TimestampNanosecond: case TimeNanosecond: return 1_000_000_000L;
            default: throw new IllegalStateException(this + " has no time unit");
        }
    }

    private Storage storage() {
        return storage;
    }
}
