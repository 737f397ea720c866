package dev.sluice.kafka.connect;

import dev.sluice.BatchingWriter;
import dev.sluice.ConnectionConfig;
import dev.sluice.kafka.connect.internal.ColumnTypeOverrides;
import dev.sluice.sink.internal.ConnectionOverlap;
import dev.sluice.kafka.connect.internal.SluiceClient;
import dev.sluice.write.Compression;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Collectors;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * The settings of {@link GreptimeSinkConnector}: where GreptimeDB is, how rows are batched and retried, and how
 * records become rows. {@link #CONFIG_DEF} documents every key with its default; the README's table is rendered
 * from it.
 */
public final class GreptimeSinkConfig extends AbstractConfig {
    private static final String CONNECTION = "Connection";
    private static final String WRITE = "Writing";
    private static final String MAPPING = "Mapping";
    private static final String ERRORS = "Errors";

    /** The client's connection string, beside or instead of the separate connection and writing keys. */
    public static final String CONNECTION_STRING = "greptimedb.connection";
    /** gRPC endpoints. */
    public static final String ENDPOINTS = "greptimedb.endpoints";
    /** Database. */
    public static final String DATABASE = "greptimedb.database";
    /** Basic-auth user. */
    public static final String USERNAME = "greptimedb.username";
    /** Basic-auth password. */
    public static final String PASSWORD = "greptimedb.password";
    /** TLS switch. */
    public static final String TLS_ENABLED = "greptimedb.tls.enabled";
    /** CA bundle. */
    public static final String TLS_CA = "greptimedb.tls.ca.path";
    /** Client certificate chain. */
    public static final String TLS_CERT = "greptimedb.tls.client.cert.path";
    /** Client private key. */
    public static final String TLS_KEY = "greptimedb.tls.client.key.path";
    /** Server name override. */
    public static final String TLS_SERVER_NAME = "greptimedb.tls.server.name";
    /** Request timezone. */
    public static final String TIMEZONE = "greptimedb.timezone";
    /** HTTP API for the append-mode check and the bulk path's reading of existing tables. */
    public static final String HTTP_URL = "greptimedb.http.url";
    /** Per-call deadline. */
    public static final String REQUEST_TIMEOUT = "greptimedb.request.timeout.ms";

    /** Regular or bulk. */
    public static final String WRITE_PATH = "write.path";
    /** Wire compression. */
    public static final String COMPRESSION = "write.compression";
    /** Rows per batch. */
    public static final String BATCH_ROWS = "batch.max.rows";
    /** Bytes per batch. */
    public static final String BATCH_BYTES = "batch.max.bytes";
    /** How long a row waits in a batch before the batch is sent. */
    public static final String FLUSH_INTERVAL = "batch.flush.interval.ms";
    /** Batches in flight. */
    public static final String IN_FLIGHT = "max.in.flight.requests";
    /** Buffered rows. */
    public static final String BUFFER_ROWS = "max.buffered.rows";
    /** Buffer wait. */
    public static final String BUFFER_TIMEOUT = "max.block.ms";
    /** Attempts per write. */
    public static final String RETRY_ATTEMPTS = "retry.max.attempts";
    /** First backoff. */
    public static final String RETRY_BACKOFF = "retry.backoff.initial.ms";
    /** Largest backoff. */
    public static final String RETRY_BACKOFF_MAX = "retry.backoff.max.ms";
    /** Delivery budget. */
    public static final String RETRY_DELIVERY = "retry.delivery.timeout.ms";
    /** Connect's pause after a RetriableException. */
    public static final String REDELIVERY_BACKOFF = "redelivery.backoff.ms";
    /** Wait for acknowledgements at commit and close. */
    public static final String FLUSH_TIMEOUT = "flush.timeout.ms";
    /** The largest record the dead-letter queue's producer takes. */
    public static final String DLQ_MAX_BYTES = "dlq.max.record.bytes";
    /** The connector-level override of the producer's request size limit, which the dead-letter queue's producer uses. */
    static final String PRODUCER_OVERRIDE_MAX_REQUEST = "producer.override.max.request.size";
    /** The Kafka producer's own default {@code max.request.size}. */
    static final long PRODUCER_DEFAULT_MAX_REQUEST = 1_048_576L;

    private final ConnectionConfig connection;

    /** Table name template. */
    public static final String TABLE_FORMAT = "table.name.format";
    /** Topic rename pattern. */
    public static final String TABLE_REGEX = "table.name.regex";
    /** Topic rename replacement. */
    public static final String TABLE_REPLACEMENT = "table.name.replacement";
    /** Table from a record field. */
    public static final String TABLE_FIELD = "table.name.field";
    /** Tag columns. */
    public static final String TAGS = "tag.fields";
    /** Time index field. */
    public static final String TS_FIELD = "timestamp.field";
    /** Unit of a numeric time index. */
    public static final String TS_UNIT = "timestamp.unit";
    /** Time index column for the record timestamp. */
    public static final String TS_COLUMN = "timestamp.column";
    /** Column type overrides. */
    public static final String COLUMN_TYPES = "column.types";
    /** Tombstones as deletes. */
    public static final String DELETES = "delete.enabled";
    /** Hints for created tables. */
    public static final String HINTS = "table.hints";

    /** Every key, with type, default, validator, importance and documentation. */
    public static final ConfigDef CONFIG_DEF = build();

    /**
     * The keys a connection string also sets, and what it calls them (the string's host list, database and
     * credentials are its location part; the rest are its keys). A key set both ways is refused.
     */
    static final Map<String, String> IN_CONNECTION_STRING = inConnectionString();

    private static Map<String, String> inConnectionString() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(ENDPOINTS, ConnectionOverlap.HOSTS);
        m.put(DATABASE, ConnectionOverlap.DATABASE);
        m.put(USERNAME, ConnectionOverlap.USER);
        m.put(PASSWORD, ConnectionOverlap.PASSWORD);
        m.put(TLS_ENABLED, "tls");
        m.put(TLS_CA, "tls_ca");
        m.put(TLS_CERT, "tls_cert");
        m.put(TLS_KEY, "tls_key");
        m.put(TLS_SERVER_NAME, "tls_server_name");
        m.put(TIMEZONE, "timezone");
        m.put(REQUEST_TIMEOUT, "request_timeout");
        m.put(WRITE_PATH, "write_path");
        m.put(COMPRESSION, "compression");
        m.put(BATCH_ROWS, "batch_rows");
        m.put(BATCH_BYTES, "batch_bytes");
        m.put(FLUSH_INTERVAL, "flush_interval");
        m.put(IN_FLIGHT, "batch_in_flight");
        m.put(BUFFER_ROWS, "buffer_rows");
        m.put(BUFFER_TIMEOUT, "max_block");
        m.put(RETRY_ATTEMPTS, "retry_attempts");
        m.put(RETRY_BACKOFF, "retry_backoff");
        m.put(RETRY_BACKOFF_MAX, "retry_backoff_max");
        m.put(RETRY_DELIVERY, "retry_timeout");
        return java.util.Collections.unmodifiableMap(m);
    }

    /**
     * @return a check of a compression name by the client's one rule ({@link Compression#parse}: case and blanks do
     *     not matter)
     */
    private static ConfigDef.Validator compressionNames() {
        return ConfigDef.LambdaValidator.with((name, value) -> {
            try {
                Compression.parse((String) value);
            } catch (IllegalArgumentException e) {
                throw new ConfigException(name, value, e.getMessage());
            }
        }, () -> Arrays.stream(Compression.values()).map(Compression::settingName)
                .collect(Collectors.joining(", ", "[", "]")));
    }

    private static ConfigDef build() {
        // Endpoints are required unless the connection string names the hosts: validate() says so, as it says of a
        // key without a default.
        ConfigDef d = new ConfigDef() {
            @Override
            public List<org.apache.kafka.common.config.ConfigValue> validate(Map<String, String> props) {
                List<org.apache.kafka.common.config.ConfigValue> values = super.validate(props);
                String endpoints = props.get(ENDPOINTS);
                String connection = props.get(CONNECTION_STRING);
                if ((endpoints == null || endpoints.isBlank()) && (connection == null || connection.isBlank())) {
                    for (org.apache.kafka.common.config.ConfigValue v : values) {
                        if (v.name().equals(ENDPOINTS)) {
                            v.addErrorMessage("Missing required configuration \"" + ENDPOINTS + "\": give the"
                                    + " endpoints, or " + CONNECTION_STRING);
                        }
                    }
                }
                return values;
            }
        };
        int o = 0;
        d.define(CONNECTION_STRING, Type.PASSWORD, "", Importance.HIGH,
                "The client's connection string, greptimedb://[user[:password]@]host[:port][,host...][/database]"
                        + "[?key=value&...] (its keys are listed in the user's guide), beside or instead of the keys"
                        + " of the Connection and Writing groups it also covers. It is masked like a password. Its"
                        + " settings win over the connector's defaults; a setting given both here and as its own"
                        + " key is refused, naming both.", CONNECTION, ++o, Width.LONG, "Connection string");
        d.define(ENDPOINTS, Type.LIST, "", new EndpointsValidator(), Importance.HIGH,
                "GreptimeDB gRPC endpoints as host:port (port 4001 by default), comma-separated; writes go round-robin"
                        + " over the healthy ones. Required unless " + CONNECTION_STRING + " names the hosts.",
                CONNECTION, ++o, Width.LONG, "Endpoints");
        d.define(DATABASE, Type.STRING, "public", new ConfigDef.NonEmptyString(), Importance.HIGH,
                "Database to write to, or catalog-schema.", CONNECTION, ++o, Width.MEDIUM, "Database");
        d.define(USERNAME, Type.STRING, "", Importance.HIGH,
                "Basic-auth user; empty for a server without authentication.", CONNECTION, ++o, Width.MEDIUM, "User");
        d.define(PASSWORD, Type.PASSWORD, "", Importance.HIGH,
                "Basic-auth password (never logged).", CONNECTION, ++o, Width.MEDIUM, "Password");
        d.define(TLS_ENABLED, Type.BOOLEAN, false, Importance.MEDIUM,
                "Connect over TLS. Without a CA path the system trust store is used.", CONNECTION, ++o, Width.SHORT,
                "TLS");
        d.define(TLS_CA, Type.STRING, "", Importance.MEDIUM,
                "PEM file of the CA certificates to trust (implies TLS).", CONNECTION, ++o, Width.LONG, "TLS CA");
        d.define(TLS_CERT, Type.STRING, "", Importance.LOW,
                "PEM certificate chain of the client, for mutual TLS (with " + TLS_KEY + ").", CONNECTION, ++o,
                Width.LONG, "Client certificate");
        d.define(TLS_KEY, Type.STRING, "", Importance.LOW,
                "PEM private key of the client, for mutual TLS (with " + TLS_CERT + ").", CONNECTION, ++o, Width.LONG,
                "Client key");
        d.define(TLS_SERVER_NAME, Type.STRING, "", Importance.LOW,
                "Host name expected in the server's certificate, when it differs from the endpoint's.", CONNECTION,
                ++o, Width.MEDIUM, "TLS server name");
        d.define(TIMEZONE, Type.STRING, "", Importance.LOW,
                "Request timezone (+08:00 or an IANA name); empty for UTC.", CONNECTION, ++o, Width.SHORT, "Timezone");
        d.define(HTTP_URL, Type.STRING, "", Importance.LOW,
                "GreptimeDB's HTTP API (e.g. http://host:4000), used to warn, when the connector starts, about"
                        + " target tables in append mode (SHOW CREATE TABLE on each topic's table; needs a topics"
                        + " list and topic-based table names), and on write.path=bulk to read each table's columns"
                        + " once (DESC TABLE), so that a record landing in an existing JSON column is refused before"
                        + " anything is sent. Empty: no check.", CONNECTION, ++o, Width.LONG,
                "HTTP URL");
        d.define(REQUEST_TIMEOUT, Type.LONG, 60_000L, ConfigDef.Range.atLeast(1), Importance.LOW,
                "Deadline of each call to GreptimeDB, in milliseconds.", CONNECTION, ++o, Width.SHORT,
                "Request timeout");

        o = 0;
        d.define(WRITE_PATH, Type.STRING, "regular", ConfigDef.ValidString.in("regular", "bulk"), Importance.MEDIUM,
                "How batches travel: 'regular' (row inserts; creates tables and adds columns as records need them,"
                        + " carries JSON columns and deletes) or 'bulk' (Arrow Flight, one stream per table: faster for"
                        + " wide rows; a record that brings a table or column new to the task is written through the"
                        + " regular path first, which creates it; records with JSON values go to the dead-letter"
                        + " queue, or fail the task without one).", WRITE, ++o, Width.SHORT, "Write path");
        d.define(COMPRESSION, Type.STRING, "none", compressionNames(),
                Importance.LOW, "Compression of requests: none, gzip or zstd (lz4 on the bulk path only).", WRITE,
                ++o, Width.SHORT, "Compression");
        d.define(BATCH_ROWS, Type.INT, 10_000, ConfigDef.Range.atLeast(1), Importance.MEDIUM,
                "Rows that make a batch full and send it.", WRITE, ++o, Width.SHORT, "Batch rows");
        d.define(BATCH_BYTES, Type.LONG, 8L << 20, ConfigDef.Range.atLeast(1), Importance.LOW,
                "Estimated bytes that make a batch full and send it.", WRITE, ++o, Width.SHORT, "Batch bytes");
        d.define(FLUSH_INTERVAL, Type.LONG, 200L, ConfigDef.Range.atLeast(1), Importance.MEDIUM,
                "Longest time a row waits in a batch before the batch is sent, in milliseconds.", WRITE, ++o,
                Width.SHORT, "Flush interval");
        d.define(IN_FLIGHT, Type.INT, 4, ConfigDef.Range.between(1, 1024), Importance.LOW,
                "Batches sent and not yet acknowledged, per task.", WRITE, ++o, Width.SHORT, "In-flight batches");
        d.define(BUFFER_ROWS, Type.LONG, 50_000L, ConfigDef.Range.atLeast(1), Importance.LOW,
                "Rows a task holds unacknowledged (buffered or in flight); at the limit put() waits for room"
                        + " (back-pressure on the consumer). Each such record is kept until acknowledged, so this"
                        + " bounds a task's memory (roughly 1 to 2 KB per JSON record). At least " + BATCH_ROWS + ".",
                WRITE, ++o, Width.SHORT, "Buffered rows");
        d.define(BUFFER_TIMEOUT, Type.LONG, 30_000L, ConfigDef.Range.atLeast(1), Importance.LOW,
                "Longest wait of put() for buffer room, in milliseconds; then the batch is redelivered later"
                        + " (RetriableException).", WRITE, ++o, Width.SHORT, "Buffer timeout");
        d.define(RETRY_ATTEMPTS, Type.INT, Integer.MAX_VALUE, ConfigDef.Range.atLeast(1), Importance.MEDIUM,
                "Attempts per request (the first included) for retryable failures: overload, unavailable"
                        + " servers, broken connections. The default sets no count: a request is retried until "
                        + RETRY_DELIVERY + " runs out, as the client does by default, so an outage shorter than that"
                        + " budget loses no time to redelivery. A smaller count gives up sooner; then the task rewinds"
                        + " and Connect redelivers.", WRITE, ++o, Width.SHORT, "Attempts");
        d.define(RETRY_BACKOFF, Type.LONG, 100L, ConfigDef.Range.atLeast(0), Importance.LOW,
                "Backoff cap before the first retry, in milliseconds (doubling, full jitter).", WRITE, ++o,
                Width.SHORT, "Initial backoff");
        d.define(RETRY_BACKOFF_MAX, Type.LONG, 5_000L, ConfigDef.Range.atLeast(0), Importance.LOW,
                "Largest backoff cap, in milliseconds.", WRITE, ++o, Width.SHORT, "Max backoff");
        d.define(RETRY_DELIVERY, Type.LONG, 120_000L, ConfigDef.Range.atLeast(1), Importance.MEDIUM,
                "Budget of one request, all retries included, in milliseconds. A retryable failure that outlives"
                        + " it makes the task rewind to the first unacknowledged record and throw RetriableException,"
                        + " so Connect redelivers.", WRITE, ++o, Width.SHORT, "Delivery timeout");
        d.define(REDELIVERY_BACKOFF, Type.LONG, 5_000L, ConfigDef.Range.atLeast(0), Importance.LOW,
                "Pause Connect takes before redelivering after a RetriableException, in milliseconds.", WRITE, ++o,
                Width.SHORT, "Redelivery backoff");
        d.define(FLUSH_TIMEOUT, Type.LONG, 30_000L, ConfigDef.Range.atLeast(1), Importance.LOW,
                "Longest wait for acknowledgements when offsets are committed, partitions are closed or the task"
                        + " stops, in milliseconds.", WRITE, ++o, Width.SHORT, "Flush timeout");

        o = 0;
        d.define(DLQ_MAX_BYTES, Type.LONG, PRODUCER_DEFAULT_MAX_REQUEST, ConfigDef.Range.atLeast(1), Importance.MEDIUM,
                "The largest record, in bytes, the dead-letter queue's producer takes: its max.request.size. When"
                        + " unset, " + PRODUCER_OVERRIDE_MAX_REQUEST + " of this connector if given, else the Kafka"
                        + " producer's default (1048576). Set it when the worker's producer.max.request.size differs."
                        + " A record to dead-letter whose estimated size (key, value, headers and Connect's error"
                        + " headers) exceeds it fails the task instead: Kafka Connect reports a refused dead-letter"
                        + " send as a success, so the record would be in neither GreptimeDB nor the queue.",
                ERRORS, ++o, Width.SHORT, "Dead-letter record limit");

        o = 0;
        d.define(TABLE_FORMAT, Type.STRING, "${topic}", new TemplateValidator(), Importance.HIGH,
                "Table name template; ${topic} is replaced by the topic name (after " + TABLE_REGEX + ").",
                MAPPING, ++o, Width.MEDIUM, "Table name format");
        d.define(TABLE_REGEX, Type.STRING, "", new RegexValidator(), Importance.MEDIUM,
                "A regular expression matched against the whole topic name; when it matches, the topic is"
                        + " replaced by " + TABLE_REPLACEMENT + " (with $1... groups) before the template applies.",
                MAPPING, ++o, Width.MEDIUM, "Topic rename regex");
        d.define(TABLE_REPLACEMENT, Type.STRING, "", Importance.MEDIUM,
                "Replacement for topics matching " + TABLE_REGEX + ".", MAPPING, ++o, Width.MEDIUM,
                "Topic rename replacement");
        d.define(TABLE_FIELD, Type.STRING, "", Importance.MEDIUM,
                "Name of a record field holding the table name; when set it wins over the topic, and the field is"
                        + " not stored as a column.", MAPPING, ++o, Width.MEDIUM, "Table name field");
        d.define(TAGS, Type.LIST, "", Importance.HIGH,
                "Fields stored as tag columns (GreptimeDB's primary key, in this order); every other field is a"
                        + " field column.", MAPPING, ++o, Width.LONG, "Tag fields");
        d.define(TS_FIELD, Type.STRING, "", Importance.HIGH,
                "Field holding the time index: a Connect Timestamp, a number in " + TS_UNIT + ", or an ISO-8601"
                        + " instant string. Empty: the Kafka record's timestamp becomes column " + TS_COLUMN + ".",
                MAPPING, ++o, Width.MEDIUM, "Timestamp field");
        d.define(TS_UNIT, Type.STRING, "ms", ConfigDef.ValidString.in("s", "ms", "us", "ns"), Importance.MEDIUM,
                "Unit of a numeric " + TS_FIELD + ", and the precision of the time index column it fills (Connect"
                        + " Timestamps and ISO-8601 text are converted to it; s drops fractions of a second). The"
                        + " Kafka record timestamp fills a millisecond column.", MAPPING, ++o,
                Width.SHORT, "Timestamp unit");
        d.define(TS_COLUMN, Type.STRING, "ts", new ConfigDef.NonEmptyString(), Importance.LOW,
                "Column name of the time index when it comes from the Kafka record timestamp.", MAPPING, ++o,
                Width.SHORT, "Timestamp column");
        d.define(COLUMN_TYPES, Type.STRING, "", new ColumnTypesValidator(), Importance.MEDIUM,
                "Type overrides as column:Type, comma-separated, e.g. cpu:Float64,price:Decimal128(20,4). Types:"
                        + " Bool, Int8..Int64, UInt8..UInt64, Float32, Float64, String, Binary, Json, Date,"
                        + " TimestampSecond/Millisecond/Microsecond/Nanosecond, TimeSecond..TimeNanosecond,"
                        + " Decimal128(p,s). Schemaless values are inferred (integers Int64, decimals Float64,"
                        + " maps and lists Json) unless overridden.", MAPPING, ++o, Width.LONG, "Column types");
        d.define(DELETES, Type.BOOLEAN, false, Importance.MEDIUM,
                "Turn tombstones (null values) into deletes of the row whose tags and time index the record key"
                        + " (a Struct or Map) holds: the time index in timestamp.field, or, when the time index is the"
                        + " record timestamp, in the key field named timestamp.column (milliseconds, a Timestamp or"
                        + " ISO-8601 text; without it the tombstone's own record timestamp)."
                        + " Off: tombstones are skipped (and counted).", MAPPING, ++o, Width.SHORT, "Deletes");
        d.define(HINTS, Type.LIST, "", new HintsValidator(), Importance.LOW,
                "GreptimeDB hints as key=value, comma-separated (ttl=7d, append_mode=true, merge_mode=last_non_null"
                        + " ...). Table options only apply to tables the sink creates. With append_mode=true"
                        + " redelivered records are stored twice.", MAPPING, ++o, Width.LONG, "Hints");
        return d;
    }

    /** Keys of earlier versions and the keys that replace them: a configuration still using one is refused. */
    static final Map<String, String> RENAMED = Map.of(
            "max.in.flight.batches", IN_FLIGHT,
            "buffer.timeout.ms", BUFFER_TIMEOUT,
            "batch.linger.ms", FLUSH_INTERVAL,
            "buffer.max.rows", BUFFER_ROWS);

    /**
     * Parses and checks the settings.
     *
     * @param props the connector's properties
     * @throws ConfigException naming the key when a value is invalid
     */
    public GreptimeSinkConfig(Map<String, String> props) {
        super(CONFIG_DEF, props);
        RENAMED.forEach((old, now) -> {
            if (props.containsKey(old)) {
                throw new ConfigException(old, props.get(old), "this key was renamed: use " + now
                        + " (the batching writer's vocabulary)");
            }
        });
        this.connection = connection(props);
        if (getInt(BATCH_ROWS) > getLong(BUFFER_ROWS)) {
            throw new ConfigException(BUFFER_ROWS, getLong(BUFFER_ROWS), "must be at least " + BATCH_ROWS + " ("
                    + getInt(BATCH_ROWS) + ")");
        }
        if (getLong(RETRY_BACKOFF_MAX) < getLong(RETRY_BACKOFF)) {
            throw new ConfigException(RETRY_BACKOFF_MAX, getLong(RETRY_BACKOFF_MAX), "must be at least "
                    + RETRY_BACKOFF);
        }
        if (getString(TLS_CERT).isEmpty() != getString(TLS_KEY).isEmpty()) {
            throw new ConfigException(TLS_CERT, getString(TLS_CERT), "mutual TLS needs both " + TLS_CERT + " and "
                    + TLS_KEY);
        }
        if (!getString(TABLE_REGEX).isEmpty() && getString(TABLE_REPLACEMENT).isEmpty()) {
            throw new ConfigException(TABLE_REPLACEMENT, "", "is required with " + TABLE_REGEX);
        }
        // The checks every integration shares (lz4 only on the bulk path...), naming this connector's keys.
        SluiceClient.settings(this);
    }

    /**
     * Reads the connection string and refuses a setting it gives that its own key gives too.
     *
     * @return the string's settings, or null when none is set
     */
    private ConnectionConfig connection(Map<String, String> props) {
        Password p = getPassword(CONNECTION_STRING);
        String text = p == null ? "" : p.value();
        if (text.isBlank()) {
            if (getList(ENDPOINTS).isEmpty()) {
                throw new ConfigException(ENDPOINTS, "", "at least one host:port is required (or set "
                        + CONNECTION_STRING + ")");
            }
            return null;
        }
        Map<String, List<String>> settings = new LinkedHashMap<>();
        IN_CONNECTION_STRING.forEach((key, inString) -> settings.put(key, List.of(inString)));
        List<String> hintNames = new ArrayList<>(tableHints().keySet());
        ConnectionConfig c;
        try {
            c = ConnectionOverlap.parse(CONNECTION_STRING, text);
            // An empty password is no password given (defaults do not count either).
            ConnectionOverlap.refuse(c, CONNECTION_STRING, settings, key -> props.containsKey(key)
                    && !(key.equals(PASSWORD) && props.get(key).isEmpty()));
            ConnectionOverlap.refuseHints(c, CONNECTION_STRING, HINTS, hintNames);
            ConnectionOverlap.refuseUnordered(c, CONNECTION_STRING, "(Kafka's order per partition must survive"
                    + " retries)");
        } catch (IllegalArgumentException e) {
            throw new ConfigException(e.getMessage());
        }
        tlsAgrees(props, c);
        return c;
    }

    /**
     * Refuses TLS turned off one way and implied the other, naming both: the string's {@code tls=false} beside a
     * TLS file or server name of the connector's own keys, or {@value #TLS_ENABLED}{@code =false} beside the
     * string's {@code tls_*} keys (either way one side would silently lose).
     */
    private void tlsAgrees(Map<String, String> props, ConnectionConfig c) {
        if (c.has("tls") && c.options().tls() == null) {
            for (String key : List.of(TLS_CA, TLS_CERT, TLS_KEY, TLS_SERVER_NAME)) {
                if (!getString(key).isEmpty()) {
                    throw new ConfigException(key, props.get(key), "implies TLS, and " + CONNECTION_STRING
                            + " turns it off (tls=false): drop one of them");
                }
            }
        }
        if (props.containsKey(TLS_ENABLED) && !getBoolean(TLS_ENABLED)) {
            for (String key : List.of("tls_ca", "tls_cert", "tls_key", "tls_server_name")) {
                if (c.has(key)) {
                    throw new ConfigException(TLS_ENABLED, props.get(TLS_ENABLED), "turns TLS off, and "
                            + CONNECTION_STRING + " implies it (" + key + "): drop one of them");
                }
            }
        }
    }

    /** @return the connection string's settings, or null when {@value #CONNECTION_STRING} is not set */
    public ConnectionConfig connection() {
        return connection;
    }

    /** @return the endpoints: the connection string's hosts, or {@value #ENDPOINTS} */
    public List<String> endpoints() {
        return connection != null ? connection.endpoints() : getList(ENDPOINTS);
    }

    /** @return the database: the connection string's, or {@value #DATABASE} */
    public String database() {
        return connection != null ? connection.database() : getString(DATABASE);
    }

    /** @return the user: the connection string's, or {@value #USERNAME}; empty for none */
    public String username() {
        if (connection != null && connection.hasUser()) {
            return connection.options().authInfo().username();
        }
        return getString(USERNAME);
    }

    /** @return the compression: the connection string's when it names one, else {@value #COMPRESSION} */
    public Compression compression() {
        return connection != null && connection.has("compression") ? connection.context().compression()
                : Compression.parse(getString(COMPRESSION));
    }

    /** @return the write path: the connection string's when it names one, else {@value #WRITE_PATH} */
    public BatchingWriter.Path path() {
        return connection != null && connection.has("write_path") ? connection.batching().path()
                : "bulk".equals(getString(WRITE_PATH)) ? BatchingWriter.Path.Bulk : BatchingWriter.Path.Regular;
    }

    /**
     * The largest record the dead-letter queue takes: {@code dlq.max.record.bytes} when set, else the connector's
     * {@code producer.override.max.request.size}, else the Kafka producer's default.
     *
     * @return bytes
     */
    public long dlqMaxRecordBytes() {
        if (originals().containsKey(DLQ_MAX_BYTES)) {
            return getLong(DLQ_MAX_BYTES);
        }
        Object override = originals().get(PRODUCER_OVERRIDE_MAX_REQUEST);
        if (override != null) {
            try {
                long v = Long.parseLong(override.toString().trim());
                if (v > 0) {
                    return v;
                }
            } catch (NumberFormatException e) {
                throw new ConfigException(PRODUCER_OVERRIDE_MAX_REQUEST, override, "not a number of bytes");
            }
        }
        return getLong(DLQ_MAX_BYTES);
    }

    /**
     * Tells whether Connect adds its error context headers to dead-lettered records.
     *
     * @return the connector's {@code errors.deadletterqueue.context.headers.enable}
     */
    public boolean dlqContextHeaders() {
        Object v = originals().get("errors.deadletterqueue.context.headers.enable");
        return v != null && Boolean.parseBoolean(v.toString().trim());
    }

    /**
     * @return the password: the connection string's when it names one, else {@value #PASSWORD} (for the string's user
     *     when it names only its user); or ""
     */
    public String password() {
        if (connection != null && connection.hasPassword()) {
            return connection.options().authInfo().password();
        }
        Password p = getPassword(PASSWORD);
        return p == null ? "" : p.value();
    }

    /** @return the table options of {@value #HINTS}, by name, in the order given */
    public Map<String, String> tableHints() {
        return parseHints(HINTS, getList(HINTS));
    }

    /** @return the hints by name: {@value #HINTS}, then the connection string's {@code hint.*} */
    public Map<String, String> hints() {
        Map<String, String> out = tableHints();
        if (connection != null) {
            out.putAll(connection.context().hints());
        }
        return out;
    }

    /** @return true when the hints ask for append-mode tables */
    public boolean appendModeHint() {
        return "true".equalsIgnoreCase(hints().get("append_mode"));
    }

    /**
     * Reads {@value #HINTS} entries: {@code name=value}, both trimmed, each name once.
     *
     * @param option the option's name, for the error
     * @param entries the entries
     * @return the values by name, in the order given
     * @throws ConfigException naming the entry that is not {@code name=value} or the name given twice
     */
    private static Map<String, String> parseHints(String option, List<String> entries) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String h : entries) {
            int eq = h.indexOf('=');
            String name = eq < 0 ? "" : h.substring(0, eq).trim();
            String value = eq < 0 ? "" : h.substring(eq + 1).trim();
            if (name.isEmpty() || value.isEmpty()) {
                throw new ConfigException(option, entries, "'" + h + "' is not key=value");
            }
            if (out.put(name, value) != null) {
                throw new ConfigException(option, entries, "the table option '" + name + "' is given twice; keep one"
                        + " entry");
            }
        }
        return out;
    }

    /** Checks endpoints are host:port. */
    private static final class EndpointsValidator implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            @SuppressWarnings("unchecked")
            List<String> list = (List<String>) value;
            if (list == null) {
                throw new ConfigException(name, value, "at least one host:port is required");
            }
            for (String e : list) {
                int colon = e.lastIndexOf(':');
                boolean ok = colon > 0 && colon < e.length() - 1;
                if (ok) {
                    try {
                        int port = Integer.parseInt(e.substring(colon + 1));
                        ok = port > 0 && port < 65_536;
                    } catch (NumberFormatException x) {
                        ok = false;
                    }
                }
                if (!ok) {
                    throw new ConfigException(name, value, "'" + e + "' is not host:port");
                }
            }
        }

        @Override
        public String toString() {
            return "host:port[,host:port...]";
        }
    }

    /** Checks the table name template. */
    private static final class TemplateValidator implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            String s = (String) value;
            if (s == null || s.isBlank()) {
                throw new ConfigException(name, value, "must not be empty");
            }
            String rest = s.replace("${topic}", "");
            if (rest.contains("${")) {
                throw new ConfigException(name, value, "only ${topic} can be substituted");
            }
        }

        @Override
        public String toString() {
            return "text with ${topic}";
        }
    }

    /** Checks a regex compiles. */
    private static final class RegexValidator implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            try {
                Pattern.compile((String) value);
            } catch (PatternSyntaxException e) {
                throw new ConfigException(name, value, "not a regular expression: " + e.getDescription());
            }
        }

        @Override
        public String toString() {
            return "a Java regular expression";
        }
    }

    /** Checks column:Type entries. */
    private static final class ColumnTypesValidator implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            try {
                ColumnTypeOverrides.parse((String) value);
            } catch (IllegalArgumentException e) {
                throw new ConfigException(name, value, e.getMessage());
            }
        }

        @Override
        public String toString() {
            return "column:Type[,column:Type...]";
        }
    }

    /** Checks key=value entries. */
    private static final class HintsValidator implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            @SuppressWarnings("unchecked")
            List<String> list = (List<String>) value;
            parseHints(name, list);
        }

        @Override
        public String toString() {
            return "key=value[,key=value...]";
        }
    }
}
