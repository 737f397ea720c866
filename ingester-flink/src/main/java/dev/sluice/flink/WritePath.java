package dev.sluice.flink;

/** Which of Sluice's paths the sink's batches travel on. */
public enum WritePath {
    /**
     * GreptimeDB's row-insert RPC: creates missing tables and adds new columns (schemaless), carries deletes and
     * JSON columns, several tables per request.
     */
    REGULAR,
    /**
     * Arrow Flight bulk streams, one per table: fastest for one-shape high-volume rows; the table is created
     * from the first row's schema when missing but gains no columns later, and JSON columns are refused.
     */
    BULK
}
