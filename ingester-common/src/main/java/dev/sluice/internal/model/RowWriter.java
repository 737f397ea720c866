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
    private RowWriter() {
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
            TableSchema.Column col = schema.column(c);
            Object v = values[c];
            ColumnSink sink = sinks[c];
            if (v == null) {
                if (col.semanticType() == SemanticType.Timestamp) {
                    throw new InvalidDataException(schema.tableName(), col.name(), row,
                            "the time index cannot be null");
                }
                sink.setNull(row);
                continue;
            }
            try {
                writeValue(col, sink, row, v);
            } catch (Coercion.Rejection e) {
                throw new InvalidDataException(schema.tableName(), col.name(), row, e.getMessage());
            }
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
