package dev.sluice.sink.internal;

import dev.sluice.AuthInfo;
import dev.sluice.BatchWriteException;
import dev.sluice.BatchingWriter;
import dev.sluice.ConnectionConfig;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.LimitExceededException;
import dev.sluice.TlsConfig;
import dev.sluice.data.Table;
import dev.sluice.metrics.MetricsSink;
import dev.sluice.write.Context;
import dev.sluice.write.Err;
import dev.sluice.write.Result;
import dev.sluice.write.StatusCode;
import dev.sluice.write.WriteOk;
import dev.sluice.write.WriteOp;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * An integration's client: the {@link GreptimeDB} client, its batching writer (unless opened for direct writes only)
 * and the per-call context, opened together from settings and closed together within a deadline. Direct writes (outside the batching writer) wait
 * at most {@link #directWriteBound()}: the client's delivery budget plus one request's timeout.
 */
public final class SinkClients implements AutoCloseable {
    private final GreptimeDB db;
    private final BatchingWriter writer;
    /** The batching writer's settings, or null when there is no writer. */
    private final BatchingWriter.Config writerConfig;
    private final Context context;
    private final boolean bulk;
    private final Duration directWriteBound;

    private SinkClients(GreptimeDB db, BatchingWriter writer, BatchingWriter.Config writerConfig, Context context,
                        boolean bulk) {
        this.db = db;
        this.writer = writer;
        this.writerConfig = writerConfig;
        this.context = context;
        this.bulk = bulk;
        GreptimeOptions o = db.options();
        this.directWriteBound = o.retryPolicy().deliveryTimeout().plus(o.requestTimeout());
    }

    /**
     * Opens the client and its batching writer from an integration's own settings, with a connection string's
     * settings over them (a setting given both ways is for the integration to refuse beforehand).
     *
     * @param options the client's settings
     * @param context the per-call context's settings
     * @param writer the batching writer's settings
     * @param connection a connection string's settings, or null
     * @param orderedPerTable true to keep one batch of a table in flight at a time whatever the connection string
     *     says (for integrations whose later write of a key must not land before an earlier one after a retry)
     * @return the opened clients
     * @throws IllegalArgumentException naming the setting when the settings do not fit together
     */
    public static SinkClients open(GreptimeOptions.Builder options, Context.Builder context,
                                   BatchingWriter.Config.Builder writer, ConnectionConfig connection,
                                   boolean orderedPerTable) {
        if (connection != null) {
            connection.applyTo(options);
            connection.applyTo(context);
            connection.applyTo(writer);
        }
        if (orderedPerTable) {
            writer.orderedPerTable(true);
        }
        return open(options.build(), context.build(), writer.build());
    }

    /**
     * Opens the client and its batching writer from a Flink or Spark writer's settings, with their connection
     * string (when they hold one) applied over them.
     *
     * @param settings the settings
     * @param metrics where the client's counters go
     * @param orderedPerTable true to keep one batch of a table in flight at a time whatever the connection string
     *     says
     * @return the opened clients
     * @throws IllegalArgumentException naming the setting when the settings do not fit together
     */
    public static SinkClients open(SinkSettings settings, MetricsSink metrics, boolean orderedPerTable) {
        return open(settings, metrics, orderedPerTable, settings.requestTimeout());
    }

    /**
     * Opens the client and its batching writer from an integration's settings, with their connection string (when
     * they hold one) applied over them, as {@link #open(SinkSettings, MetricsSink, boolean)} does, for an
     * integration with its own setting of how long a write waits for room in a full buffer.
     *
     * @param settings the settings
     * @param metrics where the client's counters go
     * @param orderedPerTable true to keep one batch of a table in flight at a time whatever the connection string
     *     says
     * @param maxBlock how long a write waits for room in a full buffer (the connection string's {@code max_block}
     *     replaces it)
     * @return the opened clients
     * @throws IllegalArgumentException naming the setting when the settings do not fit together
     */
    public static SinkClients open(SinkSettings settings, MetricsSink metrics, boolean orderedPerTable,
                                   Duration maxBlock) {
        GreptimeOptions.Builder options = options(settings, metrics);
        Context.Builder context = settings.context();
        BatchingWriter.Config.Builder writer = settings.batching().maxBlock(maxBlock);
        applyConnection(settings, options, context, writer);
        return open(options, context, writer, null, orderedPerTable);
    }

    /**
     * Opens the client from an integration's settings for direct writes only, with their connection string (when
     * they hold one) applied over them, as {@link #open(SinkSettings, MetricsSink, boolean)} applies it: for an
     * integration that writes its batches over its own writers. The settings' batching fields are not used.
     *
     * @param settings the settings
     * @param metrics where the client's counters go
     * @return the opened clients; {@link #writer()} throws
     * @throws IllegalArgumentException naming the setting when the settings do not fit together
     */
    public static SinkClients openDirect(SinkSettings settings, MetricsSink metrics) {
        GreptimeOptions.Builder options = options(settings, metrics);
        Context.Builder context = settings.context();
        applyConnection(settings, options, context, null);
        return openDirect(options.build(), context.build());
    }

    private static GreptimeOptions.Builder options(SinkSettings settings, MetricsSink metrics) {
        return settings.clientOptions(GreptimeOptions.newBuilder(settings.endpoints(), settings.database()), metrics);
    }

    /**
     * Applies the settings' connection string (when they hold one) over the builders made from them. The string's
     * credentials give way to the settings' own: {@link SinkSettings#connect(String)} worked those out, the password
     * kept apart from a string that names only its user included.
     */
    private static void applyConnection(SinkSettings settings, GreptimeOptions.Builder options,
                                        Context.Builder context, BatchingWriter.Config.Builder writer) {
        if (settings.connection().isEmpty()) {
            return;
        }
        ConnectionConfig connection = ConnectionConfig.parse(settings.connection());
        connection.applyTo(options);
        connection.applyTo(context);
        if (writer != null) {
            connection.applyTo(writer);
        }
        if (!settings.username().isEmpty()) {
            options.authInfo(new AuthInfo(settings.username(), settings.password()));
        }
    }

    /**
     * Opens the client and its batching writer from a connection string alone.
     *
     * @param connection the connection string's settings
     * @return the opened clients
     */
    public static SinkClients open(ConnectionConfig connection) {
        return open(connection.options(), connection.context(), connection.batching());
    }

    /**
     * Opens the client, then its batching writer (on the bulk path when the writer's settings choose it); when
     * the writer cannot be opened, the client is shut down before the failure is thrown.
     *
     * @param options the client's settings
     * @param context the per-call context
     * @param writerConfig the batching writer's settings
     * @return the opened clients
     */
    public static SinkClients open(GreptimeOptions options, Context context, BatchingWriter.Config writerConfig) {
        GreptimeDB db = GreptimeDB.create(options);
        try {
            BatchingWriter w = db.batchingWriter(writerConfig, context);
            return new SinkClients(db, w, writerConfig, context, writerConfig.path() == BatchingWriter.Path.Bulk);
        } catch (RuntimeException | Error e) {
            db.shutdownNow();
            throw e;
        }
    }

    /**
     * Opens the client for direct writes only, with no batching writer: for an integration that writes its batches
     * itself (over its own writers) and needs {@link #writeDirect} and {@link RefusedRowIsolator}.
     *
     * @param options the client's settings
     * @param context the per-call context of direct writes
     * @return the opened clients; {@link #writer()} throws
     */
    public static SinkClients openDirect(GreptimeOptions options, Context context) {
        return new SinkClients(GreptimeDB.create(options), null, null, context, false);
    }

    /**
     * Builds TLS settings from an integration's separate settings.
     *
     * @param enabled whether TLS was asked for
     * @param trustCertificates a PEM file of trusted certificates, or null or empty for the JDK's (a file given
     *     turns TLS on)
     * @param clientCertificate a client certificate's PEM file, or null or empty for none
     * @param clientKey the client certificate's private key PEM file
     * @param serverName the name to check the server's certificate against, or null or empty for the host's
     * @return the settings, or null when TLS is off
     */
    public static TlsConfig tls(boolean enabled, String trustCertificates, String clientCertificate, String clientKey,
                                String serverName) {
        boolean ca = trustCertificates != null && !trustCertificates.isEmpty();
        if (!enabled && !ca) {
            return null;
        }
        TlsConfig.Builder t = TlsConfig.newBuilder().trustCertificates(ca ? Path.of(trustCertificates) : null);
        if (clientCertificate != null && !clientCertificate.isEmpty()) {
            t.clientCertificate(Path.of(clientCertificate), Path.of(clientKey));
        }
        return t.serverNameOverride(serverName == null || serverName.isEmpty() ? null : serverName).build();
    }

    /** @return the client */
    public GreptimeDB db() {
        return db;
    }

    /**
     * @return the batching writer
     * @throws IllegalStateException when the clients were opened for direct writes only
     */
    public BatchingWriter writer() {
        if (writer == null) {
            throw new IllegalStateException("these clients were opened for direct writes only (openDirect): open them"
                    + " with a batching writer's settings to write through one");
        }
        return writer;
    }

    /**
     * @return the batching writer's settings, as it was opened with them (a connection string's included)
     * @throws IllegalStateException when the clients were opened for direct writes only
     */
    public BatchingWriter.Config writerConfig() {
        writer();
        return writerConfig;
    }

    /** @return the per-call context of direct writes */
    public Context context() {
        return context;
    }

    /** @return true when the batching writer sends batches over the bulk path (Arrow Flight) */
    public boolean bulk() {
        return bulk;
    }

    /** @return the longest a direct write waits for its answer */
    public Duration directWriteBound() {
        return directWriteBound;
    }

    /**
     * Writes one table's rows now, outside the batching writer, and waits at most {@link #directWriteBound()} for
     * the answer. A delete from a table that does not exist has nothing to remove: it is acknowledged.
     *
     * @param table the rows (completed by this call)
     * @param op insert, or delete (rows addressed by their tags and time index)
     * @return the client's answer; no answer within the bound, an interrupt or a failure of the call itself is a
     *     retryable error made here
     */
    public Result<WriteOk, Err> writeDirect(Table table, WriteOp op) {
        return writeDirect(table, op, context);
    }

    /**
     * Writes one table's rows now with a context of the caller's own (for example table options as hints), as
     * {@link #writeDirect(Table, WriteOp)} does with the clients' context.
     *
     * @param table the rows (completed by this call)
     * @param op insert, or delete (rows addressed by their tags and time index)
     * @param context the per-call context
     * @return the client's answer, as {@link #writeDirect(Table, WriteOp)} gives it
     */
    public Result<WriteOk, Err> writeDirect(Table table, WriteOp op, Context context) {
        String name = table.tableName();
        CompletableFuture<Result<WriteOk, Err>> f = db.write(List.of(table), op, context);
        try {
            Result<WriteOk, Err> r = f.get(directWriteBound.toMillis(), TimeUnit.MILLISECONDS);
            if (!r.isOk() && op == WriteOp.Delete && r.getErr().statusCode() == StatusCode.TableNotFound) {
                return Result.ok(new WriteOk(0, List.of(name)));
            }
            return r;
        } catch (TimeoutException e) {
            return Result.err(localErr(StatusCode.Grpc.DEADLINE_EXCEEDED, true, name, "no answer from GreptimeDB within "
                    + directWriteBound.toMillis() + " ms (the client's delivery timeout plus its request timeout)", e));
        } catch (ExecutionException e) {
            return Result.err(localErr(StatusCode.Grpc.UNKNOWN, true, name, String.valueOf(e.getCause()), e.getCause()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Result.err(localErr(StatusCode.Grpc.CANCELLED, true, name, "interrupted", e));
        }
    }

    /**
     * Reads the failure of a batch future the batching writer returned.
     *
     * @param failure the exception it completed with
     * @param table the batch's table
     * @return the client's error; a refusal by the client's own rules is never retryable
     *     ({@link Err#refusedByClient}); one made here, retryable, when the client gave none (no answer from the
     *     server, or the writer closed)
     */
    public static Err errOf(Throwable failure, String table) {
        Throwable t = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        if (t instanceof BatchWriteException b && b.err() != null) {
            return b.err();
        }
        if (t instanceof IllegalArgumentException refusal) {
            return Err.refusedByClient(refusal, List.of(table));
        }
        return localErr(StatusCode.Grpc.UNAVAILABLE, true, table, String.valueOf(t.getMessage()), t);
    }

    /**
     * An error found by the integration rather than answered by the server (code -1, as the client gives such
     * failures); its {@link Err#kind()} follows from the gRPC status and {@code retryable}.
     *
     * @param grpc the gRPC status that says what kind of failure it is
     * @param retryable whether the same rows may pass later
     * @param table the table concerned
     * @param message what happened
     * @param cause the underlying exception, or null
     * @return the error
     */
    public static Err localErr(StatusCode.Grpc grpc, boolean retryable, String table, String message, Throwable cause) {
        return new Err(-1, grpc, message, retryable, List.of(table), cause);
    }

    /**
     * Describes a failure for an integration's messages: the server's text, its code and gRPC status.
     *
     * @param err the failure
     * @return the description
     */
    public static String describe(Err err) {
        return err.message() + " (code " + err.code() + ", gRPC " + err.grpcCode() + ")";
    }

    /**
     * Sends everything buffered and waits for it to be answered.
     *
     * @param timeout the longest wait
     * @return true when every buffered row was answered within the wait (acknowledged or failed)
     */
    public boolean flush(Duration timeout) {
        if (writer == null) {
            return true;
        }
        try {
            writer.flush(timeout);
            return true;
        } catch (LimitExceededException e) {
            return false;
        }
    }

    /**
     * Flushes and closes the writer (rows it could not deliver fail their futures), then shuts the client down,
     * all within {@code timeout}: when the flush runs out of time, the calls in flight are cancelled so that closing
     * the writer fails their rows at once.
     *
     * @param timeout the longest wait for the rows buffered and the calls in flight
     */
    public void close(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        if (!flush(timeout)) {
            db.shutdownNow();
        }
        try {
            if (writer != null) {
                writer.close();
            }
        } finally {
            if (!db.shutdownGracefully(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())))) {
                db.shutdownNow();
            }
        }
    }

    /** Closes within the client's request timeout. */
    @Override
    public void close() {
        close(db.options().requestTimeout());
    }
}
