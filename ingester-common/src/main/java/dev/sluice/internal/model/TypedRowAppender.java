package dev.sluice.internal.model;

import dev.sluice.data.DataType;
import dev.sluice.data.InvalidDataException;
import dev.sluice.data.RowAppender;
import dev.sluice.data.TableSchema;
import java.math.BigDecimal;
import java.time.Instant;

/**
 * {@link RowAppender} over a {@link RowTarget}: values go straight into the target's column storage, checked
 * with the same {@link Coercion} rules as {@code addRow}; per column, the number of the last row that set it
 * records what the open row has set (a plain store per value, where a bit per column in a shared word made each
 * value read and write that word after the value before it).
 */
public final class TypedRowAppender implements RowAppender {
    private final RowTarget target;
    private final TableSchema schema;
    /** The target's storage, read again at each row (an off-heap batch switches vector sets between sends). */
    private ColumnSink[] sinks;
    private final DataType[] types;
    private final int timeIndex;
    /** Per column, the number of the last row that set it. */
    private final long[] setIn;
    /** The number of the open row, or of the last one; rows are numbered from 1 as they open. */
    private long rowNumber;
    /** The row being built, or -1 before its first value. */
    private int row = -1;

    /**
     * Creates the appender.
     *
     * @param target where rows go
     */
    public TypedRowAppender(RowTarget target) {
        this.target = target;
        this.schema = target.schema();
        this.sinks = target.sinks();
        this.types = new DataType[schema.columnCount()];
        for (int i = 0; i < types.length; i++) {
            types[i] = schema.column(i).dataType();
        }
        this.timeIndex = schema.timestampIndex();
        this.setIn = new long[types.length];
    }

    /** The row being built, opening it on the first value; checks the column index. */
    private int begin(int column) {
        if (column < 0 || column >= types.length) {
            cancelRow();
            throw new IndexOutOfBoundsException("table '" + schema.tableName() + "' has no column " + column
                    + " (it has " + types.length + ")");
        }
        if (row < 0) {
            row = target.openRow();
            sinks = target.sinks();
            rowNumber++;
        }
        setIn[column] = rowNumber;
        return row;
    }

    private InvalidDataException refuse(int column, String reason) {
        int at = row;
        cancelRow();
        return new InvalidDataException(schema.tableName(), schema.column(column).name(), at, reason);
    }

    private RuntimeException storage(RuntimeException e) {
        int at = row;
        cancelRow();
        return target.storageFailure(e, at);
    }

    /** Opens the row at {@code column}, refusing it unless the column is of {@code type}. */
    private int beginTyped(int column, DataType type, String what) {
        int r = begin(column);
        if (types[column] != type) {
            throw refuse(column, what + " does not fit a " + types[column] + " column; it takes "
                    + Coercion.accepted(types[column]));
        }
        return r;
    }

    @Override
    public RowAppender setBoolean(int column, boolean value) {
        int r = beginTyped(column, DataType.Bool, "a boolean");
        try {
            sinks[column].setBool(r, value);
        } catch (RuntimeException e) {
            throw storage(e);
        }
        return this;
    }

    @Override
    public RowAppender setLong(int column, long value) {
        int r = begin(column);
        DataType t = types[column];
        try {
            if (t.isLongBacked()) {
                long v = Coercion.fromLong(t, value);
                sinks[column].setLong(r, v);
            } else if (t.isDoubleBacked()) {
                sinks[column].setDouble(r, Coercion.fromDouble(t, value));
            } else if (t == DataType.Decimal128) {
                RowWriter.writeValue(schema.column(column), sinks[column], r, value);
            } else {
                throw refuse(column, "a long does not fit a " + t + " column; it takes " + Coercion.accepted(t));
            }
        } catch (Coercion.Rejection e) {
            throw refuse(column, e.getMessage());
        } catch (InvalidDataException e) {
            throw e;
        } catch (RuntimeException e) {
            throw storage(e);
        }
        return this;
    }

    @Override
    public RowAppender setDouble(int column, double value) {
        int r = begin(column);
        try {
            sinks[column].setDouble(r, Coercion.fromDouble(types[column], value));
        } catch (Coercion.Rejection e) {
            throw refuse(column, e.getMessage());
        } catch (RuntimeException e) {
            throw storage(e);
        }
        return this;
    }

    @Override
    public RowAppender setString(int column, CharSequence value) {
        if (value == null) {
            return setNull(column);
        }
        int r = begin(column);
        DataType t = types[column];
        if (t != DataType.String && t != DataType.Json) {
            throw refuse(column, "text does not fit a " + t + " column; it takes " + Coercion.accepted(t));
        }
        try {
            sinks[column].setText(r, t == DataType.Json ? Coercion.toText(t, value) : value.toString());
        } catch (Coercion.Rejection e) {
            throw refuse(column, e.getMessage());
        } catch (RuntimeException e) {
            throw storage(e);
        }
        return this;
    }

    @Override
    public RowAppender setUtf8(int column, byte[] utf8, int offset, int length) {
        if (utf8 == null) {
            return setNull(column);
        }
        int r = begin(column);
        try {
            java.util.Objects.checkFromIndexSize(offset, length, utf8.length);
        } catch (IndexOutOfBoundsException e) {
            cancelRow();
            throw e;
        }
        DataType t = types[column];
        if (t != DataType.String && t != DataType.Json) {
            throw refuse(column, "UTF-8 text does not fit a " + t + " column; it takes " + Coercion.accepted(t));
        }
        int bad = Utf8.malformedAt(utf8, offset, length);
        if (bad >= 0) {
            throw refuse(column, "the text is not well-formed UTF-8 (byte " + bad + " of " + length + ", 0x"
                    + Integer.toHexString(utf8[offset + bad] & 0xFF) + "): decode it with its own charset and set it"
                    + " with setString");
        }
        if (t == DataType.Json) {
            return setString(column, new String(utf8, offset, length, java.nio.charset.StandardCharsets.UTF_8));
        }
        try {
            sinks[column].setUtf8(r, utf8, offset, length);
        } catch (RuntimeException e) {
            throw storage(e);
        }
        return this;
    }

    @Override
    public RowAppender setBytes(int column, byte[] value) {
        if (value == null) {
            return setNull(column);
        }
        int r = beginTyped(column, DataType.Binary, "bytes");
        try {
            sinks[column].setBytes(r, value);
        } catch (RuntimeException e) {
            throw storage(e);
        }
        return this;
    }

    @Override
    public RowAppender setTimestamp(int column, Instant value) {
        begin(column); // checks the index (dropping the row) before the column's type is looked at
        if (!types[column].isTimestamp()) {
            throw refuse(column, "an Instant does not fit a " + types[column] + " column; it takes "
                    + Coercion.accepted(types[column]));
        }
        return setValue(column, value);
    }

    @Override
    public RowAppender setDecimal(int column, BigDecimal value) {
        return setValue(column, value);
    }

    @Override
    public RowAppender setValue(int column, Object value) {
        if (value == null) {
            return setNull(column);
        }
        int r = begin(column);
        try {
            RowWriter.writeValue(schema.column(column), sinks[column], r, value);
        } catch (Coercion.Rejection e) {
            throw refuse(column, e.getMessage());
        } catch (RuntimeException e) {
            throw storage(e);
        }
        return this;
    }

    @Override
    public RowAppender setNull(int column) {
        int r = begin(column);
        if (column == timeIndex) {
            throw refuse(column, "the time index cannot be null");
        }
        try {
            sinks[column].setNull(r);
        } catch (RuntimeException e) {
            throw storage(e);
        }
        return this;
    }

    @Override
    public int columnIndex(String name) {
        int i = schema.indexOf(name);
        if (i < 0) {
            throw new IllegalArgumentException("table '" + schema.tableName() + "' has no column '" + name + "'");
        }
        return i;
    }

    @Override
    public void endRow() {
        if (row < 0) {
            row = target.openRow(); // a row of NULLs: refused below for its missing time index
            sinks = target.sinks();
            rowNumber++;
        }
        long open = rowNumber;
        if (setIn[timeIndex] != open) {
            throw refuse(timeIndex, "the time index was not set");
        }
        try {
            for (int c = 0; c < types.length; c++) {
                if (setIn[c] != open) {
                    sinks[c].setNull(row);
                }
            }
        } catch (RuntimeException e) {
            throw storage(e);
        }
        target.commitRow();
        clear();
    }

    @Override
    public void cancelRow() {
        clear();
    }

    /**
     * Refuses a row added another way ({@code addRow}, {@code addTable}, a nested batching write) while this
     * appender's row is open: both would write at the same index, mixing their values (the open row is kept).
     *
     * @param what what the caller tried, for the message
     * @throws IllegalStateException naming the table and the open row
     */
    public void checkNoOpenRow(String what) {
        if (row >= 0) {
            throw new IllegalStateException("table '" + schema.tableName() + "': row " + row + " begun with the"
                    + " row appender is still open; end it (endRow) or cancel it (cancelRow) before " + what);
        }
    }

    private void clear() {
        boolean open = row >= 0;
        row = -1;
        if (open) {
            target.rowClosed();
        }
    }
}
