package dev.sluice.bench.target;

/** Where the benchmark writes, and how it checks what was stored. */
public interface Target extends AutoCloseable {
    /**
     * Returns the gRPC endpoint.
     *
     * @return host:port
     */
    String endpoint();

    /**
     * Describes the target for the report.
     *
     * @return a plain description
     */
    String description();

    /**
     * Empties the table before a mode runs.
     *
     * @param table table name
     * @throws Exception when the target cannot be reached
     */
    void reset(String table) throws Exception;

    /**
     * Counts the rows stored in a table.
     *
     * @param table table name
     * @return row count
     * @throws Exception when the target cannot be reached
     */
    long count(String table) throws Exception;

    /**
     * Tells which threads belong to the target (so their CPU time is not counted as the client's).
     *
     * @param threadName a thread's name
     * @return true for the target's own threads
     */
    default boolean ownsThread(String threadName) {
        return false;
    }

    @Override
    void close();
}
