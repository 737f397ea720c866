package dev.sluice.internal.batching;

import dev.sluice.BatchWriteException;
import dev.sluice.BatchingWriter;
import dev.sluice.write.Err;
import dev.sluice.LimitExceededException;
import dev.sluice.write.Result;
import dev.sluice.data.RowAppender;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.write.WriteOk;
import dev.sluice.write.WriteOp;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * Callers append under a per-table lock; one sender thread drains sealed batches; a timer seals batches that
 * reach their flush interval; a fair semaphore bounds buffered rows, another the batches in flight.
 */
public final class DefaultBatchingWriter implements BatchingWriter {
    private final Paths paths;

    /**
     * The client's paths a batching writer sends through; given by the client, so this writer does not depend
     * on the client facade (no import cycle).
     */
    public interface Paths {
        /**
         * Writes tables in one regular request, by the earliest delivery deadline of their batches.
         *
         * @param tables the tables
         * @param op insert
         * @param ctx the writer's context
         * @param deadline when the write fails unanswered at the latest, on {@link #now()}'s clock
         * @return the outcome
         */
        CompletableFuture<Result<WriteOk, Err>> write(List<Table> tables, WriteOp op, dev.sluice.write.Context ctx,
                                                      long deadline);

        /**
         * Opens a bulk writer for one table.
         *
         * @param schema the table
         * @param config writer settings
         * @param ctx the writer's context
         * @return the open writer
         */
        BulkStreamWriter bulk(TableSchema schema, BulkWrite.Config config, dev.sluice.write.Context ctx);

        /**
         * Sends a bulk writer's filled batch, by the batch's delivery deadline.
         *
         * @param writer a writer {@link #bulk} opened
         * @param deadline when the batch fails unanswered at the latest, on {@link #now()}'s clock
         * @return the rows the server wrote
         */
        CompletableFuture<Integer> writeNext(BulkStreamWriter writer, long deadline);

        /**
         * Returns the time of the client's write deadlines, in nanoseconds: a batch's delivery deadline counts on
         * it from the batch's write, and the write that sends the batch keeps that deadline.
         *
         * @return now
         */
        long now();

        /**
         * Names the client's endpoints, for errors of batches that were never sent.
         *
         * @return the endpoints
         */
        List<String> endpoints();
    }
    private final Config config;
    private final dev.sluice.write.Context context;
    private final ScheduledExecutorService timer;
    private final Duration closeTimeout;
    private final Map<TableSchema, Accumulator> accumulators = new ConcurrentHashMap<>();
    private final BlockingQueue<Batch> sealed = new LinkedBlockingQueue<>();
    private final Set<Batch> outstanding = ConcurrentHashMap.newKeySet();
    private final Semaphore buffer;
    private final Semaphore inFlight;
    /** Permits of {@link #inFlight}: {@code maxInFlightRequests}, at most a bulk stream's 31. */
    private final int inFlightSlots;
    private final AtomicLong acked = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    /** The first batch failure not yet reported by {@link #flushOrThrow(Duration)}. */
    private final java.util.concurrent.atomic.AtomicReference<BatchWriteException> unreported =
            new java.util.concurrent.atomic.AtomicReference<>();
    private final LongAdder pending = new LongAdder();
    /** The bulk stream of each table; used by the sender thread, then by {@link #close(Duration)} once it ended. */
    private final Map<TableSchema, BulkStream> bulkWriters = new HashMap<>();
    /**
     * Ordered mode ({@link Config#orderedPerTable()}, regular path): per table name with a batch holding its turn
     * (sent or about to be), the table's later batches waiting for their turn, oldest first.
     */
    private final Map<String, java.util.ArrayDeque<Batch>> turns = new HashMap<>();
    private final boolean ordered;
    private final Thread sender;
    private volatile boolean closed;
    /** Taken by the one {@link #close(Duration)} that runs. */
    private final java.util.concurrent.atomic.AtomicBoolean closing = new java.util.concurrent.atomic.AtomicBoolean();
    /** Set once {@link #close()} has failed what was left: a write still inside then fails its own batch. */
    private volatile boolean swept;
    /** Callers between their closed-check and the end of their append; {@link #close()} waits for them. */
    private final LongAdder inside = new LongAdder();
    private final long inFlightWaitNanos;
    /** How long after it is sealed a batch may wait for an in-flight slot: the retry policy's delivery timeout. */
    private final Duration deliveryTimeout;
    /** {@link #deliveryTimeout} in nanoseconds, at most a century (deadlines are compared by difference). */
    private final long deliveryNanos;
    /** The latest batch failure, named by the batches that then reach their deadline unsent. */
    private volatile Throwable lastFailure;
    private final java.util.function.Consumer<BatchingWriter> onClose;

    /** Rows of one table waiting to be sent together. */
    private static final class Batch {
        final Table table;
        final CompletableFuture<Void> future = new CompletableFuture<>();
        long bytes;
        /**
         * When the batch must be answered by ({@link Paths#now()}), set when it is sealed; 0 while open. The write
         * that sends it keeps this deadline, so that waiting for an in-flight slot does not lengthen it.
         */
        long deadline;
        /** Ordered mode: this batch holds its table's turn (it may be sent); guarded by {@code turns}. */
        boolean hasTurn;
        /** Claimed by whoever settles the batch; it stays outstanding until its future is complete. */
        final java.util.concurrent.atomic.AtomicBoolean settled = new java.util.concurrent.atomic.AtomicBoolean();

        Batch(Table table) {
            this.table = table;
        }
    }

    /**
     * One table's bulk writer. A bulk writer that failed a batch is failed for good (its later batches fail with
     * that batch's error), and one whose batch was refused before it was sent may still hold that batch's rows: either
     * way it takes no further batch, and the table's next batch goes to a new writer.
     */
    private static final class BulkStream {
        final BulkStreamWriter writer;
        /** Set before the failed batch's future completes, so the next batch of whoever it tells sees it. */
        volatile boolean broken;
        /** Whether a batch was handed to the writer before; used by the sender thread only. */
        boolean sentBefore;

        BulkStream(BulkStreamWriter writer) {
            this.writer = writer;
        }

        /** Tells whether the writer may take another batch. */
        boolean usable() {
            return !broken && writer.failedBatches() == 0;
        }
    }

    /** The open batch of one schema. */
    private static final class Accumulator {
        Batch current;
        /** Wraps the open batch's appender for typed writes; guarded by the accumulator. */
        final SizedAppender appender = new SizedAppender();
    }

    /**
     * Starts the writer.
     *
     * @param paths the client's regular and bulk paths
     * @param config settings
     * @param context hints and compression of every batch
     * @param timer the client's timer
     * @param closeTimeout how long {@link #close()} waits for the last batches
     * @param inFlightWait the longest a batch waits for an in-flight slot (longer than any write can stay
     *     unanswered, so reaching it means the client is broken or shutting down)
     * @param deliveryTimeout the retry policy's delivery timeout: a batch not sent within it of being sealed
     *     (every in-flight slot taken meanwhile) fails unsent
     * @param onClose told when the writer is closed
     */
    public DefaultBatchingWriter(Paths paths, Config config, dev.sluice.write.Context context,
                                 ScheduledExecutorService timer, Duration closeTimeout,
                                 Duration inFlightWait, Duration deliveryTimeout,
                                 java.util.function.Consumer<BatchingWriter> onClose) {
        this.inFlightWaitNanos = inFlightWait.toNanos();
        this.deliveryTimeout = deliveryTimeout;
        Duration century = Duration.ofDays(36_500);
        this.deliveryNanos = (deliveryTimeout.compareTo(century) < 0 ? deliveryTimeout : century).toNanos();
        this.onClose = onClose;
        this.paths = paths;
        this.config = config;
        this.context = java.util.Objects.requireNonNull(context, "context");
        this.ordered = config.orderedPerTable() && config.path() == Path.Regular;
        this.timer = timer;
        this.closeTimeout = closeTimeout;
        this.buffer = new Semaphore((int) Math.min(config.maxBufferedRows(), Integer.MAX_VALUE), true);
        this.inFlightSlots = config.path() == Path.Bulk ? Math.min(31, config.maxInFlightRequests())
                : config.maxInFlightRequests();
        this.inFlight = new Semaphore(inFlightSlots);
        this.sender = new Thread(this::sendLoop, "sluice-batching-sender");
        sender.setDaemon(true);
        sender.start();
    }

    /**
     * Enters an append: after {@link #close()} has begun, refuses it. Paired with {@link #exit()}; together with
     * close's wait for {@link #inside} to drain, no batch can be opened behind close's back.
     */
    private void enter() {
        inside.increment();
        if (closed) {
            inside.decrement();
            throw new IllegalStateException("the batching writer is closed");
        }
    }

    private void exit() {
        inside.decrement();
        if (swept) {
            // close() gave up waiting for this caller and has already failed what was left: fail what it added.
            failLeftovers();
        }
    }

    private void reserve(int rows) {
        if (rows > config.maxBufferedRows()) {
            throw new LimitExceededException(rows + " rows do not fit a buffer of maxBufferedRows "
                    + config.maxBufferedRows() + "; split the table");
        }
        // Room is usually there: take it without queueing; only a full buffer waits, in arrival order.
        boolean ok = buffer.tryAcquire(rows);
        if (!ok) {
            // The buffer may be full of open batches that no size limit will ever seal (rows spread over many
            // tables, or fewer rows than a batch): send them now rather than waiting for their flush interval,
            // so room comes back as soon as the server answers.
            sealAll();
        }
        try {
            long wait = config.whenFull() == dev.sluice.write.WhenFull.Block ? config.maxBlock().toNanos() : 0;
            ok = ok || buffer.tryAcquire(rows, wait, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LimitExceededException("interrupted while waiting for buffer room");
        }
        if (!ok) {
            throw new LimitExceededException("the batching writer's buffer of " + config.maxBufferedRows()
                    + " rows stayed full for " + (config.whenFull() == dev.sluice.write.WhenFull.Block
                    ? config.maxBlock().toMillis() : 0) + " ms (the server is slower than"
                    + " the writers, or unreachable); the row was not buffered");
        }
        pending.add(rows);
    }

    private void unreserve(int rows) {
        pending.add(-rows);
        buffer.release(rows);
    }

    @Override
    public CompletableFuture<Void> write(TableSchema schema, Object... row) {
        enter();
        try {
            return append(schema, row, null);
        } finally {
            exit();
        }
    }

    @Override
    public CompletableFuture<Void> write(TableSchema schema, Consumer<RowAppender> row) {
        if (row == null) {
            throw new NullPointerException("row");
        }
        enter();
        try {
            return append(schema, null, row);
        } finally {
            exit();
        }
    }

    /** Adds one row, from {@code values} or, when that is null, from {@code filler}. */
    private CompletableFuture<Void> append(TableSchema schema, Object[] values, Consumer<RowAppender> filler) {
        Accumulator acc = accumulatorOf(schema);
        reserve(1);
        Batch full = null;
        Batch opened = null;
        CompletableFuture<Void> future;
        synchronized (acc) {
            Batch b = acc.current;
            if (acc.appender.filling()) {
                // A write made from inside another row's lambda (the lock is re-entrant): refused before it touches
                // the batch, whose open row belongs to the outer write.
                unreserve(1);
                throw new IllegalStateException("table '" + schema.tableName() + "': a row of this table is still"
                        + " being written (this write was made from inside its row lambda); write it after that"
                        + " lambda returns");
            }
            if (b == null) {
                b = new Batch(Table.from(schema, Math.min(config.maxBatchRows(), 1_024)));
                acc.current = b;
                outstanding.add(b);
                opened = b;
            }
            try {
                if (values != null) {
                    b.table.addRow(values);
                    b.bytes += estimate(values);
                } else {
                    b.bytes += acc.appender.fill(b.table.appender(), filler);
                }
            } catch (RuntimeException e) {
                unreserve(1);
                if (b.table.rowCount() == 0) {
                    acc.current = null;
                    outstanding.remove(b);
                    opened = null;
                }
                throw e;
            }
            future = b.future;
            if (b.table.rowCount() >= config.maxBatchRows() || b.bytes >= config.maxBatchBytes()) {
                acc.current = null;
                full = b;
            }
        }
        if (opened != null && full == null) {
            Batch timed = opened;
            timer.schedule(() -> sealIfOpen(acc, timed), config.flushInterval().toNanos(), TimeUnit.NANOSECONDS);
        }
        if (full != null) {
            seal(full);
        }
        return future;
    }

    /**
     * Returns the accumulator of a schema, making it the first time: a schema with a column this writer's path
     * cannot carry is refused then (and every time after, as it gets none), before any of its rows is buffered.
     *
     * @throws IllegalArgumentException naming the table, the column and the path that carries it ({@link Path#check})
     */
    private Accumulator accumulatorOf(TableSchema schema) {
        Accumulator existing = accumulators.get(schema);
        if (existing != null) {
            return existing;
        }
        config.path().check(schema);
        return accumulators.computeIfAbsent(schema, s -> new Accumulator());
    }

    private static long estimate(Object[] row) {
        long n = 0;
        for (Object v : row) {
            n += v instanceof CharSequence ? ((CharSequence) v).length() + 2 : v instanceof byte[] ? ((byte[]) v).length + 2 : 10;
        }
        return n;
    }

    private void sealIfOpen(Accumulator acc, Batch b) {
        synchronized (acc) {
            if (acc.current != b) {
                return;
            }
            acc.current = null;
        }
        seal(b);
    }

    /** Hands a batch to the sender; its delivery deadline starts now. */
    private void seal(Batch b) {
        b.deadline = paths.now() + deliveryNanos;
        sealed.add(b);
    }

    @Override
    public CompletableFuture<Void> write(Table table) {
        enter();
        try {
            config.path().check(table.schema());
            table.complete();
            reserve(table.rowCount());
            Batch b = new Batch(table);
            outstanding.add(b);
            seal(b);
            return b.future;
        } finally {
            exit();
        }
    }

    private void sealAll() {
        for (Accumulator acc : accumulators.values()) {
            Batch b;
            synchronized (acc) {
                b = acc.current;
                acc.current = null;
            }
            if (b != null) {
                seal(b);
            }
        }
    }

    @Override
    public boolean flush(Duration timeout) {
        sealAll();
        List<CompletableFuture<Void>> waits = new ArrayList<>();
        for (Batch b : outstanding) {
            waits.add(b.future);
        }
        try {
            CompletableFuture.allOf(waits.toArray(new CompletableFuture<?>[0])).get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new LimitExceededException("flush did not finish within " + timeout.toMillis() + " ms; "
                    + pending.sum() + " rows still pending");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LimitExceededException("interrupted while flushing");
        } catch (java.util.concurrent.ExecutionException e) {
            return false;
        }
        return true;
    }

    @Override
    public void flushOrThrow(Duration timeout) {
        flush(timeout);
        BatchWriteException first = unreported.getAndSet(null);
        if (first != null) {
            throw new BatchWriteException("a batch written before this flush failed: " + first.getMessage(),
                    first.err(), first.rows(), first);
        }
    }

    private void sendLoop() {
        while (true) {
            Batch first;
            try {
                first = sealed.poll(50, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                break;
            }
            if (first == null) {
                if (closed && outstanding.isEmpty()) {
                    break;
                }
                continue;
            }
            if (ordered && !takeTurn(first)) {
                continue; // waits behind its table's batch in flight; sent when that one is answered
            }
            try {
                if (config.path() == Path.Bulk) {
                    sendBulk(first);
                } else {
                    sendRegular(first);
                }
            } catch (RuntimeException e) {
                finish(List.of(first), null, new BatchWriteException("could not send the batch: " + e,
                        errOf(e, List.of(first)), first.table.rowCount(), e));
            }
        }
    }

    /**
     * The server's or the transport's answer a failure carries, when it is a write's, kept for the caller; a refusal
     * by one of the client's own rules (a column the path cannot carry) is that, not retryable, naming the tables.
     */
    private static Err errOf(Throwable t, List<Batch> batches) {
        Throwable c = t instanceof java.util.concurrent.CompletionException && t.getCause() != null ? t.getCause() : t;
        if (c instanceof IllegalArgumentException refusal) {
            List<String> tables = new ArrayList<>();
            for (Batch b : batches) {
                tables.add(b.table.schema().tableName());
            }
            return Err.refusedByClient(refusal, tables);
        }
        return errOf(c);
    }

    /** The server's or the transport's answer a failure carries, when it is a write's. */
    private static Err errOf(Throwable t) {
        Throwable c = t instanceof java.util.concurrent.CompletionException && t.getCause() != null ? t.getCause() : t;
        return c instanceof dev.sluice.write.WriteException w ? w.err() : null;
    }

    private void sendRegular(Batch first) {
        if (!acquireInFlight(first)) {
            return;
        }
        List<Batch> group = new ArrayList<>();
        group.add(first);
        long rows = first.table.rowCount();
        // Small sealed batches of other tables ride in the same request.
        while (rows < config.maxBatchRows()) {
            Batch next = sealed.peek();
            if (next == null || rows + next.table.rowCount() > config.maxBatchRows() || sealed.poll() == null) {
                break;
            }
            if (ordered && !takeTurn(next)) {
                continue; // a batch of a table already in this request or in flight: it waits for its turn
            }
            if (next.deadline - paths.now() <= 0) {
                failUnsent(next, false); // waited in the queue past its deadline (its table's turn came late)
                continue;
            }
            group.add(next);
            rows += next.table.rowCount();
        }
        List<Table> tables = new ArrayList<>(group.size());
        long deadline = first.deadline;
        for (Batch b : group) {
            tables.add(b.table);
            if (b.deadline - deadline < 0) {
                deadline = b.deadline;
            }
        }
        CompletableFuture<Result<WriteOk, Err>> sent;
        try {
            sent = paths.write(tables, WriteOp.Insert, context, deadline);
        } catch (RuntimeException e) {
            inFlight.release();
            // Every batch of the group fails, not only the first (the send loop knows only that one).
            finish(group, null, new BatchWriteException("could not send the batch: " + e, errOf(e, group), rowsOf(group), e));
            return;
        }
        sent.whenComplete((r, t) -> {
            inFlight.release();
            if (t != null) {
                finish(group, null, new BatchWriteException("the batch could not be sent: " + t, errOf(t, group), rowsOf(group), t));
            } else if (r.isOk()) {
                finish(group, r, null);
            } else {
                Err err = r.getErr();
                finish(group, null, new BatchWriteException(failedWrite(err, group), err, rowsOf(group), err.cause()));
            }
        });
    }

    /**
     * Words the error a batch's write came back with by who made it: the server's refusal, with its code, or what the
     * client decided (no endpoint reached, a deadline, a local limit or rule, a shutdown); the error's own message
     * follows, which says why and what to do next.
     */
    private static String failedWrite(Err err, List<Batch> group) {
        java.util.Set<String> names = new java.util.LinkedHashSet<>();
        for (Batch b : group) {
            names.add("'" + b.table.schema().tableName() + "'");
        }
        String batch = "the batch of " + rowsOf(group) + " rows of " + String.join(", ", names);
        if (err.code() >= 0) {
            dev.sluice.write.StatusCode code = err.statusCode();
            return "the server refused " + batch + " with code " + err.code() + (code != null ? " (" + code + ")" : "")
                    + ": " + err.message();
        }
        boolean fromCall = err.cause() instanceof io.grpc.StatusRuntimeException
                || err.cause() instanceof io.grpc.StatusException;
        if (String.valueOf(err.message()).startsWith(dev.sluice.internal.write.RegularWriter.SHUT_DOWN_UNANSWERED)) {
            return "the client failed " + batch + ": " + err.message();
        }
        if (fromCall && dev.sluice.internal.error.GrpcErrors.transportFailure(err)) {
            return batch + " reached no server: " + err.message();
        }
        if (fromCall && err.grpcCode() != dev.sluice.write.StatusCode.Grpc.DEADLINE_EXCEEDED
                && err.grpcCode() != dev.sluice.write.StatusCode.Grpc.CANCELLED) {
            // A status without GreptimeDB's code: the server's, or the transport's on its behalf.
            return "the call carrying " + batch + " ended with gRPC status " + err.grpcCode() + ": " + err.message();
        }
        return "the client failed " + batch + ": " + err.message();
    }

    /**
     * Ordered mode: gives a batch its table's turn, or queues it behind the table's batch holding the turn.
     *
     * @param b a batch taken from the sealed queue
     * @return true when it may be sent now
     */
    private boolean takeTurn(Batch b) {
        synchronized (turns) {
            if (b.hasTurn) {
                return true; // handed the turn by its predecessor
            }
            java.util.ArrayDeque<Batch> waiting = turns.get(b.table.schema().tableName());
            if (waiting == null) {
                turns.put(b.table.schema().tableName(), new java.util.ArrayDeque<>());
                b.hasTurn = true;
                return true;
            }
            waiting.add(b);
            return false;
        }
    }

    /** Ordered mode: an answered batch hands its table's turn to the next batch of the table, if one waits. */
    private void passTurn(Batch b) {
        Batch next;
        synchronized (turns) {
            if (!b.hasTurn) {
                return;
            }
            b.hasTurn = false;
            String table = b.table.schema().tableName();
            java.util.ArrayDeque<Batch> waiting = turns.get(table);
            next = waiting == null ? null : waiting.poll();
            if (next == null) {
                turns.remove(table);
                return;
            }
            next.hasTurn = true;
        }
        sealed.add(next);
    }

    /**
     * Waits for an in-flight slot for a batch, until the batch's delivery deadline at most; when none came by then
     * (or the sender was interrupted), fails the batch unsent. The batches queued behind it then wait for their own
     * deadlines, so none waits past its own. The wait is on the real clock; the deadline on {@link Paths#now()}.
     *
     * @return true when the slot is taken and the batch may be sent
     */
    private boolean acquireInFlight(Batch b) {
        long wait = Math.min(inFlightWaitNanos, b.deadline - paths.now());
        try {
            if (wait > 0 && inFlight.tryAcquire(wait, TimeUnit.NANOSECONDS)) {
                if (b.deadline - paths.now() > 0) {
                    return true;
                }
                inFlight.release(); // the slot came as the deadline passed
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failUnsent(b, true);
            return false;
        }
        failUnsent(b, false);
        return false;
    }

    /** Fails a batch that got no in-flight slot by its deadline (or before the writer closed): nothing was sent. */
    private void failUnsent(Batch b, boolean interrupted) {
        Throwable last = lastFailure;
        String why = interrupted ? "the writer was closed while the batch waited for an in-flight slot"
                : "it reached its delivery deadline (" + deliveryTimeout.toMillis() + " ms after it was sealed) while"
                + " all " + inFlightSlots + " in-flight slots were taken by batches " + paths.endpoints()
                + " had not answered";
        finish(List.of(b), null, new BatchWriteException("the batch of " + b.table.rowCount() + " rows of '"
                + b.table.schema().tableName() + "' was not sent: " + why + (last != null ? "; the latest batch"
                + " failure: " + last.getMessage() : "") + ". Nothing of it was stored: write its rows again once the"
                + " server answers", errOf(last), b.table.rowCount(), null), false);
    }

    private void sendBulk(Batch b) {
        // This writer's slot first: the stream's own wait for a slot knows nothing of this batch's deadline.
        if (!acquireInFlight(b)) {
            return;
        }
        TableSchema schema = b.table.schema();
        BulkStream stream = null;
        CompletableFuture<Integer> sent;
        try {
            for (int attempt = 0;; attempt++) {
                stream = bulkWriters.get(schema);
                if (stream != null && !stream.usable()) {
                    // Replaced before this batch is added: a failed writer fails it with an earlier batch's error.
                    bulkWriters.remove(schema);
                    stream.writer.close();
                    stream = null;
                }
                if (stream == null) {
                    stream = new BulkStream(paths.bulk(schema, BulkWrite.Config.newBuilder()
                            .maxInFlightRequests(inFlightSlots)
                            .requestTimeout(closeTimeout).build(), context));
                    bulkWriters.put(schema, stream);
                }
                boolean sentBefore = stream.sentBefore;
                stream.sentBefore = true;
                dev.sluice.bulk.TableBufferRoot root = stream.writer.tableBufferRoot(config.maxBatchRows());
                root.addTable(b.table);
                sent = paths.writeNext(stream.writer, b.deadline);
                boolean kept = root.rowCount() > 0;
                if (!sent.isCompletedExceptionally() && !kept) {
                    break;
                }
                stream.broken = true; // refused before it was sent: its rows may still be in the writer's batch
                if (attempt > 0 || !sentBefore || kept) {
                    break;
                }
                // A writer that took batches before refused this one at once and dropped its rows: an earlier batch
                // failed it while this one was being added. This batch was not sent; it goes to a new writer.
            }
        } catch (RuntimeException e) {
            if (stream != null) {
                stream.broken = true; // the batch may be partly in the writer's batch
            }
            inFlight.release();
            throw e;
        }
        BulkStream s = stream;
        sent.whenComplete((rows, t) -> {
            if (t != null) {
                s.broken = true;
            }
            inFlight.release();
            if (t == null) {
                finish(List.of(b), null, null);
            } else {
                Throwable cause = t instanceof java.util.concurrent.CompletionException && t.getCause() != null ? t.getCause() : t;
                finish(List.of(b), null, new BatchWriteException("the bulk batch failed: " + cause.getMessage(),
                        cause instanceof dev.sluice.write.WriteException ? ((dev.sluice.write.WriteException) cause).err() : null,
                        b.table.rowCount(), cause));
            }
        });
    }

    private static int rowsOf(List<Batch> group) {
        int n = 0;
        for (Batch b : group) {
            n += b.table.rowCount();
        }
        return n;
    }

    private void finish(List<Batch> group, Result<WriteOk, Err> ok, Throwable error) {
        finish(group, ok, error, true);
    }

    /**
     * Settles batches.
     *
     * @param sent whether the error is the answer of a send (then named by the batches failing unsent after it)
     */
    private void finish(List<Batch> group, Result<WriteOk, Err> ok, Throwable error, boolean sent) {
        if (error != null && sent) {
            lastFailure = error;
        }
        for (Batch b : group) {
            if (!outstanding.contains(b) || !b.settled.compareAndSet(false, true)) {
                continue; // already settled (close() fails what is left; a late answer changes nothing)
            }
            int rows = b.table.rowCount();
            if (ordered) {
                passTurn(b);
            }
            // Counters and buffer room first: whoever waits on the future then sees them settled.
            unreserve(rows);
            if (error == null) {
                acked.addAndGet(rows);
                b.future.complete(null);
            } else {
                failed.addAndGet(rows);
                if (error instanceof BatchWriteException e) {
                    unreported.compareAndSet(null, e); // before the future: whoever it wakes finds it recorded
                }
                b.future.completeExceptionally(error);
            }
            // Only now: a flush that takes the outstanding batches waits for this one until its future is complete.
            outstanding.remove(b);
        }
    }

    @Override
    public long pendingRows() {
        return pending.sum();
    }

    @Override
    public long ackedRows() {
        return acked.get();
    }

    @Override
    public long failedRows() {
        return failed.get();
    }

    @Override
    public void close() {
        close(closeTimeout);
    }

    /**
     * Closes the writer as {@link #close()} does, waiting at most about {@code timeout} for the last batches
     * (the client's exit hook closes writers left open with a shorter wait than the default). A second call,
     * concurrent or later, returns at once.
     *
     * @param timeout the longest wait for buffered and in-flight batches to be answered
     */
    public void close(Duration timeout) {
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        closed = true;
        long deadline = System.nanoTime() + timeout.toNanos();
        // Appends that passed their closed-check before it was set finish first, so flush seals their rows (an
        // append takes microseconds: they get a second even when the close itself may not wait).
        long appendsDeadline = Math.max(deadline, System.nanoTime() + TimeUnit.SECONDS.toNanos(1));
        while (inside.sum() > 0 && System.nanoTime() < appendsDeadline) {
            Thread.onSpinWait();
            Thread.yield();
        }
        boolean flushed = false;
        try {
            flushed = flush(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        } catch (LimitExceededException e) {
            // Whatever is still outstanding fails below rather than being left pending.
        }
        sender.interrupt();
        try {
            sender.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (BulkStream s : bulkWriters.values()) {
            BulkStreamWriter w = s.writer;
            try {
                if (flushed && s.usable()) {
                    // Every batch is answered: only the stream's own end is waited for. A failed writer is only
                    // closed: it may still hold the rows of a batch already failed, which completing would send.
                    w.completed();
                }
            } catch (RuntimeException ignored) {
                // batch futures already carry the failure
            } finally {
                w.close();
            }
        }
        bulkWriters.clear();
        onClose.accept(this);
        swept = true;
        failLeftovers();
    }

    /** Fails every batch still outstanding once the writer is closed; none is left pending. */
    private void failLeftovers() {
        sealAll();
        sealed.clear();
        synchronized (turns) {
            turns.clear(); // every waiting batch is outstanding: it fails below
        }
        for (Batch b : new ArrayList<>(outstanding)) {
            finish(List.of(b), null, new BatchWriteException("the batching writer closed before the batch of "
                    + b.table.rowCount() + " rows of '" + b.table.schema().tableName() + "' was acknowledged (its"
                    + " client shut down, or close() ran out of time); it may or may not have been stored", null,
                    b.table.rowCount(), null), false);
        }
    }
}
