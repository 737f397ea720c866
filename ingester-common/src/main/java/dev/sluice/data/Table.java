package dev.sluice.data;

import dev.sluice.internal.model.ArrayColumn;
import dev.sluice.internal.model.ColumnSink;
import dev.sluice.internal.model.RowTarget;
import dev.sluice.internal.model.RowWriter;
import dev.sluice.internal.model.TypedRowAppender;

/**
 * Rows for one table, checked as they are added and stored column by column in primitive arrays.
 *
 * <p>{@link #addRow(Object...)} takes one value per schema column, in schema order; values are converted
 * as {@link DataType} documents and no object per row is kept. A row that fails a check throws
 * {@link InvalidDataException} (naming table, column and row) and is not added; earlier rows are untouched.
 * Call {@link #complete()} when done; a completed table is read-only and can be written any number of times.
 *
 * <p>Not thread-safe while rows are being added; safe to share once completed.
 */
public final class Table {
    private final TableSchema schema;
    private final ArrayColumn[] columns;
    private int rowCount;
    private volatile boolean completed;
    private TypedRowAppender appender;

    private Table(TableSchema schema, int capacity) {
        this.schema = schema;
        this.columns = new ArrayColumn[schema.columnCount()];
        for (int i = 0; i < columns.length; i++) {
            TableSchema.Column c = schema.column(i);
            columns[i] = new ArrayColumn(c.dataType(), capacity, c.decimalType() != null ? c.decimalType().scale() : DecimalType.DEFAULT.scale());
        }
    }

    /**
     * Creates an empty table for a schema.
     *
     * @param schema the schema
     * @return the table
     */
    public static Table from(TableSchema schema) {
        return from(schema, 16);
    }

    /**
     * Creates an empty table with room for the expected number of rows.
     *
     * @param schema the schema
     * @param expectedRows rows to allocate for up front (the table still grows past it)
     * @return the table
     */
    public static Table from(TableSchema schema, int expectedRows) {
        if (schema == null) {
            throw new NullPointerException("schema");
        }
        return new Table(schema, expectedRows);
    }

    /**
     * Adds one row.
     *
     * @param values one value per column, in schema order; null for a missing value
     * @return this table
     * @throws InvalidDataException when the row has the wrong number of values, a value the column does not
     *     take, a null time index, or the table is already completed
     * @throws IllegalStateException while a row begun with {@link #appender()} is open (end or cancel it first)
     */
    public Table addRow(Object... values) {
        if (completed) {
            throw new InvalidDataException(schema.tableName(), null, rowCount,
                    "the table is completed; create a new Table for more rows");
        }
        if (appender != null) {
            appender.checkNoOpenRow("addRow");
        }
        int row = rowCount;
        for (ArrayColumn c : columns) {
            c.ensureCapacity(row);
        }
        RowWriter.write(schema, columns, row, values);
        rowCount = row + 1;
        return this;
    }

    /**
     * Empties the table so that it can be filled again, keeping its buffers (no garbage per batch). Call it only
     * once every write that took this table has completed: the regular path reads the table's columns until its
     * request is encoded, and a retry encodes it again.
     *
     * @return this, with no rows and not completed
     */
    public Table reset() {
        if (appender != null) {
            appender.cancelRow();
        }
        for (ArrayColumn c : columns) {
            c.refill();
        }
        rowCount = 0;
        completed = false;
        return this;
    }

    /**
     * Returns this table's typed row appender: rows added value by value, without an {@code Object[]} per row
     * or boxing, checked as {@link #addRow(Object...)} checks them. The same appender is returned every time;
     * it may be mixed with {@code addRow} between rows.
     *
     * @return the appender
     */
    public RowAppender appender() {
        if (appender == null) {
            appender = new TypedRowAppender(new RowTarget() {
                @Override
                public TableSchema schema() {
                    return schema;
                }

                @Override
                public ColumnSink[] sinks() {
                    return columns;
                }

                @Override
                public int openRow() {
                    if (completed) {
                        throw new InvalidDataException(schema.tableName(), null, rowCount,
                                "the table is completed; create a new Table for more rows");
                    }
                    for (ArrayColumn c : columns) {
                        c.ensureCapacity(rowCount);
                    }
                    return rowCount;
                }

                @Override
                public void commitRow() {
                    rowCount++;
                }
            });
        }
        return appender;
    }

    /**
     * Marks the table as finished; later {@link #addRow} calls fail. A row still open in the {@link #appender()}
     * is dropped (it was never ended, so it is not part of the table). Calling it again does nothing.
     *
     * @return this table
     */
    public Table complete() {
        if (appender != null) {
            appender.cancelRow();
        }
        completed = true;
        return this;
    }

    /**
     * Tells whether {@link #complete()} was called.
     *
     * @return true when completed
     */
    public boolean isCompleted() {
        return completed;
    }

    /**
     * Returns the schema.
     *
     * @return the schema this table was made from
     */
    public TableSchema schema() {
        return schema;
    }

    /**
     * Returns the table name.
     *
     * @return the schema's table name
     */
    public String tableName() {
        return schema.tableName();
    }

    /**
     * Returns the number of rows added.
     *
     * @return the row count
     */
    public int rowCount() {
        return rowCount;
    }

    /**
     * Returns read access to one column.
     *
     * @param index zero-based column position, as in the schema
     * @return the column's values
     */
    public ColumnVector column(int index) {
        return columns[index];
    }

    @Override
    public String toString() {
        return "Table{" + schema.tableName() + ", rows=" + rowCount + ", completed=" + completed + '}';
    }
}
