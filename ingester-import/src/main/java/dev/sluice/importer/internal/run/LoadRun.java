package dev.sluice.importer.internal.run;

import dev.sluice.data.InvalidDataException;
import dev.sluice.data.RowAppender;
import dev.sluice.data.SemanticType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.importer.internal.failure.ImportFailure;
import dev.sluice.importer.internal.plan.BadValue;
import dev.sluice.importer.internal.plan.Mapping;
import dev.sluice.importer.internal.plan.Plan;
import dev.sluice.importer.internal.plan.Widening;
import dev.sluice.importer.internal.report.Rejects;
import dev.sluice.importer.internal.report.Stats;
import dev.sluice.importer.internal.source.Format;
import dev.sluice.importer.internal.source.Inputs;
import dev.sluice.importer.internal.source.LineProtocol;
import dev.sluice.importer.internal.source.LineProtocolSource;
import dev.sluice.importer.internal.plan.LineProtocolTables;
import dev.sluice.importer.internal.source.RecordSource;
import dev.sluice.importer.internal.state.InDoubt;
import dev.sluice.importer.internal.state.State;
import dev.sluice.importer.internal.target.Client;
import dev.sluice.importer.internal.target.RefusedRows;
import dev.sluice.importer.internal.target.WriteRefused;
import dev.sluice.write.Context;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
/**
 * One load run, the same for every format: workers take the inputs one after another and read each into requests
 * (rows of one table, or of one table per measurement for line protocol), each request's answer is recorded in the
 * state once the requests before it are answered, and bad rows are rejected or stop the run per {@code --on-error}.
 */
public final class LoadRun implements AutoCloseable {
    private final RunSetup setup;
    final RunSetup.Settings o;
    private final PrintStream err;
    final Stats stats;
    final State state;
    private final Rejects rejects;
    private final Mapping mapping;
    final boolean bulk;
    final boolean appendMode;
    final int sampledInput;
    private final String sampledName;
    final Client client;
    final Context ctx;
    /**
     * Under {@code --on-error skip} on a table that is not append-mode: narrows a request the server refuses down to
     * its refused rows; null otherwise.
     */
    final RefusedRows narrower;
    /** The thread the narrowing's direct writes wait on (not the client's, which answers them); null without one. */
    private final java.util.concurrent.ExecutorService narrowing;
    final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    /** Batches whose answer has not been handled yet (acknowledgement recorded, or failure noted). */
    private final java.util.concurrent.Phaser answers = new java.util.concurrent.Phaser(1);
    private volatile String stoppedAt;
    /** The plan rows are written with; it widens when a JSON key first seen after the sample comes (regular path). */
    private Plan plan;

    /** @return the plan rows are written with now (it widens as JSON keys beyond the sample come) */
    synchronized Plan plan() {
        return plan;
    }

    /**
     * Readies the run. Under {@code --on-error skip}, for tables that are not append-mode, refused requests are
     * narrowed (the parts of a refused request are written again, and a refused request may have stored some of its
     * rows: harmless where the last write of a key wins, a duplicate where every row is kept).
     *
     * @param setup what the setup decided
     * @param client the connected client
     * @param ctx the context of the writes
     * @param stats the counters progress and summary show
     * @param err where notes and rejected rows go
     */
    public LoadRun(RunSetup setup, Client client, Context ctx, Stats stats, PrintStream err) {
        this.setup = setup;
        this.o = setup.settings();
        this.err = err;
        this.stats = stats;
        this.state = setup.state();
        this.rejects = setup.rejects();
        this.mapping = setup.mapping();
        this.bulk = setup.bulk();
        this.appendMode = setup.appendMode();
        this.client = client;
        this.ctx = ctx;
        if (setup.rows() instanceof RunSetup.OneTable one) {
            this.plan = one.plan();
            this.sampledInput = one.sampledInput();
            this.sampledName = one.sampledName();
        } else {
            this.sampledInput = -1;
            this.sampledName = null;
        }
        if (o.skipBadRows() && !appendMode) {
            narrowing = java.util.concurrent.Executors.newSingleThreadExecutor(task -> {
                Thread t = new Thread(task, "sluice-import-refused-rows");
                t.setDaemon(true);
                return t;
            });
            narrower = client.refusedRows(ctx);
        } else {
            narrowing = null;
            narrower = null;
        }
    }

    /** Reads every input not yet imported and waits for the answers (up to {@code --timeout}). */
    public void read() {
        runWorkers(setup.inputs());
        awaitAnswers();
    }

    /** Stops the workers after their current record (the shutdown hook). */
    public void stop() {
        stop.set(true);
    }

    /** @return the failure that ended the run, or null */
    public Throwable failure() {
        return failure.get();
    }

    /** @return why the run stopped at a bad row ({@code --on-error abort}, {@code --max-errors}), or null */
    public String stoppedAt() {
        return stoppedAt;
    }

    @Override
    public void close() {
        if (narrowing != null) {
            narrowing.shutdownNow();
        }
    }

    /** The rows one input's records become: appended record by record, sent request by request. */
    private void runWorkers(List<Inputs.Input> inputs) {
        AtomicInteger next = new AtomicInteger();
        int n = Math.min(o.parallelism(), inputs.size());
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < n; w++) {
            Thread t = new Thread(() -> worker(inputs, next), "sluice-import-" + w);
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail(new ImportFailure("interrupted", e));
            }
        }
        if (setup.rows() instanceof RunSetup.OneTable one) {
            RecordSource.closeQuietly(one.sampled());
        }
    }

    private void worker(List<Inputs.Input> inputs, AtomicInteger next) {
        WorkerRows rows = null;
        try {
            int i;
            while (!stop.get() && (i = next.getAndIncrement()) < inputs.size()) {
                Inputs.Input in = inputs.get(i);
                State.Entry e = state.entry(in.name());
                if (e.done) {
                    continue;
                }
                if (rows == null) {
                    rows = setup.rows() instanceof RunSetup.OneTable one ? new OneTableRows(this, one)
                            : new MeasurementRows(this, (RunSetup.Measurements) setup.rows());
                }
                importInput(in, e, rows.open(i, in));
            }
            if (rows != null) {
                rows.finish();
            }
        } catch (IOException e) {
            fail(new ImportFailure(ImportFailure.message(e), e));
        } catch (RuntimeException e) {
            fail(e);
        } finally {
            if (rows != null) {
                rows.close();
            }
        }
    }

    private void fail(Throwable t) {
        failure.compareAndSet(null, t);
        stop.set(true);
    }

    /** Reads an input record by record into its rows, sends them request by request, and closes its records. */
    private void importInput(Inputs.Input in, State.Entry e, WorkerRows.InputRows rows) throws IOException {
        RecordSource src = rows.source();
        try {
            InputReader r = new InputReader(this, in, e, rows);
            src.readValuesAtOnce(); // each record's values go into the batch before the next is read
            if (r.skipTo > 0) {
                // Records acknowledged by an earlier run (a Parquet file skips whole row groups unread). Where
                // positions count records, the position reached is the records read.
                r.position = src.skip(r.skipTo);
                r.counted = r.position;
            }
            // One call per record: the loop stays small, so the JIT compiles the record's work as a method of its own
            // rather than as one large on-stack replacement of this loop.
            try {
                while (!stop.get() && r.step()) {
                    // step() reads, converts and appends one record
                }
            } finally {
                r.countRead();
            }
            if (failure.get() != null) {
                return;
            }
            // Rows read before a stop (an abort point, or another input's failure) are sent; the input is done at EOF.
            r.flush(r.position, r.eof);
        } catch (IOException ex) {
            String m = ImportFailure.message(ex);
            throw m.contains(in.name()) ? ex : new IOException("'" + in.name() + "' cannot be read: " + m, ex);
        } finally {
            stats.linesWithoutRecord.addAndGet(src.linesWithoutRecord());
            src.close();
        }
    }

    /** Adds a field for a JSON key first seen after the sample; every worker then writes the wider plan. */
    synchronized Plan widen(String key, Object value) {
        if (!plan.knows(key)) {
            plan = Widening.withField(plan, key, value);
            if (!o.quiet()) {
                err.println("note: key '" + key + "' was not in the sampled rows: added as column '" + plan.cols()
                        .get(plan.cols().size() - 1).name() + "' " + plan.cols().get(plan.cols().size() - 1).type()
                        + " (the regular path's next write adds it to the table)");
            }
        }
        return plan;
    }

    void send(Client.BatchSink sink, Tracker tracker, long end, long rejectedInBatch, boolean last,
            Inputs.Input in, RefusedRows.Origin origin) {
        long rows = sink.rows();
        request(rows, tracker, end, rejectedInBatch, last, p -> {
            // Recorded as sent (append mode) once the batch has a slot, just before it leaves.
            List<State.Part> parts = appendMode && sink.keptRows() != null ? InDoubt.parts(List.of(sink.keptRows()))
                    : List.of();
            return narrowRefused(sink.send(() -> p[0] = tracker.add(end, rejectedInBatch, last, null, parts)), in,
                    origin, p, null);
        }, "batch of " + rows + " rows up to record " + end);
    }

    /**
     * Sends a request of an input's rows, or records at once a request without rows (its records were all rejected or
     * skipped, or it ends the input), and records its answer in the input's tracker (or the failure) once it comes;
     * see {@link #awaitAnswers}.
     *
     * @param rows the request's rows
     * @param sendRows sends them, setting the request's tracker entry in {@code p[0]} just before it leaves
     * @param what the request, for a failure's message
     */
    private void request(long rows, Tracker tracker, long end, long rejectedInBatch, boolean last,
            java.util.function.Function<long[][], CompletableFuture<Long>> sendRows, String what) {
        long[][] p = new long[1][];
        CompletableFuture<Long> f;
        if (rows == 0) {
            p[0] = tracker.add(end, rejectedInBatch, last);
            f = CompletableFuture.completedFuture(0L);
        } else {
            f = sendRows.apply(p);
        }
        answers.register();
        f.whenComplete((acked, ex) -> {
            try {
                batchAnswered(acked, ex, tracker, p[0], what);
            } finally {
                answers.arriveAndDeregister();
            }
        });
    }

    /**
     * Waits until every answered batch's handler has run (a writer's finish() returns once each batch is answered,
     * while the handlers that record the acknowledgement may still be running), so the state and --verify see
     * them all. Bounded by --timeout: a batch never answered does not hold the import.
     */
    private void awaitAnswers() {
        try {
            answers.awaitAdvanceInterruptibly(answers.arrive(), o.timeoutSeconds(),
                    java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.TimeoutException e) {
            // the state records what was answered; a rerun sends the rest
        }
    }

    private void batchAnswered(Long acked, Throwable ex, Tracker tracker, long[] p, String what) {
        if (ex != null) {
            fail(new ImportFailure(what + " failed: " + ImportFailure.message(ex), ex));
            return;
        }
        stats.rowsWritten.addAndGet(acked);
        tracker.acked(p);
    }

    /**
     * Advice for a value that does not fit a column whose type was inferred from the sample: name the type, or sample
     * more rows. Empty for a column typed by {@code --types}, an existing table or a Parquet file.
     */
    private String inferredAdvice(Inputs.Input in, String column) {
        if (column == null || in.format() == Format.PARQUET || in.format() == Format.LP || plan == null) {
            return "";
        }
        for (Plan.Col c : plan.cols()) {
            if (c.name().equals(column) && c.source() != null && !mapping.types().containsKey(c.source())
                    && !plan.tableExists() && c.semantic() != SemanticType.Timestamp) {
                return " Column '" + column + "' is " + c.type() + ", inferred from the first " + o.sample()
                        + " rows of '" + sampledName + "'. If it holds values of another type, the table needs that"
                        + " type: drop table '" + plan.schema().tableName() + "' (this import created it) and run again"
                        + " with --types " + c.source() + ":<Type> (or a larger --sample) and --restart.";
            }
        }
        return "";
    }

    /**
     * Handles a bad row per the policy.
     *
     * @return true to go on, false to stop at this row
     */
    boolean reject(Inputs.Input in, long line, String column, String reason, String raw) {
        if (rejects != null) {
            rejects.write(in.name(), line, column, reason, raw);
        }
        if (!o.skipBadRows()) {
            synchronized (this) {
                if (stoppedAt != null) {
                    return false; // another input stopped the import first
                }
                stoppedAt = "'" + in.name() + "' " + reason + "; the import stopped there (--on-error abort): rows before it"
                        + " are written, nothing after it was sent" + (stats.inputs > 1 ? " (other inputs stopped too; the"
                        + " rows they had read before it are written, and the state file records where each stopped)"
                        : "") + ". Fix the row, or rerun with --on-error skip." + inferredAdvice(in, column)
                        + (appendMode ? " The table keeps every row: a fixed file is refused as changed, and --restart"
                        + " would store the rows written so far twice, so put the fixed row and the rows after it in a"
                        + " new file and import that." : "");
                stop.set(true);
            }
            return false;
        }
        long r = stats.rejected.incrementAndGet();
        if (!o.quiet() && r <= 10) {
            err.println("rejected: '" + in.name() + "' " + reason);
        }
        if (o.maxErrors() != null && r > o.maxErrors()) {
            stoppedAt = "more than " + o.maxErrors() + " rows rejected (--max-errors); the last: '" + in.name() + "' "
                    + reason + ". The state file records where each input stopped: fix the rows (or allow more with a"
                    + " larger --max-errors) and run the same command again to go on from there";
            stop.set(true);
            return false;
        }
        return true;
    }

    /**
     * When a batch's write is refused because of its data (and the refusal can be narrowed), writes its parts on
     * their own, rejects the rows the server refuses and completes with the rows written; any other failure is
     * passed on.
     *
     * @param f the batch's answer
     * @param in its input
     * @param origin where its rows came from, or null when they are not narrowed
     * @param p the batch's tracker entry (its rejected count grows by the refused rows)
     * @param perTable rows per table of a line protocol request (less the refused rows), or null
     * @return the answer, narrowed
     */
    private CompletableFuture<Long> narrowRefused(CompletableFuture<Long> f, Inputs.Input in, RefusedRows.Origin origin,
            long[][] p, Map<String, Long> perTable) {
        if (origin == null || narrower == null) {
            return f;
        }
        return f.exceptionallyComposeAsync(ex -> {
            WriteRefused w = RefusedRows.aboutTheData(ex);
            if (w == null || stop.get()) {
                return CompletableFuture.failedFuture(ex);
            }
            if (!o.quiet()) {
                err.println("note: the server refused a request of '" + in.name() + "' (" + w.err().message()
                        + "): writing its parts on their own to find the rows it refuses (--on-error skip)");
            }
            RefusedRows.Outcome out = narrower.narrow(w.tables());
            for (RefusedRows.Refused r : out.refused()) {
                Table t = w.tables().get(r.table());
                long line = origin.line(r.table(), r.row());
                String where = in.format() == Format.PARQUET ? "row " + line + " of the file" : "line " + line;
                reject(in, line, null, where + ", table '" + t.tableName() + "': the server refused the row: "
                        + r.reason(), origin.raw(t, r.table(), r.row()));
                p[0][1]++;
                if (perTable != null) {
                    perTable.merge(t.tableName(), -1L, Long::sum);
                }
            }
            return CompletableFuture.completedFuture(out.written());
        }, narrowing);
    }

    void sendTables(Client.TablesSink sink, LineProtocolTables tables, Tracker tracker, long end,
            long rejectedInBatch, boolean last, Inputs.Input in, Map<String, List<RefusedRows.LineText>> origins) {
        long rows = tables.rows();
        request(rows, tracker, end, rejectedInBatch, last, p -> {
            List<Table> drained = tables.drain();
            Map<String, Long> perTable = new java.util.HashMap<>();
            for (Table t : drained) {
                perTable.merge(t.schema().tableName(), (long) t.rowCount(), Long::sum);
            }
            List<State.Part> parts = appendMode ? InDoubt.parts(drained) : List.of();
            return narrowRefused(sink.send(drained, () -> p[0] = tracker.add(end, rejectedInBatch, last, perTable,
                    parts)), in, RefusedRows.lineOrigins(drained, origins), p, perTable);
        }, "request of " + rows + " rows up to line " + end);
    }
}
