package dev.sluice.spark.internal;

import dev.sluice.sql.HttpSql;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.SupportsTruncate;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.StructType;

/**
 * A GreptimeDB table as Spark writes it: appends (batch and micro-batch) and truncation ({@code mode("overwrite")}).
 */
public class GreptimeTable implements SupportsWrite {
    private final String table;
    private final StructType schema;
    private final Map<String, String> options;

    /**
     * Describes a table.
     *
     * @param table the GreptimeDB table's name
     * @param schema the schema Spark sees (the DataFrame's, or the table's columns for the catalog)
     * @param options the options (connection and write settings)
     */
    public GreptimeTable(String table, StructType schema, Map<String, String> options) {
        this.table = table;
        this.schema = schema;
        this.options = Map.copyOf(options);
    }

    @Override
    public String name() {
        return WriteOptions.parse(options, table).sink().database() + "." + table;
    }

    @Override
    @SuppressWarnings("deprecation")
    public StructType schema() {
        return schema;
    }

    @Override
    public Set<TableCapability> capabilities() {
        return EnumSet.of(TableCapability.BATCH_WRITE, TableCapability.STREAMING_WRITE, TableCapability.TRUNCATE,
                TableCapability.ACCEPT_ANY_SCHEMA);
    }

    /** @return the options of this table */
    protected Map<String, String> options() {
        return options;
    }

    /** @return the GreptimeDB table's name */
    protected String table() {
        return table;
    }

    @Override
    public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
        Map<String, String> merged = new HashMap<>(options);
        merged.putAll(info.options().asCaseSensitiveMap());
        return new Builder(merged, table, info.schema());
    }

    /** Builds a write; truncates first when Spark asks to overwrite everything. */
    private static final class Builder implements SupportsTruncate {
        private final Map<String, String> options;
        private final String table;
        private final StructType struct;
        private boolean truncate;

        Builder(Map<String, String> options, String table, StructType struct) {
            this.options = options;
            this.table = table;
            this.struct = struct;
        }

        @Override
        public WriteBuilder truncate() {
            truncate = true;
            return this;
        }

        @Override
        public Write build() {
            return new GreptimeWrite(options, table, struct,
                    truncate ? "TRUNCATE TABLE " + HttpSql.quote(table) : null);
        }
    }
}
