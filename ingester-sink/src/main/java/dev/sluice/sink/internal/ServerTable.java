package dev.sluice.sink.internal;

import dev.sluice.sql.HttpSql;
import dev.sluice.sql.ServerColumn;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Reads an existing table's columns and whether it keeps every row from GreptimeDB's HTTP SQL API ({@code DESC TABLE}
 * and {@code SHOW CREATE TABLE}, through {@link HttpSql}), so that a writer can compare them with what it is about to
 * write before it takes the first row.
 */
public final class ServerTable {
    private ServerTable() {
    }

    /**
     * The HTTP endpoint to ask: the one given, or else the first gRPC endpoint's host at GreptimeDB's HTTP port
     * 4000 ({@code https} when the sink uses TLS).
     *
     * @param s the settings
     * @return a base URL, or null when the check is turned off ({@code none})
     */
    public static String baseUrl(SinkSettings s) {
        String given = s.httpEndpoint();
        if ("none".equalsIgnoreCase(given)) {
            return null;
        }
        boolean tls = s.tls() || !s.tlsCa().isEmpty();
        if (given.isEmpty()) {
            String first = s.endpoints().get(0);
            given = first.substring(0, first.lastIndexOf(':')) + ":4000";
        }
        String base = given.contains("://") ? given : (tls ? "https://" : "http://") + given;
        return base.replaceAll("/+$", "");
    }

    /**
     * Reads a table's columns.
     *
     * @param s the settings (database, credentials, TLS)
     * @param baseUrl the HTTP endpoint, from {@link #baseUrl}
     * @param table the table
     * @return the columns in the table's order, or null when the table does not exist
     * @throws IOException when the endpoint cannot be reached or answers with an error
     */
    public static List<ServerColumn> describe(SinkSettings s, String baseUrl, String table) throws IOException {
        return sql(s, baseUrl).describeTable(table).orElse(null);
    }

    /**
     * Tells whether an existing table keeps every row written to it ({@link HttpSql#appendMode(String)}).
     *
     * @param s the settings (database, credentials, TLS)
     * @param baseUrl the HTTP endpoint, from {@link #baseUrl}
     * @param table the table
     * @return true for an append-mode table, false for one that keeps the last write of a row, empty when the table
     *     does not exist
     * @throws IOException when the endpoint cannot be reached or answers with an error
     */
    public static Optional<Boolean> appendMode(SinkSettings s, String baseUrl, String table) throws IOException {
        return sql(s, baseUrl).appendMode(table);
    }

    private static HttpSql sql(SinkSettings s, String baseUrl) throws IOException {
        HttpSql.Builder b = HttpSql.newBuilder(baseUrl, s.database()).timeout(s.requestTimeout());
        if (baseUrl.startsWith("https://") && !s.tlsCa().isEmpty()) {
            b.trustedCa(Path.of(s.tlsCa()));
        }
        if (!s.username().isEmpty()) {
            b.auth(s.username(), s.password());
        }
        return b.build();
    }
}
