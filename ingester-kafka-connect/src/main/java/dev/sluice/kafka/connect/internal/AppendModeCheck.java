package dev.sluice.kafka.connect.internal;

import dev.sluice.sql.HttpSql;
import dev.sluice.sql.SqlException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Asks GreptimeDB's HTTP SQL API ({@link HttpSql#appendMode(String)}) whether tables exist in append mode, where
 * redelivered records are stored twice. The gRPC write path cannot tell; this check is best effort: a table that
 * does not exist yet, or a server that does not answer, is reported as unknown.
 */
public final class AppendModeCheck {
    private final HttpSql sql;

    /**
     * Creates a check.
     *
     * @param baseUrl the HTTP API, e.g. {@code http://host:4000}
     * @param database the database
     * @param user basic-auth user, or empty
     * @param password basic-auth password
     */
    public AppendModeCheck(String baseUrl, String database, String user, String password) {
        HttpSql.Builder b = HttpSql.newBuilder(baseUrl, database).timeout(Duration.ofSeconds(5))
                .connectTimeout(Duration.ofSeconds(5));
        if (!user.isEmpty()) {
            b.auth(user, password);
        }
        this.sql = b.build();
    }

    /** What the server said about one table. */
    public enum Mode {
        /** The table keeps duplicates. */
        APPEND,
        /** The table keeps the last write of a row. */
        LAST_WRITE_WINS,
        /** Missing table, refused query, or no answer. */
        UNKNOWN
    }

    /**
     * Asks about one table.
     *
     * @param table the table
     * @return its mode
     */
    public Mode mode(String table) {
        try {
            Optional<Boolean> append = sql.appendMode(table);
            return append.isEmpty() ? Mode.UNKNOWN : append.get() ? Mode.APPEND : Mode.LAST_WRITE_WINS;
        } catch (SqlException | IllegalArgumentException e) {
            return Mode.UNKNOWN;
        }
    }

    /**
     * Lists the given tables that are in append mode.
     *
     * @param tables table names
     * @return those the server reports in append mode
     */
    public List<String> appendModeTables(List<String> tables) {
        List<String> out = new ArrayList<>();
        for (String t : tables) {
            if (mode(t) == Mode.APPEND) {
                out.add(t);
            }
        }
        return out;
    }
}
