package dev.sluice.kafka.connect.internal;

import dev.sluice.AuthInfo;
import dev.sluice.BatchWriteException;
import dev.sluice.BatchingWriter;
import dev.sluice.ConnectionConfig;
import dev.sluice.write.Compression;
import dev.sluice.write.Context;
import dev.sluice.write.Err;
import dev.sluice.write.ErrorKind;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.InvalidDataException;
import dev.sluice.LimitExceededException;
import dev.sluice.write.Result;
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.StatusCode;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.TlsConfig;
import dev.sluice.write.WriteOk;
import dev.sluice.write.WriteOp;
import dev.sluice.kafka.connect.GreptimeSinkConfig;
import dev.sluice.metrics.MetricsSink;
import dev.sluice.metrics.MicrometerMetricsSink;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The sink's only contact with the Sluice client API: builds the client and its batching writer from the
 * connector's settings, hands rows to the writer, writes rows directly (to single out bad records), and turns
 * reads the client's outcomes ({@link Result} of {@link WriteOk} or {@link Err}, the types every client call
 * answers with). What a failure is about comes from the client ({@link Err#kind()}): a failure no record causes
 * ({@link #misconfigured(Err)}) fails the task instead of dead-lettering records, a passing one
 * ({@link #passing(Err)}) has its records sent again. Keeping every client call here lets the rest
 * of the sink stay as it is when the client's API changes.
 */
public final class SluiceClient implements AutoCloseable {
    private final GreptimeDB db;
    private final BatchingWriter writer;
    private final Context context;
    private final boolean bulk;
    /** The longest a direct write can take: the delivery budget plus one call's deadline. */
    private final Duration writeBound;

    /** The batching writer's buffer stayed full for the configured wait. */
    public static final class BufferFullException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        BufferFullException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private SluiceClient(GreptimeDB db, BatchingWriter writer, Context context, boolean bulk, Duration writeBound) {
        this.db = db;
        this.bulk = bulk;
        this.writer = writer;
        this.context = context;
        this.writeBound = writeBound;
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
        TlsConfig tls = tls(cfg);
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
        ConnectionConfig connection = cfg.connection();
        if (connection != null) {
            // The string's settings over the connector's (a setting given both ways was refused by the config).
            connection.applyTo(b);
            connection.applyTo(cb);
            connection.applyTo(wb);
        }
        // Kafka's order per partition must survive retries for last-write-wins: one batch of a table in flight at
        // a time, so a retried batch never lands after a later one of its table.
        BatchingWriter.Config writerConfig = wb.orderedPerTable(true).build();
        GreptimeOptions options = b.build();
        Context ctx = cb.build();
        GreptimeDB db = GreptimeDB.create(options);
        try {
            BatchingWriter w = db.batchingWriter(writerConfig, ctx);
            return new SluiceClient(db, w, ctx, writerConfig.path() == BatchingWriter.Path.Bulk,
                    options.retryPolicy().deliveryTimeout().plus(options.requestTimeout()));
        } catch (RuntimeException e) {
            db.shutdownNow();
            throw e;
        }
    }

    private static TlsConfig tls(GreptimeSinkConfig cfg) {
        String ca = cfg.getString(GreptimeSinkConfig.TLS_CA);
        if (!cfg.getBoolean(GreptimeSinkConfig.TLS_ENABLED) && ca.isEmpty()) {
            return null;
        }
        TlsConfig.Builder t = TlsConfig.newBuilder().trustCertificates(ca.isEmpty() ? null : Path.of(ca));
        String cert = cfg.getString(GreptimeSinkConfig.TLS_CERT);
        if (!cert.isEmpty()) {
            t.clientCertificate(Path.of(cert), Path.of(cfg.getString(GreptimeSinkConfig.TLS_KEY)));
        }
        String name = cfg.getString(GreptimeSinkConfig.TLS_SERVER_NAME);
        return t.serverNameOverride(name.isEmpty() ? null : name).build();
    }

    /** @return true when the batching writer sends batches over the bulk path (Arrow Flight) */
    public boolean bulk() {
        return bulk;
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
        if (!bulk) {
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
     *     (read it with {@link #outcomeOf(Throwable)})
     * @throws MappingException naming the column when a value does not fit its column
     * @throws BufferFullException when the writer's buffer stayed full for its wait
     */
    public CompletableFuture<Void> write(MappedRow row) {
        try {
            return writer.write(row.schema(), row.values());
        } catch (InvalidDataException e) {
            throw new MappingException(row.schema().tableName(), e.column(), reason(e, false), e);
        } catch (LimitExceededException e) {
            throw new BufferFullException(e.getMessage(), e);
        }
    }

    /**
     * What a value check found, without the row number: that number is the row's place in an internal batch,
     * which means nothing to the user (the sink names the record by topic, partition and offset instead).
     *
     * @param e the check's exception
     * @param withColumn whether to name the column (for a message that does not name it otherwise)
     * @return its reason
     */
    static String reason(InvalidDataException e, boolean withColumn) {
        String message = e.getMessage();
        StringBuilder prefix = new StringBuilder("table '").append(e.table()).append('\'');
        if (e.column() != null) {
            prefix.append(", column '").append(e.column()).append('\'');
        }
        if (e.row() >= 0) {
            prefix.append(", row ").append(e.row());
        }
        prefix.append(": ");
        String reason = message != null && message.startsWith(prefix.toString())
                ? message.substring(prefix.length()) : String.valueOf(message);
        return e.column() == null || !withColumn ? reason : "column " + e.column() + ": " + reason;
    }

    /**
     * Reads the failure of a batch future returned by {@link #write(MappedRow)}.
     *
     * @param failure the exception it completed with
     * @param table the batch's table
     * @return the client's error; one made here, retryable, when the client gave none (the writer closed)
     */
    public Err errOf(Throwable failure, String table) {
        Throwable t = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        if (t instanceof BatchWriteException b && b.err() != null) {
            return b.err();
        }
        // No answer from the server (transport failure, writer closed): the data may be sent again.
        return localErr(dev.sluice.write.StatusCode.Grpc.UNAVAILABLE, true, table, String.valueOf(t.getMessage()), t);
    }

    /**
     * An error found by the sink itself rather than answered by the server (code -1, as the client gives such
     * failures).
     */
    private static Err localErr(dev.sluice.write.StatusCode.Grpc grpc, boolean retryable, String table, String message,
                                Throwable cause) {
        return new Err(-1, grpc, message, retryable, List.of(table), cause);
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
     * Describes a failure for the task's messages: the server's text, its code and gRPC status.
     *
     * @param err the failure
     * @return the description
     */
    public static String describe(Err err) {
        return err.message() + " (code " + err.code() + ", gRPC " + err.grpcCode() + ")";
    }

    /**
     * Writes rows of one table now, outside the batching writer, and waits for the answer.
     *
     * @param schema their schema
     * @param rows the rows (already accepted once by {@link #write(MappedRow)})
     * @param delete true to delete the rows (addressed by tags and time index) instead of inserting them
     * @return the client's answer; a wait past the client's own bound counts as a retryable failure
     */
    public Result<WriteOk, Err> writeNow(TableSchema schema, List<Object[]> rows, boolean delete) {
        String table = schema.tableName();
        Table t = Table.from(schema, rows.size());
        try {
            for (Object[] r : rows) {
                t.addRow(r);
            }
        } catch (InvalidDataException e) {
            return Result.err(localErr(dev.sluice.write.StatusCode.Grpc.INVALID_ARGUMENT, false, table, reason(e, true), e));
        }
        CompletableFuture<Result<WriteOk, Err>> f = db.write(List.of(t), delete ? WriteOp.Delete : WriteOp.Insert, context);
        try {
            Result<WriteOk, Err> r = f.get(writeBound.toMillis() + 5_000, TimeUnit.MILLISECONDS);
            if (!r.isOk() && delete && r.getErr().statusCode() == StatusCode.TableNotFound) {
                // A delete from a table that does not exist has nothing to remove.
                return Result.ok(new WriteOk(0, List.of(table)));
            }
            return r;
        } catch (TimeoutException e) {
            return Result.err(localErr(dev.sluice.write.StatusCode.Grpc.DEADLINE_EXCEEDED, true, table, "no answer within "
                    + writeBound.toMillis() + " ms", e));
        } catch (ExecutionException e) {
            return Result.err(localErr(dev.sluice.write.StatusCode.Grpc.UNKNOWN, true, table, String.valueOf(e.getCause()),
                    e.getCause()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Result.err(localErr(dev.sluice.write.StatusCode.Grpc.CANCELLED, true, table, "interrupted", e));
        }
    }

    /**
     * Sends everything buffered and waits for it to be acknowledged or failed.
     *
     * @param timeout the longest wait
     * @return true when every buffered row was answered within the wait (acknowledged or failed)
     */
    public boolean flush(Duration timeout) {
        try {
            writer.flush(timeout);
            return true;
        } catch (LimitExceededException e) {
            return false;
        }
    }

    /** @return rows buffered or in flight in the batching writer */
    public long pendingRows() {
        return writer.pendingRows();
    }

    /**
     * Flushes and closes the writer (rows it could not deliver fail their futures), then shuts the client down.
     *
     * @param timeout the longest wait for the client's calls in flight
     */
    public void close(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        boolean drained;
        try {
            writer.flush(timeout);
            drained = true;
        } catch (dev.sluice.LimitExceededException e) {
            drained = false; // still unanswered after the flush timeout
        }
        if (!drained) {
            // Cancels what is in flight, so that closing the writer fails its rows at once instead of waiting for
            // the request timeout: stop() and close() are bounded by flush.timeout.ms.
            db.shutdownNow();
        }
        try {
            writer.close();
        } finally {
            if (!db.shutdownGracefully(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())))) {
                db.shutdownNow();
            }
        }
    }

    /** Closes with the client's default timeout. */
    @Override
    public void close() {
        close(db.options().requestTimeout());
    }
}
