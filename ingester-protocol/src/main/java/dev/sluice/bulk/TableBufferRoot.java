package dev.sluice.bulk;

import dev.sluice.data.InvalidDataException;
import dev.sluice.data.RowAppender;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;

/**
 * One batch of rows built directly in the off-heap (Arrow) memory of a {@link BulkStreamWriter}, obtained from
 * {@link BulkStreamWriter#tableBufferRoot(int)}.
 *
 * <p>{@link #addRow(Object...)} takes the same values and applies the same checks as
 * {@link Table#addRow(Object...)}; a rejected row is not added. After {@link BulkStreamWriter#writeNext()} the
 * batch is empty again and can be refilled (into fresh buffers from the writer's memory while the sent batch
 * waits for its answer, or into the same buffers when {@code allocatorMaxAllocation} leaves no room). Not
 * thread-safe.
 */
public interface TableBufferRoot {
    /**
     * Adds a row.
     *
     * @param values one value per column, in schema order
     * @return this
     * @throws InvalidDataException when the row does not fit the schema (the batch keeps its earlier rows)
     * @throws BulkWriteException when the batch would exceed {@code allocatorMaxAllocation} (the row is not added)
     * @throws IllegalStateException while a row begun with {@link #appender()} is open (end or cancel it first), or
     *     once the writer is closed or completed (open a new writer)
     */
    TableBufferRoot addRow(Object... values);

    /**
     * Returns this batch's typed row appender: rows added value by value straight into the off-heap vectors, with
     * no {@code Object[]} or boxing, checked as {@link #addRow(Object...)} checks them. A row still being built
     * when the batch is sent is dropped.
     *
     * @return the appender, the same one every time
     */
    RowAppender appender();

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
    TableBufferRoot addTable(Table table);

    /**
     * Marks the batch as ready to send.
     *
     * @return this
     */
    TableBufferRoot complete();

    /**
     * Returns the rows added since the last send.
     *
     * @return the row count
     */
    int rowCount();

    /**
     * Returns the schema.
     *
     * @return the table schema
     */
    TableSchema schema();
}
