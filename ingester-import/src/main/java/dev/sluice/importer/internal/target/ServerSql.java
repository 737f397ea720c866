package dev.sluice.importer.internal.target;

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

    /**
     * Counts a table's rows whose time index lies in a range, both ends included. The ends are written as UTC
     * times with an offset: GreptimeDB converts a string compared with a timestamp column to the column's type
     * (TypeConversionRule, GreptimeTeam/greptimedb src/query/src/optimizer/type_conversion.rs), and an explicit
     * offset leaves the session's time zone out of it.
     *
     * @param table the table
     * @param timeIndex its time index column
     * @param unitsPerSecond the column's unit
     * @param min the range's start, in that unit
     * @param max its end
     * @return the rows in the range
     * @throws IOException when the count fails
     */
    public long countBetween(String table, String timeIndex, long unitsPerSecond, long min, long max)
            throws IOException {
        dev.sluice.sql.SqlAnswer a = sql.execute("SELECT count(*) FROM " + HttpSql.quote(table) + " WHERE "
                + HttpSql.quote(timeIndex) + " >= '" + utc(min, unitsPerSecond) + "' AND " + HttpSql.quote(timeIndex)
                + " <= '" + utc(max, unitsPerSecond) + "'");
        if (a.rows().size() != 1 || a.rows().get(0).isEmpty() || a.rows().get(0).get(0) == null) {
            throw new IOException("count(*) of '" + table + "' in a time range gave no number");
        }
        return Long.parseLong(a.rows().get(0).get(0));
    }

    /** A time as {@code yyyy-MM-dd HH:mm:ss.fffffffff+00:00}. */
    static String utc(long count, long unitsPerSecond) {
        long seconds = Math.floorDiv(count, unitsPerSecond);
        long nanos = Math.floorMod(count, unitsPerSecond) * (1_000_000_000L / unitsPerSecond);
        java.time.LocalDateTime t = java.time.LocalDateTime.ofEpochSecond(seconds, (int) nanos, java.time.ZoneOffset.UTC);
        return String.format("%04d-%02d-%02d %02d:%02d:%02d.%09d+00:00", t.getYear(), t.getMonthValue(),
                t.getDayOfMonth(), t.getHour(), t.getMinute(), t.getSecond(), t.getNano());
    }
}
