package dev.sluice;

import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.data.InvalidDataException;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.internal.batching.DefaultBatchingWriter;
import dev.sluice.internal.bulk.BulkConnector;
import dev.sluice.internal.client.CallbackExecutor;
import dev.sluice.internal.client.ClientLifecycle;
import dev.sluice.internal.client.OwnedThreads;
import dev.sluice.internal.limit.InFlightLimiter;
import dev.sluice.write.Context;
import dev.sluice.write.Err;
import dev.sluice.write.Result;
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.WriteOk;
import dev.sluice.write.WriteOp;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import dev.sluice.metrics.MetricsSink;
import dev.sluice.internal.transport.Endpoints;
import dev.sluice.internal.transport.EventLoops;
import dev.sluice.internal.transport.TransportSecurity;
import dev.sluice.internal.write.RegularWriter;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * The Sluice client: writes tables to GreptimeDB. Thread-safe; create one per process and share it.
 *
 * <pre>{@code
 * GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder("127.0.0.1:4001", "public").build());
 * Result<WriteOk, Err> r = db.write(table).join();
 * if (!r.isOk()) { ... r.getErr().retryable() ... }
 * db.shutdownGracefully();
 * }</pre>
 *
 * <p>A write encodes its tables on the calling thread and returns once the request has room in the client's
 * {@code maxInFlightBytes} budget: at once while there is room; when the budget is used up, under the default
 * {@code Block} limit policy it waits (first come, first served) at most {@code limitWait} (10 s by default) and
 * then fails, and under {@code FailFast} it fails at once. It never waits for the server. Its future always
 * completes normally, with {@link WriteOk} or an
 * {@link Err} saying what the server or the transport reported and whether retrying may help: server and
 * network problems never surface as exceptions. Futures complete on the callback executor, never on a gRPC
 * I/O thread (unless a caller's executor refuses the task: {@link GreptimeOptions.Builder#callbackExecutor}), so
 * dependent actions may block briefly, but long work belongs on an executor of the caller's.
 * Bad input is refused earlier, by {@link Table#addRow(Object...)}.
 *
 * <p>A request that times out may still have been committed by the server. Resending is harmless on tables
 * without {@code append_mode} (the last write of a row wins) and duplicates rows on append-mode tables.
 *
 * <p>Shutting down. The client's threads are daemon threads: they do not keep the JVM alive, so shut the client
 * down (a shutdown returns once every thread the client started, its gRPC event loops included, has ended) ({@link #shutdownGracefully()}, or {@link #close()} in a try-with-resources block) before the program
 * ends, after closing its writers. A shut-down client cannot be reused: every write fails with an {@link Err}
 * saying "the client is shut down", and every writer factory throws. As a safety net for rows a program
 * forgot, a client with open {@linkplain #batchingWriter batching writers} registers a JVM shutdown hook while
 * any is open: when the JVM exits (the end of {@code main}, {@code System.exit}, SIGTERM) with writers still
 * open, the hook logs a warning and closes them, which sends their rows and waits for the acknowledgements
 * (at most the client's {@code requestTimeout}, capped at 10 seconds); rows that could not be delivered in
 * that time are counted in an ERROR line and their batch futures fail. Nothing else is flushed at exit: regular
 * writes whose futures nobody waited for, and open stream and bulk writers, are not. A JVM that is killed
 * ({@code kill -9}) or halted runs no hook.
 */
public final class GreptimeDB implements AutoCloseable {
    /** The longest the exit hook waits for batching writers left open to flush. */
    static final int EXIT_FLUSH_SECONDS = 10;
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(GreptimeDB.class);
    private final GreptimeOptions options;
    private final ExecutorService ownExecutor;
    private final Endpoints endpoints;
    private final RegularWriter regular;
    private final Executor callbackExecutor;
    private final ScheduledExecutorService timer;
    /** The time writes' delivery deadlines are on: {@code System::nanoTime}, or the test hook's clock. */
    private final LongSupplier writeClock;
    private final InFlightLimiter limiter;
    private final MetricsSink metrics;
    /** The client's side of bulk writes: no bulk or Arrow class loads before the first bulk writer. */
    private final BulkConnector bulk;
    /** Runs shutdown, graceful or immediate, for every kind of writer. */
    private final ClientLifecycle lifecycle;
    private final java.util.Set<BatchingWriter> batchingWriters = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** Set first thing by either shutdown: from then on, no writer is opened. */
    private volatile boolean shutDown;
    /** Closes batching writers left open when the JVM exits; registered while any is open, guarded by itself. */
    private final Thread exitHook = new Thread(this::closeWritersAtExit, "sluice-exit-flush");
    private boolean exitHookRegistered;
    /** Set when the client's services stop: the exit hook is never registered again; guarded by the hook. */
    private boolean exitHookRetired;

    private GreptimeDB(GreptimeOptions options) {
        this(options, null, System::nanoTime);
    }

    /**
     * Creates a client whose writes' timers run on the given timer and clock: a test hook (not API), reached from
     * tests in this package, so that tests of deadlines and backoff move a manual clock instead of waiting on the real
     * one. It covers regular writes' delivery deadlines and retry backoff, streams' replays, their backoff and the
     * wait for their answer, and bulk batches' deadlines, timeouts and stream reopenings. Each regular attempt's gRPC
     * deadline (the request timeout, or less when the delivery deadline is nearer) is timed by gRPC on the real
     * clock; health checks, batching writers' flush intervals and shutdown waits run on the client's own timer
     * (batching writers' batch deadlines are on the given clock).
     *
     * @param options the options
     * @param writeTimer the timer of those deadlines, backoffs and reopenings, or null for the client's own
     * @param clock the time {@code writeTimer} runs on, in nanoseconds
     */
    GreptimeDB(GreptimeOptions options, ScheduledExecutorService writeTimer, LongSupplier clock) {
        this.options = options;
        this.metrics = options.metrics().forClient(options.endpoints().get(0));
        OwnedThreads threads = new OwnedThreads();
        Executor given = options.callbackExecutor();
        ownExecutor = given == null ? threads.callbackPool() : null;
        CallbackExecutor executor = given == null ? new CallbackExecutor(ownExecutor) : CallbackExecutor.counting(given);
        this.callbackExecutor = executor;
        this.timer = threads.timer();
        this.writeClock = clock;
        this.limiter = new InFlightLimiter(options);
        this.endpoints = new Endpoints(options, executor, timer, TransportSecurity.setup(options.tls()),
                threads.factory("sluice-grpc-io-", EventLoops::newThread));
        ScheduledExecutorService writes = writeTimer != null ? writeTimer : timer;
        this.regular = new RegularWriter(options, endpoints, limiter, writes, clock, metrics);
        this.bulk = new BulkConnector(regular, endpoints, executor, writes, clock,
                limiter, metrics, options.bufferCache(), options.retryPolicy(), options.requestTimeout().toMillis());
        this.lifecycle = new ClientLifecycle(regular, endpoints, limiter, bulk, batchingWriters, timer, metrics,
                executor, ownExecutor, threads);
        metrics.gauge("sluice.inflight.requests", "regular writes sent or waiting to retry", regular::inFlight);
        metrics.gauge("sluice.inflight.bytes", "bytes of the client-wide budget in use", limiter::bytesInUse);
        metrics.gauge("sluice.bulk.allocated.bytes", "off-heap bytes held by this client's bulk writers",
                this::bulkAllocatedBytes);
        metrics.gauge("sluice.batching.buffered.rows", "rows buffered or in flight in batching writers",
                () -> batchingWriters.stream().mapToLong(BatchingWriter::pendingRows).sum());
    }

    /**
     * Creates a client. Connections open lazily, on the first call.
     *
     * @param options the options
     * @return the client
     */
    public static GreptimeDB create(GreptimeOptions options) {
        if (options == null) {
            throw new NullPointerException("options");
        }
        return new GreptimeDB(options);
    }

    /**
     * Inserts tables in one request.
     *
     * @param tables tables to write; each is {@linkplain Table#complete() completed} by this call
     * @return the outcome
     */
    public CompletableFuture<Result<WriteOk, Err>> write(Table... tables) {
        return write(Arrays.asList(tables), WriteOp.Insert, Context.newBuilder().build());
    }

    /**
     * Inserts tables in one request.
     *
     * @param tables tables to write; each is completed by this call
     * @return the outcome
     */
    public CompletableFuture<Result<WriteOk, Err>> write(Collection<Table> tables) {
        return write(tables, WriteOp.Insert, Context.newBuilder().build());
    }

    /**
     * Inserts or deletes tables in one request.
     *
     * <p>The returned future completes once, after the write's room in the client's byte budget and its in-flight
     * count are given back. Cancelling it does not stop the write: the request stays in flight (and in the budget)
     * until the server answers or its deadline passes, and it may still be stored.
     *
     * @param tables tables to write; each is completed by this call
     * @param op insert, or delete (rows addressed by tags and time index; field values are not sent)
     * @param ctx hints and compression for this call
     * @return the outcome; some tables of a failed multi-table request may have been written
     * @throws IllegalArgumentException for a compression the regular path does not offer (Lz4)
     */
    public CompletableFuture<Result<WriteOk, Err>> write(Collection<Table> tables, WriteOp op, Context ctx) {
        return regular.write(tables, op, ctx);
    }

    /**
     * Writes annotated records or objects ({@link dev.sluice.mapping.Table}): objects are grouped by class, each
     * class becoming one table of the request, its schema derived once per class and cached.
     *
     * @param objects instances of classes annotated {@code @dev.sluice.mapping.Table}
     * @return the outcome
     * @throws IllegalArgumentException naming the class and component when a class is misannotated
     * @throws InvalidDataException when a value does not fit its column
     */
    public CompletableFuture<Result<WriteOk, Err>> writeObjects(List<?> objects) {
        return writeObjects(objects, Context.newBuilder().build());
    }

    /**
     * Writes annotated records or objects with a context.
     *
     * @param objects instances of classes annotated {@code @dev.sluice.mapping.Table}
     * @param ctx hints, compression, retry policy
     * @return the outcome
     */
    public CompletableFuture<Result<WriteOk, Err>> writeObjects(List<?> objects, Context ctx) {
        Map<Class<?>, Table> tables = new LinkedHashMap<>();
        Map<Class<?>, Object[]> scratch = new HashMap<>();
        for (Object o : objects) {
            dev.sluice.mapping.TableMapping m = dev.sluice.mapping.TableMapping.of(o.getClass());
            Table t = tables.computeIfAbsent(o.getClass(), c -> Table.from(m.schema(), 64));
            Object[] row = scratch.computeIfAbsent(o.getClass(), c -> new Object[m.schema().columnCount()]);
            m.values(o, row);
            t.addRow(row);
        }
        return write(new ArrayList<>(tables.values()), WriteOp.Insert, ctx);
    }

    /**
     * Opens a stream over {@code HandleRequests} with no hints, no rate limit and the default replay.
     *
     * @return the stream; {@link StreamWriter#completed()} ends it
     */
    public StreamWriter<Table, WriteOk> streamWriter() {
        return streamWriter(StreamWriter.Config.newBuilder().build(), Context.newBuilder().build());
    }

    /**
     * Opens a stream over {@code HandleRequests}. Each {@code write} becomes one message; the server answers
     * once, with the total, when the stream is completed. Writes wait (up to the request timeout) only when
     * more than 16 MiB of encoded messages are already waiting for the server (one message always fits).
     *
     * <p>With replay (the default unless the context carries the {@code append_mode=true} hint), every message
     * is kept until the stream is answered, holding its size of the client's {@code maxInFlightBytes} budget,
     * up to a quarter of that budget per stream. After a retryable failure the stream is reopened on a healthy
     * endpoint after the retry policy's backoff and all of it resent, as long as the policy's attempts and its
     * delivery deadline (counted from the first failure, or from {@code completed()} when that came first)
     * allow; no answer within the request timeout after {@code completed()} is such a failure (the stream is
     * replayed, and fails once the deadline passes). A stream that outgrows its replay budget logs a warning
     * and stops keeping messages: its next failure is final, so complete long streams in parts. Delivery is
     * at-least-once: messages the server committed before the failure are written twice, harmless on tables
     * without {@code append_mode}.
     *
     * @param config the stream's rate limit and replay
     * @param ctx hints, compression and retry policy for every message of the stream
     * @return the stream
     */
    public StreamWriter<Table, WriteOk> streamWriter(StreamWriter.Config config, Context ctx) {
        return regular.openStream(config.maxRowsPerSecond(), ctx, config.replays(ctx));
    }

    /**
     * Opens a batching writer with no hints: see {@link #batchingWriter(BatchingWriter.Config, Context)}.
     *
     * @param config batch sizes, flush interval, limits and path
     * @return the writer
     */
    public BatchingWriter batchingWriter(BatchingWriter.Config config) {
        return batchingWriter(config, Context.newBuilder().build());
    }

    /**
     * Opens a batching writer: thread-safe single-row writes coalesced into large batches in the background.
     * Close it (which flushes) before shutting the client down. A writer still open when the JVM exits is closed,
     * and its rows flushed, by the client's exit hook, with a warning (see the class comment).
     *
     * @param config batch sizes, flush interval, limits and path
     * @param ctx hints, compression and retry policy of every batch
     * @return the writer
     * @throws IllegalStateException when the client is shut down
     */
    public BatchingWriter batchingWriter(BatchingWriter.Config config, Context ctx) {
        if (shutDown) {
            throw shutDownError();
        }
        if (config.path() == BatchingWriter.Path.Bulk) {
            BulkConnector.plugin();
        }
        RetryPolicy policy = ctx.retryPolicy() != null ? ctx.retryPolicy() : options.retryPolicy();
        DefaultBatchingWriter.Paths paths = new DefaultBatchingWriter.Paths() {
            @Override
            public CompletableFuture<Result<WriteOk, Err>> write(List<Table> tables, WriteOp op, Context ctx,
                                                                 long deadline) {
                return regular.write(tables, op, ctx, deadline);
            }

            @Override
            public BulkStreamWriter bulk(TableSchema schema, BulkWrite.Config bulkConfig, Context ctx) {
                return bulkStreamWriter(schema, bulkConfig, ctx);
            }

            @Override
            public CompletableFuture<Integer> writeNext(BulkStreamWriter writer, long deadline) {
                return BulkConnector.writeNext(writer, deadline);
            }

            @Override
            public long now() {
                return writeClock.getAsLong();
            }

            @Override
            public List<String> endpoints() {
                return options.endpoints();
            }
        };
        DefaultBatchingWriter w = new DefaultBatchingWriter(paths, config, ctx, timer, options.requestTimeout(),
                saturatedSum(policy.deliveryTimeout(), options.requestTimeout()), policy.deliveryTimeout(),
                this::batchingWriterClosed);
        batchingWriters.add(w);
        if (shutDown) {
            // Shut down meanwhile: the shutdown either closed this writer already or never saw it; close it here.
            w.close();
            throw shutDownError();
        }
        updateExitHook();
        return w;
    }

    /** After shutdown the exit hook has nothing to close: it is removed for good. */
    private void retireExitHook() {
        synchronized (exitHook) {
            exitHookRetired = true;
        }
        updateExitHook();
    }

    private void batchingWriterClosed(BatchingWriter w) {
        batchingWriters.remove(w);
        updateExitHook();
    }

    private static IllegalStateException shutDownError() {
        return new IllegalStateException("the client is shut down; nothing was opened (a shut-down client cannot be"
                + " reused: create a new GreptimeDB)");
    }

    /**
     * Registers the exit hook while batching writers are open, and removes it when none is or the client has
     * stopped. Decided under the hook's lock from the set of open writers, which a new writer joins before it
     * calls this: whichever call comes last sees every writer open.
     */
    private void updateExitHook() {
        synchronized (exitHook) {
            if (Thread.currentThread() == exitHook) {
                return; // the hook itself is closing writers: the JVM is going down
            }
            boolean want = !exitHookRetired && !batchingWriters.isEmpty();
            if (want == exitHookRegistered) {
                return;
            }
            try {
                if (want) {
                    Runtime.getRuntime().addShutdownHook(exitHook);
                } else {
                    Runtime.getRuntime().removeShutdownHook(exitHook);
                }
                exitHookRegistered = want;
            } catch (IllegalStateException | IllegalArgumentException e) {
                // The JVM is already shutting down (the hook runs, or cannot be added any more).
            }
        }
    }

    /**
     * Runs when the JVM exits with batching writers of this client still open: closes them, which flushes their
     * rows, within a bounded time, and says what was delivered and what was not.
     */
    private void closeWritersAtExit() {
        List<BatchingWriter> open = new ArrayList<>(batchingWriters);
        if (open.isEmpty()) {
            return;
        }
        long pending = 0;
        long failedBefore = 0;
        for (BatchingWriter w : open) {
            pending += w.pendingRows();
            failedBefore += w.failedRows();
        }
        Duration wait = options.requestTimeout().compareTo(Duration.ofSeconds(EXIT_FLUSH_SECONDS)) < 0
                ? options.requestTimeout() : Duration.ofSeconds(EXIT_FLUSH_SECONDS);
        LOG.warn("the JVM is exiting with {} batching writer(s) of the client for {} still open, holding {} rows not"
                + " yet acknowledged: closing them, which sends those rows (waiting at most {} s). Close batching"
                + " writers, then the client, before the program ends", open.size(), options.endpoints(), pending,
                wait.toSeconds());
        long deadline = System.nanoTime() + wait.toNanos();
        long failed = 0;
        long left = 0;
        for (BatchingWriter w : open) {
            ((DefaultBatchingWriter) w).close(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
            failed += w.failedRows();
            left += w.pendingRows();
        }
        failed -= failedBefore;
        if (failed > 0 || left > 0) {
            LOG.error("{} rows of batching writers left open could not be delivered before the JVM exited (see the"
                    + " batch futures' errors); {} were still pending", failed, left);
        } else {
            LOG.info("batching writers left open were closed at exit; every row they held was acknowledged");
        }
    }

    private static Duration saturatedSum(Duration a, Duration b) {
        try {
            return a.plus(b);
        } catch (ArithmeticException e) {
            return Duration.ofDays(365);
        }
    }

    /**
     * Creates a table if it does not exist yet (regular writes create tables themselves; bulk writes need one).
     * An existing table is left as it is, even when its columns differ from the schema.
     *
     * @param schema the table's schema
     * @param ctx hints used as table options ({@code ttl}, {@code append_mode}, {@code merge_mode}...)
     * @return the outcome
     */
    public CompletableFuture<Result<WriteOk, Err>> createTable(TableSchema schema, Context ctx) {
        return regular.createTable(schema, ctx);
    }

    /**
     * Opens a bulk writer for one table over Arrow Flight DoPut, creating the table if it is missing (unless the
     * config says not to: the open-source server does not create tables on this path). An existing table is used
     * as it is; batch columns it lacks are silently ignored by the server and its columns missing from the batch
     * are stored as NULL, so keep the schema equal to the table's.
     *
     * <p>Opening does not wait for the server: the table is created while the caller fills the first batch, and
     * the writer's stream opens once it exists. The first {@code writeNext()} waits for the creation (at most the
     * client's request timeout, counted from opening). When the creation fails or gets no answer in time, that
     * batch's future, every later one's and {@code completed()} fail with a {@link dev.sluice.bulk.BulkWriteException}
     * naming the table and, for a transport failure, the endpoint; nothing is sent, and a new writer tries again.
     *
     * @param schema the table's schema (no JSON columns: write those with {@link #write})
     * @param config writer settings
     * @param ctx compression (None, Zstd, Lz4 as Arrow IPC compression; Gzip as gRPC compression) and, for a
     *     table created here, table options as hints ({@code ttl}, {@code append_mode}...)
     * @return the writer; close it when done
     * @throws dev.sluice.bulk.BulkWriteException when the client is shut down
     * @throws IllegalStateException when the JVM lacks {@code --add-opens=java.base/java.nio=ALL-UNNAMED}, or
     *     when {@code dev.sluice:ingester-bulk} (which provides bulk writes, and brings Arrow) is not on the class or
     *     module path
     */
    public BulkStreamWriter bulkStreamWriter(TableSchema schema, BulkWrite.Config config, Context ctx) {
        if (shutDown) {
            String message = "the client is shut down; no bulk writer was opened for '" + schema.tableName()
                    + "' (a shut-down client cannot be reused: create a new GreptimeDB)";
            throw new dev.sluice.bulk.BulkWriteException(message, dev.sluice.internal.error.GrpcErrors.local(
                    dev.sluice.write.StatusCode.Grpc.UNAVAILABLE, message, false, List.of(schema.tableName())), null);
        }
        return bulk.open(schema, config, ctx);
    }

    /**
     * Readies bulk writing now, so that the first {@link #bulkStreamWriter} call does not: finds
     * {@code dev.sluice:ingester-bulk}, creates the client's bulk memory, and loads the classes a writer uses
     * (Arrow's memory, vectors and messages: about a tenth of a second in a fresh JVM). Sends nothing and opens no
     * stream. Optional; a tool that knows it will write in bulk calls it on a background thread while it starts up.
     * Calling it again does little.
     *
     * @throws IllegalStateException when the client is shut down, when the JVM lacks
     *     {@code --add-opens=java.base/java.nio=ALL-UNNAMED}, or when {@code dev.sluice:ingester-bulk} is not on the
     *     class or module path
     */
    public void prepareBulk() {
        if (shutDown) {
            throw shutDownError();
        }
        bulk.prepare();
    }

    /**
     * Opens a bulk writer for one table with the default settings and context (see
     * {@link #bulkStreamWriter(TableSchema, BulkWrite.Config, Context)}).
     *
     * @param schema the table's schema
     * @return the writer; close it when done
     * @throws IllegalStateException when {@code dev.sluice:ingester-bulk} is not on the classpath
     */
    public BulkStreamWriter bulkStreamWriter(TableSchema schema) {
        return bulkStreamWriter(schema, BulkWrite.Config.newBuilder().build(), Context.newBuilder().build());
    }

    /**
     * Counts the message bytes this client has put on the wire, every path together (after gRPC message
     * compression; Arrow IPC compression is inside the messages).
     *
     * @return bytes sent
     */
    public long wireBytesSent() {
        return endpoints.wire().bytesSent();
    }

    /**
     * Returns running totals of this client: bytes sent, retries, data in flight, endpoints available.
     *
     * @return a snapshot
     */
    public ClientStats stats() {
        return new ClientStats(endpoints.wire().bytesSent(), regular.retries(), regular.inFlight(),
                limiter.bytesInUse(), endpoints.available(), bulkAllocatedBytes());
    }

    private long bulkAllocatedBytes() {
        return bulk.allocatedBytes();
    }

    /**
     * Cancels every call under way (their futures complete with CANCELLED errors) and closes the connections
     * at once. Writes waiting to retry complete with an UNAVAILABLE error instead. Writers still open fail.
     */
    public void shutdownNow() {
        shutDown = true;
        retireExitHook();
        lifecycle.shutdownNow();
    }

    /**
     * Returns the options this client was created with.
     *
     * @return the options
     */
    public GreptimeOptions options() {
        return options;
    }

    /**
     * Refuses new writes, waits for the ones in flight to be answered (up to the default timeout), then
     * closes the connections.
     *
     * @return true when everything finished in time
     */
    public boolean shutdownGracefully() {
        return shutdownGracefully(options.requestTimeout());
    }

    /**
     * Refuses new writes, waits for the ones in flight to be answered, then closes the connections. Writes
     * waiting to retry still retry while the timeout lasts. Calls still unanswered at the timeout are cancelled
     * and their futures complete with an error; none is left incomplete. In flight means every regular write,
     * bulk batch and stream message not yet answered (a stream's messages are answered when it is completed);
     * a bulk or stream writer left open with nothing unanswered does not hold the shutdown back: its call is
     * ended, and the writer fails later writes.
     *
     * @param timeout the longest wait
     * @return true when everything finished in time
     */
    public boolean shutdownGracefully(Duration timeout) {
        shutDown = true;
        boolean clean = lifecycle.shutdownGracefully(timeout);
        retireExitHook();
        return clean;
    }

    /** Same as {@link #shutdownGracefully()}. */
    @Override
    public void close() {
        shutdownGracefully();
    }

    @Override
    public String toString() {
        return "GreptimeDB{" + options + '}';
    }
}
