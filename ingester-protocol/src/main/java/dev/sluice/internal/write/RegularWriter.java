package dev.sluice.internal.write;

import dev.sluice.write.StatusCode;
import dev.sluice.write.Compression;
import dev.sluice.write.Context;
import dev.sluice.write.Err;
import dev.sluice.GreptimeOptions;
import dev.sluice.write.Result;
import dev.sluice.data.SemanticType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.write.WriteOk;
import dev.sluice.write.WriteOp;
import dev.sluice.internal.error.GrpcErrors;
import dev.sluice.internal.send.UnaryAttempts;
import dev.sluice.internal.transport.Endpoints;
import dev.sluice.internal.transport.HeaderInterceptor;
import dev.sluice.internal.wire.AuthHeader;
import dev.sluice.internal.wire.Basic;
import dev.sluice.internal.wire.ColumnDef;
import dev.sluice.internal.wire.CreateTableExpr;
import dev.sluice.internal.wire.DdlRequest;
import dev.sluice.internal.wire.GreptimeDatabaseGrpc;
import dev.sluice.internal.wire.GreptimeRequest;
import dev.sluice.internal.wire.GreptimeResponse;
import dev.sluice.internal.wire.RequestHeader;
import dev.sluice.LimitExceededException;
import dev.sluice.write.RetryPolicy;
import dev.sluice.internal.limit.InFlightLimiter;
import dev.sluice.metrics.MetricsSink;
import io.grpc.CallOptions;
import io.grpc.MethodDescriptor;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/** Request-response writes over {@code GreptimeDatabase/Handle}. */
public final class RegularWriter {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(RegularWriter.class);
    /** Hints that are not table options. */
    private static final Set<String> NOT_TABLE_OPTIONS = Set.of("auto_create_table", "physical_table", "read_preference");

    private final GreptimeOptions options;
    private final Endpoints endpoints;
    private final RequestHeader header;
    private final byte[] headerBytes;
    /** Writes sent or waiting to retry: what callers and gauges see, given back before a caller's future completes. */
    private final AtomicInteger inFlight = new AtomicInteger();
    /** Writes whose caller's future is not complete yet: what a graceful shutdown waits for. */
    private final AtomicInteger unsettled = new AtomicInteger();
    private final LongAdder retries = new LongAdder();
    private final InFlightLimiter limiter;
    private final MetricsSink metrics;
    private final ScheduledExecutorService timer;
    /** The time {@link #timer} runs on, in nanoseconds: what delivery deadlines are counted on. */
    private final LongSupplier clock;
    /** Sends each unary request and resends it by the shared attempt rules. */
    private final UnaryAttempts<GreptimeResponse> unary;
    private volatile boolean closed;
    private volatile boolean stopped;
    /** Every accepted write not yet answered, with its tables' names. */
    private final Map<CompletableFuture<Result<WriteOk, Err>>, List<String>> unanswered = new ConcurrentHashMap<>();
    /** Streams opened and not yet answered: a shutdown fails them (a replay may wait on the stopped timer). */
    private final Set<HandleRequestsStream> openStreams = ConcurrentHashMap.newKeySet();

    /**
     * Creates the writer.
     *
     * @param options client options
     * @param endpoints the channels
     * @param limiter the client-wide budget
     * @param timer schedules retries, streams' replays and their answer deadlines
     * @param clock the time {@code timer} runs on, in nanoseconds ({@code System::nanoTime}, or a test's manual clock)
     * @param metrics where outcomes are reported
     */
    public RegularWriter(GreptimeOptions options, Endpoints endpoints, InFlightLimiter limiter,
                         ScheduledExecutorService timer, LongSupplier clock, MetricsSink metrics) {
        this.metrics = metrics;
        this.options = options;
        this.endpoints = endpoints;
        this.limiter = limiter;
        this.timer = timer;
        this.clock = clock;
        RequestHeader.Builder h = RequestHeader.newBuilder().setDbname(options.database()).setTimezone(options.timezone());
        if (options.authInfo() != null) {
            h.setAuthorization(AuthHeader.newBuilder().setBasic(Basic.newBuilder()
                    .setUsername(options.authInfo().username()).setPassword(options.authInfo().password())));
        }
        this.header = h.build();
        this.headerBytes = header.toByteArray();
        this.unary = new UnaryAttempts<>(endpoints, timer, clock, this::stopped, options.requestTimeout(),
                RegularWriter::toResult, this::explain, () -> {
                    retries.increment();
                    metrics.retry("regular");
                });
    }

    /**
     * Returns the serialized request header (database, credentials, timezone) every request carries.
     *
     * @return the header bytes
     */
    public byte[] headerBytes() {
        return headerBytes.clone();
    }

    /**
     * Builds call options for a context: deadline, compression and hints.
     *
     * @param ctx the call's context
     * @return call options
     */
    public CallOptions callOptions(Context ctx) {
        CallOptions o = CallOptions.DEFAULT.withDeadlineAfter(options.requestTimeout().toNanos(), TimeUnit.NANOSECONDS);
        if (ctx.compression() == Compression.Gzip) {
            o = o.withCompression("gzip");
        } else if (ctx.compression() == Compression.Zstd) {
            o = o.withCompression("zstd");
        } else if (ctx.compression() == Compression.Lz4) {
            throw new IllegalArgumentException("Lz4 applies to bulk writes only; regular writes take None, Gzip or Zstd");
        }
        String hints = HeaderInterceptor.hintsHeader(ctx.hints());
        return hints.isEmpty() ? o : o.withOption(HeaderInterceptor.HINTS, hints);
    }

    /**
     * Writes tables, retrying per the context's (or the client's) policy on another endpoint when possible.
     *
     * @param tables tables to write (completed by this call)
     * @param op insert or delete
     * @param ctx hints, compression and retry policy
     * @return the outcome; never completes exceptionally
     */
    public CompletableFuture<Result<WriteOk, Err>> write(Collection<Table> tables, WriteOp op, Context ctx) {
        return write(tables, op, ctx, 0);
    }

    /**
     * Writes tables as {@link #write(Collection, WriteOp, Context)} does, failing by a deadline set earlier (a
     * batching writer's batch keeps the deadline counted from its own write) when that comes first.
     *
     * @param tables tables to write (completed by this call)
     * @param op insert or delete
     * @param ctx hints, compression and retry policy
     * @param notAfter the latest delivery deadline, on this writer's clock, or 0 for the policy's from now
     * @return the outcome; never completes exceptionally
     */
    public CompletableFuture<Result<WriteOk, Err>> write(Collection<Table> tables, WriteOp op, Context ctx,
                                                         long notAfter) {
        if (tables == null || op == null || ctx == null) {
            throw new NullPointerException("tables, op and ctx are required");
        }
        List<Table> nonEmpty = new ArrayList<>(tables.size());
        List<String> names = new ArrayList<>(tables.size());
        for (Table t : tables) {
            if (t == null) {
                throw new NullPointerException("a table in the write is null");
            }
            t.complete();
            names.add(t.tableName());
            if (t.rowCount() > 0) {
                nonEmpty.add(t);
            }
        }
        CallOptions callOptions = callOptions(ctx);
        if (nonEmpty.isEmpty()) {
            return CompletableFuture.completedFuture(Result.ok(new WriteOk(0, names)));
        }
        RequestEncoder encoder = new RequestEncoder(headerBytes, op, nonEmpty);
        if (encoder.size() > options.maxMessageSize()) {
            return writeInParts(encoder, op, nonEmpty, callOptions, ctx, names, notAfter);
        }
        long start = System.nanoTime();
        CompletableFuture<Result<WriteOk, Err>> f = send(WriteMethods.HANDLE, encoder, encoder.size(), callOptions, ctx,
                names, notAfter, false);
        if (metrics != MetricsSink.NONE) {
            // Recorded before the caller's future completes, so whoever waits on it sees the meters updated.
            return f.thenApply(r -> {
                record("regular", r, nonEmpty, encoder.size(), start);
                return r;
            });
        }
        return f;
    }

    /**
     * Sends a write over {@code maxMessageSize} as several requests of consecutive rows (each table apart), and
     * answers once: the sum of affected rows, or the first failed part's error naming that part and what the
     * other parts stored.
     */
    private CompletableFuture<Result<WriteOk, Err>> writeInParts(RequestEncoder whole, WriteOp op, List<Table> tables,
                                                                 CallOptions callOptions, Context ctx, List<String> names,
                                                                 long notAfter) {
        List<RequestEncoder> parts = new ArrayList<>();
        for (Table t : tables) {
            for (RequestEncoder part : new RequestEncoder(headerBytes, op, List.of(t)).split(options.maxMessageSize())) {
                if (part.size() > options.maxMessageSize()) {
                    return CompletableFuture.completedFuture(Result.err(GrpcErrors.local(StatusCode.Grpc.OUT_OF_RANGE,
                            "a single row of " + part.describe() + " encodes to " + part.size()
                                    + " bytes, over maxMessageSize " + options.maxMessageSize() + "; nothing was sent",
                            false, names)));
                }
                parts.add(part);
            }
        }
        LOG.debug("write of {} bytes sent as {} requests of at most maxMessageSize {}", whole.size(), parts.size(),
                options.maxMessageSize());
        List<CompletableFuture<Result<WriteOk, Err>>> sent = new ArrayList<>(parts.size());
        long start = System.nanoTime();
        for (RequestEncoder part : parts) {
            List<String> partNames = List.of(part.tables().get(0).tableName());
            CompletableFuture<Result<WriteOk, Err>> f = send(WriteMethods.HANDLE, part, part.size(), callOptions, ctx,
                    partNames, notAfter, false);
            if (metrics != MetricsSink.NONE) {
                f = f.thenApply(r -> {
                    record("regular", r, List.of(), part.size(), start);
                    if (r.isOk()) {
                        metrics.rows("regular", partNames.get(0), part.rowCount());
                    }
                    return r;
                });
            }
            sent.add(f);
        }
        return CompletableFuture.allOf(sent.toArray(new CompletableFuture<?>[0])).thenApply(ignored -> {
            long affected = 0;
            Err first = null;
            int failedAt = -1;
            for (int i = 0; i < sent.size(); i++) {
                Result<WriteOk, Err> r = sent.get(i).join();
                if (r.isOk()) {
                    affected += r.getOk().affectedRows();
                } else if (first == null) {
                    first = r.getErr();
                    failedAt = i;
                }
            }
            if (first == null) {
                return Result.ok(new WriteOk(affected, names));
            }
            return Result.err(new Err(first.code(), first.grpcCode(), "part " + (failedAt + 1) + " of " + parts.size()
                    + " (" + parts.get(failedAt).describe() + ") failed: " + first.message() + "; the write was split at"
                    + " maxMessageSize " + options.maxMessageSize() + " and its other parts stored " + affected
                    + " rows (a failed part may still have been stored)", first.retryable(), names, first.cause()));
        });
    }

    private void record(String path, Result<WriteOk, Err> r, List<Table> tables, long bytes, long start) {
        metrics.bytes(path, bytes);
        metrics.latency(path, System.nanoTime() - start);
        if (r.isOk()) {
            for (Table t : tables) {
                metrics.rows(path, t.tableName(), t.rowCount());
            }
        } else {
            metrics.failure(path, r.getErr().code(), r.getErr().grpcCode().name());
        }
    }

    /**
     * Creates a table if it does not exist, from a schema, with table options taken from the context's hints.
     *
     * @param schema the table's schema
     * @param ctx hints ({@code ttl}, {@code append_mode}...)
     * @return the outcome; cancelling it ends the request at once: its call is cancelled (the table may or may not
     *     be created) and its room in the budget and its in-flight count are given back before {@code cancel} returns
     */
    public CompletableFuture<Result<WriteOk, Err>> createTable(TableSchema schema, Context ctx) {
        GreptimeRequest request = GreptimeRequest.newBuilder().setHeader(header)
                .setDdl(DdlRequest.newBuilder().setCreateTable(createTableExpr(schema, ctx.hints()))).build();
        return send(GreptimeDatabaseGrpc.getHandleMethod(), request, request.getSerializedSize(), callOptions(ctx),
                ctx, List.of(schema.tableName()), 0, true);
    }

    CreateTableExpr createTableExpr(TableSchema schema, Map<String, String> hints) {
        String db = options.database();
        int dash = db.indexOf('-');
        CreateTableExpr.Builder b = CreateTableExpr.newBuilder()
                .setCatalogName(dash > 0 ? db.substring(0, dash) : "greptime")
                .setSchemaName(dash > 0 ? db.substring(dash + 1) : db)
                .setTableName(schema.tableName())
                .setCreateIfNotExists(true)
                .setEngine("mito")
                .setTimeIndex(schema.column(schema.timestampIndex()).name());
        for (TableSchema.Column c : schema.columns()) {
            var cs = RequestEncoder.columnSchema(c);
            ColumnDef.Builder def = ColumnDef.newBuilder().setName(c.name()).setDataType(WireTypes.of(c.dataType()))
                    .setSemanticType(WireTypes.of(c.semanticType()))
                    .setIsNullable(c.semanticType() != SemanticType.Timestamp);
            if (cs.hasDatatypeExtension()) {
                def.setDatatypeExtension(cs.getDatatypeExtension());
            }
            b.addColumnDefs(def);
            if (c.semanticType() == SemanticType.Tag) {
                b.addPrimaryKeys(c.name());
            }
        }
        hints.forEach((k, v) -> {
            if (!NOT_TABLE_OPTIONS.contains(k)) {
                b.putTableOptions(k, v);
            }
        });
        return b.build();
    }

    /**
     * Takes room in the client-wide budget, then makes the first attempt; the delivery deadline counts from now,
     * or is {@code notAfter} when that comes first (0: none). When {@code cancellable}, cancelling the returned
     * future ends the request (the call is cancelled, nothing is resent) and gives its room back at once.
     */
    private <Q> CompletableFuture<Result<WriteOk, Err>> send(MethodDescriptor<Q, GreptimeResponse> method, Q request,
                                                              long size, CallOptions callOptions, Context ctx,
                                                              List<String> names, long notAfter, boolean cancellable) {
        CompletableFuture<Result<WriteOk, Err>> future = new CompletableFuture<>();
        if (closed) {
            future.complete(Result.err(GrpcErrors.local(StatusCode.Grpc.UNAVAILABLE,
                    "the client is shut down; nothing was sent", false, names)));
            return future;
        }
        InFlightLimiter.Permit permit;
        try {
            permit = limiter.acquire(size, true);
        } catch (LimitExceededException e) {
            future.complete(Result.err(new Err(-1, StatusCode.Grpc.RESOURCE_EXHAUSTED, e.getMessage(), true, names, e)));
            return future;
        }
        // The attempts complete the outcome; the caller's future completes only after the write's room in the
        // budget and its in-flight count are given back, so a caller that sees its answer sees them released too.
        CompletableFuture<Result<WriteOk, Err>> outcome = new CompletableFuture<>();
        unsettled.incrementAndGet();
        inFlight.incrementAndGet();
        outcome.whenComplete((r, t) -> {
            unanswered.remove(outcome);
            permit.release();
            inFlight.decrementAndGet();
            try {
                if (t != null) {
                    future.completeExceptionally(t);
                } else {
                    future.complete(r);
                }
            } finally {
                // Only now may a shutdown waiting for this write return: the caller's future is complete.
                if (unsettled.decrementAndGet() == 0) {
                    synchronized (unsettled) {
                        unsettled.notifyAll();
                    }
                }
            }
        });
        unanswered.put(outcome, names);
        if (cancellable) {
            future.whenComplete((r, t) -> {
                if (future.isCancelled()) {
                    outcome.complete(Result.err(GrpcErrors.local(StatusCode.Grpc.CANCELLED, "the request was cancelled"
                            + " by the client before it was answered; it may or may not have taken effect", false,
                            names)));
                }
            });
        }
        if (closed) {
            // Shut down while this write waited for room. Counted first, then checked: a shutdown either sees this
            // write in flight and waits for it, or this write sees the shutdown and is refused, never neither.
            outcome.complete(Result.err(GrpcErrors.local(StatusCode.Grpc.UNAVAILABLE,
                    "the client is shut down; nothing was sent", false, names)));
            return future;
        }
        RetryPolicy policy = ctx.retryPolicy() != null ? ctx.retryPolicy() : options.retryPolicy();
        long deadline = clock.getAsLong() + (policy.maxAttempts() == 1 ? options.requestTimeout() : policy.deliveryTimeout()).toNanos();
        if (notAfter != 0 && notAfter - deadline < 0) {
            deadline = notAfter;
        }
        unary.send(method, request, callOptions, ctx.appendMode(), policy, deadline, names, outcome);
        return future;
    }

    /**
     * How a write the client's shutdown left unanswered fails; a message that starts with it says the client, not the
     * server or the network, ended the write.
     */
    public static final String SHUT_DOWN_UNANSWERED =
            "the client shut down before the write was answered; it may or may not have been stored";

    /**
     * Adds what a bare transport message leaves out: that the client's own shutdown ended the call (gRPC says only
     * that its channel was shut down, or cancelled the call), or a plaintext client talking to a TLS-only server.
     */
    private Err explain(Err err) {
        if (err.code() < 0 && (err.grpcCode() == StatusCode.Grpc.CANCELLED || err.grpcCode() == StatusCode.Grpc.UNAVAILABLE)
                && (stopped || endedByChannelShutdown(err.message()))) {
            return new Err(err.code(), err.grpcCode(), SHUT_DOWN_UNANSWERED + " (" + err.message() + ")", err.retryable(),
                    err.tables(), err.cause());
        }
        if (options.tls() == null && err.grpcCode() == StatusCode.Grpc.UNAVAILABLE && err.code() < 0
                && err.message() != null && err.message().contains("Network closed for unknown reason")) {
            return new Err(err.code(), err.grpcCode(), err.message() + " (the server closed the connection during"
                    + " setup: if it requires TLS, configure GreptimeOptions.tls)", err.retryable(), err.tables(), err.cause());
        }
        return err;
    }

    /**
     * Whether gRPC's description says the call's channel was shut down: grpc-java's ManagedChannelImpl ends calls at
     * {@code shutdown()}/{@code shutdownNow()} with "Channel shutdown invoked", "Channel shutdownNow invoked" and,
     * for a call still waiting for its endpoint's address, "Channel is forcefully shutdown".
     */
    private static boolean endedByChannelShutdown(String description) {
        return description != null && (description.startsWith("Channel shutdown")
                || description.startsWith("Channel is forcefully shutdown"));
    }

    static Result<WriteOk, Err> toResult(GreptimeResponse response, List<String> names) {
        if (response == null) {
            return Result.err(GrpcErrors.local(StatusCode.Grpc.INTERNAL, "the server closed the call without an answer", false, names));
        }
        int status = response.getHeader().getStatus().getStatusCode();
        if (status != 0) {
            dev.sluice.write.StatusCode sc = dev.sluice.write.StatusCode.of(status);
            return Result.err(new Err(status, sc == null ? StatusCode.Grpc.UNKNOWN : sc.grpcCode(),
                    response.getHeader().getStatus().getErrMsg(), sc != null && sc.serverRetryable(), names, null));
        }
        return Result.ok(new WriteOk(Integer.toUnsignedLong(response.getAffectedRows().getValue()), names));
    }

    /**
     * Opens a {@code HandleRequests} stream on the next endpoint.
     *
     * @param rowsPerSecond rate limit, 0 for none
     * @param ctx hints and compression
     * @param replay keep every message and reopen the stream on another endpoint after a retryable failure
     * @return the stream
     */
    public HandleRequestsStream openStream(double rowsPerSecond, Context ctx, boolean replay) {
        if (closed) {
            throw new dev.sluice.StreamWriteException("the client is shut down", null, List.of(), null);
        }
        CallOptions o = callOptions(ctx).withDeadline(null);
        // A few messages may wait for flow control; beyond that the writer waits (bounded) instead of piling up memory.
        RetryPolicy policy = ctx.retryPolicy() != null ? ctx.retryPolicy() : options.retryPolicy();
        HandleRequestsStream stream = new HandleRequestsStream(endpoints, this::stopped, o, headerBytes, 16L << 20,
                options.requestTimeout().toMillis(), rowsPerSecond, options.maxMessageSize(), timer, clock, limiter, metrics,
                replay ? replayBudget() : 0, policy);
        openStreams.add(stream);
        stream.outcome().whenComplete((ok, t) -> openStreams.remove(stream));
        return stream;
    }

    /**
     * The bytes one stream may keep for a replay: a quarter of the client-wide budget, which the kept messages
     * hold until the stream is answered, so that a few streams cannot starve the other paths.
     *
     * @return bytes
     */
    public long replayBudget() {
        return options.maxInFlightBytes() / 4;
    }

    /**
     * Counts calls sent and not yet answered.
     *
     * @return the number in flight
     */
    public int inFlight() {
        return inFlight.get();
    }

    /**
     * Counts retries made so far.
     *
     * @return retries (attempts after the first)
     */
    public long retries() {
        return retries.sum();
    }

    /** Refuses new writes from now on; writes already accepted keep their retries. */
    public void close() {
        closed = true;
    }

    /**
     * Tells whether the client stopped retrying (it is shutting down).
     *
     * @return true after {@link #stop()}
     */
    public boolean stopped() {
        return stopped;
    }

    /** Refuses new writes and retries from now on. */
    public void stop() {
        closed = true;
        stopped = true;
    }

    /**
     * Completes with an error every write still unanswered, such as one whose retry was waiting on a timer
     * that has been stopped. Called last when the client shuts down, so no future is left hanging.
     */
    public void failUnanswered() {
        for (HandleRequestsStream s : openStreams) {
            s.abort("the client shut down before the stream was answered; its messages may or may not have been"
                    + " stored");
        }
        unanswered.forEach((f, names) -> f.complete(Result.err(GrpcErrors.local(StatusCode.Grpc.UNAVAILABLE,
                SHUT_DOWN_UNANSWERED, true, names))));
    }

    /**
     * Waits until every call sent (or waiting to retry) has its answer and its caller's future is complete.
     *
     * @param timeoutNanos the longest wait
     * @return true when none is left in flight
     * @throws InterruptedException if the waiting thread is interrupted
     */
    public boolean awaitIdle(long timeoutNanos) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutNanos;
        synchronized (unsettled) {
            while (unsettled.get() > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(unsettled, left);
            }
        }
        return true;
    }
}
