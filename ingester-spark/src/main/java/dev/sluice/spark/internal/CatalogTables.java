package dev.sluice.spark.internal;

import dev.sluice.sql.HttpSql;
import dev.sluice.sql.SqlAnswer;
import dev.sluice.sql.ServerColumn;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.catalyst.analysis.TableAlreadyExistsException;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/** The catalog's work: GreptimeDB databases as namespaces, tables read over the HTTP SQL API. */
public final class CatalogTables {
    private final Map<String, String> options;

    /**
     * Keeps the catalog's options.
     *
     * @param options {@code spark.sql.catalog.<name>.*}
     */
    public CatalogTables(Map<String, String> options) {
        this.options = Map.copyOf(options);
    }

    /** @return the database of a table named without one: the option's, else the connection string's */
    public String defaultDatabase() {
        java.util.TreeMap<String, String> o = new java.util.TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        o.putAll(options);
        String connection = dev.sluice.spark.GreptimeSparkOptions.CONNECTION.get(o);
        if (!connection.isEmpty() && !o.containsKey(dev.sluice.spark.GreptimeSparkOptions.DATABASE.name())) {
            return dev.sluice.sink.internal.ConnectionOverlap.parse("option 'connection'", connection).database();
        }
        return dev.sluice.spark.GreptimeSparkOptions.DATABASE.get(o);
    }

    private Map<String, String> tableOptions(Identifier ident, Map<String, String> extra) {
        Map<String, String> o = new HashMap<>(options);
        o.putAll(extra);
        o.put("database", ident.namespace().length == 0 ? defaultDatabase() : String.join("-", ident.namespace()));
        o.put("table", ident.name());
        return o;
    }

    private HttpSql http(Map<String, String> o) {
        try {
            return TablePlanner.http(WriteOptions.parse(o, null));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Lists a database's tables.
     *
     * @param namespace the database
     * @return the tables
     */
    public Identifier[] list(String[] namespace) {
        Map<String, String> o = tableOptions(Identifier.of(namespace, "_"), Map.of());
        try {
            SqlAnswer a = http(o).execute("SHOW TABLES");
            List<Identifier> out = new ArrayList<>();
            for (List<String> row : a.rows()) {
                out.add(Identifier.of(namespace, row.get(0)));
            }
            return out.toArray(new Identifier[0]);
        } catch (IOException e) {
            throw new UncheckedIOException("listing the tables of database " + o.get("database") + " failed: "
                    + e.getMessage(), e);
        }
    }

    /**
     * Loads a table: its columns as Spark reads them.
     *
     * @param ident the table
     * @return the table
     * @throws NoSuchTableException when GreptimeDB has no such table
     */
    public GreptimeTable load(Identifier ident) throws NoSuchTableException {
        Map<String, String> o = tableOptions(ident, Map.of());
        List<ServerColumn> columns = TablePlanner.describe(WriteOptions.parse(o, null));
        if (columns == null) {
            throw new NoSuchTableException(ident);
        }
        List<StructField> fields = new ArrayList<>();
        for (ServerColumn c : columns) {
            fields.add(new StructField(c.name(), SparkTypes.sparkType(c), true,
                    org.apache.spark.sql.types.Metadata.empty()));
        }
        return new GreptimeTable(ident.name(), new StructType(fields.toArray(new StructField[0])), o, false);
    }

    /**
     * Creates a table from a Spark schema; {@code tags}, {@code timeIndex}, {@code ttl}, {@code append_mode} and
     * {@code merge_mode} come from the table's properties.
     *
     * @param ident the table
     * @param schema its columns
     * @param properties its properties
     * @return the table
     * @throws TableAlreadyExistsException when it exists
     */
    public GreptimeTable create(Identifier ident, StructType schema, Map<String, String> properties)
            throws TableAlreadyExistsException {
        Map<String, String> o = tableOptions(ident, properties);
        WriteOptions w = WriteOptions.parse(o, null);
        if (TablePlanner.describe(w) != null) {
            throw new TableAlreadyExistsException(ident);
        }
        TablePlanner.plan(w, schema);
        return new GreptimeTable(ident.name(), schema, o, false);
    }

    /**
     * Drops a table.
     *
     * @param ident the table
     * @return whether it existed
     */
    public boolean drop(Identifier ident) {
        Map<String, String> o = tableOptions(ident, Map.of());
        try {
            return http(o).execute("DROP TABLE IF EXISTS " + HttpSql.quote(ident.name())).rows() != null;
        } catch (IOException e) {
            throw new UncheckedIOException("dropping table " + ident + " failed: " + e.getMessage(), e);
        }
    }
}
