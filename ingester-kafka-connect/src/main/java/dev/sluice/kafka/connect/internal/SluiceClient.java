package dev.sluice.kafka.connect.internal;

import dev.sluice.BatchingWriter;
import dev.sluice.data.InvalidDataException;
import dev.sluice.data.TableSchema;
import dev.sluice.kafka.connect.GreptimeSinkConfig;
import dev.sluice.metrics.MetricsSink;
import dev.sluice.metrics.MicrometerMetricsSink;
import dev.sluice.sink.internal.Backpressure;
import dev.sluice.sink.internal.SinkClients;
import dev.sluice.sink.internal.SinkSettings;
import dev.sluice.write.Err;
import dev.sluice.write.ErrorKind;
import dev.sluice.sink.internal.ServerTable;
import dev.sluice.sql.ServerColumn;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sink's contact with the Sluice client: opens it ({@link SinkClients}) from the connector's settings, hands
 * rows to the batching writer, and reads what a failure is about from the client ({@link Err#kind()}): a failure
 * no record causes ({@link #misconfigured(Err)}) fails the task instead of dead-lettering records, a passing one
 * ({@link #passing(Err)}) has its records sent again. Direct writes, refused-row isolation and ordered deletes go
 * through {@link #clients()}.
 */
public final class SluiceClient implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SluiceClient.class);
    private final SinkClients clients;
    /** One try: a full buffer after {@code max.block.ms} rewinds the partitions for redelivery. */
    private static final Backpressure ONE_TRY = new Backpressure(Duration.ZERO, "Kafka Connect redelivers the"
            + " records; if this repeats, check that GreptimeDB is reachable, or raise " + GreptimeSinkConfig.BUFFER_ROWS
            + " or " + GreptimeSinkConfig.BUFFER_TIMEOUT);

    /** The connector's words in the shared layer's failures. */
    private static final SinkSettings.Wording WORDING = new SinkSettings.Wording(GreptimeSinkConfig.RETRY_DELIVERY,
            "Records that can never be written go to the dead-letter queue, or fail the task when there is none.",
            "restart the task", Map.of("compression", GreptimeSinkConfig.COMPRESSION,
            "write_path", GreptimeSinkConfig.WRITE_PATH));

    /** The settings the client was opened with; their HTTP endpoint is where existing tables are read. */
    private final SinkSettings settings;
    /** Bulk path: each table's columns as GreptimeDB holds them, read once (empty for a table that did not exist). */
    private final Map<String, List<ServerColumn>> existing = new HashMap<>();

    private SluiceClient(SinkClients clients, SinkSettings settings) {
        this.clients = clients;
        this.settings = settings;
    }

    /**
     * Connects (lazily) and starts the batching writer.
     *
     * @param cfg the connector's settings
     * @param meterRegistry a Micrometer registry for the client's meters, or null
     * @return the client
     */
    public static SluiceClient open(GreptimeSinkConfig cfg, MeterRegistry meterRegistry) {
        // Kafka's order per partition must survive retries for last-write-wins: one batch of a table in flight at
        // a time, so a retried batch never lands after a later one of its table.
        SinkSettings settings = settings(cfg);
        return new SluiceClient(SinkClients.open(settings,
                meterRegistry == null ? MetricsSink.NONE : MicrometerMetricsSink.of(meterRegistry), true,
                Duration.ofMillis(cfg.getLong(GreptimeSinkConfig.BUFFER_TIMEOUT))), settings);
    }

    /**
     * The connector's settings in the shared sink layer's form, with the connection string (when set) to be applied
     * over them when the client opens (a setting given both ways was refused by the config).
     *
     * @param cfg the connector's settings
     * @return the settings
     * @throws ConfigException when the settings do not fit together, naming the connector's keys
     */
    public static SinkSettings settings(GreptimeSinkConfig cfg) {
        Map<String, String> hints = cfg.tableHints();
        Password connection = cfg.getPassword(GreptimeSinkConfig.CONNECTION_STRING);
        try {
            return new SinkSettings(cfg.endpoints(), cfg.database(), cfg.username(), cfg.password(),
                    cfg.getBoolean(GreptimeSinkConfig.TLS_ENABLED), cfg.getString(GreptimeSinkConfig.TLS_CA),
                    cfg.getString(GreptimeSinkConfig.TLS_CERT), cfg.getString(GreptimeSinkConfig.TLS_KEY),
                    cfg.getString(GreptimeSinkConfig.TLS_SERVER_NAME), cfg.getString(GreptimeSinkConfig.TIMEZONE),
                    millis(cfg, GreptimeSinkConfig.REQUEST_TIMEOUT), cfg.getInt(GreptimeSinkConfig.RETRY_ATTEMPTS),
                    millis(cfg, GreptimeSinkConfig.RETRY_BACKOFF), millis(cfg, GreptimeSinkConfig.RETRY_BACKOFF_MAX),
                    millis(cfg, GreptimeSinkConfig.RETRY_DELIVERY), cfg.path(), cfg.getInt(GreptimeSinkConfig.BATCH_ROWS),
                    cfg.getLong(GreptimeSinkConfig.BATCH_BYTES), millis(cfg, GreptimeSinkConfig.FLUSH_INTERVAL),
                    cfg.getInt(GreptimeSinkConfig.IN_FLIGHT), cfg.getLong(GreptimeSinkConfig.BUFFER_ROWS),
                    cfg.getString(GreptimeSinkConfig.COMPRESSION), hints, httpEndpoint(cfg),
                    connection == null ? "" : connection.value(), WORDING);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(e.getMessage());
        }
    }

    /** {@value GreptimeSinkConfig#HTTP_URL}, or {@code none} when it is empty: no table is read over HTTP. */
    private static String httpEndpoint(GreptimeSinkConfig cfg) {
        String url = cfg.getString(GreptimeSinkConfig.HTTP_URL).strip();
        return url.isEmpty() ? "none" : url;
    }

    private static Duration millis(GreptimeSinkConfig cfg, String key) {
        return Duration.ofMillis(cfg.getLong(key));
    }

    /** @return the client, its batching writer and direct writes */
    public SinkClients clients() {
        return clients;
    }

    /** @return true when the batching writer sends batches over the bulk path (Arrow Flight) */
    public boolean bulk() {
        return clients.bulk();
    }

    /**
     * Refuses, on the bulk path, a row schema that path can never carry (the client's rule,
     * {@link BatchingWriter.Path#firstUncarried}: JSON and Vector columns), checked here per row so that the record
     * is refused alone instead of failing its whole batch when the writer opens the table's stream.
     *
     * @param schema the row's schema
     * @throws MappingException naming the table and column
     */
    public void checkPath(TableSchema schema) {
        if (!clients.bulk()) {
            return;
        }
        BatchingWriter.Path.Bulk.firstUncarried(schema).ifPresent(c -> {
            throw new MappingException(schema.tableName(), c.name(), "column " + c.name() + " is " + c.dataType()
                    + ", which write.path=bulk cannot carry (use write.path=regular for records with nested values)",
                    null);
        });
    }

    /**
     * Refuses, on the bulk path, a row whose column lands in a column of GreptimeDB's existing table that the bulk
     * path cannot carry (the client's rule, {@link BatchingWriter.Path#carries}: a text field written into an
     * existing JSON column), before anything is sent. The table's columns are read once per table from
     * {@value GreptimeSinkConfig#HTTP_URL}; without it, or when the HTTP API cannot be read (logged), the server
     * refuses such a row when it is written, and the refusal names the column as well.
     *
     * @param schema the row's schema
     * @throws MappingException naming the table and column
     */
    public void checkExisting(TableSchema schema) {
        String base = clients.bulk() ? ServerTable.baseUrl(settings) : null;
        if (base == null) {
            return;
        }
        List<ServerColumn> columns = existing.computeIfAbsent(schema.tableName(), t -> {
            try {
                List<ServerColumn> c = ServerTable.describe(settings, base, t);
                return c == null ? List.of() : c;
            } catch (IOException e) {
                LOG.warn("GreptimeDB sink: could not read table {}'s columns from {} ({}): columns the bulk path"
                        + " cannot carry are found by the server instead", t, base, e.toString());
                return List.of();
            }
        });
        for (TableSchema.Column c : schema.columns()) {
            for (ServerColumn e : columns) {
                if (e.name().equals(c.name()) && e.type() != null && !BatchingWriter.Path.Bulk.carries(e.type())) {
                    throw new MappingException(schema.tableName(), c.name(), "column " + c.name() + " is "
                            + e.typeName() + " in GreptimeDB's table, which " + GreptimeSinkConfig.WRITE_PATH
                            + "=bulk cannot carry; nothing was sent (use " + GreptimeSinkConfig.WRITE_PATH
                            + "=regular for this table)", null);
                }
            }
        }
    }

    /**
     * Hands a row to the batching writer.
     *
     * @param row the row
     * @return the future of the batch it joined: completes when the batch is acknowledged, or exceptionally
     *     (read it with {@link SinkClients#errOf})
     * @throws MappingException naming the column when a value does not fit its column (the client's reason without
     *     its row number, which is the row's place in an internal batch: the sink names the record instead)
     * @throws Backpressure.BufferStayedFull when the writer's buffer stayed full for its wait
     */
    public CompletableFuture<Void> write(MappedRow row) {
        try {
            return ONE_TRY.write(() -> clients.writer().write(row.schema(), row.values()), () -> { });
        } catch (InvalidDataException e) {
            throw new MappingException(row.schema().tableName(), e.column(), e.reason(), e);
        }
    }

    /**
     * Tells whether a failure comes from the task's settings rather than from its records: the client's
     * classification, {@link Err#kind()} {@link ErrorKind#Setup} (credentials, rights, a missing database or
     * table, a table option from table.hints the server cannot parse).
     *
     * @param err the failure
     * @return true when no record is to blame
     */
    public boolean misconfigured(Err err) {
        return err.kind() == ErrorKind.Setup;
    }

    /**
     * Tells whether the same records may pass later: the client's classification, {@link Err#kind()}
     * {@link ErrorKind#Transient} (every failure the client marks retryable, and the server's passing conditions).
     *
     * @param err the failure
     * @return true when the records are to be sent again rather than dead-lettered
     */
    public boolean passing(Err err) {
        return err.kind() == ErrorKind.Transient;
    }

    /**
     * Sends everything buffered and waits for it to be acknowledged or failed.
     *
     * @param timeout the longest wait
     * @return true when every buffered row was answered within the wait (acknowledged or failed)
     */
    public boolean flush(Duration timeout) {
        return clients.flush(timeout);
    }

    /** @return rows buffered or in flight in the batching writer */
    public long pendingRows() {
        return clients.writer().pendingRows();
    }

    /**
     * Flushes and closes the writer (rows it could not deliver fail their futures), then shuts the client down.
     *
     * @param timeout the longest wait: stop() and close() are bounded by flush.timeout.ms
     */
    public void close(Duration timeout) {
        clients.close(timeout);
    }

    /** Closes with the client's default timeout. */
    @Override
    public void close() {
        clients.close();
    }
}
