package dev.sluice.bench.workload;

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
