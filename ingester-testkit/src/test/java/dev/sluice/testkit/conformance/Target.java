package dev.sluice.testkit.conformance;

import java.util.List;

/** A GreptimeDB to run the conformance cases against: the testkit, or a real server. */
interface Target {
    /** @return a name for reports */
    String name();

    /** @return the gRPC host */
    String host();

    /** @return the gRPC port */
    int grpcPort();

    /** @return the user the server is configured with */
    String user();

    /** @return that user's password */
    String password();

    /**
     * Reads a table back.
     *
     * @param table table in {@code public}
     * @param columns columns to read
     * @param orderBy the column to order by
     * @return rows, each value as text ({@code null} for NULL)
     */
    List<List<String>> select(String table, List<String> columns, String orderBy) throws Exception;

    /**
     * Reads one table option as the server prints it.
     *
     * @param table table in {@code public}
     * @param key option key
     * @return the value, or null
     */
    String tableOption(String table, String key) throws Exception;

    /**
     * Tells whether a table exists in {@code public}.
     *
     * @param table the table
     * @return true when it exists
     */
    boolean exists(String table) throws Exception;
}
