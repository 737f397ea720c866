package dev.sluice.flink;

import dev.sluice.BatchingWriter;
import dev.sluice.ConnectionConfig;
import dev.sluice.data.TableSchema;
import dev.sluice.flink.internal.AnnotatedEncoder;
import dev.sluice.flink.internal.FlinkWording;
import dev.sluice.flink.internal.GreptimeSinkWriter;
import dev.sluice.flink.internal.MapperEncoder;
import dev.sluice.flink.internal.RowEncoder;
import dev.sluice.flink.internal.TypeMapping;
import dev.sluice.sink.internal.ConnectionOverlap;
import dev.sluice.sink.internal.SchemaSpec;
import dev.sluice.sink.internal.SinkSettings;
import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * A Flink sink (Sink V2) writing stream elements into GreptimeDB through Sluice's batching writer.
 *
 * <pre>{@code
 * TableSchema cpu = TableSchema.newBuilder("cpu").addTag("host", DataType.String)
 *         .addField("usage", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();
 * stream.sinkTo(GreptimeSink.<Metric>builder()
 *         .endpoints("greptime-1:4001", "greptime-2:4001").database("public")
 *         .table(cpu, (m, row) -> row.setString(0, m.host()).setDouble(1, m.usage()).setLong(2, m.millis()))
 *         .build());
 * }</pre>
 *
 * <p>Delivery is at least once: at every checkpoint each writer sends what it buffered and returns only when
 * GreptimeDB acknowledged every row it took before the barrier, so a job restored from a checkpoint misses no row.
 * Rows after the checkpoint may be written again on restore; on tables without {@code append_mode} such a replayed
 * row overwrites itself (same tags and time index), so the stored result equals exactly-once. A batch the client
 * could not deliver within its retries fails the job with the server's answer (table, code, message).
 *
 * @param <T> the element type
 */
public final class GreptimeSink<T> implements Sink<T> {
    private static final long serialVersionUID = 1L;
    private final SinkSettings settings;
    private final RowEncoder<T> encoder;

    private GreptimeSink(SinkSettings settings, RowEncoder<T> encoder) {
        this.settings = settings;
        this.encoder = encoder;
    }

    /**
     * Starts a builder.
     *
     * @param <T> the element type
     * @return a builder with the defaults listed on its setters
     */
    public static <T> Builder<T> builder() {
        return new Builder<>();
    }

    @Override
    public SinkWriter<T> createWriter(WriterInitContext context) throws IOException {
        return new GreptimeSinkWriter<>(settings, encoder, context);
    }

    /** @return the settings, password hidden */
    @Override
    public String toString() {
        return "GreptimeSink" + settings;
    }

    /**
     * Builds a {@link GreptimeSink}.
     *
     * @param <T> the element type
     */
    public static final class Builder<T> {
        private List<String> endpoints = List.of();
        private String database = "public";
        private String username = "";
        private String password = "";
        private boolean tls;
        private String tlsCa = "";
        private String tlsCert = "";
        private String tlsKey = "";
        private String tlsServerName = "";
        private String timezone = "UTC";
        private Duration requestTimeout = Duration.ofSeconds(60);
        private int retryAttempts;
        private Duration retryBackoff = Duration.ofMillis(100);
        private Duration retryMaxBackoff = Duration.ofSeconds(5);
        private Duration deliveryTimeout = Duration.ofMinutes(2);
        private WritePath path = WritePath.REGULAR;
        private int batchRows = 10_000;
        private long batchBytes = 8L << 20;
        private Duration flushInterval = Duration.ofMillis(200);
        private int maxInFlightRequests = 4;
        private long bufferRows = 200_000;
        private String compression = "none";
        private final Map<String, String> hints = new LinkedHashMap<>();
        private boolean ordered;
        private String httpEndpoint = "";
        private RowEncoder<T> encoder;
        private String connection = "";
        /** The setters called, as a refusal names them: a connection string must not set the same thing. */
        private final Set<String> given = new HashSet<>();

        private Builder() {
        }

        /**
         * Sets the client's connection string, beside or instead of the other setters:
         * {@code greptimedb://[user[:password]@]host[:port][,host...][/database][?key=value&...]}. Its hosts,
         * database, credentials and every key it names (TLS, timeouts, retries, compression, batching,
         * {@code hint.*}..., listed in the user's guide) are used; {@link #build()} refuses a setter called for the
         * same thing, naming both.
         *
         * @param connectionString the string
         * @return this builder
         */
        public Builder<T> connection(String connectionString) {
            this.connection = Objects.requireNonNull(connectionString, "connectionString");
            return this;
        }

        /**
         * Sets the GreptimeDB frontends (required).
         *
         * @param hostPorts gRPC endpoints, {@code host:port} (4001 by default); round-robin over healthy ones
         * @return this builder
         */
        public Builder<T> endpoints(String... hostPorts) {
            given.add("endpoints(...)");
            this.endpoints = Arrays.asList(hostPorts.clone());
            return this;
        }

        /**
         * Sets the database (default {@code public}).
         *
         * @param database the database, or {@code catalog-schema}
         * @return this builder
         */
        public Builder<T> database(String database) {
            given.add("database(...)");
            this.database = Objects.requireNonNull(database, "database");
            return this;
        }

        /**
         * Sets basic-auth credentials (default none).
         *
         * @param username the user
         * @param password the password (never logged)
         * @return this builder
         */
        public Builder<T> auth(String username, String password) {
            given.add("auth(...)");
            this.username = Objects.requireNonNull(username, "username");
            this.password = Objects.requireNonNull(password, "password");
            return this;
        }

        /**
         * Turns TLS on (default plaintext).
         *
         * @param caPem PEM file of the CA to trust, or null for the system's trust store
         * @param clientCertPem client certificate chain for mutual TLS, or null
         * @param clientKeyPem client private key for mutual TLS, or null
         * @param serverNameOverride name expected in the server's certificate, or null
         * @return this builder
         */
        public Builder<T> tls(String caPem, String clientCertPem, String clientKeyPem, String serverNameOverride) {
            given.add("tls(...)");
            this.tls = true;
            this.tlsCa = caPem == null ? "" : caPem;
            this.tlsCert = clientCertPem == null ? "" : clientCertPem;
            this.tlsKey = clientKeyPem == null ? "" : clientKeyPem;
            this.tlsServerName = serverNameOverride == null ? "" : serverNameOverride;
            return this;
        }

        /**
         * Sets the request timezone (default UTC).
         *
         * @param timezone {@code +08:00} or an IANA name
         * @return this builder
         */
        public Builder<T> timezone(String timezone) {
            given.add("timezone(...)");
            this.timezone = Objects.requireNonNull(timezone, "timezone");
            return this;
        }

        /**
         * Sets the deadline of one call attempt (default 60 s).
         *
         * @param timeout the deadline
         * @return this builder
         */
        public Builder<T> requestTimeout(Duration timeout) {
            given.add("requestTimeout(...)");
            this.requestTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /**
         * Sets the retry policy (default: attempts until a 2-minute delivery timeout, backoff 100 ms doubling to
         * 5 s). A batch still failing after it fails the job, which restarts from its last checkpoint.
         *
         * @param maxAttempts attempts per batch, the first included; 0 for as many as the delivery timeout allows
         * @param initialBackoff first backoff
         * @param maxBackoff longest backoff
         * @param deliveryTimeout the whole budget of one batch
         * @return this builder
         */
        public Builder<T> retry(int maxAttempts, Duration initialBackoff, Duration maxBackoff, Duration deliveryTimeout) {
            given.add("retry(...)");
            this.retryAttempts = maxAttempts;
            this.retryBackoff = Objects.requireNonNull(initialBackoff, "initialBackoff");
            this.retryMaxBackoff = Objects.requireNonNull(maxBackoff, "maxBackoff");
            this.deliveryTimeout = Objects.requireNonNull(deliveryTimeout, "deliveryTimeout");
            return this;
        }

        /**
         * Chooses the write path (default {@link WritePath#REGULAR}).
         *
         * @param path regular or bulk
         * @return this builder
         */
        public Builder<T> writePath(WritePath path) {
            given.add("writePath(...)");
            this.path = Objects.requireNonNull(path, "path");
            return this;
        }

        /**
         * Sets what makes a batch full (default 10,000 rows or 8 MiB).
         *
         * @param rows rows per batch
         * @param bytes approximate bytes per batch
         * @return this builder
         */
        public Builder<T> batch(int rows, long bytes) {
            given.add("batch(...)");
            this.batchRows = rows;
            this.batchBytes = bytes;
            return this;
        }

        /**
         * Sets the longest time a row waits in a batch before it is sent (default 200 ms).
         *
         * @param interval the interval
         * @return this builder
         */
        public Builder<T> flushInterval(Duration interval) {
            given.add("flushInterval(...)");
            this.flushInterval = Objects.requireNonNull(interval, "interval");
            return this;
        }

        /**
         * Sets how many batches per table may be sent and unanswered (default 4).
         *
         * @param batches the limit
         * @return this builder
         */
        public Builder<T> maxInFlightRequests(int batches) {
            given.add("maxInFlightRequests(...)");
            this.maxInFlightRequests = batches;
            return this;
        }

        /**
         * Sets how many rows each writer buffers or has in flight before it applies backpressure (default
         * 200,000).
         *
         * @param rows the limit
         * @return this builder
         */
        public Builder<T> bufferRows(long rows) {
            given.add("bufferRows(...)");
            this.bufferRows = rows;
            return this;
        }

        /**
         * Sets compression (default none): gzip or zstd as gRPC message compression on the regular path, zstd or
         * lz4 as Arrow IPC compression on the bulk path.
         *
         * @param compression none, gzip, zstd or lz4
         * @return this builder
         */
        public Builder<T> compression(String compression) {
            given.add("compression(...)");
            this.compression = Objects.requireNonNull(compression, "compression");
            return this;
        }

        /**
         * Adds a hint to every write, e.g. {@code ttl=7d}, {@code append_mode=true}, {@code merge_mode=last_non_null}
         * (table options apply when a write creates the table).
         *
         * @param key the hint's name
         * @param value its value
         * @return this builder
         */
        public Builder<T> hint(String key, String value) {
            hints.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
            return this;
        }

        /**
         * Sets GreptimeDB's HTTP API, where each writer reads the existing table's columns when it starts and fails
         * the job at once, naming both types, when a column's type or role disagrees with the table (or, on the
         * bulk path, when a column is missing). Default: the first endpoint's host at port 4000 (GreptimeDB's HTTP
         * port), over https when TLS is on; when that default cannot be reached, the writer logs a warning and a
         * disagreement shows at the first batch instead. An endpoint set here that cannot be reached fails the job at
         * start. {@code "none"} skips the check.
         *
         * @param hostPortOrUrl {@code host:port}, a URL such as {@code https://greptime:4000}, or {@code none}
         * @return this builder
         */
        public Builder<T> httpEndpoint(String hostPortOrUrl) {
            this.httpEndpoint = Objects.requireNonNull(hostPortOrUrl, "hostPortOrUrl");
            return this;
        }

        /**
         * Keeps the order of writes per table across retries (default off): at most one batch of a table in flight,
         * so a later write of a key never lands before an earlier one. Turn it on when elements update rows.
         *
         * @param ordered whether to keep the order
         * @return this builder
         */
        public Builder<T> orderedPerTable(boolean ordered) {
            this.ordered = ordered;
            return this;
        }

        /**
         * Writes each element as one row of a table through a mapper.
         *
         * @param schema the table (created on first write when missing, on the regular path new columns are added)
         * @param mapper fills the row; column indexes follow the schema's order
         * @return this builder
         */
        public Builder<T> table(TableSchema schema, RowMapper<T> mapper) {
            this.encoder = new MapperEncoder<>(SchemaSpec.of(Objects.requireNonNull(schema, "schema")),
                    Objects.requireNonNull(mapper, "mapper"), false);
            return this;
        }

        /**
         * Writes each element, a record or class annotated with {@link dev.sluice.mapping.Table} and its
         * {@link dev.sluice.mapping.Tag} / {@link dev.sluice.mapping.Field} / {@link dev.sluice.mapping.Timestamp}
         * members, as one row of the table the annotations describe.
         *
         * @param type the annotated type
         * @return this builder
         * @throws IllegalArgumentException naming the class and member when the annotations are wrong
         */
        public Builder<T> annotated(Class<T> type) {
            this.encoder = new AnnotatedEncoder<>(type);
            return this;
        }

        /**
         * Builds the sink.
         *
         * @return the sink
         * @throws IllegalArgumentException naming what is missing or wrong (a JSON or vector column on the bulk
         *     path, a bad endpoint, batch settings that do not fit)
         */
        public GreptimeSink<T> build() {
            if (encoder == null) {
                throw new IllegalArgumentException("no mapping: call table(schema, mapper) or annotated(type)");
            }
            ConnectionConfig connected = connection();
            WritePath path = connected != null && connected.has("write_path")
                    ? connected.batching().path() == BatchingWriter.Path.Bulk ? WritePath.BULK : WritePath.REGULAR
                    : this.path;
            SchemaSpec spec = encoder instanceof MapperEncoder<T> m ? m.spec() : ((AnnotatedEncoder<T>) encoder).spec();
            for (SchemaSpec.Col c : spec.columns()) {
                if (!TypeMapping.clientPath(path).carries(c.type())) {
                    throw new IllegalArgumentException("table " + spec.table() + ", column " + c.name() + ": "
                            + c.type() + " columns cannot go over WritePath.BULK; use WritePath.REGULAR");
                }
            }
            RowEncoder<T> enc = encoder instanceof MapperEncoder<T> m && ordered ? m.withOrdered(true) : encoder;
            ConnectionConfig c = connected;
            SinkSettings settings = new SinkSettings(c != null ? c.endpoints() : endpoints, database, username, password, tls, tlsCa, tlsCert,
                    tlsKey, tlsServerName, timezone, requestTimeout, retryAttempts, retryBackoff, retryMaxBackoff,
                    deliveryTimeout, TypeMapping.clientPath(path), batchRows, batchBytes, flushInterval, maxInFlightRequests, bufferRows,
                    compression, hints, httpEndpoint, "", FlinkWording.of(""));
            return new GreptimeSink<>(c != null ? settings.connect(connection) : settings, enc);
        }

        /** The setters a connection string sets too, with what the string calls them. */
        private static final Map<String, List<String>> IN_CONNECTION_STRING = Map.ofEntries(
                Map.entry("endpoints(...)", List.of(ConnectionOverlap.HOSTS)),
                Map.entry("database(...)", List.of(ConnectionOverlap.DATABASE)),
                Map.entry("auth(...)", List.of(ConnectionOverlap.USER)),
                Map.entry("tls(...)", List.of("tls", "tls_ca", "tls_cert", "tls_key", "tls_server_name")),
                Map.entry("timezone(...)", List.of("timezone")),
                Map.entry("requestTimeout(...)", List.of("request_timeout")),
                Map.entry("retry(...)", List.of("retry_attempts", "retry_backoff", "retry_backoff_max", "retry_timeout")),
                Map.entry("writePath(...)", List.of("write_path")),
                Map.entry("batch(...)", List.of("batch_rows", "batch_bytes")),
                Map.entry("flushInterval(...)", List.of("flush_interval")),
                Map.entry("maxInFlightRequests(...)", List.of("batch_in_flight")),
                Map.entry("bufferRows(...)", List.of("buffer_rows")),
                Map.entry("compression(...)", List.of("compression")));

        /** Reads the connection string, refusing a setter called for what it sets too; else requires endpoints. */
        private ConnectionConfig connection() {
            if (connection.isBlank()) {
                if (endpoints.isEmpty()) {
                    throw new IllegalArgumentException("no endpoints: call endpoints(\"host:4001\") or"
                            + " connection(\"greptimedb://host:4001/db\")");
                }
                return null;
            }
            ConnectionConfig c = ConnectionOverlap.parse("connection(...)", connection);
            ConnectionOverlap.refuse(c, "connection(...)", IN_CONNECTION_STRING, given::contains);
            ConnectionOverlap.refuseHints(c, "connection(...)", "hint(...)", hints.keySet());
            return c;
        }
    }
}
