package dev.sluice.bulk;

import dev.sluice.data.InvalidDataException;
import dev.sluice.data.RowAppender;
import dev.sluice.data.TableSchema;
import dev.sluice.bulk.internal.ArrowColumnSink;
import dev.sluice.bulk.internal.ArrowTypes;
import dev.sluice.internal.model.ColumnSink;
import dev.sluice.internal.model.RowTarget;
import dev.sluice.internal.model.RowWriter;
import dev.sluice.internal.model.TypedRowAppender;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import java.util.concurrent.TimeUnit;

/**
 * One batch of rows built directly in off-heap Arrow vectors owned by a {@link BulkStreamWriter}.
 *
 * <p>{@link #addRow(Object...)} takes the same values and applies the same checks as
 * {@link dev.sluice.data.Table#addRow(Object...)}; a rejected row is not added. After
 * {@link BulkStreamWriter#writeNext()} the batch is empty again and can be refilled: the same vectors are reused.
 * Not thread-safe.
 */
public final class TableBufferRoot {
    private final TableSchema schema;
    private final BufferAllocator allocator;
    /** Two sets of vectors: one filled by the caller while the other's batch is still being sent. */
    private final VectorSchemaRoot[] roots = new VectorSchemaRoot[2];
    private final ColumnSink[][] sinkSets = new ColumnSink[2][];
    private final boolean[] sending = new boolean[2];
    private int current;
    private VectorSchemaRoot root;
    private ColumnSink[] sinks;
    private RowAppender appender;
    private final long maxAllocation;
    private final int initialCapacity;
    private int rowCount;
    private boolean completed;
    private boolean singleSet;
    private final Guard guard;

    /**
     * Brackets every change of the vectors, so that a writer closed from another thread frees them only when no
     * producer is writing into them.
     */
    interface Guard {
        /** Before a change; refuses when the writer is closed. */
        void enter();

        /** After a change (frees the memory if the writer was closed meanwhile). */
        void exit();
    }

    TableBufferRoot(TableSchema schema, BufferAllocator allocator, int capacity, long maxAllocation, Guard guard) {
        this.guard = guard;
        this.schema = schema;
        this.allocator = allocator;
        this.maxAllocation = maxAllocation;
        this.initialCapacity = capacity;
        allocateSlot(0, null);
        this.root = roots[0];
        this.sinks = sinkSets[0];
    }

    /** Allocates a set of vectors; text columns start as large as {@code like}'s grew, when given. */
    private void allocateSlot(int slot, VectorSchemaRoot like) {
        VectorSchemaRoot r = VectorSchemaRoot.create(ArrowTypes.schema(schema), allocator);
        ColumnSink[] s = new ColumnSink[schema.columnCount()];
        try {
            for (int i = 0; i < s.length; i++) {
                FieldVector v = r.getVector(i);
                if (like != null && v instanceof BaseVariableWidthVector) {
                    FieldVector grown = like.getVector(i);
                    double density = grown.getDataBuffer().capacity() / (double) Math.max(1, grown.getValueCapacity());
                    ((BaseVariableWidthVector) v).setInitialCapacity(initialCapacity, Math.max(1.0, density));
                } else {
                    v.setInitialCapacity(initialCapacity);
                }
                v.allocateNew();
                s[i] = new ArrowColumnSink(v);
            }
        } catch (OutOfMemoryException e) {
            r.close();
            throw limit(-1, e);
        }
        roots[slot] = r;
        sinkSets[slot] = s;
    }

    /**
     * Makes sure a second set of vectors exists so the next batch can be filled while this one is sent from Arrow
     * memory. When the allocator's cap leaves no room for it, says so (once and for all): the writer then copies
     * each batch to the heap and refills the same vectors at once.
     *
     * @return true when batches can be sent straight from the vectors
     */
    boolean doubleBuffered() {
        if (roots[1 - current] != null) {
            return true;
        }
        if (!singleSet) {
            try {
                allocateSlot(1 - current, root);
                return true;
            } catch (BulkWriteException e) {
                singleSet = true;
            }
        }
        return false;
    }

    /**
     * Marks the current vectors as being sent; returns what frees them.
     *
     * @return run once the batch's bytes are handed over (or dropped)
     */
    Runnable markSending() {
        int slot = current;
        synchronized (sending) {
            sending[slot] = true;
        }
        return () -> {
            synchronized (sending) {
                sending[slot] = false;
                sending.notifyAll();
            }
        };
    }

    /**
     * Switches to the other set of vectors (allocating it the first time), waiting until its last batch is sent.
     *
     * @param timeoutMs the longest wait
     * @return false when the other set did not come free in time
     */
    boolean swap(long timeoutMs) {
        int next = 1 - current;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        synchronized (sending) {
            while (sending[next]) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(sending, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
        }
        if (roots[next] == null) {
            allocateSlot(next, root);
        }
        current = next;
        root = roots[next];
        sinks = sinkSets[next];
        reset();
        return true;
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
        guard.enter();
        try {
            return addRowGuarded(values);
        } finally {
            guard.exit();
        }
    }

    private TableBufferRoot addRowGuarded(Object[] values) {
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
     * Returns this batch's typed row appender: rows added value by value straight into the Arrow vectors, with
     * no {@code Object[]} or boxing, checked as {@link #addRow(Object...)} checks them. A row still being built
     * when the batch is sent is dropped.
     *
     * @return the appender, the same one every time
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
                    return sinks;
                }

                @Override
                public int openRow() {
                    guard.enter();
                    if (completed) {
                        guard.exit();
                        throw new InvalidDataException(schema.tableName(), null, rowCount,
                                "the batch is completed; call writeNext() to send it before adding rows");
                    }
                    return rowCount;
                }

                @Override
                public void commitRow() {
                    rowCount++;
                }

                @Override
                public void rowClosed() {
                    guard.exit();
                }

                @Override
                public RuntimeException storageFailure(RuntimeException e, int row) {
                    return e instanceof OutOfMemoryException ? limit(row, (OutOfMemoryException) e) : e;
                }
            });
        }
        return appender;
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
    public TableBufferRoot addTable(dev.sluice.data.Table table) {
        guard.enter();
        try {
            return addTableGuarded(table);
        } finally {
            guard.exit();
        }
    }

    private TableBufferRoot addTableGuarded(dev.sluice.data.Table table) {
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

    private static void copyColumn(dev.sluice.data.ColumnVector from, ColumnSink to, int at, int n) {
        dev.sluice.data.DataType t = from.dataType();
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
            } else if (t == dev.sluice.data.DataType.Bool) {
                to.setBool(row, from.getBool(r));
            } else if (t == dev.sluice.data.DataType.Binary) {
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

    /**
     * Empties the batch for refilling, keeping the vectors' memory. Only validity bits and offsets are cleared:
     * value bytes are overwritten as rows come, and Arrow ignores them under a null (clearing a 150 MB text
     * buffer per batch, as {@code FieldVector.reset()} does, would cost as much as copying the text into it).
     */
    void reset() {
        if (appender != null) {
            appender.cancelRow();
        }
        for (FieldVector v : root.getFieldVectors()) {
            ArrowBuf validity = v.getValidityBuffer();
            validity.setZero(0, validity.capacity());
            if (v instanceof BaseVariableWidthVector) {
                ArrowBuf offsets = v.getOffsetBuffer();
                offsets.setZero(0, offsets.capacity());
                ((BaseVariableWidthVector) v).setLastSet(-1);
            }
            v.setValueCount(0);
        }
        root.setRowCount(0);
        rowCount = 0;
        completed = false;
    }

    void close() {
        for (VectorSchemaRoot r : roots) {
            if (r != null) {
                r.close();
            }
        }
    }

    int initialCapacity() {
        return initialCapacity;
    }
}
