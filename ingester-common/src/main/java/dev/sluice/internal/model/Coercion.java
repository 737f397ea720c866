package dev.sluice.internal.model;

import dev.sluice.data.DataType;
import dev.sluice.data.DecimalType;
import dev.sluice.data.VectorType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Map;

/**
 * The one table of Java value to column value conversions, shared by every write path.
 *
 * <p>Each method either returns the column's in-memory form or throws {@link Rejection} with the reason;
 * callers add the table, column and row.
 */
public final class Coercion {
    private static final BigInteger UINT64_MAX = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);
    private static final BigInteger LONG_MIN = BigInteger.valueOf(Long.MIN_VALUE);
    private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);

    private Coercion() {
    }

    /** Why a value was refused; carries no stack trace, it is always rethrown with context. */
    public static final class Rejection extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Rejection(String reason) {
            super(reason, null, false, false);
        }
    }

    static Rejection reject(Object value, DataType type) {
        return new Rejection("a " + value.getClass().getName() + " (" + abbreviate(value) + ") cannot be written to a "
                + type + " column; it takes " + accepted(type));
    }

    private static String abbreviate(Object value) {
        String s = value instanceof byte[] ? ((byte[]) value).length + " bytes" : String.valueOf(value);
        return s.length() > 64 ? s.substring(0, 61) + "..." : s;
    }

    /**
     * Names the Java types a column type takes.
     *
     * @param type the column type
     * @return a short human-readable list
     */
    public static String accepted(DataType type) {
        switch (type) {
            case Bool: return "Boolean";
            case Int8: case Int16: case Int32: case UInt8: case UInt16: case UInt32:
                return "Byte, Short, Integer or Long within range";
            case Int64: case UInt64: return "Byte, Short, Integer, Long or BigInteger within range";
            case Float32: case Float64: return "Float, Double, Byte, Short, Integer or Long";
            case Binary: return "byte[] or ByteBuffer";
            case String: return "CharSequence";
            case Date: return "LocalDate or Integer days since 1970-01-01";
            case Decimal128: return "BigDecimal, BigInteger, Byte, Short, Integer or Long";
            case Json: return "Map, List or a CharSequence holding JSON text";
            case Vector: return "float[], double[] or a List of Numbers with exactly the column's dimension";
            default:
                if (type.isTimestamp()) {
                    return "Instant, java.util.Date, OffsetDateTime, ZonedDateTime or an integral count of "
                            + unitName(type) + " since the epoch";
                }
                return "LocalTime or an integral count of " + unitName(type) + " since midnight";
        }
    }

    private static String unitName(DataType type) {
        long u = type.unitsPerSecond();
        return u == 1 ? "seconds" : u == 1_000 ? "milliseconds" : u == 1_000_000 ? "microseconds" : "nanoseconds";
    }

    private static boolean isIntegralBox(Object v) {
        return v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte;
    }

    /**
     * Converts to the 64-bit form of integral, date, timestamp and time columns.
     *
     * @param type a long-backed type
     * @param v a non-null value
     * @return the value (unsigned 64-bit as its bit pattern, dates as days, times and timestamps in the unit)
     */
    public static long toLong(DataType type, Object v) {
        if (v instanceof Long) {
            // The common case, in a method small enough to be inlined where rows are written: a Long is checked as
            // a primitive long is (the same ranges and messages).
            long l = (Long) v;
            return type == DataType.Int64 || type.isTimestamp() ? l : fromLong(type, l);
        }
        return toLongFromBox(type, v);
    }

    private static long toLongFromBox(DataType type, Object v) {
        switch (type) {
            case Int8: return ranged(type, v, Byte.MIN_VALUE, Byte.MAX_VALUE);
            case Int16: return ranged(type, v, Short.MIN_VALUE, Short.MAX_VALUE);
            case Int32: return ranged(type, v, Integer.MIN_VALUE, Integer.MAX_VALUE);
            case UInt8: return ranged(type, v, 0, 255);
            case UInt16: return ranged(type, v, 0, 65_535);
            case UInt32: return ranged(type, v, 0, 4_294_967_295L);
            case Int64:
                if (isIntegralBox(v)) {
                    return ((Number) v).longValue();
                }
                if (v instanceof BigInteger) {
                    BigInteger b = (BigInteger) v;
                    if (b.compareTo(LONG_MIN) < 0 || b.compareTo(LONG_MAX) > 0) {
                        throw new Rejection(b + " is outside the Int64 range");
                    }
                    return b.longValue();
                }
                throw reject(v, type);
            case UInt64:
                if (isIntegralBox(v)) {
                    long l = ((Number) v).longValue();
                    if (l < 0) {
                        throw new Rejection(l + " is negative; UInt64 takes 0..2^64-1 (use BigInteger above 2^63-1)");
                    }
                    return l;
                }
                if (v instanceof BigInteger) {
                    BigInteger b = (BigInteger) v;
                    if (b.signum() < 0 || b.compareTo(UINT64_MAX) > 0) {
                        throw new Rejection(b + " is outside the UInt64 range 0..2^64-1");
                    }
                    return b.longValue();
                }
                throw reject(v, type);
            case Date:
                if (v instanceof LocalDate) {
                    return ((LocalDate) v).toEpochDay();
                }
                if (v instanceof Integer || v instanceof Short || v instanceof Byte) {
                    return ((Number) v).intValue();
                }
                if (v instanceof Long) {
                    return ranged(type, v, Integer.MIN_VALUE, Integer.MAX_VALUE);
                }
                throw reject(v, type);
            default:
                if (type.isTimestamp()) {
                    return timestamp(type, v);
                }
                if (type.isTime()) {
                    return time(type, v);
                }
                throw new IllegalStateException(type + " is not long-backed");
        }
    }

    private static long ranged(DataType type, Object v, long min, long max) {
        if (!isIntegralBox(v)) {
            throw reject(v, type);
        }
        return inRange(type, ((Number) v).longValue(), min, max);
    }

    private static long inRange(DataType type, long l, long min, long max) {
        if (l < min || l > max) {
            throw new Rejection(l + " is outside the " + type + " range " + min + ".." + max);
        }
        return l;
    }

    /**
     * Checks a primitive long for a long-backed column, as {@link #toLong} checks a boxed one: the same ranges
     * and messages, without boxing.
     *
     * @param type a long-backed type
     * @param l the value (dates as days, times and timestamps as counts of the column's unit)
     * @return the value to store
     */
    public static long fromLong(DataType type, long l) {
        switch (type) {
            case Int8: return inRange(type, l, Byte.MIN_VALUE, Byte.MAX_VALUE);
            case Int16: return inRange(type, l, Short.MIN_VALUE, Short.MAX_VALUE);
            case Int32: return inRange(type, l, Integer.MIN_VALUE, Integer.MAX_VALUE);
            case UInt8: return inRange(type, l, 0, 255);
            case UInt16: return inRange(type, l, 0, 65_535);
            case UInt32: return inRange(type, l, 0, 4_294_967_295L);
            case UInt64:
                if (l < 0) {
                    throw new Rejection(l + " is negative; UInt64 takes 0..2^64-1 (use BigInteger above 2^63-1)");
                }
                return l;
            case Date: return inRange(type, l, Integer.MIN_VALUE, Integer.MAX_VALUE);
            default:
                if (type == DataType.Int64 || type.isTimestamp() || type.isTime()) {
                    return l;
                }
                throw new Rejection("a long does not fit a " + type + " column; it takes " + accepted(type));
        }
    }

    /**
     * Checks a primitive double for a Float32 or Float64 column, as {@link #toDouble} checks a boxed one.
     *
     * @param type Float32 or Float64
     * @param d the value
     * @return the value to store
     */
    public static double fromDouble(DataType type, double d) {
        if (type == DataType.Float32) {
            float f = (float) d;
            if (Float.isInfinite(f) && !Double.isInfinite(d)) {
                throw new Rejection(d + " is outside the Float32 range");
            }
            return f;
        }
        if (type != DataType.Float64) {
            throw new Rejection("a double does not fit a " + type + " column; it takes " + accepted(type));
        }
        return d;
    }

    private static long timestamp(DataType type, Object v) {
        if (isIntegralBox(v)) {
            return ((Number) v).longValue();
        }
        Instant instant;
        if (v instanceof Instant) {
            instant = (Instant) v;
        } else if (v instanceof java.util.Date) {
            instant = ((java.util.Date) v).toInstant();
        } else if (v instanceof OffsetDateTime) {
            instant = ((OffsetDateTime) v).toInstant();
        } else if (v instanceof ZonedDateTime) {
            instant = ((ZonedDateTime) v).toInstant();
        } else {
            throw reject(v, type);
        }
        long perSecond = type.unitsPerSecond();
        long seconds = instant.getEpochSecond();
        long fraction = instant.getNano() / (1_000_000_000L / perSecond);
        try {
            if (seconds < 0 && fraction > 0) {
                // Borrow a second so the product stays in range for instants just above the type's minimum
                // (TimestampNanosecond's Long.MIN_VALUE is 1677-09-21T00:12:43.145224192Z).
                return Math.addExact(Math.multiplyExact(seconds + 1, perSecond), fraction - perSecond);
            }
            return Math.addExact(Math.multiplyExact(seconds, perSecond), fraction);
        } catch (ArithmeticException e) {
            throw new Rejection(instant + " does not fit a " + type + " column" + range(perSecond));
        }
    }

    /** The instants a timestamp column holds (int64 units since 1970), for a refusal's message. */
    private static String range(long perSecond) {
        long nanosPerUnit = 1_000_000_000L / perSecond;
        try {
            Instant min = Instant.ofEpochSecond(Math.floorDiv(Long.MIN_VALUE, perSecond),
                    Math.floorMod(Long.MIN_VALUE, perSecond) * nanosPerUnit);
            Instant max = Instant.ofEpochSecond(Math.floorDiv(Long.MAX_VALUE, perSecond),
                    Math.floorMod(Long.MAX_VALUE, perSecond) * nanosPerUnit);
            return " (it holds " + min + " to " + max + ")";
        } catch (java.time.DateTimeException e) {
            return "";
        }
    }

    private static long time(DataType type, Object v) {
        if (v instanceof LocalTime) {
            return ((LocalTime) v).toNanoOfDay() / (1_000_000_000L / type.unitsPerSecond());
        }
        if (isIntegralBox(v)) {
            return ((Number) v).longValue();
        }
        throw reject(v, type);
    }

    /**
     * Converts to the double form of Float32 and Float64 columns.
     *
     * @param type Float32 or Float64
     * @param v a non-null value
     * @return the value; for Float32 one exactly representable as a float
     */
    public static double toDouble(DataType type, Object v) {
        if (v instanceof Double || v instanceof Float || isIntegralBox(v)) {
            return fromDouble(type, ((Number) v).doubleValue());
        }
        throw reject(v, type);
    }

    /**
     * Converts a Boolean.
     *
     * @param type Bool
     * @param v a non-null value
     * @return the value
     */
    public static boolean toBool(DataType type, Object v) {
        if (v instanceof Boolean) {
            return (Boolean) v;
        }
        throw reject(v, type);
    }

    /**
     * Converts to the text of String and Json columns; JSON text is checked, maps and lists are serialised.
     *
     * @param type String or Json
     * @param v a non-null value
     * @return the text
     */
    public static String toText(DataType type, Object v) {
        if (type == DataType.String) {
            // String first: an exact class check, where CharSequence (an interface) makes the JVM search the
            // class's interfaces and share one cache line of that search among every writing thread.
            if (v instanceof String) {
                return (String) v;
            }
            if (v instanceof CharSequence) {
                return v.toString();
            }
            throw reject(v, type);
        }
        if (v instanceof CharSequence) {
            String s = v.toString();
            String problem = JsonText.check(s);
            if (problem != null) {
                throw new Rejection("the text is not valid JSON: " + problem);
            }
            return s;
        }
        if (v instanceof Map || v instanceof List) {
            return JsonText.write(v);
        }
        throw reject(v, type);
    }

    /**
     * Converts to the bytes of a Binary column.
     *
     * @param type Binary
     * @param v a non-null value
     * @return the bytes (a byte[] is used as is; a ByteBuffer's remaining bytes are copied, its position kept)
     */
    public static byte[] toBytes(DataType type, Object v) {
        if (v instanceof byte[]) {
            return (byte[]) v;
        }
        if (v instanceof ByteBuffer) {
            ByteBuffer b = ((ByteBuffer) v).duplicate();
            byte[] out = new byte[b.remaining()];
            b.get(out);
            return out;
        }
        throw reject(v, type);
    }

    /**
     * Converts to the stored form of a vector column: {@code dim} float32s, little-endian, as GreptimeDB keeps a
     * {@code VECTOR(dim)} value (its {@code src/datatypes/src/types/vector_type.rs}: a binary value of
     * concatenated float32s, read back with {@code f32::from_le_bytes}).
     *
     * @param vector the column's dimension
     * @param v a non-null value: a float[], a double[] or a List of Numbers
     * @return 4 * dim bytes
     * @throws Rejection for another Java type, a wrong number of elements, or a double outside float range
     */
    public static byte[] toVectorBytes(VectorType vector, Object v) {
        int n;
        if (v instanceof float[]) {
            n = ((float[]) v).length;
        } else if (v instanceof double[]) {
            n = ((double[]) v).length;
        } else if (v instanceof List) {
            n = ((List<?>) v).size();
        } else {
            throw reject(v, DataType.Vector);
        }
        if (n != vector.dim()) {
            throw new Rejection("a vector of " + n + " elements cannot be written to a VECTOR(" + vector.dim()
                    + ") column; it takes exactly " + vector.dim());
        }
        ByteBuffer out = ByteBuffer.allocate(n * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        if (v instanceof float[]) {
            for (float f : (float[]) v) {
                out.putFloat(f);
            }
        } else if (v instanceof double[]) {
            double[] d = (double[]) v;
            for (int i = 0; i < n; i++) {
                out.putFloat(vectorElement(d[i], i));
            }
        } else {
            int i = 0;
            for (Object e : (List<?>) v) {
                if (!(e instanceof Number)) {
                    throw new Rejection("vector element " + i + " is " + (e == null ? "null"
                            : "a " + e.getClass().getName()) + "; every element must be a Number");
                }
                out.putFloat(e instanceof Float ? (Float) e : vectorElement(((Number) e).doubleValue(), i));
                i++;
            }
        }
        return out.array();
    }

    private static float vectorElement(double d, int index) {
        float f = (float) d;
        if (Float.isInfinite(f) && !Double.isInfinite(d)) {
            throw new Rejection("vector element " + index + " (" + d + ") is outside the float32 range");
        }
        return f;
    }

    /**
     * Converts to the unscaled value of a decimal column at its scale.
     *
     * @param decimal the column's precision and scale
     * @param v a non-null value
     * @return the unscaled value, within the precision
     */
    public static BigInteger toUnscaledDecimal(DecimalType decimal, Object v) {
        BigDecimal d;
        if (v instanceof BigDecimal) {
            d = (BigDecimal) v;
        } else if (v instanceof BigInteger) {
            d = new BigDecimal((BigInteger) v);
        } else if (isIntegralBox(v)) {
            d = BigDecimal.valueOf(((Number) v).longValue());
        } else {
            throw reject(v, DataType.Decimal128);
        }
        BigDecimal scaled;
        try {
            scaled = d.setScale(decimal.scale(), RoundingMode.UNNECESSARY);
        } catch (ArithmeticException e) {
            throw new Rejection(d.toPlainString() + " has more than " + decimal.scale()
                    + " fraction digits; round it first (DECIMAL(" + decimal.precision() + ", " + decimal.scale() + "))");
        }
        BigInteger unscaled = scaled.unscaledValue();
        if (unscaled.abs().toString().length() > decimal.precision()) {
            throw new Rejection(d.toPlainString() + " needs more than " + decimal.precision()
                    + " digits (DECIMAL(" + decimal.precision() + ", " + decimal.scale() + "))");
        }
        return unscaled;
    }

    /**
     * The high 64 bits of a 128-bit two's-complement value.
     *
     * @param unscaled a value that fits 128 bits
     * @return the high half, signed
     */
    public static long high64(BigInteger unscaled) {
        return unscaled.shiftRight(64).longValue();
    }

    /**
     * Rebuilds a 128-bit two's-complement value from its halves.
     *
     * @param hi the high half
     * @param lo the low half
     * @return the value
     */
    public static BigInteger fromHalves(long hi, long lo) {
        return BigInteger.valueOf(hi).shiftLeft(64).add(new BigInteger(Long.toUnsignedString(lo)));
    }
}
