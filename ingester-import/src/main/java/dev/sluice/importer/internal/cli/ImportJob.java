package dev.sluice.importer.internal.cli;

import dev.sluice.BatchingWriter;
import dev.sluice.data.TableSchema;
import dev.sluice.importer.internal.failure.ImportFailure;
import dev.sluice.importer.internal.failure.UsageException;
import dev.sluice.importer.internal.plan.Mapping;
import dev.sluice.importer.internal.plan.Plan;
import dev.sluice.importer.internal.plan.SampledCollisions;
import dev.sluice.importer.internal.plan.TypeNames;
import dev.sluice.importer.internal.plan.Widening;
import dev.sluice.importer.internal.report.DryRun;
import dev.sluice.importer.internal.report.Progress;
import dev.sluice.importer.internal.report.Rejects;
import dev.sluice.importer.internal.report.Stats;
import dev.sluice.importer.internal.report.Summary;
import dev.sluice.importer.internal.report.Verify;
import dev.sluice.importer.internal.run.LoadRun;
import dev.sluice.importer.internal.run.RunSetup;
import dev.sluice.importer.internal.source.CsvSource;
import dev.sluice.importer.internal.source.Format;
import dev.sluice.importer.internal.source.Inputs;
import dev.sluice.importer.internal.source.JsonLinesSource;
import dev.sluice.importer.internal.plan.LineProtocolTables;
import dev.sluice.importer.internal.source.ParquetSource;
import dev.sluice.importer.internal.source.RecordSource;
import dev.sluice.importer.internal.source.Sampled;
import dev.sluice.importer.internal.state.InDoubt;
import dev.sluice.importer.internal.state.State;
import dev.sluice.importer.internal.state.StateFiles;
import dev.sluice.importer.internal.target.Client;
import dev.sluice.importer.internal.target.ServerSql;
import dev.sluice.sink.internal.SinkSettings;
import dev.sluice.write.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * One {@code sluice import}: checks the options and inputs, plans the tables (from a sample of CSV, TSV, JSON Lines or
 * Parquet rows, or the line protocol samples), loads the state, then hands the setup to the one {@link LoadRun} of
 * every format and reports.
 */
public final class ImportJob {
    /** Exit code: everything written. */
    public static final int OK = 0;
    /** Exit code: rows rejected (skipped, or the import stopped at one). */
    public static final int REJECTED = 1;
    /** Exit code: usage error. */
    public static final int USAGE = 2;
    /** Exit code: failed. */
    public static final int FAILED = 3;

    private final ImportOptions o;
    private final OptionReading options;
    private final PrintStream out;
    private final PrintStream err;

    final Stats stats = new Stats();
    /** The state file: found, locked from its first reading to the end of the run, read. */
    private final StateFiles stateFiles;
    private Client client;
    /**
     * The client, created on a thread of its own while the inputs are sampled and the table is looked up over
     * HTTP: loading gRPC, Netty and Arrow takes a few hundred milliseconds that need not wait for them.
     */
    private CompletableFuture<Client> early;
    /** Completes once the early client's bulk writers are ready ({@code GreptimeDB.prepareBulk}); null if not started. */
    private CompletableFuture<Void> prepared;

    /**
     * Creates the job.
     *
     * @param options the parsed command line
     * @param out where the summary and dry runs go
     * @param err where progress and errors go
     */
    public ImportJob(ImportOptions options, PrintStream out, PrintStream err) {
        this.o = options;
        this.options = new OptionReading(options);
        this.stateFiles = new StateFiles(new StateFiles.Options(options.state, options.rejects, options.database,
                options.restart));
        this.out = out;
        this.err = err;
    }

    /**
     * Runs the import.
     *
     * @return the exit code
     */
    public int run() {
        Summary summary = new Summary();
        int code;
        try {
            code = doRun(summary);
        } catch (UsageException e) {
            err.println("error: " + e.getMessage());
            return USAGE;
        } catch (ImportFailure e) {
            err.println("error: " + e.getMessage());
            summary.error = e.getMessage();
            code = FAILED;
        } finally {
            if (client != null) {
                client.close();
            } else if (early != null) {
                early.thenAccept(Client::close);
            }
            stateFiles.close();
        }
        summary.exitCode = code;
        if (!o.dryRun && summary.started) {
            summary.fill(stats);
            if (!o.quiet) {
                out.print(summary.text());
            }
            if (o.summaryJson != null) {
                summary.writeJson(o.summaryJson, out, err);
            }
        }
        return code;
    }

    private int doRun(Summary summary) {
        // Logging starts here, on one thread: when the client's and the lookup's threads are the first to log, at
        // once, SLF4J prints a warning about the calls it held back while it started.
        org.slf4j.LoggerFactory.getILoggerFactory();
        options.validate();
        Format forced = o.format == null ? null : Format.parse(o.format);
        List<Inputs.Input> inputs = Inputs.expand(o.inputs, forced, summary.skipped);
        for (Inputs.Skipped sk : summary.skipped) {
            err.println("warning: not read: '" + sk.file() + "': " + sk.reason());
        }
        if (inputs.stream().filter(in -> in.path() == null).count() > 1) {
            throw new UsageException("standard input ('-') is named more than once: it is one stream, read once");
        }
        stateFiles.checkRejectsFile(inputs);
        for (Inputs.Input in : inputs) {
            if (in.format() == Format.CSV || in.format() == Format.TSV) {
                options.checkCsvCharacters(in.format() == Format.TSV ? '\t' : ',');
            }
        }
        if (inputs.stream().anyMatch(in -> in.format() == Format.PARQUET)) {
            Thread prepare = new Thread(ParquetSource::prepare, "sluice-import-parquet");
            prepare.setDaemon(true);
            prepare.start();
        }
        for (Inputs.Input in : inputs) {
            if (in.format() == Format.PARQUET && (in.path() == null || in.compression() != null)) {
                throw new UsageException("'" + in.name() + "': Parquet is read by row group from a file: give the file"
                        + " itself, not standard input or a compressed copy (Parquet compresses its pages already)");
            }
        }
        long lp = inputs.stream().filter(i -> i.format() == Format.LP).count();
        if (lp > 0) {
            if (lp != inputs.size()) {
                throw new UsageException("line protocol inputs cannot be mixed with CSV or JSON inputs in one import");
            }
            return runLineProtocol(inputs, summary);
        }
        Set<Format> formats = new HashSet<>();
        inputs.forEach(i -> formats.add(i.format() == Format.TSV ? Format.CSV : i.format()));
        if (formats.size() > 1) {
            throw new UsageException("inputs of different formats (" + formats + ") go to one table each: import them"
                    + " separately");
        }
        ZoneId zone = options.zone();
        String table = options.tableName(inputs);
        if (!o.dryRun && somethingToSend(inputs, table)) {
            startConnecting();
        }
        Map<String, String> with = OptionReading.keyValues(o.with, "--with");
        boolean appendModeAsked = options.appendModeAsked(with);
        Mapping m = new Mapping(table, o.timeIndex, o.timeFormat, o.tags, options.types(), new LinkedHashSet<>(o.skip),
                OptionReading.keyValues(o.rename, "--rename"), zone, with);

        // The table is looked up over HTTP while the first input is sampled: neither needs the other.
        CompletableFuture<TableLookup> lookup = inBackground("sluice-import-lookup", () -> {
            ServerSql q = new ServerSql(options.httpEndpoint(), o.database, o.user, options.password());
            return new TableLookup(q, describe(q, table));
        });
        // Sample the first input that holds rows (an input of only a header says nothing of the types); its records
        // are replayed when it is imported.
        Inputs.Input first = null;
        Sampled sampled = null;
        int sampledAt = 0;
        Map<String, TypeNames.Type> declared = null;
        for (int k = 0; k < inputs.size() && (sampled == null || sampled.rows().isEmpty()); k++) {
            if (sampled != null) {
                RecordSource.closeQuietly(sampled);
            }
            first = inputs.get(k);
            try {
                RecordSource src = openSource(first, m);
                declared = src instanceof ParquetSource ps ? TypeNames.of(ps.types()) : null;
                sampled = new Sampled(src, o.sample);
            } catch (IOException e) {
                throw new ImportFailure("'" + first.name() + "' cannot be read: " + e.getMessage(), e);
            }
            sampledAt = k;
        }
        String sampledName = first.name();
        boolean json = first.format() == Format.JSONL;
        TableLookup looked = await(lookup, "looking the table up over HTTP");
        ServerSql sql = looked.sql();
        TableSchema existing = looked.existing();
        boolean regular = o.path.equalsIgnoreCase("regular");
        Plan plan = Plan.build(sampled.columns(), sampled.rows(), json, m, existing, regular, declared);
        for (TableSchema.Column c : plan.schema().columns()) {
            if (!regular && !BatchingWriter.Path.Bulk.carries(c.dataType())) {
                regular = true;
                if (!o.quiet) {
                    err.println("note: column '" + c.name() + "' is " + c.dataType() + ", which the bulk path cannot"
                            + " write: using the regular path");
                }
            }
        }
        boolean bulk = !regular;
        plan = checkColumnsOfEveryInput(inputs, plan, sampledAt, bulk, m);
        if (o.dryRun) {
            warnOfCollisions(appendModeAsked || existing != null && keepsEveryRow(sql, table), plan, sampled, sampledName,
                    summary);
            DryRun.oneTable(out, plan, bulk, sampled, sampledName, o.dryRunRows);
            return OK;
        }
        State state = stateFiles.load(inputs, table);
        if (state.countBefore < 0) {
            state.countBefore = existing == null ? 0 : countOrMinusOne(sql, table);
        }
        boolean appendMode = appendModeAsked || state.appendMode || existing != null && keepsEveryRow(sql, table);
        state.appendMode = appendMode;
        warnOfCollisions(appendMode, plan, sampled, sampledName, summary);
        InDoubt.resolve(inputs, state, appendMode, o.inDoubt, p -> sql.countBetween(p.table(), p.timeIndex(),
                p.unitsPerSecond(), p.min(), p.max()), options.httpEndpoint(), err);
        state.save();
        Sampled s = sampled;
        Verify verify = new Verify(state, stats, err);
        Load load = new Load(table, existing == null ? with : Map.of(), existing == null ? plan.schema() : null,
                sum -> verify.oneTable(sql, table, sum));
        try (Rejects rejects = openRejects()) {
            return load(new RunSetup(options.settings(), inputs, state, rejects, m, bulk, appendMode, new RunSetup.OneTable(plan, s,
                    sampledAt, sampledName, in -> openSource(in, m))), summary, load);
        }
    }

    /** Whether the options ask for an append-mode table ({@code --append-mode}, {@code --with append_mode=true}). */
    /** What the load run takes from the options. */
    /** The {@code --rejects} file, opened; null without one. */
    private Rejects openRejects() {
        return o.rejects == null ? null : new Rejects(o.rejects);
    }

    /**
     * Runs the load of every format once the setup is done: connects, creates the table the setup planned, reads the
     * inputs on the workers, waits for the answers and reports.
     *
     * @return the exit code
     */
    private int load(RunSetup setup, Summary summary, Load load) {
        List<Inputs.Input> inputs = setup.inputs();
        State state = setup.state();
        boolean appendMode = setup.appendMode();
        summary.started = true;
        summary.collapsible = !appendMode;
        summary.lineProtocol = setup.rows() instanceof RunSetup.Measurements;
        summary.table = load.table();
        summary.path = setup.bulk() ? "bulk" : "regular";
        summary.stateFile = state.file().toString();
        if (inputs.stream().allMatch(in -> state.entry(in.name()).done)) {
            // Nothing left to send: do not even connect.
            err.println("note: every input is recorded as imported in " + state.file() + "; nothing to send (--restart"
                    + " imports everything again)");
            stats.inputs = inputs.size();
            stats.inputsDone.set(inputs.size());
            if (o.verify) {
                load.verify(summary);
                if (summary.verifyOk != null && !summary.verifyOk) {
                    return FAILED;
                }
            }
            return OK;
        }
        Context ctx = Client.context(load.tableOptions(), appendMode);
        client = connect();
        if (load.toCreate() != null) {
            client.createTable(load.toCreate(), ctx);
        }
        try (LoadRun r = new LoadRun(setup, client, ctx, stats, err)) {
            return transfer(setup, summary, load, r);
        }
    }

    /**
     * Reads the inputs on the run's workers, under a shutdown hook that saves the state, waits for the answers and
     * reports.
     *
     * @return the exit code
     */
    private int transfer(RunSetup setup, Summary summary, Load load, LoadRun r) {
        List<Inputs.Input> inputs = setup.inputs();
        State state = setup.state();
        stats.inputs = inputs.size();
        for (Inputs.Input in : inputs) {
            stats.totalBytes += Math.max(0, in.size());
            if (state.entry(in.name()).done) {
                stats.inputsDone.incrementAndGet();
                stats.rawBytes.addAndGet(Math.max(0, in.size()));
            }
        }
        Thread hook = new Thread(() -> {
            r.stop();
            state.save();
        }, "sluice-import-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        Progress progress = o.quiet ? null : Progress.start(stats, err, o.progressInterval);
        try {
            awaitPrepared();
            stats.readingFrom = System.nanoTime();
            r.read();
            stats.answeredAt = System.nanoTime();
        } finally {
            if (progress != null) {
                progress.stop();
            }
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs anyway
            }
        }
        state.save();
        Throwable f = r.failure();
        if (f != null) {
            throw new ImportFailure(ImportFailure.message(f) + "\nRows acknowledged so far are recorded in "
                    + state.file() + ": run the same command again to continue from there.", f);
        }
        if (o.verify) {
            load.verify(summary);
        }
        String stoppedAt = r.stoppedAt();
        if (stoppedAt != null) {
            summary.error = stoppedAt;
            err.println("error: " + stoppedAt);
            return REJECTED;
        }
        if (summary.verifyOk != null && !summary.verifyOk) {
            return FAILED;
        }
        return stats.rejected.get() > 0 ? REJECTED : OK;
    }

    /**
     * What differs by format around the one load run: the table the summary names, the options of the tables the
     * import creates, the table to create first (or null), and how {@code --verify} counts.
     *
     * @param table the table the summary names
     * @param tableOptions the options of the tables the import creates
     * @param toCreate the table to create before the run, or null
     * @param verify how {@code --verify} counts, filling the summary
     */
    private record Load(String table, Map<String, String> tableOptions, TableSchema toCreate,
            java.util.function.Consumer<Summary> verify) {
        void verify(Summary summary) {
            verify.accept(summary);
        }
    }

    /**
     * Warns (standard error and the summary) when the sampled rows hold rows of equal tags and time index, which a
     * table that keeps the last row of each key stores as one.
     */
    private void warnOfCollisions(boolean keepsEveryRow, Plan plan, Sampled sampled, String sampledName,
            Summary summary) {
        if (!keepsEveryRow) {
            String w = SampledCollisions.check(plan, sampled.columns(), sampled.rows(), sampledName);
            warn(summary, w == null ? List.of() : List.of(w));
        }
    }

    /** Gives warnings before anything is written: on standard error and in the summary. */
    private void warn(Summary summary, List<String> warnings) {
        for (String w : warnings) {
            err.println("warning: " + w);
            summary.warnings.add(w);
        }
    }

    /** Whether a line protocol table keeps every row: the import's tables in append mode, or an append-mode table. */
    private boolean keepsEveryRow(boolean appendMode, ServerSql sql, LineProtocolTables.Columns columns, String table) {
        return appendMode || columns.existing(table) != null && keepsEveryRow(sql, table);
    }

    /**
     * The HTTP SQL client and the table as the server describes it.
     *
     * @param sql the HTTP SQL client
     * @param existing the table's schema, or null when it does not exist
     */
    private record TableLookup(ServerSql sql, TableSchema existing) {
    }

    /**
     * Runs a task on a daemon thread of its own.
     *
     * @param name the thread's name
     * @param task what it computes
     * @return completes with the task's result or failure
     */
    private static <T> CompletableFuture<T> inBackground(String name, java.util.function.Supplier<T> task) {
        CompletableFuture<T> f = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                f.complete(task.get());
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return f;
    }

    /**
     * Waits for a background task, within {@code --timeout} plus a minute.
     *
     * @param f the task
     * @param what what it does, for the errors ("creating the client")
     * @return its result
     * @throws RuntimeException the task's own failure, or an {@link ImportFailure} when it fails otherwise or runs late
     */
    private <T> T await(CompletableFuture<T> f, String what) {
        long limit = o.timeoutSeconds + 60L;
        try {
            return f.get(limit, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new ImportFailure(what + " failed: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ImportFailure("interrupted while " + what, e);
        } catch (TimeoutException e) {
            throw new ImportFailure(what + " took over " + limit + " s", e);
        }
    }

    /**
     * Reads the header of every CSV, TSV and Parquet input besides the sampled one, so that a column the table's plan
     * lacks is reported before anything is sent rather than after the inputs before it were written. (JSON Lines
     * names its keys row by row; its new keys are handled as they come.)
     *
     * @return the plan, with the columns the regular path adds
     */
    private Plan checkColumnsOfEveryInput(List<Inputs.Input> inputs, Plan planned, int sampledInput, boolean bulk,
            Mapping m) {
        Plan plan = planned;
        for (int k = 0; k < inputs.size(); k++) {
            Inputs.Input in = inputs.get(k);
            if (k == sampledInput || in.format() == Format.JSONL || in.path() == null) {
                continue;
            }
            try (RecordSource src = openSource(in, m)) {
                List<String> columns = src.columns();
                List<Object[]> sample = null;
                for (int c = 0; c < columns.size(); c++) {
                    String name = columns.get(c);
                    if (plan.knows(name)) {
                        continue;
                    }
                    if (bulk) {
                        throw new UsageException("'" + in.name() + "': column '" + name + "' is not in the table's"
                                + " columns (" + String.join(", ", plan.cols().stream().map(Plan.Col::name).toList())
                                + "), taken from '" + inputs.get(sampledInput).name() + "', and the bulk path writes"
                                + " one set of columns: rerun with --path regular (adds it), name it with --skip, or"
                                + " import this file on its own; nothing was sent");
                    }
                    // The regular path adds it: its type from this input's first rows, as the first input's were.
                    if (sample == null) {
                        sample = new Sampled(src, o.sample).rows();
                    }
                    List<Object> values = new ArrayList<>();
                    for (Object[] row : sample) {
                        values.add(c < row.length ? row[c] : null);
                    }
                    plan = Widening.withColumn(plan, name, values);
                    if (!o.quiet) {
                        Plan.Col added = plan.cols().get(plan.cols().size() - 1);
                        err.println("note: column '" + name + "' of '" + in.name() + "' is not in '"
                                + inputs.get(sampledInput).name() + "': added as " + added.name() + " " + added.type());
                    }
                }
            } catch (IOException e) {
                throw new ImportFailure("'" + in.name() + "' cannot be read: " + e.getMessage(), e);
            }
        }
        return plan;
    }

    /** Whether a state file leaves any input to import (an import with nothing to send does not connect). */
    private boolean somethingToSend(List<Inputs.Input> inputs, String table) {
        try {
            State s = stateFiles.load(inputs, table);
            return !inputs.stream().allMatch(in -> s.entry(in.name()).done);
        } catch (UsageException e) {
            return false; // reported where the state is loaded for the import
        }
    }

    /** Starts creating the client on a thread of its own; {@link #connect()} takes it. */
    private void startConnecting() {
        SinkSettings t = options.target();
        early = inBackground("sluice-import-connect", () -> new Client(t));
        if (!o.path.equalsIgnoreCase("regular")) {
            // The bulk writers' classes load while the setup goes on; the transfer starts once they have loaded.
            prepared = early.thenAcceptAsync(Client::prepareBulk, task -> {
                Thread th = new Thread(task, "sluice-import-prepare");
                th.setDaemon(true);
                th.start();
            });
        }
    }

    /**
     * Waits (up to --timeout) for the bulk writers' classes to load, so that the transfer starts with a client ready
     * to write, as a program that prepared its client would: the workers would otherwise wait for the same loading
     * when they open their writers. A failed preparation is left to the first writer, which reports it.
     */
    private void awaitPrepared() {
        if (prepared == null) {
            return;
        }
        try {
            prepared.get(o.timeoutSeconds, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // the writers meet the same problem and report it
        }
    }

    /** The client: the one {@link #startConnecting()} created, or a new one. */
    private Client connect() {
        return early == null ? new Client(options.target()) : await(early, "creating the client");
    }

    private TableSchema describe(ServerSql sql, String table) {
        try {
            return sql.describe(table);
        } catch (IOException | RuntimeException e) {
            if (o.httpEndpoint != null || o.verify) {
                throw new ImportFailure("cannot read table '" + table + "' over HTTP SQL at " + options.httpEndpoint() + ": "
                        + e.getMessage(), e);
            }
            if (!o.quiet) {
                err.println("note: the HTTP API at " + options.httpEndpoint() + " did not answer (" + e.getMessage() + "): the"
                        + " import assumes table '" + table + "' does not exist; give --http-endpoint to check");
            }
            return null;
        }
    }

    /**
     * Whether an existing table is append-mode (it keeps every row, so a batch must never be resent silently). When
     * the server cannot say, the import goes on as for an ordinary table and says so.
     */
    private boolean keepsEveryRow(ServerSql sql, String table) {
        try {
            return sql.appendMode(table);
        } catch (IOException | RuntimeException e) {
            err.println("warning: could not read whether table '" + table + "' is append-mode (" + e.getMessage()
                    + "): it is treated as keeping the last write of each key; if it keeps every row, pass"
                    + " --append-mode so that a rerun never resends a batch without being asked");
            return false;
        }
    }

    private static long countOrMinusOne(ServerSql sql, String table) {
        try {
            return sql.count(table);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    private RecordSource openSource(Inputs.Input in, Mapping mapping) throws IOException {
        if (in.format() == Format.PARQUET) {
            return new ParquetSource(in.path(), in.name(), mapping.skip(), mapping.zone(), stats.rawBytes);
        }
        InputStream is = Inputs.open(in, stats.rawBytes);
        if (in.format() == Format.JSONL) {
            return new JsonLinesSource(is);
        }
        char delimiter = o.delimiter != null ? options.givenDelimiter() : in.format() == Format.TSV ? '\t' : ',';
        char escape = o.escape == null || o.escape == o.quote ? 0 : o.escape;
        CsvSource.Settings s = new CsvSource.Settings(delimiter, o.quote, o.comment == null ? 0 : o.comment, !o.noHeader,
                o.columns, o.nullToken, escape);
        try {
            return new CsvSource(is, s, in.name());
        } catch (IOException | RuntimeException e) {
            is.close();
            throw e;
        }
    }

    /** The character {@code --delimiter} gives ({@code \t} and {@code tab} for a tab). */
    /** The state file's real path: {@code --state}, or beside the first input. */
    /** Refuses a rejects file that is an input or the state file, before either is written. */
    private int runLineProtocol(List<Inputs.Input> inputs, Summary summary) {
        long precision = options.precisionUnits();
        Map<String, String> with = OptionReading.keyValues(o.with, "--with");
        ServerSql sql = new ServerSql(options.httpEndpoint(), o.database, o.user, options.password());
        if (o.dryRun) {
            LineProtocolTables.Columns columns = new LineProtocolTables.Columns(o.table, described(sql, null));
            boolean appendMode = options.appendModeAsked(with);
            warn(summary, LineProtocolTables.collapses(precision, columns, columns.sample(inputs, in -> false,
                    o.sample), System.currentTimeMillis() * 1_000_000L, t -> keepsEveryRow(appendMode, sql, columns, t)));
            DryRun.lineProtocol(out, inputs.get(0), precision, columns,
                    OptionReading.lineProtocolTableOptions(with, options.appendModeAsked(with)), o.dryRunRows, stats.rawBytes);
            return OK;
        }
        State state = stateFiles.load(inputs, o.table != null ? o.table : "(line protocol measurements)");
        state.countBefore = 0;
        boolean appendMode = options.appendModeAsked(with) || state.appendMode;
        state.appendMode = appendMode;
        with = OptionReading.lineProtocolTableOptions(with, appendMode);
        InDoubt.resolve(inputs, state, appendMode, o.inDoubt, p -> sql.countBetween(p.table(), p.timeIndex(),
                p.unitsPerSecond(), p.min(), p.max()), options.httpEndpoint(), err);
        state.save();
        LineProtocolTables.Columns columns = new LineProtocolTables.Columns(o.table, described(sql, state));
        // The samples decide the columns' types before any row is sent, whatever the parallelism.
        warn(summary, LineProtocolTables.collapses(precision, columns, columns.sample(inputs,
                in -> state.entry(in.name()).done, o.sample), state.importTimeNanos,
                t -> keepsEveryRow(appendMode, sql, columns, t)));
        Verify verify = new Verify(state, stats, err);
        Load load = new Load(o.table != null ? o.table : "one table per measurement", with, null,
                sum -> verify.perTable(sql, sum));
        try (Rejects rejects = openRejects()) {
            return load(new RunSetup(options.settings(), inputs, state, rejects, null, false, appendMode,
                    new RunSetup.Measurements(precision, columns)), summary, load);
        }
    }

    /**
     * Describes the tables line protocol writes to, each once, over HTTP SQL; records a table's row count before the
     * import first writes to it, for {@code --verify}. When the HTTP API does not answer (and
     * {@code --http-endpoint} was not given), tables are taken as new.
     *
     * @param sql the HTTP SQL client
     * @param state the resume state the counts go to, or null (a dry run)
     * @return the schema of a table by name, null when it does not exist
     */
    private Function<String, TableSchema> described(ServerSql sql, State state) {
        Map<String, Optional<TableSchema>> described = new java.util.concurrent.ConcurrentHashMap<>();
        AtomicBoolean httpDown = new AtomicBoolean();
        return name -> described.computeIfAbsent(name, n -> {
            if (httpDown.get()) {
                return Optional.empty();
            }
            try {
                TableSchema t = sql.describe(n);
                if (state != null) {
                    // The table's count before this import first writes to it, for --verify.
                    synchronized (state) {
                        if (!state.tableCountsBefore.containsKey(n)) {
                            state.tableCountsBefore.put(n, t == null ? 0 : countOrMinusOne(sql, n));
                            // On disk before any row of the table is sent: a run killed after sending must not
                            // leave its rows to be counted as "before" by the rerun.
                            state.save();
                        }
                    }
                }
                return Optional.ofNullable(t);
            } catch (IOException | RuntimeException e) {
                if (o.httpEndpoint != null) {
                    throw new ImportFailure("cannot read table '" + n + "' over HTTP SQL at " + options.httpEndpoint() + ": "
                            + e.getMessage(), e);
                }
                httpDown.set(true);
                if (!o.quiet) {
                    err.println("note: the HTTP API at " + options.httpEndpoint() + " did not answer (" + e.getMessage()
                            + "): existing tables' column types are not known; new columns are added as the lines"
                            + " bring them");
                }
                return Optional.empty();
            }
        }).orElse(null);
    }

}
