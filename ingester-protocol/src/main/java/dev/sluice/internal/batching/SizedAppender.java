package dev.sluice.internal.batching;

import dev.sluice.data.RowAppender;
import java.math.BigDecimal;
import java.time.Instant;

/**
 * A batch table's appender as a batching writer hands it to a caller's row: it counts the row's approximate size
 * (as the batching writer estimates {@code Object[]} rows: text and bytes by length, other values 10 bytes) and
 * ends or drops the row once the caller returns. Reused for every row of one accumulator, under its lock.
 */
final class SizedAppender implements RowAppender {
    private RowAppender target;
    private long bytes;

    /**
     * Runs the caller's row on {@code table}'s appender and ends it.
     *
     * @param table the open batch table's appender
     * @param row the caller's row
     * @return the row's approximate size
     * @throws RuntimeException from the row or from ending it; the row is dropped
     */
    long fill(RowAppender table, java.util.function.Consumer<RowAppender> row) {
        target = table;
        bytes = 0;
        boolean ended = false;
        try {
            row.accept(this);
            table.endRow();
            ended = true;
            return bytes;
        } finally {
            if (!ended) {
                table.cancelRow();
            }
            target = null;
        }
    }

    /** @return true while {@link #fill} runs the caller's row lambda (a nested write of the same table must wait) */
    boolean filling() {
        return target != null;
    }

    private RowAppender target() {
        if (target == null) {
            throw new IllegalStateException("a batching writer's row appender is only valid inside the write call"
                    + " that handed it out");
        }
        return target;
    }

    @Override
    public RowAppender setBoolean(int column, boolean value) {
        target().setBoolean(column, value);
        bytes += 10;
        return this;
    }

    @Override
    public RowAppender setLong(int column, long value) {
        target().setLong(column, value);
        bytes += 10;
        return this;
    }

    @Override
    public RowAppender setDouble(int column, double value) {
        target().setDouble(column, value);
        bytes += 10;
        return this;
    }

    @Override
    public RowAppender setString(int column, CharSequence value) {
        target().setString(column, value);
        bytes += value == null ? 10 : value.length() + 2;
        return this;
    }

    @Override
    public RowAppender setUtf8(int column, byte[] utf8, int offset, int length) {
        target().setUtf8(column, utf8, offset, length);
        bytes += utf8 == null ? 10 : length + 2;
        return this;
    }

    @Override
    public RowAppender setBytes(int column, byte[] value) {
        target().setBytes(column, value);
        bytes += value == null ? 10 : value.length + 2;
        return this;
    }

    @Override
    public RowAppender setTimestamp(int column, Instant value) {
        target().setTimestamp(column, value);
        bytes += 10;
        return this;
    }

    @Override
    public RowAppender setDecimal(int column, BigDecimal value) {
        target().setDecimal(column, value);
        bytes += 10;
        return this;
    }

    @Override
    public RowAppender setValue(int column, Object value) {
        target().setValue(column, value);
        bytes += value instanceof CharSequence ? ((CharSequence) value).length() + 2
                : value instanceof byte[] ? ((byte[]) value).length + 2 : 10;
        return this;
    }

    @Override
    public RowAppender setNull(int column) {
        target().setNull(column);
        bytes += 10;
        return this;
    }

    @Override
    public int columnIndex(String name) {
        return target().columnIndex(name);
    }

    @Override
    public void endRow() {
        throw new IllegalStateException("the batching writer ends the row when the write call's row returns");
    }

    @Override
    public void cancelRow() {
        throw new IllegalStateException("throw from the row instead: the batching writer then drops it");
    }
}
