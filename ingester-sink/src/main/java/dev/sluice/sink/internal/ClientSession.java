package dev.sluice.sink.internal;

import dev.sluice.BatchWriteException;
import dev.sluice.BatchingWriter;
import dev.sluice.GreptimeDB;
import dev.sluice.LimitExceededException;
import dev.sluice.data.InvalidDataException;
import dev.sluice.data.RowAppender;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.metrics.MetricsSink;
import dev.sluice.write.Context;
import dev.sluice.write.Err;
import dev.sluice.write.ErrorKind;
import dev.sluice.write.Result;
import dev.sluice.write.StatusCode;
import dev.sluice.write.WriteOk;
import dev.sluice.write.WriteOp;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * The connector's only contact with the Sluice client: builds the client and its batching writer from
 * {@link SinkSettings}, hands rows to the writer, sends deletes, flushes, and turns the client's failures into
 * {@link IOException}s carrying the server's answer. Keeping every client call here lets the rest of the connector
 * stay as it is when the client's API moves.
 *
 * <p>Used by one writer thread of an integration (a Flink sink writer, a Spark data writer). Inserts and upserts go
 * through the batching writer (ordered per table when asked, so a later write of a key never lands before an earlier
 * one). Deletes are held, per table, and sent as one request per table after everything handed to the batching writer
 * before them is acknowledged. Writes and deletes of different rows (a row being its table, tags and time index) may
 * land in any order; those of one row land in the stream's order: a write of a row with a delete held waits, held
 * too, until the deletes are acknowledged, and a delete of a row with such a write held first sends everything held.
 * So a changelog of many deletes between writes costs a flush and a delete request per send of what is held, not per
 * delete ({@link OrderedDeletes} keeps that order). Held deletes are sent when a table holds {@code batchRows} of
 * them or as many writes wait, when the oldest was held {@code flushInterval} (checked at the next row, or by the
 * integration's timer through {@link #sendHeldWhenDue()}), and at every flush (a checkpoint, a commit). Failures name
 * the integration's options
 * and say what its job does next in the words of {@link SinkSettings#wording()}.
 *
 * <p>Each row written stays known (its element, its position in the writer's input, and how it fills its row)
 * until its batch is acknowledged. When GreptimeDB refuses a batch on the regular path for its data (not for
 * credentials, a missing database or a transport failure), the batch's rows are sent again in halves, directly,
 * until the first row the server refuses on its own is found, and the failure names that row and the column the
 * server's answer names.
 */
public final class ClientSession implements AutoCloseable {
    private final SinkSettings settings;
    /** {@link SinkSettings#flushBound()} in nanoseconds. */
    private final long flushBoundNanos;
    private final SinkClients clients;
    private final GreptimeDB db;
    private final BatchingWriter writer;
    private final Context context;
    private final AtomicReference<IOException> failure = new AtomicReference<>();
    private final SinkMetrics metrics;
    /** Deletes held per table, and the writes of their rows that wait for them. */
    private final OrderedDeletes<Sent> held;
    private final Map<CompletableFuture<Void>, List<Sent>> unanswered = new ConcurrentHashMap<>();
    /** Held while an acknowledged batch is taken out of {@link #unanswered} and counted. */
    private final Object counting = new Object();
    private final AtomicReference<CompletableFuture<Void>> failedBatch = new AtomicReference<>();
    private final AtomicReference<Throwable> failedCause = new AtomicReference<>();
    private CompletableFuture<Void> lastBatch;
    private List<Sent> lastRows;
    private boolean narrowed;
    private long position;
    private Object element;
    private String input = "this writer";
    private java.util.function.Function<Object, String> describer = String::valueOf;

    /** A row handed to the batching writer and not yet acknowledged. */
    private record Sent(TableSchema schema, Consumer<RowAppender> fill, long position, Object element) {
    }

    /** A row the client refused before sending: which table and column, and why. */
    public static final class BadRowException extends Exception {
        private static final long serialVersionUID = 1L;
        private final String column;

        BadRowException(InvalidDataException e) {
            super(e.getMessage(), e);
            this.column = e.column();
        }

        /** @return the column whose value was refused, or null */
        public String column() {
            return column;
        }
    }

    private ClientSession(SinkSettings settings, SinkClients clients, SinkMetrics metrics) {
        this.settings = settings;
        this.flushBoundNanos = settings.flushBound().toNanos();
        this.clients = clients;
        this.db = clients.db();
        this.writer = clients.writer();
        this.context = clients.context();
        this.metrics = metrics;
        this.held = new OrderedDeletes<>(clients, SENT);
    }

    /**
     * Opens the client (it connects lazily) and its batching writer from the settings, through
     * {@link SinkClients#open(SinkSettings, dev.sluice.metrics.MetricsSink, boolean)}.
     *
     * @param s the settings
     * @param metrics where the client's counters go
     * @param orderedPerTable at most one batch of a table in flight (keeps the order of writes of one key)
     * @return the session
     */
    public static ClientSession open(SinkSettings s, SinkMetrics metrics, boolean orderedPerTable) {
        SinkClients clients = SinkClients.open(s, metrics.clientSink(), orderedPerTable);
        metrics.inFlight(clients.writer()::pendingRows);
        return new ClientSession(s, clients, metrics);
    }


    /**
     * Creates a table unless it exists (with the hints as table options), and waits for the answer: credentials,
     * database and table options are thereby checked when the writer starts, before any row is taken. An existing
     * table is left as it is; a column type it disagrees with is refused with the first batch, the server's answer
     * naming the column and both types.
     *
     * @param schema the table
     * @throws IOException with the server's answer
     * @throws InterruptedException when interrupted
     */
    public void prepare(TableSchema schema) throws IOException, InterruptedException {
        Result<WriteOk, Err> r;
        try {
            r = db.createTable(schema, context).get(settings.flushBound().toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new IOException("GreptimeDB at " + settings.endpoints() + " did not answer within "
                    + settings.flushBound().toSeconds() + " s when the sink started", e);
        } catch (ExecutionException e) {
            throw describe(e.getCause());
        }
        if (!r.isOk()) {
            Err err = r.getErr();
            if (err.grpcCode() == StatusCode.Grpc.DEADLINE_EXCEEDED) {
                throw new IOException("no answer within " + seconds(settings.requestTimeout()) + " from "
                        + String.join(" or ", settings.endpoints()) + " when the sink started (creating table "
                        + schema.tableName() + " if missing), " + retriesAllowed() + " (gRPC DEADLINE_EXCEEDED: "
                        + err.message() + "). GreptimeDB may be overloaded or unreachable: check that it answers at"
                        + " these endpoints, then " + settings.wording().rerunAfterFix());
            }
            throw new IOException("GreptimeDB refused the sink's start (creating table " + schema.tableName()
                    + " if missing, in database " + settings.database() + " as user '" + settings.username()
                    + "'): code " + err.code() + " (" + err.statusCode() + ", gRPC " + err.grpcCode() + "): "
                    + err.message() + ". Check endpoints, database, username/password and table options");
        }
    }

    /**
     * Writes (inserts or overwrites) a row.
     *
     * @param schema the row's table
     * @param fill sets the row's values
     * @throws IOException when an earlier batch failed for good, the buffer stayed full for the delivery timeout, or
     *     the write path cannot carry the table's columns (named in the message)
     * @throws BadRowException when a value does not fit its column (nothing of the row is kept)
     * @throws InterruptedException when interrupted while waiting for held deletes
     */
    public void insert(TableSchema schema, Consumer<RowAppender> fill)
            throws IOException, BadRowException, InterruptedException {
        rethrow();
        sendHeldWhenDue();
        Sent row = new Sent(schema, fill, position, element);
        boolean waits;
        try {
            waits = held.holds(row); // its row has a delete held: the write lands after it
        } catch (InvalidDataException e) {
            throw new BadRowException(e);
        }
        if (!waits) {
            hand(row);
        } else if (held.due()) {
            sendHeld();
        }
    }

    /**
     * Writes rows the caller has put into a table of its own as one batch (the batching writer sends it as it is,
     * without taking it row by row): for a writer that fills its rows itself, while {@link #keepsRows()} is false.
     * The table must not change afterwards. A failure of its batch names its first and last elements.
     *
     * @param rows the rows, in a table of the rows' schema, of at most the buffer's rows
     * @param first the position of its first row's element in the writer's input, from 1
     * @param last the position of its last row's element
     * @throws IOException when an earlier batch failed for good, the buffer stayed full for the delivery timeout, or
     *     the write path cannot carry the table's columns (named in the message)
     * @throws InterruptedException when interrupted
     * @throws IllegalStateException while rows are kept (deletes are held, or on the regular path)
     */
    public void insert(Table rows, long first, long last) throws IOException, InterruptedException {
        rethrow();
        sendHeldWhenDue();
        if (keepsRows()) {
            throw new IllegalStateException("a table of rows is written only while rows are not kept");
        }
        if (rows.rowCount() == 0) {
            return;
        }
        long deadline = 0;
        while (true) {
            try {
                CompletableFuture<Void> f = writer.write(rows);
                track(f, new Sent(rows.schema(), null, first, null));
                track(f, new Sent(rows.schema(), null, last, null));
                return;
            } catch (IllegalArgumentException e) {
                throw pathRefused(e);
            } catch (LimitExceededException e) {
                deadline = stillWaiting(deadline, e);
            }
        }
    }

    /**
     * Tells whether the row written next is kept after {@link #insert} returns: its {@code fill} may run again and
     * its element (see {@link #element}) may be described later. That is so on the regular path, where the rows of a
     * refused batch are written again to single out the refused row, and while deletes are held (a write of a row
     * with a delete held waits for it). Otherwise {@code fill} runs only during {@code insert} and the element is
     * never read, so a writer may hand over a row object it reuses for the next row.
     *
     * @return true when the row written next must stay as it is until its batch is acknowledged
     */
    public boolean keepsRows() {
        return !clients.bulk() || !held.isEmpty();
    }

    /**
     * The batching writer refused a table its write path cannot carry (a rule of the client, checked before anything
     * of the table is buffered or sent): a setup problem of the whole table, not a bad row, and no retry helps.
     */
    private static IOException pathRefused(IllegalArgumentException e) {
        return new IOException(e.getMessage(), e);
    }

    /** Hands a row to the batching writer, waiting within the delivery budget while its buffer is full. */
    private void hand(Sent row) throws IOException, BadRowException, InterruptedException {
        long deadline = 0;
        while (true) {
            CompletableFuture<Void> f;
            try {
                f = writer.write(row.schema(), row.fill());
            } catch (InvalidDataException e) {
                throw new BadRowException(e);
            } catch (IllegalArgumentException e) {
                throw pathRefused(e);
            } catch (LimitExceededException e) {
                deadline = stillWaiting(deadline, e);
                continue;
            }
            track(f, row);
            return;
        }
    }

    /**
     * Backpressure: the server is slow or away and the buffer is full. Keeps waiting within the delivery budget,
     * which starts at the first full buffer (a row that finds room costs no clock read); a batch that fails meanwhile
     * ends the wait with its answer.
     *
     * @param deadline the wait's deadline ({@link System#nanoTime()}), or 0 at the first full buffer
     * @param e the writer's refusal
     * @return the deadline
     * @throws IOException with the failed batch's answer, or when the deadline has passed
     * @throws InterruptedException when the writing thread is interrupted (its job cancelled): the writer gives up the
     *     wait for room, which it reports as a full buffer
     */
    private long stillWaiting(long deadline, LimitExceededException e) throws IOException, InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted while waiting for room in the batching writer's buffer");
        }
        rethrow();
        if (deadline == 0) {
            return System.nanoTime() + flushBoundNanos;
        }
        if (System.nanoTime() - deadline > 0) {
            throw new IOException("GreptimeDB did not take rows for " + settings.flushBound().toSeconds()
                    + " s (the buffer of " + settings.bufferRows() + " rows stayed full): " + e.getMessage()
                    + ". Check that the server is reachable, or raise " + settings.wording().retryTimeoutOption(), e);
        }
        return deadline;
    }

    /**
     * Says which element the rows written next come from (named in a failure).
     *
     * @param position the element's position in the writer's input, from 1
     * @param element the element; kept until its rows are acknowledged, so it must not change afterwards
     */
    public void element(long position, Object element) {
        this.position = position;
        this.element = element;
    }

    /**
     * Sets how a failure names the writer and an element of its input.
     *
     * @param input names the writer, e.g. {@code subtask 0}
     * @param describer describes an element, e.g. {@code +I(host=a, v=1.0)}
     */
    public void naming(String input, java.util.function.Function<Object, String> describer) {
        this.input = input;
        this.describer = describer;
    }

    private void track(CompletableFuture<Void> f, Sent sent) {
        if (f == lastBatch) {
            if (clients.bulk() && lastRows.size() > 1) {
                // A refused bulk batch is named by its first and last rows only: the rows between are not kept.
                lastRows.set(lastRows.size() - 1, sent);
            } else {
                lastRows.add(sent);
            }
            return;
        }
        List<Sent> rows = unanswered.get(f);
        if (rows != null) {
            rows.add(sent);
            lastBatch = f;
            lastRows = rows;
            return;
        }
        rows = new ArrayList<>();
        rows.add(sent);
        lastBatch = f;
        lastRows = rows;
        unanswered.put(f, rows);
        f.whenComplete((ok, t) -> {
            if (t == null) {
                acknowledged(f);
            } else {
                metrics.failure();
                if (failedBatch.compareAndSet(null, f)) {
                    failedCause.set(t);
                }
                failure.compareAndSet(null, describe(t));
            }
        });
    }

    /**
     * Deletes a row, addressed by its tags and time index.
     *
     * @param keySchema the table's tags and time index
     * @param fill sets the key's values
     * @throws IOException when an earlier write failed for good
     * @throws BadRowException when a value does not fit its column
     * @throws InterruptedException when interrupted while waiting for earlier writes and deletes
     */
    public void delete(TableSchema keySchema, Consumer<RowAppender> fill)
            throws IOException, BadRowException, InterruptedException {
        rethrow();
        sendHeldWhenDue();
        Sent key = new Sent(keySchema, fill, position, element);
        try {
            if (!held.hold(key)) {
                sendHeld(); // a write of its row waits for the held deletes, and this delete must land after that write
                held.hold(key);
            }
        } catch (InvalidDataException e) {
            throw new BadRowException(e);
        }
        if (held.due()) {
            sendHeld();
        }
    }

    /**
     * Sends the held deletes (and the writes of their rows that wait for them) once they are due: the oldest was held
     * {@code flushInterval}, or a table holds {@code batchRows} of them. An integration with a timer calls this when
     * {@link #heldDueIn()} has passed, so deletes reach the server on a stream that has gone quiet.
     *
     * @throws IOException when the writes before them or the deletes failed
     * @throws InterruptedException when interrupted
     */
    public void sendHeldWhenDue() throws IOException, InterruptedException {
        if (held.due()) {
            sendHeld();
        }
    }

    /**
     * Says when the held deletes are due.
     *
     * @return the time until the oldest held delete has waited {@code flushInterval} (zero when due), or empty when
     *     nothing is held
     */
    public Optional<Duration> heldDueIn() {
        return held.isEmpty() ? Optional.empty() : Optional.of(held.untilDue());
    }

    /**
     * Sends what is held, in stream order: waits until the batching writer acknowledged every write handed to it,
     * then sends the held deletes and waits for their acknowledgement, then hands the writes that waited for them to
     * the batching writer.
     */
    private void sendHeld() throws IOException, InterruptedException {
        if (held.isEmpty()) {
            return;
        }
        flushWriter();
        OrderedDeletes.Sent<Sent> sent = held.send(true, settings.flushBound());
        settleDeletes(sent.deletes());
        for (Sent row : sent.writes()) {
            try {
                hand(row);
            } catch (BadRowException e) {
                // Its values were read when it was held: a refusal now is the client's fault, not the row's.
                throw new IllegalStateException("a held row was refused when sent: " + e.getMessage(), e);
            }
        }
    }

    /** Fails with the first delete GreptimeDB refused, or with the answer that stopped the deletes. */
    private void settleDeletes(RefusedRowIsolator.Report<Sent> report) throws IOException {
        if (!report.stored().isEmpty()) {
            metrics.batch();
        }
        if (report.stoppedBy() != null) {
            metrics.failure();
            throw describe(report.stoppedBy(), report.notWritten().size());
        }
        RefusedRowIsolator.Refused<Sent> first = report.refused().stream()
                .min(Comparator.comparingLong(r -> r.row().position())).orElse(null);
        if (first != null) {
            metrics.failure();
            Sent bad = first.row();
            throw new IOException("GreptimeDB refused deleting the row of element " + bad.position() + " of " + input
                    + " since it started: " + describer.apply(bad.element()) + " (table " + bad.schema().tableName()
                    + first.column().map(c -> ", column " + c).orElse("") + "): code " + first.err().code() + " ("
                    + first.err().statusCode() + ", gRPC " + first.err().grpcCode() + "): " + first.err().message()
                    + " (" + report.stored().size() + " deletes stored, " + report.refused().size() + " refused). Fix"
                    + " or filter this key upstream, then " + settings.wording().rerunAfterFix());
        }
    }

    /**
     * Sends everything buffered and returns once all of it is acknowledged.
     *
     * @throws IOException with the server's answer when something failed for good, or when the wait ran out
     * @throws InterruptedException when interrupted
     */
    public void flush() throws IOException, InterruptedException {
        sendHeld();
        flushWriter();
    }

    private void flushWriter() throws IOException, InterruptedException {
        try {
            writer.flushOrThrow(settings.flushBound());
        } catch (LimitExceededException e) {
            throw new IOException("rows written to GreptimeDB were not acknowledged within "
                    + settings.flushBound().toSeconds() + " s: " + e.getMessage(), e);
        } catch (BatchWriteException e) {
            // A failed flush must never pass as a checkpoint or commit: record the failed batch here, as its future's
            // callback may not have run yet.
            failed(e.getCause() != null ? e.getCause() : e);
            rethrow();
        }
        // Every batch is answered now, but a future's own callback may still be on its way: count them here, once.
        // Under the counting lock, so that a callback that has taken its batch has also counted it.
        synchronized (counting) {
            for (CompletableFuture<Void> f : unanswered.keySet()) {
                if (f.isDone() && !f.isCompletedExceptionally()) {
                    acknowledged(f);
                }
            }
        }
        rethrow();
    }

    /** Counts an acknowledged batch once, whether its callback or a flush sees it first. */
    private void acknowledged(CompletableFuture<Void> f) {
        synchronized (counting) {
            if (unanswered.remove(f) != null) {
                metrics.batch();
            }
        }
    }

    /** Records the first failed batch (its rows are found by the exception its future failed with). */
    private void failed(Throwable cause) {
        for (CompletableFuture<Void> f : unanswered.keySet()) {
            if (f.isCompletedExceptionally() && failureOf(f) == cause) {
                if (failedBatch.compareAndSet(null, f)) {
                    failedCause.set(cause);
                }
                break;
            }
        }
        failure.compareAndSet(null, describe(cause));
    }

    private static Throwable failureOf(CompletableFuture<Void> f) {
        try {
            f.getNow(null);
            return null;
        } catch (CompletionException | java.util.concurrent.CancellationException e) {
            return e.getCause() != null ? e.getCause() : e;
        }
    }

    private void rethrow() throws IOException, InterruptedException {
        IOException e = failure.get();
        if (e != null) {
            if (!narrowed) {
                narrowed = true;
                IOException row = narrowDown();
                if (row == null) {
                    List<Sent> rows = failedBatch.get() == null ? null : unanswered.get(failedBatch.get());
                    if (rows != null && !rows.isEmpty()) {
                        // Not narrowed to one row: say at least which elements the batch held.
                        row = new IOException(e.getMessage() + ". The batch held elements "
                                + rows.get(0).position() + " to " + rows.get(rows.size() - 1).position() + " of "
                                + input + " since it started", e.getCause());
                    }
                }
                if (row != null) {
                    failure.set(row);
                    e = row;
                }
            }
            throw new IOException(e.getMessage(), e);
        }
    }

    /**
     * Finds the first row of the refused batch that GreptimeDB refuses on its own, by writing the batch's rows again
     * directly through {@link RefusedRowIsolator} (the rows the server takes are stored, as a replay after a restart
     * would store them).
     *
     * @return the failure naming the row, or null when the refusal is not about the data or cannot be narrowed
     */
    private IOException narrowDown() {
        CompletableFuture<Void> f = failedBatch.get();
        Throwable t = failedCause.get();
        Throwable c = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
        if (f == null || clients.bulk() || !(c instanceof BatchWriteException b) || b.err() == null
                || b.err().kind() != ErrorKind.Data) {
            return null;
        }
        List<Sent> rows = unanswered.get(f);
        if (rows == null || rows.isEmpty()) {
            return null;
        }
        RefusedRowIsolator.Report<Sent> report;
        try {
            report = new RefusedRowIsolator<>(clients, SENT).isolate(rows, WriteOp.Insert);
        } catch (RuntimeException e) {
            return null;
        }
        RefusedRowIsolator.Refused<Sent> first = report.refused().stream()
                .min(Comparator.comparingLong(r -> r.row().position())).orElse(null);
        if (first == null) {
            return null; // no row was refused on its own: the refusal did not come from one row
        }
        Sent bad = first.row();
        Err refusal = first.err();
        String column = first.column().map(name -> "column " + name)
                .orElse("a column the server's answer does not name");
        return new IOException("GreptimeDB refused element " + bad.position() + " of " + input + " since it started: "
                + describer.apply(bad.element()) + " (table "
                + bad.schema().tableName() + ", " + column + "): code " + refusal.code() + " ("
                + refusal.statusCode() + ", gRPC " + refusal.grpcCode() + "): " + refusal.message()
                + ". It was in a batch of " + rows.size() + " rows the server refused; writing the batch's rows again"
                + " directly singled it out (" + report.stored().size() + " stored, " + report.refused().size()
                + " refused" + (report.notWritten().isEmpty() ? "" : ", " + report.notWritten().size()
                + " not written: " + SinkClients.describe(report.stoppedBy())) + "). Fix or filter this value"
                + " upstream, or change the table's column, then " + settings.wording().rerunAfterFix());
    }

    /** How a row handed to the batching writer is written again directly. */
    private static final RefusedRowIsolator.Rows<Sent> SENT = new RefusedRowIsolator.Rows<>() {
        @Override
        public TableSchema schema(Sent row) {
            return row.schema();
        }

        @Override
        public void append(Sent row, Table table) {
            RowAppender a = table.appender();
            try {
                row.fill().accept(a);
                a.endRow();
            } catch (RuntimeException e) {
                a.cancelRow();
                throw e;
            }
        }
    };

    private IOException describe(Throwable t) {
        Throwable c = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
        if (c instanceof BatchWriteException b && b.err() != null) {
            return describe(b.err(), b.rows());
        }
        return new IOException("writing to GreptimeDB failed: " + c, c);
    }

    private IOException describe(Err err, int rows) {
        String tables = err.tables() == null || err.tables().isEmpty() ? "?" : String.join(", ", err.tables());
        if (err.grpcCode() == StatusCode.Grpc.DEADLINE_EXCEEDED) {
            return new IOException("no answer within " + seconds(settings.requestTimeout()) + " from "
                    + String.join(" or ", settings.endpoints()) + " to a batch of " + rows + " rows for table "
                    + tables + ", " + retriesAllowed() + " (gRPC DEADLINE_EXCEEDED: " + err.message() + ")."
                    + " GreptimeDB may be overloaded or unreachable, and the batch may or may not have been stored. "
                    + whatTheJobDoesNext());
        }
        if (err.code() < 0 && err.cause() instanceof IllegalArgumentException && !err.retryable()) {
            return new IOException("Sluice refused a batch of " + rows + " rows for table " + tables + " before"
                    + " sending it, and nothing of it was sent: " + err.message() + ". Fix the table or the settings,"
                    + " then " + settings.wording().rerunAfterFix());
        }
        return new IOException("GreptimeDB refused a batch of " + rows + " rows for table " + tables + ": code "
                + err.code() + " (" + err.statusCode() + ", gRPC " + err.grpcCode() + "): " + err.message()
                + (err.retryable() ? " (retryable, but the retries ran out). " + whatTheJobDoesNext()
                        : " (not retryable: fix the data or the table, then " + settings.wording().rerunAfterFix() + ")"));
    }

    /**
     * Says how often a request was sent before it failed: until the retry timeout ran out when the attempts are not
     * limited, else at most the attempts within the retry timeout (whichever ended first; the client's message says
     * after how many attempts).
     */
    private String retriesAllowed() {
        String timeout = settings.wording().retryTimeoutOption() + " (" + seconds(settings.deliveryTimeout()) + ")";
        if (settings.retryAttempts() == 0) {
            return "retried until " + timeout + " ran out";
        }
        return "sent as often as the retry settings allow: at most " + settings.retryAttempts()
                + (settings.retryAttempts() == 1 ? " attempt" : " attempts") + " within " + timeout;
    }

    /** What the job does after this failure, in the words of the integration that runs it. */
    private String whatTheJobDoesNext() {
        return settings.wording().afterFailure();
    }

    private static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() / 1000.0 + " s";
    }

    /**
     * The batching writer's settings, with a connection string's keys applied: what makes a batch full and how long a
     * row may wait in one.
     *
     * @return the settings
     */
    public BatchingWriter.Config batching() {
        return clients.writerConfig();
    }

    /** @return rows buffered or in flight */
    public long pendingRows() {
        return writer.pendingRows() + held.held();
    }

    /**
     * Closes the writer and the client. Rows not flushed before are not waited for (the integration replays them:
     * Flink after a restart from the last checkpoint, Spark by retrying the task).
     */
    @Override
    public void close() {
        unanswered.clear();
        try {
            db.shutdownNow();
            writer.close();
        } finally {
            db.shutdownGracefully(Duration.ofSeconds(5));
        }
    }

    /** @return the metrics bridge */
    SinkMetrics metrics() {
        return metrics;
    }

    /** Bridges the client's metrics to whatever holds them (Flink's metric group, Spark's task metrics). */
    public interface SinkMetrics {
        /** @return the client's metrics sink */
        MetricsSink clientSink();

        /** One batch acknowledged. */
        void batch();

        /** One batch failed for good. */
        void failure();

        /**
         * Registers the in-flight gauge.
         *
         * @param rows reads rows buffered or in flight
         */
        void inFlight(java.util.function.LongSupplier rows);
    }
}
