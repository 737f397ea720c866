package dev.sluice.bulk.internal;

import dev.sluice.data.InvalidDataException;
import dev.sluice.data.RowAppender;
import dev.sluice.data.TableSchema;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWriteException;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.internal.bulk.spi.BatchGuard;
import dev.sluice.internal.model.ArrayColumn;
import dev.sluice.internal.model.ColumnSink;
import dev.sluice.internal.model.RowTarget;
import dev.sluice.internal.model.RowWriter;
import dev.sluice.internal.model.TypedRowAppender;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TypeLayout;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.compression.NoCompressionCodec;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Field;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@link TableBufferRoot} of an {@link ArrowTableCodec}: rows written straight into off-heap Arrow vectors
 * owned by the writer. Not thread-safe.
 */
final class ArrowTableBufferRoot implements TableBufferRoot {
    private final TableSchema schema;
    /** Writes {@link #addRow}'s rows, with each column's conversion worked out once. */
    private final RowWriter rowWriter;
    private final BufferAllocator allocator;
    /**
     * One vector per column, in column order. Kept as a plain list rather than Arrow's {@code VectorSchemaRoot}, which
     * builds a {@code Schema}: that class's first use initialises Jackson's object mapper, about 0.3 s of a fresh
     * JVM's first bulk writer, for JSON this writer never produces.
     */
    private List<FieldVector> vectors;
    private ArrowColumnSink[] sinks;
    private TypedRowAppender appender;
    private final long maxAllocation;
    private final int initialCapacity;
    private int rowCount;
    private boolean completed;
    private final BatchGuard guard;
    /** True after {@link #renew()} until the next row: the vectors hold no buffers yet. */
    private boolean unallocated;
    /** Per column, the value capacity {@link #ensureBuffers()} allocates after a renewal. */
    private final int[] nextCapacity;
    /** Per column, the text bytes per value {@link #ensureBuffers()} allocates for (variable-width only). */
    private final double[] nextDensity;
    /** Per column, the buffers its Arrow type lays out (its type never changes, so counted once). */
    private final int[] bufferCounts;
    /** The buffers of a batch, all columns together. */
    private final int totalBuffers;

    /**
     * Brackets every change of the vectors, so that a writer closed from another thread frees them only when no
     * producer is writing into them (the writer's {@link BatchGuard}, or none).
     */
    interface Guard extends BatchGuard {
        /** For a root no writer shares: nothing to guard. */
        Guard NONE = new Guard() {
            @Override
            public void enter() {
            }

            @Override
            public void exit(int rows) {
            }
        };

    }

    ArrowTableBufferRoot(TableSchema schema, BufferAllocator allocator, int capacity, long maxAllocation, BatchGuard guard) {
        this.guard = guard;
        this.schema = schema;
        this.rowWriter = RowWriter.of(schema);
        this.allocator = allocator;
        this.maxAllocation = maxAllocation;
        this.initialCapacity = capacity;
        this.nextCapacity = new int[schema.columnCount()];
        this.nextDensity = new double[schema.columnCount()];
        allocate();
        this.bufferCounts = new int[vectors.size()];
        int total = 0;
        for (int i = 0; i < bufferCounts.length; i++) {
            bufferCounts[i] = TypeLayout.getTypeBufferCount(vectors.get(i).getField().getType());
            total += bufferCounts[i];
        }
        this.totalBuffers = total;
    }

    /** Allocates the vectors rows are added to, each with room for the initial capacity. */
    private void allocate() {
        List<Field> fields = ArrowTypes.fields(schema);
        List<FieldVector> vs = new ArrayList<>(fields.size());
        ArrowColumnSink[] s = new ArrowColumnSink[schema.columnCount()];
        try {
            for (int i = 0; i < s.length; i++) {
                FieldVector v = fields.get(i).createVector(allocator);
                vs.add(v);
                v.setInitialCapacity(initialCapacity);
                v.allocateNew();
                s[i] = new ArrowColumnSink(v);
            }
        } catch (OutOfMemoryException e) {
            vs.forEach(FieldVector::close);
            throw limit(-1, e);
        }
        vectors = vs;
        sinks = s;
    }

    /** Sets every vector's value count (what {@code VectorSchemaRoot.setRowCount} does). */
    private void setValueCounts(int n) {
        for (FieldVector v : vectors) {
            v.setValueCount(n);
        }
    }

    /**
     * Hands the vectors' memory over to a batch unloaded from them (which holds its own references to the
     * buffers) and empties the vectors; they get fresh buffers for the next rows only when the first of those
     * rows comes (see {@link #ensureBuffers()}), each column as large as it grew (text columns as dense), so a
     * batch of the same size as the last one needs no growth. The batch can then be kept until it is answered,
     * and sent again, without a copy. Allocating later rather than here means a producer that waits for room in
     * the client's budget (or for an answer slot) after sending holds one batch, not that batch plus a second,
     * empty set of buffers that the allocator's reuse cache may have handed it from already-resident memory.
     * When the allocator's cap leaves no room for the fresh buffers, nothing changes: the caller copies the
     * batch, then empties these vectors with {@link #reset()}.
     *
     * @return true when the next rows go to fresh buffers; false when there was no room for them
     */
    boolean renew() {
        long need = 0;
        for (FieldVector v : vectors) {
            for (ArrowBuf b : v.getFieldBuffers()) {
                need += b.capacity();
            }
        }
        if (need > allocator.getHeadroom()) {
            return false;
        }
        if (appender != null) {
            appender.cancelRow();
        }
        for (int i = 0; i < vectors.size(); i++) {
            FieldVector v = vectors.get(i);
            nextCapacity[i] = Math.max(initialCapacity, v.getValueCapacity());
            if (v instanceof BaseVariableWidthVector) {
                BaseVariableWidthVector text = (BaseVariableWidthVector) v;
                nextDensity[i] = Math.max(1.0,
                        text.getDataBuffer().capacity() / (double) Math.max(1, text.getValueCapacity()));
            }
            v.clear();
        }
        unbindSinks();
        unallocated = true;
        setValueCounts(0);
        rowCount = 0;
        completed = false;
        return true;
    }

    /**
     * Gives the vectors the fresh buffers {@link #renew()} put off, before the first row after it.
     *
     * @throws BulkWriteException when the allocator's cap leaves no room for them (the vectors stay empty, and
     *     the next row tries again)
     */
    private void ensureBuffers() {
        if (!unallocated) {
            return;
        }
        try {
            for (int i = 0; i < vectors.size(); i++) {
                FieldVector v = vectors.get(i);
                if (v instanceof BaseVariableWidthVector) {
                    ((BaseVariableWidthVector) v).setInitialCapacity(nextCapacity[i], nextDensity[i]);
                } else {
                    v.setInitialCapacity(nextCapacity[i]);
                }
                v.allocateNew();
            }
        } catch (OutOfMemoryException e) {
            for (FieldVector v : vectors) {
                v.clear();
            }
            throw limit(rowCount, e);
        } finally {
            unbindSinks();
        }
        unallocated = false;
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
     * @throws IllegalStateException while a row begun with {@link #appender()} is open (end or cancel it first)
     */
    @Override
    public TableBufferRoot addRow(Object... values) {
        guard.enter();
        try {
            return addRowGuarded(values);
        } finally {
            guard.exit(rowCount);
        }
    }

    private TableBufferRoot addRowGuarded(Object[] values) {
        if (completed) {
            throw new InvalidDataException(schema.tableName(), null, rowCount,
                    "the batch is completed; call writeNext() to send it before adding rows");
        }
        if (appender != null) {
            appender.checkNoOpenRow("addRow");
        }
        ensureBuffers();
        try {
            rowWriter.write(sinks, rowCount, values);
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
    @Override
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
                        guard.exit(rowCount);
                        throw new InvalidDataException(schema.tableName(), null, rowCount,
                                "the batch is completed; call writeNext() to send it before adding rows");
                    }
                    try {
                        ensureBuffers();
                    } catch (RuntimeException e) {
                        guard.exit(rowCount);
                        throw e;
                    }
                    return rowCount;
                }

                @Override
                public void commitRow() {
                    rowCount++;
                }

                @Override
                public void rowClosed() {
                    guard.exit(rowCount);
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
     * @throws IllegalStateException while a row begun with {@link #appender()} is open (end or cancel it first)
     */
    @Override
    public TableBufferRoot addTable(dev.sluice.data.Table table) {
        guard.enter();
        try {
            return addTableGuarded(table);
        } finally {
            guard.exit(rowCount);
        }
    }

    private TableBufferRoot addTableGuarded(dev.sluice.data.Table table) {
        if (!table.schema().equals(schema)) {
            throw new IllegalArgumentException("table '" + table.tableName() + "' has a different schema than this"
                    + " batch of '" + schema.tableName() + "': " + difference(table.schema(), schema)
                    + "; add tables of the batch's schema only");
        }
        if (completed) {
            throw new InvalidDataException(schema.tableName(), null, rowCount,
                    "the batch is completed; call writeNext() to send it before adding rows");
        }
        if (appender != null) {
            appender.checkNoOpenRow("addTable");
        }
        int n = table.rowCount();
        if (n == 0) {
            return this;
        }
        ensureBuffers();
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

    /** The first way {@code other} differs from {@code ours}, naming the column. */
    private static String difference(TableSchema other, TableSchema ours) {
        if (!other.tableName().equals(ours.tableName())) {
            return "its table name differs";
        }
        int n = Math.min(other.columnCount(), ours.columnCount());
        for (int i = 0; i < n; i++) {
            TableSchema.Column theirs = other.column(i);
            TableSchema.Column mine = ours.column(i);
            if (!theirs.equals(mine)) {
                return theirs.name().equals(mine.name())
                        ? "column '" + mine.name() + "' is " + describe(theirs) + " there and " + describe(mine) + " here"
                        : "column " + i + " is '" + theirs.name() + "' there and '" + mine.name() + "' here";
            }
        }
        return other.columnCount() > n ? "it has column '" + other.column(n).name() + "' beyond the batch's "
                + ours.columnCount() : "it lacks column '" + ours.column(n).name() + "'";
    }

    private static String describe(TableSchema.Column c) {
        return c.semanticType() + " " + c.dataType() + (c.decimalType() != null ? " " + c.decimalType() : "")
                + (c.vectorType() != null ? " " + c.vectorType() : "");
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
                if (from instanceof ArrayColumn a) {
                    a.copyText(r, to, row);
                } else {
                    byte[] utf8 = from.getBytes(r);
                    to.setUtf8(row, utf8, 0, utf8.length);
                }
            } else if (t == dev.sluice.data.DataType.Bool) {
                to.setBool(row, from.getBool(r));
            } else if (t == dev.sluice.data.DataType.Binary) {
                to.setBytes(row, from.getBytes(r));
            } else {
                to.setDecimal(row, ((ArrayColumn) from).getDecimalHigh(r), ((ArrayColumn) from).getDecimalLow(r));
            }
        }
    }

    /**
     * Marks the batch as ready to send.
     *
     * @return this
     */
    @Override
    public TableBufferRoot complete() {
        if (!unallocated) {
            for (ArrowColumnSink s : sinks) {
                s.finish(rowCount);
            }
        }
        setValueCounts(rowCount);
        completed = true;
        return this;
    }

    /**
     * Returns the rows added since the last send.
     *
     * @return the row count
     */
    @Override
    public int rowCount() {
        return rowCount;
    }

    /**
     * Returns the schema.
     *
     * @return the table schema
     */
    @Override
    public TableSchema schema() {
        return schema;
    }

    /**
     * The vector of a column.
     *
     * @param column the column's index
     * @return its vector
     */
    FieldVector vector(int column) {
        return vectors.get(column);
    }

    /**
     * The vectors, one per column in column order, as they are (the batch not completed): for sizing its rows
     * before it is unloaded.
     *
     * @return the vectors (not a copy: the caller leaves them as they are)
     */
    List<FieldVector> vectors() {
        return vectors;
    }

    /**
     * Completes the batch if needed and returns its vectors, one per column in column order, each holding the
     * batch's rows, for a caller that reads them where they are (then {@link #reset()}s them).
     *
     * @return the vectors (not a copy: the caller leaves them as they are)
     */
    List<FieldVector> completedVectors() {
        if (!completed) {
            complete();
        }
        return vectors;
    }

    /**
     * Completes the batch if needed and takes it out as an IPC record batch holding its own references to the
     * vectors' buffers (compressed by {@code codec}, when it compresses): the nodes and buffers of each vector and
     * its children in order, null counts included, buffers aligned, as Arrow's {@code VectorUnloader} lays them
     * out.
     *
     * <p>Compressed buffers are taken from the writer's capped allocator. When the cap leaves no room for them,
     * the batch is taken out uncompressed instead (a record batch says for itself whether its body is compressed),
     * so that rows the batch accepted under the cap are still sent.
     *
     * @param codec the buffers' compression, or null for none
     * @return the record batch; close it to drop its references
     */
    ArrowRecordBatch unload(CompressionCodec codec) {
        if (!completed) {
            complete();
        }
        CompressionCodec c = codec == null ? NoCompressionCodec.INSTANCE : codec;
        try {
            return unloadWith(c);
        } catch (OutOfMemoryException e) {
            if (c == NoCompressionCodec.INSTANCE) {
                throw e;
            }
            return unloadWith(NoCompressionCodec.INSTANCE);
        }
    }

    /** Takes the batch out with {@code c}; on failure every reference taken so far is dropped again. */
    private ArrowRecordBatch unloadWith(CompressionCodec c) {
        List<ArrowFieldNode> nodes = new ArrayList<>(vectors.size());
        List<ArrowBuf> buffers = new ArrayList<>(totalBuffers);
        try {
            for (int i = 0; i < vectors.size(); i++) {
                unload(vectors.get(i), bufferCounts[i], c, nodes, buffers);
            }
        } catch (RuntimeException e) {
            buffers.forEach(ArrowBuf::close);
            throw e;
        }
        return new ArrowRecordBatch(rowCount, nodes, buffers, CompressionUtil.createBodyCompression(c), List.of(), true,
                false);
    }

    private static void unload(FieldVector v, int expected, CompressionCodec codec, List<ArrowFieldNode> nodes,
                               List<ArrowBuf> buffers) {
        nodes.add(new ArrowFieldNode(v.getValueCount(), v.getNullCount()));
        List<ArrowBuf> own = v.getFieldBuffers();
        if (own.size() != expected) {
            throw new IllegalStateException("column '" + v.getName() + "' has " + own.size() + " buffers, where its"
                    + " Arrow type has " + expected);
        }
        for (ArrowBuf b : own) {
            b.getReferenceManager().retain();
            ArrowBuf out;
            try {
                out = codec.compress(v.getAllocator(), b); // releases b's reference once it has compressed it
            } catch (RuntimeException e) {
                b.getReferenceManager().release(); // not compressed: the reference taken above is still held
                throw e;
            }
            buffers.add(out);
        }
        for (FieldVector child : v.getChildrenFromFields()) {
            unload(child, TypeLayout.getTypeBufferCount(child.getField().getType()), codec, nodes, buffers);
        }
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
        if (unallocated) {
            // Emptied by renew(): no buffers to clear; the next row allocates them.
            setValueCounts(0);
            rowCount = 0;
            completed = false;
            return;
        }
        for (FieldVector v : vectors) {
            ArrowBuf validity = v.getValidityBuffer();
            validity.setZero(0, validity.capacity());
            if (v instanceof BaseVariableWidthVector) {
                ArrowBuf offsets = v.getOffsetBuffer();
                offsets.setZero(0, offsets.capacity());
                ((BaseVariableWidthVector) v).setLastSet(-1);
            }
            v.setValueCount(0);
        }
        unbindSinks(); // the validity bits are zero again: each column starts with no null
        rowCount = 0;
        completed = false;
    }

    void close() {
        unbindSinks();
        vectors.forEach(FieldVector::close);
    }

    /** The vectors' buffers were replaced or freed: the sinks read their addresses afresh before the next write. */
    private void unbindSinks() {
        for (ArrowColumnSink s : sinks) {
            s.unbind();
        }
    }

    int initialCapacity() {
        return initialCapacity;
    }
}
