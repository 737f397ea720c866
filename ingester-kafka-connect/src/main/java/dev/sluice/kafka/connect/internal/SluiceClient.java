package dev.sluice.kafka.connect.internal;

import dev.sluice.BatchingWriter;
import dev.sluice.GreptimeOptions;
import dev.sluice.TlsConfig;
import dev.sluice.data.InvalidDataException;
import dev.sluice.data.TableSchema;
import dev.sluice.kafka.connect.GreptimeSinkConfig;
import dev.sluice.metrics.MetricsSink;
import dev.sluice.metrics.MicrometerMetricsSink;
import dev.sluice.sink.internal.Backpressure;
import dev.sluice.sink.internal.SinkClients;
import dev.sluice.write.Compression;
import dev.sluice.write.Context;
import dev.sluice.write.Err;
import dev.sluice.write.ErrorKind;
import dev.sluice.write.RetryPolicy;
import dev.sluice.AuthInfo;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * The sink's contact with the Sluice client: opens it ({@link SinkClients}) from the connector's settings, hands
 * rows to the batching writer, and reads what a failure is about from the client ({@link Err#kind()}): a failure
 * no record causes ({@link #misconfigured(Err)}) fails the task instead of dead-lettering records, a passing one
 * ({@link #passing(Err)}) has its records sent again. Direct writes, refused-row isolation and ordered deletes go
 * through {@link #clients()}.
 */
public final class SluiceClient implements AutoCloseable {
    private final SinkClients clients;
    /** One try: a full buffer after {@code max.block.ms} rewinds the partitions for redelivery. */
    private static final Backpressure ONE_TRY = new Backpressure(Duration.ZERO, "Kafka Connect redelivers the"
            + " records; if this repeats, check that GreptimeDB is reachable, or raise " + GreptimeSinkConfig.BUFFER_ROWS
            + " or " + GreptimeSinkConfig.BUFFER_TIMEOUT);

    private SluiceClient(SinkClients clients) {
        this.clients = clients;
    }

    /**
     * Connects (lazily) and starts the batching writer.
     *
     * @param cfg the connector's settings
     * @param meterRegistry a Micrometer registry for the client's meters, or null
     * @return the client
     */
    public static SluiceClient open(GreptimeSinkConfig cfg, MeterRegistry meterRegistry) {
        RetryPolicy retry = RetryPolicy.newBuilder().maxAttempts(cfg.getInt(GreptimeSinkConfig.RETRY_ATTEMPTS))
                .backoff(Duration.ofMillis(cfg.getLong(GreptimeSinkConfig.RETRY_BACKOFF)),
                        Duration.ofMillis(cfg.getLong(GreptimeSinkConfig.RETRY_BACKOFF_MAX)))
                .deliveryTimeout(Duration.ofMillis(cfg.getLong(GreptimeSinkConfig.RETRY_DELIVERY))).build();
        GreptimeOptions.Builder b = GreptimeOptions.newBuilder(cfg.endpoints(), cfg.database())
                .requestTimeout(Duration.ofMillis(cfg.getLong(GreptimeSinkConfig.REQUEST_TIMEOUT)))
                .retryPolicy(retry)
                .timezone(cfg.getString(GreptimeSinkConfig.TIMEZONE))
                .metrics(meterRegistry == null ? MetricsSink.NONE : MicrometerMetricsSink.of(meterRegistry));
        String user = cfg.getString(GreptimeSinkConfig.USERNAME);
        if (!user.isEmpty()) {
            b.authInfo(new AuthInfo(user, cfg.password()));
        }
        TlsConfig tls = SinkClients.tls(cfg.getBoolean(GreptimeSinkConfig.TLS_ENABLED),
                cfg.getString(GreptimeSinkConfig.TLS_CA), cfg.getString(GreptimeSinkConfig.TLS_CERT),
                cfg.getString(GreptimeSinkConfig.TLS_KEY), cfg.getString(GreptimeSinkConfig.TLS_SERVER_NAME));
        if (tls != null) {
            b.tls(tls);
        }
        Context.Builder cb = Context.newBuilder().compression(Compression.parse(cfg.getString(GreptimeSinkConfig.COMPRESSION)));
        for (String h : cfg.getList(GreptimeSinkConfig.HINTS)) {
            int eq = h.indexOf('=');
            cb.hint(h.substring(0, eq).trim(), h.substring(eq + 1).trim());
        }
        BatchingWriter.Config.Builder wb = BatchingWriter.Config.newBuilder()
                .maxBatchRows(cfg.getInt(GreptimeSinkConfig.BATCH_ROWS))
                .maxBatchBytes(cfg.getLong(GreptimeSinkConfig.BATCH_BYTES))
                .flushInterval(Duration.ofMillis(cfg.getLong(GreptimeSinkConfig.FLUSH_INTERVAL)))
                .maxInFlightRequests(cfg.getInt(GreptimeSinkConfig.IN_FLIGHT))
                .maxBufferedRows(cfg.getLong(GreptimeSinkConfig.BUFFER_ROWS))
                .maxBlock(Duration.ofMillis(cfg.getLong(GreptimeSinkConfig.BUFFER_TIMEOUT)))
                .path(cfg.path());
        // The string's settings over the connector's (a setting given both ways was refused by the config).
        // Kafka's order per partition must survive retries for last-write-wins: one batch of a table in flight at
        // a time, so a retried batch never lands after a later one of its table.
        return new SluiceClient(SinkClients.open(b, cb, wb, cfg.connection(), true));
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
