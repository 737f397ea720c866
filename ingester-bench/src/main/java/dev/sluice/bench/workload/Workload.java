package dev.sluice.bench.workload;

import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.RowAppender;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import java.util.function.Consumer;

/** A deterministic stream of rows for one table: row {@code i} is always the same for a given seed. */
public interface Workload {
    /**
     * Returns the table's schema.
     *
     * @return the schema
     */
    TableSchema schema();

    /**
     * Hands rows {@code first .. first+count-1} to a row sink, such as {@code table::addRow} or a bulk batch's
     * {@code addRow}.
     *
     * @param sink takes one row's values, in schema order; the array is reused for the next row, so the sink
     *     must copy what it keeps (as {@code Table.addRow} and {@code TableBufferRoot.addRow} do)
     * @param first index of the first row
     * @param count rows to produce
     */
    void fill(Consumer<Object[]> sink, long first, int count);

    /**
     * Hands the same rows as {@link #fill} to a typed row appender, value by value: text as the same
     * {@code String} instances, numbers as primitive {@code long}s and {@code double}s (no boxing, no
     * {@code Object[]}), each checked by the appender as {@code addRow} checks it. The appender must be open for
     * a new row; every row is ended with {@link RowAppender#endRow()}.
     *
     * @param appender where the rows go ({@code Table.appender()} or {@code TableBufferRoot.appender()})
     * @param first index of the first row
     * @param count rows to produce
     */
    void append(RowAppender appender, long first, int count);

    /**
     * Adds rows {@code first .. first+count-1} to a bulk batch, through {@code addRow} (values as objects).
     *
     * @param root the batch
     * @param first index of the first row
     * @param count rows to produce
     */
    default void fillBatch(TableBufferRoot root, long first, int count) {
        fill(root::addRow, first, count);
    }

    /**
     * Tells how this workload hands rows to the client.
     *
     * @return true when {@link #batch} and {@link #fillBatch} use the typed row appender ({@link #append}), false
     *     when they use {@code addRow(Object...)} ({@link #fill})
     */
    default boolean typed() {
        return false;
    }

    /**
     * Returns this workload with {@link #batch} and {@link #fillBatch} going through the typed row appender
     * ({@link #append}) instead of {@code addRow(Object...)}: the same rows, values and bytes on the wire.
     *
     * @return the typed view of this workload
     */
    default Workload typedRows() {
        Workload rows = this;
        return new Workload() {
            @Override
            public TableSchema schema() {
                return rows.schema();
            }

            @Override
            public void fill(Consumer<Object[]> sink, long first, int count) {
                rows.fill(sink, first, count);
            }

            @Override
            public void append(RowAppender appender, long first, int count) {
                rows.append(appender, first, count);
            }

            @Override
            public Table batch(long first, int count) {
                Table t = Table.from(schema(), count);
                rows.append(t.appender(), first, count);
                return t.complete();
            }

            @Override
            public void fillBatch(TableBufferRoot root, long first, int count) {
                rows.append(root.appender(), first, count);
            }

            @Override
            public boolean typed() {
                return true;
            }

            @Override
            public Workload typedRows() {
                return this;
            }
        };
    }

    /**
     * Builds a completed table holding rows {@code first .. first+count-1}.
     *
     * @param first index of the first row
     * @param count rows
     * @return the table
     */
    default Table batch(long first, int count) {
        Table t = Table.from(schema(), count);
        fill(t::addRow, first, count);
        return t.complete();
    }

    /**
     * Finds a workload by name.
     *
     * @param name {@code logs} or {@code metrics}
     * @param seed the random seed
     * @return the workload
     */
    static Workload named(String name, long seed) {
        switch (name) {
            case "logs": return new LogWorkload(seed);
            case "metrics": return new MetricsWorkload(seed);
            default: throw new IllegalArgumentException("unknown workload '" + name + "' (logs or metrics)");
        }
    }
}
