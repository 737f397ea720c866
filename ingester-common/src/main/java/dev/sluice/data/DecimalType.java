package dev.sluice.data;

/**
 * Precision and scale of a {@link DataType#Decimal128} column.
 *
 * @param precision total number of decimal digits, 1..38
 * @param scale digits after the decimal point, 0..precision
 */
public record DecimalType(int precision, int scale) {
    /** The server's default when a decimal column declares nothing: DECIMAL(38, 10). */
    public static final DecimalType DEFAULT = new DecimalType(38, 10);

    /**
     * Checks the bounds GreptimeDB accepts.
     *
     * @throws IllegalArgumentException when precision is outside 1..38 or scale outside 0..precision
     */
    public DecimalType {
        if (precision < 1 || precision > 38) {
            throw new IllegalArgumentException("decimal precision must be within 1..38, got " + precision);
        }
        if (scale < 0 || scale > precision) {
            throw new IllegalArgumentException("decimal scale must be within 0.." + precision + ", got " + scale);
        }
    }
}
