package dev.sluice.spark.internal;

import dev.sluice.BatchingWriter;
import dev.sluice.data.TableSchema;
import dev.sluice.sink.internal.SchemaCheck;
import dev.sluice.sink.internal.SchemaSpec;
import dev.sluice.sink.internal.ServerTable;
import dev.sluice.sink.internal.ClientSession;
import dev.sluice.sql.HttpSql;
import dev.sluice.sql.ServerColumn;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the driver does when a write is planned: reads the existing table's columns over GreptimeDB's HTTP SQL API,
 * refuses a DataFrame whose column types disagree with them (naming both types), and creates a missing table (types
 * from the DataFrame, tags and time index from the options, table options {@code ttl}, {@code append_mode},
 * {@code merge_mode}). An existing table keeps its own tags and time index; a new column is added by the server on
 * the first row that carries it (regular path).
 */
public final class TablePlanner {
    private static final Logger LOG = LoggerFactory.getLogger(TablePlanner.class);

    private TablePlanner() {
    }

    /**
     * Prepares a write.
     *
     * @param o the options
     * @param struct the DataFrame's schema
     * @return the schema every task writes
     * @throws IllegalArgumentException when the DataFrame cannot be written to the table, naming what to change
     * @throws UncheckedIOException when GreptimeDB cannot be reached or refuses to create the table
     */
    public static TableSchema plan(WriteOptions o, StructType struct) {
        List<ServerColumn> existing = describe(o);
        TableSchema schema = SparkTypes.schema(struct, o, existing);
        refuseUncarried(o, struct, schema, existing != null);
        if (existing != null) {
            List<String> bad = SchemaCheck.disagreements(SchemaSpec.of(schema), i -> SparkTypes.declared(struct, i),
                    existing, o.sink().path());
            if (!bad.isEmpty()) {
                throw new IllegalArgumentException("table " + o.table() + " in database " + o.sink().database()
                        + " exists and disagrees with the DataFrame written to it, so GreptimeDB would refuse its rows: "
                        + String.join("; ", bad));
            }
            return schema;
        }
        try (ClientSession s = ClientSession.open(o.sink(), new Metrics(), false)) {
            s.prepare(schema);
        } catch (IOException e) {
            throw new UncheckedIOException(e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating table " + o.table(), e);
        }
        return schema;
    }

    /**
     * Refuses a column the write path cannot carry, by the client's rule ({@link BatchingWriter.Path#firstUncarried}),
     * before anything is created or sent: on the bulk path, a JSON column (a string written into an existing JSON
     * column, or an array, map or struct) or a vector column.
     *
     * @throws IllegalArgumentException naming the table, the column, its type in the DataFrame and in GreptimeDB,
     *     and the path that carries it
     */
    private static void refuseUncarried(WriteOptions o, StructType struct, TableSchema schema, boolean exists) {
        BatchingWriter.Path path = o.sink().path();
        path.firstUncarried(schema).ifPresent(c -> {
            int i = schema.indexOf(c.name());
            throw new IllegalArgumentException("table " + o.table() + " in database " + o.sink().database()
                    + ", column " + c.name() + ": " + SparkTypes.declared(struct, i) + " is written as GreptimeDB's "
                    + c.dataType() + (exists ? " (the existing table's column type)" : "") + ", which the "
                    + path.name().toLowerCase(java.util.Locale.ROOT) + " write path cannot carry; nothing was sent."
                    + " Write this DataFrame over the regular path (option writePath=regular)"
                    + (exists ? "" : ", or drop or cast the column"));
        });
    }

    /**
     * Reads the table's columns.
     *
     * @return the columns, or null when the table does not exist or the HTTP API is not reachable at its default
     *     address (logged)
     */
    static List<ServerColumn> describe(WriteOptions o) {
        String base = ServerTable.baseUrl(o.sink());
        if (base == null) {
            return null;
        }
        try {
            return http(o).describeTable(o.table()).orElse(null);
        } catch (IOException e) {
            if (!o.sink().httpEndpoint().isEmpty()) {
                throw new UncheckedIOException("GreptimeDB's HTTP API at " + base + " (option httpEndpoint) answered "
                        + e.getMessage() + " when reading table " + o.table() + "'s columns", e);
            }
            LOG.warn("Could not read table {}'s columns from GreptimeDB's HTTP API at {} ({}); set option"
                    + " httpEndpoint to check column types when the write is planned", o.table(), base, e.toString());
            return null;
        }
    }

    /**
     * Opens GreptimeDB's HTTP SQL API for statements the driver sends ({@code TRUNCATE}, deletes).
     *
     * @param o the options
     * @return the client
     * @throws IOException when the CA file cannot be read
     */
    public static HttpSql http(WriteOptions o) throws IOException {
        String base = ServerTable.baseUrl(o.sink());
        if (base == null) {
            throw new IllegalArgumentException("option httpEndpoint is 'none', but overwriting and deleting need"
                    + " GreptimeDB's HTTP SQL API: set httpEndpoint to its host:port");
        }
        HttpSql.Builder b = HttpSql.newBuilder(base, o.sink().database()).timeout(o.sink().requestTimeout());
        if (base.startsWith("https://") && !o.sink().tlsCa().isEmpty()) {
            b.trustedCa(Path.of(o.sink().tlsCa()));
        }
        if (!o.sink().username().isEmpty()) {
            b.auth(o.sink().username(), o.sink().password());
        }
        return b.build();
    }
}
