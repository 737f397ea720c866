package dev.sluice.spark;

import dev.sluice.spark.internal.CatalogTables;
import java.util.Map;
import org.apache.spark.sql.catalyst.analysis.NoSuchNamespaceException;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.catalyst.analysis.TableAlreadyExistsException;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.catalog.TableChange;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * GreptimeDB as a Spark catalog whose namespaces are databases:
 * {@code spark.sql.catalog.greptime=dev.sluice.spark.GreptimeCatalog} with
 * {@code spark.sql.catalog.greptime.endpoints=host:4001} (and any other {@link GreptimeSparkOptions}), then
 * {@code df.writeTo("greptime.public.cpu").append()}, {@code INSERT INTO greptime.public.cpu SELECT ...},
 * {@code df.writeTo(...).overwrite(col("ts").geq(...))} (delete the range's rows, then write), {@code CREATE TABLE
 * ... TBLPROPERTIES ('tags' = ...)}, {@code DROP TABLE} and {@code DELETE FROM} with a condition on tags and the
 * time index (without one it truncates the table). Tables are described from GreptimeDB's HTTP SQL API; the catalog
 * does not read rows.
 */
public final class GreptimeCatalog implements TableCatalog {
    private CatalogTables tables;
    private String name;

    /** Creates the catalog (Spark does, from {@code spark.sql.catalog.<name>}). */
    public GreptimeCatalog() {
    }

    @Override
    public void initialize(String name, CaseInsensitiveStringMap options) {
        this.name = name;
        this.tables = new CatalogTables(options.asCaseSensitiveMap());
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String[] defaultNamespace() {
        return new String[] {tables.defaultDatabase()};
    }

    @Override
    public Identifier[] listTables(String[] namespace) throws NoSuchNamespaceException {
        return tables.list(namespace);
    }

    @Override
    public Table loadTable(Identifier ident) throws NoSuchTableException {
        return tables.load(ident);
    }

    @Override
    @SuppressWarnings("deprecation")
    public Table createTable(Identifier ident, StructType schema, Transform[] partitions, Map<String, String> properties)
            throws TableAlreadyExistsException, NoSuchNamespaceException {
        return tables.create(ident, schema, properties);
    }

    /**
     * Not offered: change GreptimeDB tables with its own SQL ({@code ALTER TABLE}); the regular write path adds new
     * columns by itself.
     *
     * @param ident the table
     * @param changes the changes
     * @return never
     */
    @Override
    public Table alterTable(Identifier ident, TableChange... changes) {
        throw new UnsupportedOperationException("ALTER TABLE through the greptime catalog is not offered: run it in"
                + " GreptimeDB; writes over the regular path add new columns by themselves");
    }

    @Override
    public boolean dropTable(Identifier ident) {
        return tables.drop(ident);
    }

    /**
     * Not offered.
     *
     * @param oldIdent the table
     * @param newIdent its new name
     */
    @Override
    public void renameTable(Identifier oldIdent, Identifier newIdent) {
        throw new UnsupportedOperationException("renaming GreptimeDB tables through the greptime catalog is not offered");
    }
}
