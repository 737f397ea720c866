package dev.sluice.spark.internal;

import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.connector.catalog.SupportsDeleteV2;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.expressions.filter.AlwaysTrue;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.write.SupportsOverwriteV2;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.StructType;

/**
 * A GreptimeDB table as Spark writes it: appends (batch and micro-batch), truncation ({@code mode("overwrite")}) and
 * overwriting the rows a filter on tags and the time index matches (delete, then write), and deleting the rows such a
 * filter matches ({@code DELETE FROM}, for the catalog's tables).
 */
public final class GreptimeTable implements SupportsWrite, SupportsRead, SupportsDeleteV2 {
    private final String table;
    private final StructType schema;
    private final Map<String, String> options;
    private final boolean anySchema;

    /**
     * Describes a table.
     *
     * @param table the GreptimeDB table's name
     * @param schema the schema Spark sees (the DataFrame's, or the table's columns for the catalog)
     * @param options the options (connection and write settings)
     * @param anySchema whether a write may bring columns the schema lacks (the data source's table, whose schema
     *     is the DataFrame's); a catalog's table makes Spark match and cast a query to its columns
     */
    public GreptimeTable(String table, StructType schema, Map<String, String> options, boolean anySchema) {
        this.table = table;
        this.schema = schema;
        this.options = Map.copyOf(options);
        this.anySchema = anySchema;
    }

    @Override
    public String name() {
        return WriteOptions.parse(options, table).sink().database() + "." + table;
    }

    /** @return the table's name, database first, as {@link #name()} */
    @Override
    public String toString() {
        return name();
    }

    @Override
    @SuppressWarnings("deprecation")
    public StructType schema() {
        return schema;
    }

    @Override
    public Set<TableCapability> capabilities() {
        EnumSet<TableCapability> c = EnumSet.of(TableCapability.BATCH_WRITE, TableCapability.STREAMING_WRITE,
                TableCapability.TRUNCATE, TableCapability.OVERWRITE_BY_FILTER);
        if (anySchema) {
            c.add(TableCapability.ACCEPT_ANY_SCHEMA);
        } else {
            c.add(TableCapability.BATCH_READ); // see newScanBuilder
        }
        return c;
    }


    /**
     * Rows are not read through Spark; the catalog's tables declare batch reads only because Spark plans
     * {@code DELETE FROM} over a readable table (the delete itself reads nothing through Spark). A query fails
     * when it would run.
     *
     * @param options the scan's options
     * @return a scan that refuses to run
     */
    @Override
    public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
        return () -> new Scan() {
            @Override
            public StructType readSchema() {
                return schema;
            }

            @Override
            public Batch toBatch() {
                throw new UnsupportedOperationException("reading GreptimeDB table " + table + " through Spark is not"
                        + " offered: query it through GreptimeDB's MySQL or PostgreSQL protocol with Spark's jdbc"
                        + " source");
            }
        };
    }

    /**
     * Tells whether the rows the predicates match can be deleted.
     *
     * @param predicates the condition, joined by AND
     * @return true when they can
     * @throws IllegalArgumentException naming a condition that cannot be translated and what is accepted
     */
    @Override
    public boolean canDeleteWhere(Predicate[] predicates) {
        return RowDeleter.translatable(WriteOptions.parse(options, table), predicates);
    }

    @Override
    public void deleteWhere(Predicate[] predicates) {
        RowDeleter.delete(WriteOptions.parse(options, table), predicates);
    }

    @Override
    public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
        Map<String, String> merged = new HashMap<>(options);
        merged.putAll(info.options().asCaseSensitiveMap());
        return new Builder(merged, table, info.schema());
    }

    /** Builds a write; deletes the rows to overwrite first (all of them: truncation). */
    private static final class Builder implements SupportsOverwriteV2 {
        private final Map<String, String> options;
        private final String table;
        private final StructType struct;
        private Predicate[] overwrite;

        Builder(Map<String, String> options, String table, StructType struct) {
            this.options = options;
            this.table = table;
            this.struct = struct;
        }

        @Override
        public WriteBuilder truncate() {
            overwrite = new Predicate[] {new AlwaysTrue()};
            return this;
        }

        /** Refuses a condition that cannot be translated by throwing, naming it and what is accepted. */
        @Override
        public boolean canOverwrite(Predicate[] predicates) {
            return RowDeleter.translatable(WriteOptions.parse(options, table), predicates);
        }

        @Override
        public WriteBuilder overwrite(Predicate[] predicates) {
            overwrite = predicates;
            return this;
        }

        @Override
        public Write build() {
            return new GreptimeWrite(options, table, struct, overwrite);
        }
    }
}
