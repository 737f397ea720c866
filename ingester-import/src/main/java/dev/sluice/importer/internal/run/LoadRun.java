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
    private final RunSetup.Settings o;
    private final PrintStream err;
    private final Stats stats;
    private final State state;
    private final Rejects rejects;
    private final Mapping mapping;
    private final boolean bulk;
    private final boolean appendMode;
    private final int sampledInput;
    private final String sampledName;
    private final Client client;
    private final Context ctx;
    /**
     * Under {@code --on-error skip} on a table that is not append-mode: narrows a request the server refuses down to
     * its refused rows; null otherwise.
     */
    private final RefusedRows narrower;
    /** The thread the narrowing's direct writes wait on (not the client's, which answers them); null without one. */
    private final java.util.concurrent.ExecutorService narrowing;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    /** Batches whose answer has not been handled yet (acknowledgement recorded, or failure noted). */
    private final java.util.concurrent.Phaser answers = new java.util.concurrent.Phaser(1);
    private volatile String stoppedAt;
    /** The plan rows are written with; it widens when a JSON key first seen after the sample comes (regular path). */
    private Plan plan;

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

    /** What one worker turns its inputs' records into, input after input. */
    private interface WorkerRows extends AutoCloseable {
        /**
         * Opens an input: its records and the rows they become.
         *
         * @param index the input's index among the inputs
         * @param in the input
         * @return its rows
         * @throws IOException when it cannot be opened
         */
        InputRows open(int index, Inputs.Input in) throws IOException;

        /** Waits for the worker's requests to be answered. */
        void finish();

        @Override
        void close();
    }

    /** The rows one input's records become: appended record by record, sent request by request. */
    private interface InputRows {
        /** @return the input's records */
        RecordSource source();

        /**
         * Appends the reader's current record as a row (or rows).
         *
         * @param r the reader, at the record
         * @return null when the record was added; otherwise why not ({@link #badColumn()} names the column, if one)
         */
        String append(InputReader r);

        /** @return the column the last record refused by {@link #append} was refused for, or null */
        String badColumn();

        /** @return rows appended since the last request */
        long rows();

        /**
         * Sends the rows appended since the last request, or records at once a request without rows.
         *
         * @param r the reader (its tracker and rejected records)
         * @param end the position of the request's last record
         * @param last whether the request ends the input
         */
        void send(InputReader r, long end, boolean last);
    }

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
                    rows = setup.rows() instanceof RunSetup.OneTable one ? new OneTableRows(one)
                            : new MeasurementRows((RunSetup.Measurements) setup.rows());
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

    /** Rows of one table through a batch sink of its schema, opened with the worker's first input. */
    private final class OneTableRows implements WorkerRows {
        private final RunSetup.OneTable one;
        private Client.BatchSink sink;

        OneTableRows(RunSetup.OneTable one) {
            this.one = one;
        }

        @Override
        public InputRows open(int index, Inputs.Input in) throws IOException {
            if (sink == null) {
                // Kept rows: a refused batch is narrowed from them, an append-mode batch's time range read.
                sink = client.open(plan.schema(), bulk, o.batch(), o.inFlight(), ctx, narrower != null || appendMode);
            }
            return new OneTableInput(in, index == sampledInput ? one.sampled() : one.open().open(in), sink);
        }

        @Override
        public void finish() {
            if (sink != null) {
                sink.finish();
            }
        }

        @Override
        public void close() {
            if (sink != null) {
                try {
                    sink.close();
                } catch (RuntimeException ignored) {
                    // failures were reported by the batches
                }
            }
        }
    }

    /**
     * Line protocol: rows of the tables the points' measurements name (or {@code --table}), several tables per
     * request, the columns' types decided once for every worker.
     */
    private final class MeasurementRows implements WorkerRows {
        private final LineProtocolTables tables;
        private final Client.TablesSink sink = client.openTables(o.inFlight(), ctx);

        MeasurementRows(RunSetup.Measurements m) {
            this.tables = new LineProtocolTables(m.precision(), m.columns());
        }

        @Override
        public InputRows open(int index, Inputs.Input in) throws IOException {
            return new MeasurementInput(in, new LineProtocolSource(Inputs.open(in, stats.rawBytes)), tables, sink);
        }

        @Override
        public void finish() {
            sink.finish();
        }

        @Override
        public void close() {
        }
    }

    /** The points of one line protocol input, added to the worker's tables. */
    private final class MeasurementInput implements InputRows {
        private final Inputs.Input in;
        private final LineProtocolSource src;
        private final LineProtocolTables tables;
        private final Client.TablesSink sink;
        /** The lines of the open request's rows per table, kept while refused requests are narrowed; else null. */
        private final Map<String, List<RefusedRows.LineText>> origins = narrower != null ? new LinkedHashMap<>() : null;

        MeasurementInput(Inputs.Input in, LineProtocolSource src, LineProtocolTables tables, Client.TablesSink sink) {
            this.in = in;
            this.src = src;
            this.tables = tables;
            this.sink = sink;
        }

        @Override
        public RecordSource source() {
            return src;
        }

        @Override
        public String append(InputReader r) {
            LineProtocol.Point pt = src.point();
            try {
                tables.add(pt, state.importTimeNanos);
            } catch (IllegalArgumentException | ArithmeticException ex) {
                return ex.getMessage();
            }
            if (origins != null) {
                origins.computeIfAbsent(tables.table(pt), k -> new ArrayList<>())
                        .add(new RefusedRows.LineText(src.line(), src.raw()));
            }
            return null;
        }

        @Override
        public String badColumn() {
            return null;
        }

        @Override
        public long rows() {
            return tables.rows();
        }

        @Override
        public void send(InputReader r, long end, boolean last) {
            sendTables(sink, tables, r.tracker, end, r.rejectedInBatch, last, in, origins);
        }
    }

    private void fail(Throwable t) {
        failure.compareAndSet(null, t);
        stop.set(true);
    }

    /** The batches of one input in send order, for the acknowledged watermark. */
    private final class Tracker {
        private final State.Entry entry;
        private final ArrayDeque<long[]> pending = new ArrayDeque<>(); // {end, rejected, last, acked}
        private final Map<long[], Map<String, Long>> tableRows = new java.util.IdentityHashMap<>();
        /** The last record of the last batch added. */
        private long lastEnd;

        Tracker(State.Entry entry) {
            this.entry = entry;
            this.lastEnd = entry.acked;
        }

        long[] add(long end, long rejected, boolean last) {
            return add(end, rejected, last, null, List.of());
        }

        /**
         * Adds a batch about to leave.
         *
         * @param end its last record
         * @param rejected its records rejected
         * @param last whether it ends the input
         * @param rowsPerTable line protocol: its rows per table, else null
         * @param parts append mode: its rows and time range per table, recorded as in doubt until acknowledged
         * @return its tracker entry
         */
        long[] add(long end, long rejected, boolean last, Map<String, Long> rowsPerTable, List<State.Part> parts) {
            long[] p = {end, rejected, last ? 1 : 0, 0};
            synchronized (state) {
                pending.add(p);
                if (rowsPerTable != null) {
                    tableRows.put(p, rowsPerTable);
                }
                if (appendMode) {
                    if (!parts.isEmpty()) {
                        entry.inDoubt.add(new State.Batch(lastEnd + 1, end, rejected, parts));
                    }
                    entry.sent = end;
                    state.save();
                }
                lastEnd = end;
            }
            return p;
        }

        void acked(long[] p) {
            synchronized (state) {
                p[3] = 1;
                while (!pending.isEmpty() && pending.peek()[3] == 1) {
                    long[] h = pending.poll();
                    Map<String, Long> perTable = tableRows.remove(h);
                    if (perTable != null) {
                        perTable.forEach((t, n) -> entry.tableRows.merge(t, n, Long::sum));
                    }
                    entry.acked = h[0];
                    entry.rejected += h[1];
                    entry.settled();
                    if (h[2] == 1) {
                        entry.done = true;
                        stats.inputsDone.incrementAndGet();
                    }
                }
                if (appendMode) {
                    state.save();
                } else {
                    state.saveSoon();
                }
            }
        }
    }

    /** Reads an input record by record into its rows, sends them request by request, and closes its records. */
    private void importInput(Inputs.Input in, State.Entry e, InputRows rows) throws IOException {
        RecordSource src = rows.source();
        try {
            InputReader r = new InputReader(in, e, rows);
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

    /** Reads one input record by record into its rows: the one loop of every format. */
    private final class InputReader {
        final Inputs.Input in;
        final RecordSource src;
        final InputRows rows;
        final Tracker tracker;
        /** The position an earlier run imported the input to. */
        final long skipTo;
        /** The records read so far. */
        long counted;
        /** The current record's position (see {@link RecordSource#position}). */
        long position;
        long rejectedInBatch;
        /** Records read and not yet added to {@link Stats#rowsRead} (added once per batch, not per record). */
        long read;
        boolean eof;

        InputReader(Inputs.Input in, State.Entry e, InputRows rows) {
            this.in = in;
            this.src = rows.source();
            this.rows = rows;
            this.tracker = new Tracker(e);
            this.skipTo = e.acked;
        }

        /** Whether a record is in a batch that --in-doubt check found stored. */
        boolean storedAlready(long record) {
            return !tracker.entry.stored.isEmpty() && tracker.entry.storedAlready(record);
        }

        void countRead() {
            if (read > 0) {
                stats.rowsRead.addAndGet(read);
                read = 0;
            }
        }

        /**
         * Sends the rows read so far.
         *
         * @param end the position of their last record
         * @param last whether they end the input
         */
        void flush(long end, boolean last) {
            countRead();
            rows.send(this, end, last);
            rejectedInBatch = 0;
        }

        /**
         * Reads the next record and appends it (or rejects it).
         *
         * @return false when the input ends here: its end, an abort point, or a stop
         */
        boolean step() throws IOException {
            long before = position;
            boolean has;
            try {
                has = src.next();
            } catch (RecordSource.BadRecord b) {
                return badRecord(b, before);
            }
            if (!has) {
                eof = true;
                return false;
            }
            if (stop.get()) {
                // Read after the abort point (or a failure) of another input: not sent, and not counted, so the
                // state's position stays before it and a rerun reads it again.
                return false;
            }
            position = src.position(++counted);
            if (position <= skipTo || storedAlready(position)) {
                return true;
            }
            read++;
            String reason = rows.append(this);
            if (reason != null) {
                String badColumn = rows.badColumn();
                String where = src.where() + (badColumn != null ? ", column '" + badColumn + "'" : "");
                if (!reject(in, src.line(), badColumn, where + ": " + reason, src.raw())) {
                    position = before;
                    return false;
                }
                rejectedInBatch++;
                return true;
            }
            if (rows.rows() >= o.batch()) {
                flush(position, false);
            }
            return true;
        }

        private boolean badRecord(RecordSource.BadRecord b, long before) {
            if (stop.get()) {
                return false; // read after another input's abort point: neither counted nor rejected
            }
            position = src.position(++counted);
            if (position <= skipTo || storedAlready(position)) {
                return true;
            }
            read++;
            if (!reject(in, b.line(), null, b.description(), b.raw())) {
                position = before;
                return false;
            }
            rejectedInBatch++;
            return true;
        }
    }

    /** The records of one CSV, TSV, JSON Lines or Parquet input, bound to the plan's columns. */
    private final class OneTableInput implements InputRows {
        final Inputs.Input in;
        final RecordSource src;
        final Client.BatchSink sink;
        final long importBase;
        final List<String> columns;
        Plan pl = plan;
        TableSchema schema = pl.schema();
        int n = schema.columnCount();
        final int ts = schema.timestampIndex();
        int known = -1;
        int[] bind;
        boolean[] unknown;
        String badColumn;
        /** The lines of the open batch's rows, kept while refused requests are narrowed; else null. */
        long[] lines = narrower != null ? new long[256] : null;
        int kept;

        OneTableInput(Inputs.Input in, RecordSource src, Client.BatchSink sink) {
            this.in = in;
            this.src = src;
            this.sink = sink;
            this.columns = src.columns();
            this.importBase = state.importTimeNanos + in.index() * 1_000_000_000_000L;
        }

        @Override
        public RecordSource source() {
            return src;
        }

        @Override
        public String badColumn() {
            return badColumn;
        }

        @Override
        public long rows() {
            return sink.rows();
        }

        @Override
        public String append(InputReader r) {
            if (columns.size() != known) {
                columnsChanged();
            }
            if (!bulk && in.format() == Format.JSONL) {
                widenForNewKeys(r);
            }
            String reason = append(sink.appender(), r.position);
            if (reason == null && lines != null) {
                if (kept == lines.length) {
                    lines = java.util.Arrays.copyOf(lines, kept * 2);
                }
                lines[kept++] = src.line();
            }
            return reason;
        }

        @Override
        public void send(InputReader r, long end, boolean last) {
            LoadRun.this.send(sink, r.tracker, end, r.rejectedInBatch, last, in, takeOrigin());
        }

        /** Where the open batch's rows came from (null when not kept); the next batch starts afresh. */
        RefusedRows.Origin takeOrigin() {
            if (lines == null) {
                return null;
            }
            long[] l = java.util.Arrays.copyOf(lines, kept);
            kept = 0;
            return new RefusedRows.Origin() {
                @Override
                public long line(int table, int row) {
                    return l[row];
                }

                @Override
                public String raw(Table t, int table, int row) {
                    return RefusedRows.json(t, row);
                }
            };
        }

        private void columnsChanged() {
            known = columns.size();
            bind = pl.bind(columns);
            unknown = new boolean[known];
            for (int c = 0; c < known; c++) {
                unknown[c] = !pl.knows(columns.get(c));
            }
            if (in.format() != Format.JSONL) {
                for (int c = 0; c < known; c++) {
                    if (unknown[c]) {
                        throw new ImportFailure("'" + in.name() + "': column '" + columns.get(c) + "' is not in the"
                                + " table's columns (" + String.join(", ", pl.cols().stream().map(Plan.Col::name)
                                .toList()) + "): name it with --skip, or import this file on its own", null);
                    }
                }
            }
        }

        /**
         * A key first seen after the sample: the regular path adds it as a column. The rows before this one are
         * sent with the schema they were read with, and this row starts a batch of the wider schema.
         */
        private void widenForNewKeys(InputReader r) {
            String added = null;
            for (int c = 0; c < known; c++) {
                if (unknown[c] && src.value(c) != null) {
                    if (sink.rows() > 0) {
                        r.flush(r.position - 1, false);
                    }
                    pl = widen(columns.get(c), src.value(c));
                    added = columns.get(c);
                }
            }
            if (added != null) {
                sink.reschema(pl.schema());
                schema = pl.schema();
                n = schema.columnCount();
                bind = pl.bind(columns);
                for (int c = 0; c < known; c++) {
                    unknown[c] = !pl.knows(columns.get(c));
                }
            }
        }

        /**
         * Converts the current record into a row of the appender.
         *
         * @param record the record's position (it times the row when the import's time is its time index)
         * @return null when the row was added; otherwise why not ({@link #badColumn} names the column, if one)
         */
        private String append(RowAppender a, long record) {
            badColumn = null;
            try {
                Plan p = pl;
                int[] b = bind;
                for (int c = 0; c < n; c++) {
                    int s = b[c];
                    if (s < 0) {
                        if (c == ts) {
                            if (!p.importTime()) {
                                throw new BadValue(schema.column(c).name(), "the time index is missing");
                            }
                            a.setLong(c, importBase + record);
                        }
                        continue;
                    }
                    Object v = src.value(s);
                    if (v == null) {
                        if (c == ts) {
                            throw new BadValue(schema.column(c).name(), "the time index is empty");
                        }
                        continue;
                    }
                    p.values().set(a, c, v);
                }
                if (in.format() == Format.JSONL) { // other formats refuse unknown columns up front
                    for (int c = 0; c < known; c++) {
                        if (unknown[c] && src.value(c) != null) {
                            throw new BadValue(columns.get(c), "key '" + columns.get(c) + "' is not a column of"
                                    + " the table (it was not in the " + o.sample() + " sampled rows) and the bulk path"
                                    + " cannot add columns: rerun with --path regular (adds it), a larger --sample, or"
                                    + " --skip it");
                        }
                    }
                }
                a.endRow();
                return null;
            } catch (BadValue bv) {
                a.cancelRow();
                badColumn = bv.column();
                return bv.getMessage();
            } catch (InvalidDataException ide) {
                a.cancelRow();
                badColumn = ide.column();
                return ide.column() != null ? "column '" + ide.column() + "': " + ide.reason() : ide.reason();
            } catch (IllegalArgumentException | ArithmeticException ex) {
                a.cancelRow();
                return ex.getMessage();
            }
        }
    }

    /** Adds a field for a JSON key first seen after the sample; every worker then writes the wider plan. */
    private synchronized Plan widen(String key, Object value) {
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

    private void send(Client.BatchSink sink, Tracker tracker, long end, long rejectedInBatch, boolean last,
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
    private boolean reject(Inputs.Input in, long line, String column, String reason, String raw) {
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

    private void sendTables(Client.TablesSink sink, LineProtocolTables tables, Tracker tracker, long end,
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
