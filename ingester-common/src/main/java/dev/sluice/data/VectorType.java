package dev.sluice.data;

/**
 * The dimension of a {@link DataType#Vector} column: every value holds exactly {@code dim} float32 numbers.
 *
 * <p>GreptimeDB declares it as {@code VECTOR(dim)} ({@code ColumnDataTypeExtension.vector_type} on the wire). The
 * server reads a vector column that declares no dimension as {@code VECTOR(0)} (empty values only), so 0 is
 * accepted here too.
 *
 * @param dim the number of float32 elements of each value, 0 or more
 */
public record VectorType(int dim) {
    /**
     * Checks the dimension.
     *
     * @throws IllegalArgumentException when {@code dim} is negative
     */
    public VectorType {
        if (dim < 0) {
            throw new IllegalArgumentException("a vector dimension cannot be negative, got " + dim);
        }
    }
}
