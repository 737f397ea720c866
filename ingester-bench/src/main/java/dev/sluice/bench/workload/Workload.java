package dev.sluice.bench.workload;

import dev.sluice.Table;
import dev.sluice.TableSchema;

/** A deterministic stream of rows for one table: row {@code i} is always the same for a given seed. */
public interface Workload {
    /**
     * Returns the table's schema.
     *
     * @return the schema
     */
    TableSchema schema();

    /**
     * Appends rows {@code first .. first+count-1} to a table of {@link #schema()}.
     *
     * @param table the destination
     * @param first index of the first row
     * @param count rows to append
     */
    void fill(Table table, long first, int count);

    /**
     * Builds a completed table holding rows {@code first .. first+count-1}.
     *
     * @param first index of the first row
     * @param count rows
     * @return the table
     */
    default Table batch(long first, int count) {
        Table t = Table.from(schema(), count);
        fill(t, first, count);
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
