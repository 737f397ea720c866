package dev.sluice.bulk;

import dev.sluice.InvalidDataException;
import dev.sluice.TableSchema;
import dev.sluice.bulk.internal.ArrowColumnSink;
import dev.sluice.bulk.internal.ArrowTypes;
import dev.sluice.internal.model.ColumnSink;
import dev.sluice.internal.model.RowWriter;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * One batch of rows built directly in off-heap Arrow vectors owned by a {@link BulkStreamWriter}.
 *
 * <p>{@link #addRow(Object...)} takes the same values and applies the same checks as
 * {@link dev.sluice.Table#addRow(Object...)}; a rejected row is not added. After
 * {@link BulkStreamWriter#writeNext()} the batch is empty again and can be refilled: the same vectors are reused.
 * Not thread-safe.
 */
public final class TableBufferRoot {
    private final TableSchema schema;
    private final VectorSchemaRoot root;
    private final ColumnSink[] sinks;
    private final long maxAllocation;
    private final int initialCapacity;
    private int rowCount;
    private boolean completed;

    TableBufferRoot(TableSchema schema, BufferAllocator allocator, int capacity, long maxAllocation) {
        this.schema = schema;
        this.maxAllocation = maxAllocation;
        this.initialCapacity = capacity;
        this.root = VectorSchemaRoot.create(ArrowTypes.schema(schema), allocator);
        this.sinks = new ColumnSink[schema.columnCount()];
        try {
            for (int i = 0; i < sinks.length; i++) {
                FieldVector v = root.getVector(i);
                v.setInitialCapacity(capacity);
                v.allocateNew();
                sinks[i] = new ArrowColumnSink(v);
            }
        } catch (OutOfMemoryException e) {
            root.close();
            throw limit(-1, e);
        }
    }

    private BulkWriteException limit(int row, OutOfMemoryException e) {
        return new BulkWriteException("bulk batch for table '" + schema.tableName() + "' needs more off-heap memory than"
                + " allocatorMaxAllocation (" + maxAllocation + " bytes)" + (row >= 0 ? " at row " + row : "")
                + "; send smaller batches or raise the limit", null, e);
    }

    /**
     * Adds a row.
     *
     * @param values one value per column, in schema order
     * @return this
     * @throws InvalidDataException when the row does not fit the schema (the batch keeps its earlier rows)
     * @throws BulkWriteException when the batch would exceed {@code allocatorMaxAllocation} (the row is not added)
     */
    public TableBufferRoot addRow(Object... values) {
        if (completed) {
            throw new InvalidDataException(schema.tableName(), null, rowCount,
                    "the batch is completed; call writeNext() to send it before adding rows");
        }
        try {
            RowWriter.write(schema, sinks, rowCount, values);
        } catch (OutOfMemoryException e) {
            throw limit(rowCount, e);
        }
        rowCount++;
        return this;
    }

    /**
     * Appends every row of a table with the same schema, column by column (no per-row conversion: the table's
     * rows were checked when they were added).
     *
     * @param table a table of this batch's schema
     * @return this
     * @throws IllegalArgumentException when the table's schema differs
     * @throws BulkWriteException when the batch would exceed {@code allocatorMaxAllocation} (no row is added)
     */
    public TableBufferRoot addTable(dev.sluice.Table table) {
        if (!table.schema().equals(schema)) {
            throw new IllegalArgumentException("table '" + table.tableName() + "' has a different schema than this batch");
        }
        if (completed) {
            throw new InvalidDataException(schema.tableName(), null, rowCount,
                    "the batch is completed; call writeNext() to send it before adding rows");
        }
        int n = table.rowCount();
        try {
            for (int c = 0; c < sinks.length; c++) {
                copyColumn(table.column(c), sinks[c], rowCount, n);
            }
        } catch (OutOfMemoryException e) {
            throw limit(rowCount, e);
        }
        rowCount += n;
        return this;
    }

    private static void copyColumn(dev.sluice.ColumnVector from, ColumnSink to, int at, int n) {
        dev.sluice.DataType t = from.dataType();
        for (int r = 0; r < n; r++) {
            int row = at + r;
            if (from.isNull(r)) {
                to.setNull(row);
            } else if (t.isLongBacked()) {
                to.setLong(row, from.getLong(r));
            } else if (t.isDoubleBacked()) {
                to.setDouble(row, from.getDouble(r));
            } else if (t.isStringBacked()) {
                to.setUtf8(row, from.getBytes(r));
            } else if (t == dev.sluice.DataType.Bool) {
                to.setBool(row, from.getBool(r));
            } else if (t == dev.sluice.DataType.Binary) {
                to.setBytes(row, from.getBytes(r));
            } else {
                to.setDecimal(row, from.getDecimalHigh(r), from.getDecimalLow(r));
            }
        }
    }

    /**
     * Marks the batch as ready to send.
     *
     * @return this
     */
    public TableBufferRoot complete() {
        root.setRowCount(rowCount);
        completed = true;
        return this;
    }

    /**
     * Returns the rows added since the last send.
     *
     * @return the row count
     */
    public int rowCount() {
        return rowCount;
    }

    /**
     * Returns the schema.
     *
     * @return the table schema
     */
    public TableSchema schema() {
        return schema;
    }

    VectorSchemaRoot arrowRoot() {
        if (!completed) {
            complete();
        }
        return root;
    }

    /** Empties the batch for refilling, keeping the vectors' memory. */
    void reset() {
        for (FieldVector v : root.getFieldVectors()) {
            v.reset();
        }
        root.setRowCount(0);
        rowCount = 0;
        completed = false;
    }

    void close() {
        root.close();
    }

    int initialCapacity() {
        return initialCapacity;
    }
}
