package dev.sluice.importer.internal.target;

import dev.sluice.data.TableSchema;
import dev.sluice.importer.internal.failure.ImportFailure;
import java.io.IOException;
import java.io.PrintStream;

/** What the import asks the server about its tables over HTTP SQL: their schema, append mode and row count. */
public final class ServerTables {
    /**
     * How the lookups treat an HTTP API that does not answer.
     *
     * @param httpEndpoint the HTTP API's address, for messages
     * @param endpointGiven whether {@code --http-endpoint} was given (then an unanswered lookup fails the import)
     * @param verify whether {@code --verify} needs the answers
     * @param quiet whether notes stay off standard error
     */
    public record Options(String httpEndpoint, boolean endpointGiven, boolean verify, boolean quiet) {
    }

    private final ServerSql sql;
    private final Options o;
    private final PrintStream err;

    /**
     * Creates the lookups.
     *
     * @param sql the HTTP SQL client
     * @param options how an unanswered lookup is treated
     * @param err where notes and warnings go
     */
    public ServerTables(ServerSql sql, Options options, PrintStream err) {
        this.sql = sql;
        this.o = options;
        this.err = err;
    }

    /**
     * Returns the HTTP SQL client.
     *
     * @return the client
     */
    public ServerSql sql() {
        return sql;
    }

    /**
     * Describes a table over HTTP SQL. When the HTTP API does not answer, the table is taken as new (and said so),
     * unless the import needs the answer ({@code --http-endpoint} given, or {@code --verify}).
     *
     * @param table the table
     * @return its schema, or null when it does not exist (or cannot be read and need not be)
     * @throws ImportFailure when it cannot be read and must be
     */
    public TableSchema describe(String table) {
        try {
            return sql.describe(table);
        } catch (IOException | RuntimeException e) {
            if (o.endpointGiven() || o.verify()) {
                throw new ImportFailure("cannot read table '" + table + "' over HTTP SQL at " + o.httpEndpoint()
                        + ": " + e.getMessage(), e);
            }
            if (!o.quiet()) {
                err.println("note: the HTTP API at " + o.httpEndpoint() + " did not answer (" + e.getMessage()
                        + "): the import assumes table '" + table + "' does not exist; give --http-endpoint to check");
            }
            return null;
        }
    }

    /**
     * Whether an existing table is append-mode (it keeps every row, so a batch must never be resent silently). When
     * the server cannot say, the import goes on as for an ordinary table and says so.
     *
     * @param table the table
     * @return whether it is append-mode
     */
    public boolean keepsEveryRow(String table) {
        try {
            return sql.appendMode(table);
        } catch (IOException | RuntimeException e) {
            err.println("warning: could not read whether table '" + table + "' is append-mode (" + e.getMessage()
                    + "): it is treated as keeping the last write of each key; if it keeps every row, pass"
                    + " --append-mode so that a rerun never resends a batch without being asked");
            return false;
        }
    }

    /**
     * Counts a table's rows.
     *
     * @param table the table
     * @return its row count, or -1 when the server cannot say
     */
    public long countOrMinusOne(String table) {
        try {
            return sql.count(table);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
