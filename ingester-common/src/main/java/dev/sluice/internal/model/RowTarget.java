package dev.sluice.internal.model;

import dev.sluice.data.TableSchema;

/** Where a {@link TypedRowAppender} writes: a heap table or an off-heap batch. */
public interface RowTarget {
    /**
     * Returns the schema rows must fit.
     *
     * @return the schema
     */
    TableSchema schema();

    /**
     * Returns the column storage, one per schema column.
     *
     * @return the sinks
     */
    ColumnSink[] sinks();

    /**
     * Makes room for the next row and returns its index; refuses when the target takes no more rows.
     *
     * @return the index of the row about to be written
     */
    int openRow();

    /** Counts the row opened last as added. */
    void commitRow();

    /** Called once the row opened last was committed or dropped. */
    default void rowClosed() {
    }

    /**
     * Turns a storage failure into what the target's callers expect (an off-heap batch over its cap, say).
     *
     * @param e the failure
     * @param row the row being written
     * @return the exception to throw
     */
    default RuntimeException storageFailure(RuntimeException e, int row) {
        return e;
    }
}
