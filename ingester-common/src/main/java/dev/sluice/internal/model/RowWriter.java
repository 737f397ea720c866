package dev.sluice.internal.model;

import dev.sluice.data.DataType;
import dev.sluice.data.InvalidDataException;
import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import java.math.BigInteger;

/**
 * Checks one row against a schema and writes its converted values into column sinks.
 *
 * <p>Every write path goes through here, so the same value is accepted, converted and reported the same way
 * everywhere. On failure some sinks may already hold this row's values; the caller simply does not count the
 * row, and the next row overwrites them.
 */
public final class RowWriter {
    /** A column whose values all take {@link #writeValue}. */
    private static final byte OTHER = 0;
    /** Float64: a {@code Double} is stored as it is. */
    private static final byte FLOAT64 = 1;
    /** String: a {@code String} is stored as it is. */
    private static final byte STRING = 2;
    /** Int64 or a timestamp: a {@code Long} is stored as it is. */
    private static final byte LONG64 = 3;

    private final TableSchema schema;
    /** Per column, the one Java class whose values it stores unconverted ({@link #OTHER} when none). */
    private final byte[] kinds;

    private RowWriter(TableSchema schema) {
        this.schema = schema;
        this.kinds = new byte[schema.columnCount()];
        for (int c = 0; c < kinds.length; c++) {
            DataType type = schema.column(c).dataType();
            kinds[c] = type == DataType.Float64 ? FLOAT64 : type == DataType.String ? STRING
                    : type == DataType.Int64 || type.isTimestamp() ? LONG64 : OTHER;
        }
    }

    /**
     * A writer of one schema's rows: each column's common Java class is worked out once, so that a value of that
     * very class ({@code Double} for Float64, {@code String} for String, {@code Long} for Int64 and timestamps) is
     * stored without the conversion table's checks. Every other value takes {@link #write(TableSchema,
     * ColumnSink[], int, Object[])}'s path; a row is accepted, converted and refused exactly as there.
     *
     * @param schema the table's schema
     * @return the schema's writer
     */
    public static RowWriter of(TableSchema schema) {
        return new RowWriter(schema);
    }

    /**
     * Returns the schema this writer writes.
     *
     * @return the schema
     */
    public TableSchema schema() {
        return schema;
    }

    /**
     * Writes one row, as {@link #write(TableSchema, ColumnSink[], int, Object[])} does.
     *
     * @param sinks one sink per column, in schema order
     * @param row the row index to write at (also the index reported in errors)
     * @param values one value per column, in schema order
     * @throws InvalidDataException naming table, column and row
     */
    public void write(ColumnSink[] sinks, int row, Object[] values) {
        byte[] k = kinds;
        if (values == null || values.length != k.length) {
            write(schema, sinks, row, values); // refused there, with the reason
            return;
        }
        for (int c = 0; c < k.length; c++) {
            Object v = values[c];
            ColumnSink sink = sinks[c];
            // Double, String and Long are final classes, so each check is one class comparison; a null or a value
            // of any other class takes the full path.
            switch (k[c]) {
                case FLOAT64:
                    if (v instanceof Double) {
                        sink.setDouble(row, (Double) v);
                        continue;
                    }
                    break;
                case STRING:
                    if (v instanceof String) {
                        sink.setText(row, (String) v);
                        continue;
                    }
                    break;
                case LONG64:
                    if (v instanceof Long) {
                        sink.setLong(row, (Long) v);
                        continue;
                    }
                    break;
                default:
                    break;
            }
            writeColumn(schema, c, sink, row, v);
        }
    }

    /**
     * Writes one row.
     *
     * @param schema the table's schema
     * @param sinks one sink per column, in schema order
     * @param row the row index to write at (also the index reported in errors)
     * @param values one value per column, in schema order
     * @throws InvalidDataException naming table, column and row
     */
    public static void write(TableSchema schema, ColumnSink[] sinks, int row, Object[] values) {
        int n = schema.columnCount();
        if (values == null) {
            throw new InvalidDataException(schema.tableName(), null, row, "the row is null");
        }
        if (values.length != n) {
            throw new InvalidDataException(schema.tableName(), null, row,
                    "the row has " + values.length + " values but the schema has " + n + " columns");
        }
        for (int c = 0; c < n; c++) {
            writeColumn(schema, c, sinks[c], row, values[c]);
        }
    }

    /** Checks, converts and stores one value of a row (null included), as {@link #write} does for each. */
    private static void writeColumn(TableSchema schema, int c, ColumnSink sink, int row, Object v) {
        TableSchema.Column col = schema.column(c);
        if (v == null) {
            if (col.semanticType() == SemanticType.Timestamp) {
                throw new InvalidDataException(schema.tableName(), col.name(), row,
                        "the time index cannot be null");
            }
            sink.setNull(row);
            return;
        }
        try {
            writeValue(col, sink, row, v);
        } catch (Coercion.Rejection e) {
            throw new InvalidDataException(schema.tableName(), col.name(), row, e.getMessage());
        }
    }

    /**
     * Converts and stores one non-null value, as {@link #write} does for each value of a row. The three common kinds
     * (floating-point, text, integral and time values) are told apart by storage first, so that this method stays
     * small enough to be compiled into the row loop; the other types are handled apart.
     *
     * @param col the column
     * @param sink the column's storage
     * @param row the row index
     * @param v the value
     * @throws Coercion.Rejection when the value does not fit the column
     */
    static void writeValue(TableSchema.Column col, ColumnSink sink, int row, Object v) {
        DataType type = col.dataType();
        if (type.isDoubleBacked()) {
            sink.setDouble(row, Coercion.toDouble(type, v));
        } else if (type.isStringBacked()) {
            sink.setText(row, Coercion.toText(type, v));
        } else if (type.isLongBacked()) {
            sink.setLong(row, Coercion.toLong(type, v));
        } else {
            writeOther(col, sink, row, v);
        }
    }

    /** Bool, Binary, Vector and Decimal128 values. */
    private static void writeOther(TableSchema.Column col, ColumnSink sink, int row, Object v) {
        DataType type = col.dataType();
        switch (type) {
            case Bool:
                sink.setBool(row, Coercion.toBool(type, v));
                break;
            case Binary:
                sink.setBytes(row, Coercion.toBytes(type, v));
                break;
            case Vector:
                sink.setBytes(row, Coercion.toVectorBytes(col.vectorType(), v));
                break;
            case Decimal128:
                BigInteger unscaled = Coercion.toUnscaledDecimal(col.decimalType(), v);
                sink.setDecimal(row, Coercion.high64(unscaled), unscaled.longValue());
                break;
            default:
                throw new IllegalStateException(type + " has no storage");
        }
    }
}
