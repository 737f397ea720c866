package dev.sluice.flink.table;

import dev.sluice.ConnectionConfig;
import dev.sluice.flink.WritePath;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.table.factories.FactoryUtil;

/**
 * The options of the {@code 'connector' = 'greptimedb'} table sink. The module's README renders its options table
 * from these definitions.
 */
public final class GreptimeConnectorOptions {
    private GreptimeConnectorOptions() {
    }

    /** GreptimeDB gRPC endpoints. */
    public static final ConfigOption<List<String>> ENDPOINTS = ConfigOptions.key("endpoints").stringType().asList()
            .noDefaultValue()
            .withDescription("GreptimeDB gRPC endpoints, host:port separated by ';' (4001 is the server's default"
                    + " port); writes go round-robin over the healthy ones. Required unless connection is set.");

    /** The client's connection string. */
    public static final ConfigOption<String> CONNECTION = ConfigOptions.key("connection").stringType()
            .noDefaultValue()
            .withDescription("The client's connection string, greptimedb://[user[:password]@]host[:port][,host...]"
                    + "[/database][?key=value&...], beside or instead of the options here: its hosts, database,"
                    + " credentials and every key it names (tls, timeouts, retries, compression, batching, hint.*...,"
                    + " listed in the user's guide) are used. An option here that sets the same thing as the string"
                    + " is refused, naming both. A password in the string is refused (Flink prints table options"
                    + " in plain text): give it in 'password' with the user in 'username', or name the user in the"
                    + " string and set the password in " + ConnectionConfig.PASSWORD_VARIABLE + " or the system"
                    + " property " + ConnectionConfig.PASSWORD_PROPERTY + " of the process that plans the job.");

    /** Database to write to. */
    public static final ConfigOption<String> DATABASE = ConfigOptions.key("database").stringType()
            .defaultValue("public").withDescription("Database to write to, or catalog-schema.");

    /** Basic-auth user. */
    public static final ConfigOption<String> USERNAME = ConfigOptions.key("username").stringType().noDefaultValue()
            .withDescription("User for basic authentication; none when unset.");

    /** Basic-auth password. */
    public static final ConfigOption<String> PASSWORD = ConfigOptions.key("password").stringType().noDefaultValue()
            .withDescription("Password for basic authentication (never logged).");

    /** TLS on or off. */
    public static final ConfigOption<Boolean> TLS_ENABLED = ConfigOptions.key("tls.enabled").booleanType()
            .defaultValue(false).withDescription("Connect over TLS, trusting the system's CAs unless tls.ca is set.");

    /** CA to trust. */
    public static final ConfigOption<String> TLS_CA = ConfigOptions.key("tls.ca").stringType().noDefaultValue()
            .withDescription("PEM file of the CA to trust (turns TLS on).");

    /** Client certificate chain. */
    public static final ConfigOption<String> TLS_CERT = ConfigOptions.key("tls.cert").stringType().noDefaultValue()
            .withDescription("PEM client certificate chain for mutual TLS (with tls.key).");

    /** Client private key. */
    public static final ConfigOption<String> TLS_KEY = ConfigOptions.key("tls.key").stringType().noDefaultValue()
            .withDescription("PEM private key of the client certificate.");

    /** Server name override. */
    public static final ConfigOption<String> TLS_SERVER_NAME = ConfigOptions.key("tls.server-name").stringType()
            .noDefaultValue().withDescription("Host name expected in the server's certificate, when it differs"
                    + " from the endpoint's.");

    /** HTTP API for reading the existing table's columns. */
    public static final ConfigOption<String> HTTP_ENDPOINT = ConfigOptions.key("http-endpoint").stringType()
            .noDefaultValue().withDescription("GreptimeDB's HTTP API (host:port or a URL), where each writer reads"
                    + " the existing table's columns when the job starts: a column whose type or role (tag, field,"
                    + " time index) disagrees with the table, or on the bulk path a column the table lacks, fails the"
                    + " job at start naming both types. When unset, the first endpoint's host at port 4000 (https"
                    + " with TLS); if that cannot be reached, a warning is logged and a disagreement fails the job at"
                    + " the first batch instead. A value set here that cannot be reached fails the job at start."
                    + " 'none' skips the check.");

    /** Table name. */
    public static final ConfigOption<String> TABLE_NAME = ConfigOptions.key("table-name").stringType()
            .noDefaultValue().withDescription("GreptimeDB table to write; the Flink table's name when unset.");

    /** Tag columns. */
    public static final ConfigOption<List<String>> TAGS = ConfigOptions.key("tags").stringType().asList()
            .noDefaultValue().withDescription("Columns written as tags (GreptimeDB's primary key), separated by"
                    + " ';'. When unset, the columns of the Flink table's PRIMARY KEY ... NOT ENFORCED other than"
                    + " the time index.");

    /** Time index column. */
    public static final ConfigOption<String> TIME_INDEX = ConfigOptions.key("time-index").stringType()
            .noDefaultValue().withDescription("Column written as the time index; when unset, the table's only"
                    + " TIMESTAMP or TIMESTAMP_LTZ column.");

    /** Write path. */
    public static final ConfigOption<WritePath> WRITE_PATH = ConfigOptions.key("write.path")
            .enumType(WritePath.class).defaultValue(WritePath.REGULAR)
            .withDescription("REGULAR (row inserts: creates tables and adds columns, carries JSON and deletes) or"
                    + " BULK (Arrow Flight streams for one-shape high volume; no JSON columns; deletes still go"
                    + " over row deletes).");

    /** Table TTL. */
    public static final ConfigOption<String> TTL = ConfigOptions.key("ttl").stringType().noDefaultValue()
            .withDescription("Table option ttl (e.g. 7d) for a table this sink creates.");

    /** Append mode. */
    public static final ConfigOption<Boolean> APPEND_MODE = ConfigOptions.key("append-mode").booleanType()
            .noDefaultValue().withDescription("Table option append_mode for a table this sink creates: keeps every"
                    + " row instead of the last write per key (a restarted job then stores replayed rows twice).");

    /** Merge mode. */
    public static final ConfigOption<String> MERGE_MODE = ConfigOptions.key("merge-mode").stringType()
            .noDefaultValue().withDescription("Table option merge_mode (last_row or last_non_null) for a table this"
                    + " sink creates.");

    /** Other hints. */
    public static final ConfigOption<Map<String, String>> HINTS = ConfigOptions.key("hints").mapType()
            .noDefaultValue().withDescription("Further hints sent with every write, as key:value pairs separated"
                    + " by ',' (e.g. 'compaction.type:twcs').");

    /** Rows per batch. */
    public static final ConfigOption<Integer> BATCH_ROWS = ConfigOptions.key("sink.batch.rows").intType()
            .defaultValue(10_000).withDescription("Rows that make a batch full.");

    /** Bytes per batch. */
    public static final ConfigOption<MemorySize> BATCH_BYTES = ConfigOptions.key("sink.batch.bytes").memoryType()
            .defaultValue(MemorySize.parse("8mb")).withDescription("Approximate bytes that make a batch full.");

    /** Flush interval. */
    public static final ConfigOption<Duration> FLUSH_INTERVAL = ConfigOptions.key("sink.flush.interval")
            .durationType().defaultValue(Duration.ofMillis(200))
            .withDescription("Longest time a row waits in a batch before it is sent; every checkpoint also"
                    + " sends everything and waits for the acknowledgements.");

    /** In-flight batches. */
    public static final ConfigOption<Integer> MAX_IN_FLIGHT = ConfigOptions.key("sink.max-in-flight-requests")
            .intType().defaultValue(4).withDescription("Batches per writer sent and not yet answered (tables with"
                    + " updates keep one per table in flight, so a key's writes stay in order).");

    /** Buffer size. */
    public static final ConfigOption<Long> BUFFER_ROWS = ConfigOptions.key("sink.buffer.rows").longType()
            .defaultValue(200_000L).withDescription("Rows a writer buffers or has in flight before it applies"
                    + " backpressure.");

    /** Retry attempts. */
    public static final ConfigOption<Integer> RETRY_ATTEMPTS = ConfigOptions.key("sink.retry.max-attempts")
            .intType().defaultValue(0).withDescription("Attempts per batch, the first included; 0 retries until"
                    + " sink.retry.timeout.");

    /** First backoff. */
    public static final ConfigOption<Duration> RETRY_BACKOFF = ConfigOptions.key("sink.retry.backoff")
            .durationType().defaultValue(Duration.ofMillis(100)).withDescription("First backoff between attempts.");

    /** Longest backoff. */
    public static final ConfigOption<Duration> RETRY_MAX_BACKOFF = ConfigOptions.key("sink.retry.max-backoff")
            .durationType().defaultValue(Duration.ofSeconds(5)).withDescription("Longest backoff between attempts.");

    /** Delivery timeout. */
    public static final ConfigOption<Duration> RETRY_TIMEOUT = ConfigOptions.key("sink.retry.timeout")
            .durationType().defaultValue(Duration.ofMinutes(2))
            .withDescription("How long a batch is retried before the job fails with the server's answer (and"
                    + " restarts from its last checkpoint, by its restart strategy).");

    /** Call timeout. */
    public static final ConfigOption<Duration> REQUEST_TIMEOUT = ConfigOptions.key("request-timeout")
            .durationType().defaultValue(Duration.ofSeconds(60)).withDescription("Deadline of one call attempt.");

    /** Compression. */
    public static final ConfigOption<String> COMPRESSION = ConfigOptions.key("compression").stringType()
            .defaultValue("none").withDescription("none, gzip or zstd (gRPC compression on the regular path), zstd"
                    + " or lz4 (Arrow IPC compression on the bulk path).");

    /** Timezone. */
    public static final ConfigOption<String> TIMEZONE = ConfigOptions.key("timezone").stringType()
            .defaultValue("UTC").withDescription("Request timezone, +08:00 or an IANA name.");

    /** Sink parallelism (Flink's common option). */
    public static final ConfigOption<Integer> SINK_PARALLELISM = FactoryUtil.SINK_PARALLELISM;
}
