package dev.sluice.spark;

import java.util.List;
import java.util.Map;

/**
 * Every option of the {@code greptimedb} data source and of {@link GreptimeCatalog}, with its default and its
 * meaning. Options are read case-insensitively, from {@code .option(...)}, from a catalog's
 * {@code spark.sql.catalog.<name>.<option>} settings, or from both (the writer's own win). A key that is none of
 * these (nor one Spark itself passes, such as {@code path} or {@code checkpointLocation}) is refused, naming the
 * options nearest to it.
 */
public final class GreptimeSparkOptions {
    private GreptimeSparkOptions() {
    }

    /**
     * One option.
     *
     * @param name the option's key
     * @param defaultValue its default, empty when it has none
     * @param required whether a write fails without it
     * @param doc what it does
     */
    public record Option(String name, String defaultValue, boolean required, String doc) {
        /**
         * Reads this option.
         *
         * @param options the options given (keys compared case-insensitively by the caller's map)
         * @return the value, or the default
         */
        public String get(Map<String, String> options) {
            String v = options.get(name);
            return v == null || v.isBlank() ? defaultValue : v.strip();
        }
    }

    /** gRPC endpoints. */
    public static final Option ENDPOINTS = new Option("endpoints", "", true,
            "GreptimeDB gRPC endpoints, host:port separated by ',' or ';' (4001 is the server's gRPC port); writes go"
                    + " round-robin over the healthy ones. Not needed with connection.");
    /** Connection string. */
    public static final Option CONNECTION = new Option("connection", "", false,
            "A greptimedb://[user[:password]@]host[:port][,host...][/database][?key=value...] connection string"
                    + " (it replaces endpoints): its hosts, database, credentials and every key it names (tls,"
                    + " timeouts, retries, compression, batching, hint.*..., listed in the user's guide) are used. An"
                    + " option beside it that sets the same thing is refused, naming both; option 'password' beside a"
                    + " string naming only its user (greptimedb://user@host) is that user's password.");
    /** Database. */
    public static final Option DATABASE = new Option("database", "public", false,
            "Database to write to, or catalog-schema.");
    /** Table. */
    public static final Option TABLE = new Option("table", "", true,
            "GreptimeDB table to write (the catalog takes it from the table's identifier instead).");
    /** Tags. */
    public static final Option TAGS = new Option("tags", "", false,
            "Columns written as tags (GreptimeDB's primary key), separated by ','. Only used when the table is"
                    + " created; an existing table keeps its own.");
    /** Time index. */
    public static final Option TIME_INDEX = new Option("timeIndex", "", false,
            "Column written as the time index; when unset, the DataFrame's only timestamp or timestamp_ntz column.");
    /** Write path. */
    public static final Option WRITE_PATH = new Option("writePath", "regular", false,
            "regular (row inserts: creates tables, adds new columns, writes arrays, maps and structs as JSON) or bulk"
                    + " (Arrow Flight streams for high volume; every column must exist, no JSON).");
    /** Batch rows. */
    public static final Option BATCH_ROWS = new Option("batchRows", "10000", false,
            "Rows that make a batch full.");
    /** Batch bytes. */
    public static final Option BATCH_BYTES = new Option("batchBytes", "8388608", false,
            "Approximate bytes that make a batch full.");
    /** Flush interval. */
    public static final Option FLUSH_INTERVAL = new Option("flushInterval", "200ms", false,
            "Longest time a row waits in a batch before it is sent. On the bulk path a task fills its own batches and"
                    + " checks this as rows arrive; its last batch is sent when its input ends.");
    /** In-flight batches. */
    public static final Option MAX_IN_FLIGHT = new Option("maxInFlight", "4", false,
            "Batches per task sent and not yet answered.");
    /** Buffer rows. */
    public static final Option BUFFER_ROWS = new Option("bufferRows", "200000", false,
            "Rows a task buffers or has in flight before it waits for acknowledgements (backpressure).");
    /** Retry timeout. */
    public static final Option RETRY_TIMEOUT = new Option("retryTimeout", "2min", false,
            "How long a batch is retried (backoff 100ms doubling to 5s) before the task fails with the server's"
                    + " answer; Spark then retries the task (spark.task.maxFailures).");
    /** Request timeout. */
    public static final Option REQUEST_TIMEOUT = new Option("requestTimeout", "60s", false,
            "Deadline of one call attempt.");
    /** User. */
    public static final Option USER = new Option("user", "", false,
            "User for basic authentication; none when unset.");
    /** Password. */
    public static final Option PASSWORD = new Option("password", "", false,
            "Password for basic authentication (never logged).");
    /** TLS. */
    public static final Option TLS = new Option("tls", "false", false,
            "Connect over TLS, trusting the system's CAs unless tlsCa is set.");
    /** TLS CA. */
    public static final Option TLS_CA = new Option("tlsCa", "", false,
            "PEM file of the CA to trust (turns TLS on); must exist on every executor.");
    /** HTTP endpoint. */
    public static final Option HTTP_ENDPOINT = new Option("httpEndpoint", "", false,
            "GreptimeDB's HTTP API (host:port or a URL), where the driver reads an existing table's columns when the"
                    + " write is planned and sends TRUNCATE and DELETE; the first endpoint's host at port 4000 when"
                    + " unset.");
    /** TTL. */
    public static final Option TTL = new Option("ttl", "", false,
            "Table option ttl (e.g. 7d) of a table this write creates.");
    /** Append mode. */
    public static final Option APPEND_MODE = new Option("append_mode", "", false,
            "Table option append_mode of a table this write creates: true keeps every row instead of the last write"
                    + " per tags and time index (a retried task then stores its rows twice).");
    /** Merge mode. */
    public static final Option MERGE_MODE = new Option("merge_mode", "", false,
            "Table option merge_mode (last_row or last_non_null) of a table this write creates.");
    /** Compression. */
    public static final Option COMPRESSION = new Option("compression", "none", false,
            "none, gzip or zstd (gRPC compression on the regular path), zstd or lz4 (Arrow IPC on the bulk path).");
    /** Timezone. */
    public static final Option TIMEZONE = new Option("timezone", "UTC", false,
            "Request timezone, +08:00 or an IANA name.");

    /**
     * Lists every option, in the order the README shows them.
     *
     * @return the options
     */
    public static List<Option> all() {
        return List.of(ENDPOINTS, CONNECTION, DATABASE, TABLE, TAGS, TIME_INDEX, WRITE_PATH, BATCH_ROWS, BATCH_BYTES,
                FLUSH_INTERVAL, MAX_IN_FLIGHT, BUFFER_ROWS, RETRY_TIMEOUT, REQUEST_TIMEOUT, USER, PASSWORD, TLS, TLS_CA,
                HTTP_ENDPOINT, TTL, APPEND_MODE, MERGE_MODE, COMPRESSION, TIMEZONE);
    }
}
