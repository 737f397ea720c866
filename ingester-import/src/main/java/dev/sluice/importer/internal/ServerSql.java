package dev.sluice.importer.internal;

import dev.sluice.data.TableSchema;
import dev.sluice.sql.HttpSql;
import java.io.IOException;

/**
 * What the import asks GreptimeDB's HTTP SQL API ({@link HttpSql}): an existing table's columns ({@code DESC TABLE})
 * and row counts for {@code --verify}.
 */
public final class ServerSql {
    private final HttpSql sql;

    /**
     * Creates the client.
     *
     * @param endpoint {@code host:port} or a URL ({@code https://host:4000})
     * @param database the database
     * @param user user, or null
     * @param password password, or null
     */
    public ServerSql(String endpoint, String database, String user, String password) {
        HttpSql.Builder b = HttpSql.newBuilder(endpoint, database);
        if (user != null) {
            b.auth(user, password);
        }
        this.sql = b.build();
    }

    /**
     * Reads a table's columns, or null when it does not exist.
     *
     * @param table the table
     * @return the schema, or null
     * @throws IOException when the server cannot be asked or answers with another error
     */
    public TableSchema describe(String table) throws IOException {
        return sql.describeSchema(table).orElse(null);
    }

    /**
     * Whether an existing table keeps every row ({@link HttpSql#appendMode(String)}).
     *
     * @param table the table
     * @return true for an append-mode table
     * @throws IOException when the server cannot be asked or answers with an error
     */
    public boolean appendMode(String table) throws IOException {
        return sql.appendMode(table).orElse(false);
    }

    /**
     * Counts a table's rows.
     *
     * @param table the table
     * @return {@code count(*)}
     * @throws IOException when the count fails
     */
    public long count(String table) throws IOException {
        return sql.count(table);
    }
}
