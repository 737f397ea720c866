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
    private final PrintStream out;
    private final PrintStream err;

    final Stats stats = new Stats();
    /** The lock of the state file, held from the state's first reading to the end of the run. */
    private java.nio.channels.FileLock stateLock;
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
            if (stateLock != null) {
                try {
                    stateLock.channel().close();
                } catch (IOException ignored) {
                    // the lock goes with the process anyway
                }
            }
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
        validate();
        Format forced = o.format == null ? null : Format.parse(o.format);
        List<Inputs.Input> inputs = Inputs.expand(o.inputs, forced, summary.skipped);
        for (Inputs.Skipped sk : summary.skipped) {
            err.println("warning: not read: '" + sk.file() + "': " + sk.reason());
        }
        if (inputs.stream().filter(in -> in.path() == null).count() > 1) {
            throw new UsageException("standard input ('-') is named more than once: it is one stream, read once");
        }
        checkRejectsFile(inputs);
        for (Inputs.Input in : inputs) {
            if (in.format() == Format.CSV || in.format() == Format.TSV) {
                checkCsvCharacters(in.format() == Format.TSV ? '\t' : ',');
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
        ZoneId zone = zone();
        String table = tableName(inputs);
        if (!o.dryRun && somethingToSend(inputs, table)) {
            startConnecting();
        }
        Map<String, String> with = keyValues(o.with, "--with");
        boolean appendModeAsked = appendModeAsked(with);
        Mapping m = new Mapping(table, o.timeIndex, o.timeFormat, o.tags, types(), new LinkedHashSet<>(o.skip),
                keyValues(o.rename, "--rename"), zone, with);

        // The table is looked up over HTTP while the first input is sampled: neither needs the other.
        CompletableFuture<TableLookup> lookup = inBackground("sluice-import-lookup", () -> {
            ServerSql q = new ServerSql(httpEndpoint(), o.database, o.user, password());
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
        State state = loadState(inputs, table);
        if (state.countBefore < 0) {
            state.countBefore = existing == null ? 0 : countOrMinusOne(sql, table);
        }
        boolean appendMode = appendModeAsked || state.appendMode || existing != null && keepsEveryRow(sql, table);
        state.appendMode = appendMode;
        warnOfCollisions(appendMode, plan, sampled, sampledName, summary);
        resolveInDoubt(inputs, sql, state, appendMode);
        state.save();
        Sampled s = sampled;
        Verify verify = new Verify(state, stats, err);
        Load load = new Load(table, existing == null ? with : Map.of(), existing == null ? plan.schema() : null,
                sum -> verify.oneTable(sql, table, sum));
        try (Rejects rejects = openRejects()) {
            return load(new RunSetup(settings(), inputs, state, rejects, m, bulk, appendMode, new RunSetup.OneTable(plan, s,
                    sampledAt, sampledName, in -> openSource(in, m))), summary, load);
        }
    }

    /**
     * The options of a table created for line protocol: {@code merge_mode=last_non_null} unless the options choose
     * append mode or a merge mode, as GreptimeDB's own InfluxDB write endpoint creates its tables
     * ({@code AutoCreateTableType::LastNonNull} in GreptimeDB's {@code src/operator/src/insert.rs}). So two points of
     * one series and time keep the union of their fields, as InfluxDB keeps them, instead of the later point's nulls
     * hiding the earlier one's fields.
     */
    private static Map<String, String> lineProtocolTableOptions(Map<String, String> with, boolean appendMode) {
        if (appendMode || with.containsKey("merge_mode")) {
            return with;
        }
        Map<String, String> options = new java.util.LinkedHashMap<>(with);
        options.put("merge_mode", "last_non_null");
        return options;
    }

    /** Whether the options ask for an append-mode table ({@code --append-mode}, {@code --with append_mode=true}). */
    private boolean appendModeAsked(Map<String, String> with) {
        return o.appendMode || "true".equalsIgnoreCase(with.get("append_mode"));
    }

    /** What the load run takes from the options. */
    private RunSetup.Settings settings() {
        return new RunSetup.Settings(o.batch, o.inFlight, o.parallelism, o.sample, o.onError.equals("skip"), o.maxErrors,
                o.quiet, o.timeoutSeconds);
    }

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

    // ------------------------------------------------------------------ options

    private void validate() {
        o.resolveConnection();
        if (o.timeoutSeconds <= 0) {
            throw new UsageException("--timeout must be 1 second or more, not " + o.timeoutSeconds);
        }
        if (o.retryDeadlineSeconds <= 0) {
            throw new UsageException("--retry-deadline must be 1 second or more, not " + o.retryDeadlineSeconds);
        }
        if (o.maxErrors != null && !o.onError.equals("skip")) {
            throw new UsageException("--max-errors applies with --on-error skip (the default, abort, stops at the first"
                    + " bad row): add --on-error skip, or leave --max-errors out");
        }
        if (o.maxErrors != null && o.maxErrors < 0) {
            throw new UsageException("--max-errors must be 0 or more, not " + o.maxErrors + " (leave it out for no"
                    + " limit)");
        }
        if (!o.onError.equals("abort") && !o.onError.equals("skip")) {
            throw new UsageException("--on-error must be abort or skip, not '" + o.onError + "'");
        }
        if (!o.path.equalsIgnoreCase("bulk") && !o.path.equalsIgnoreCase("regular")) {
            throw new UsageException("--path must be bulk or regular, not '" + o.path + "'");
        }
        if (!Set.of("fail", "check", "resend", "skip").contains(o.inDoubt)) {
            throw new UsageException("--in-doubt must be fail, check, resend or skip, not '" + o.inDoubt + "'");
        }
        if (o.batch < 1 || o.parallelism < 1 || o.sample < 1 || o.inFlight < 1 || o.inFlight > 31) {
            throw new UsageException("--batch, --parallelism and --sample must be at least 1, --in-flight 1..31");
        }
        if (o.rejects != null && o.onError.equals("abort")) {
            // a rejects file still records the row the import stopped at
            return;
        }
    }

    ZoneId zone() {
        try {
            return ZoneId.of(o.timezone);
        } catch (DateTimeException e) {
            throw new UsageException("--timezone '" + o.timezone + "' is not a zone: use an offset such as +08:00 or a"
                    + " name such as Asia/Shanghai");
        }
    }

    private String tableName(List<Inputs.Input> inputs) {
        if (o.table != null) {
            return o.table;
        }
        Inputs.Input first = inputs.get(0);
        if (first.path() == null) {
            throw new UsageException("standard input needs --table");
        }
        String n = first.path().getFileName().toString();
        n = n.replaceAll("(?i)\\.(gz|zst|zstd)$", "").replaceAll("\\.[^.]*$", "");
        n = n.replaceAll("[^A-Za-z0-9_]", "_");
        return n.isEmpty() || Character.isDigit(n.charAt(0)) ? "t_" + n : n;
    }

    static Map<String, String> keyValues(List<String> items, String option) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String kv : items) {
            int eq = kv.indexOf('=');
            if (eq <= 0) {
                throw new UsageException(option + " takes name=value items, not '" + kv + "'");
            }
            out.put(kv.substring(0, eq).strip(), kv.substring(eq + 1).strip());
        }
        return out;
    }

    private Map<String, TypeNames.Type> types() {
        Map<String, TypeNames.Type> out = new LinkedHashMap<>();
        for (String item : o.types) {
            for (String one : splitOutsideParens(item)) {
                int colon = one.lastIndexOf(':');
                if (colon <= 0) {
                    throw new UsageException("--types takes column:Type items, not '" + one + "'");
                }
                try {
                    out.put(one.substring(0, colon).strip(), TypeNames.parse(one.substring(colon + 1)));
                } catch (IllegalArgumentException e) {
                    throw new UsageException("--types " + one + ": " + e.getMessage());
                }
            }
        }
        return out;
    }

    static List<String> splitOutsideParens(String s) {
        List<String> out = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (c == ',' && depth == 0) {
                out.add(s.substring(start, i));
                start = i + 1;
            }
        }
        out.add(s.substring(start));
        out.removeIf(String::isBlank);
        return out;
    }

    String password() {
        return o.password != null ? o.password : System.getenv("SLUICE_PASSWORD");
    }

    String httpEndpoint() {
        if (o.httpEndpoint != null) {
            return o.httpEndpoint;
        }
        String e = o.endpoints.get(0);
        int colon = e.lastIndexOf(':');
        return (colon > 0 ? e.substring(0, colon) : e) + ":4000";
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
            State s = loadState(inputs, table);
            return !inputs.stream().allMatch(in -> s.entry(in.name()).done);
        } catch (UsageException e) {
            return false; // reported where the state is loaded for the import
        }
    }

    /** Starts creating the client on a thread of its own; {@link #connect()} takes it. */
    private void startConnecting() {
        SinkSettings t = target();
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
        return early == null ? new Client(target()) : await(early, "creating the client");
    }

    SinkSettings target() {
        return o.settings(password());
    }

    private TableSchema describe(ServerSql sql, String table) {
        try {
            return sql.describe(table);
        } catch (IOException | RuntimeException e) {
            if (o.httpEndpoint != null || o.verify) {
                throw new ImportFailure("cannot read table '" + table + "' over HTTP SQL at " + httpEndpoint() + ": "
                        + e.getMessage(), e);
            }
            if (!o.quiet) {
                err.println("note: the HTTP API at " + httpEndpoint() + " did not answer (" + e.getMessage() + "): the"
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
        char delimiter = o.delimiter != null ? givenDelimiter() : in.format() == Format.TSV ? '\t' : ',';
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

    // ------------------------------------------------------------------ state

    /**
     * The state file's own path: links followed (the state is replaced by renaming a new file over it, which would
     * replace a link rather than the file it names) and the directory's real path, so that one file reached by two
     * spellings has one lock.
     */
    static Path realStatePath(Path file) {
        Path p = file.toAbsolutePath().normalize();
        try {
            for (int hops = 0; hops < 40 && Files.isSymbolicLink(p); hops++) {
                p = p.resolveSibling(Files.readSymbolicLink(p)).normalize();
            }
            Path parent = p.getParent();
            if (parent != null && Files.isDirectory(parent)) {
                return parent.toRealPath().resolve(p.getFileName());
            }
        } catch (IOException e) {
            // the path as given: creating the lock beside it reports what is wrong with it
        }
        return p;
    }

    /**
     * Holds {@code <state file>.lock} for the rest of the run, so that a second import with the same state file (the
     * same inputs, or the same {@code --state}) is refused while this one runs, instead of both writing the rows and
     * the state. The lock is the operating system's (released when the process ends, even when killed); the file
     * stays.
     */
    private void lock(Path stateFile) {
        if (stateLock != null) {
            return;
        }
        Path lockFile = stateFile.resolveSibling(stateFile.getFileName() + ".lock");
        java.nio.channels.FileChannel ch;
        try {
            ch = java.nio.channels.FileChannel.open(lockFile, java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new UsageException("cannot create " + lockFile + " beside the state file: " + e.getMessage()
                    + " (pass --state with a file in a writable directory)");
        }
        java.nio.channels.FileLock l;
        try {
            l = ch.tryLock();
        } catch (java.nio.channels.OverlappingFileLockException | IOException e) {
            l = null;
        }
        if (l == null) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // the lock was not taken
            }
            throw new UsageException("another import is running with the state file " + stateFile + " (it holds "
                    + lockFile + "): wait for it to end, or give this import its own --state; nothing was sent");
        }
        stateLock = l;
    }

    /**
     * Refuses CSV options that give two roles one character (a quote that is also the delimiter, a comment character
     * that is also the quote...) or a line break, before anything is read.
     *
     * @param formatDelimiter the delimiter of the input's format, when {@code --delimiter} is not given
     */
    private void checkCsvCharacters(char formatDelimiter) {
        Map<String, Character> roles = new LinkedHashMap<>();
        if (o.delimiter != null) {
            roles.put("--delimiter", givenDelimiter());
        } else {
            roles.put("--delimiter (default)", formatDelimiter);
        }
        roles.put("--quote", o.quote);
        if (o.comment != null) {
            roles.put("--comment", o.comment);
        }
        if (o.escape != null && o.escape != o.quote) {
            roles.put("--escape", o.escape);
        }
        List<Map.Entry<String, Character>> list = new ArrayList<>(roles.entrySet());
        for (int i = 0; i < list.size(); i++) {
            char c = list.get(i).getValue();
            if (c == '\n' || c == '\r') {
                throw new UsageException(list.get(i).getKey() + " cannot be a line break");
            }
            for (int j = i + 1; j < list.size(); j++) {
                if (list.get(j).getValue() == c) {
                    throw new UsageException(list.get(j).getKey() + " and " + list.get(i).getKey() + " are both '"
                            + (c == '\t' ? "\\t" : String.valueOf(c)) + "': each needs a character of its own");
                }
            }
        }
    }

    /** The character {@code --delimiter} gives ({@code \t} and {@code tab} for a tab). */
    private char givenDelimiter() {
        String d = o.delimiter.equals("\\t") || o.delimiter.equalsIgnoreCase("tab") ? "\t" : o.delimiter;
        if (d.length() != 1) {
            throw new UsageException("--delimiter must be one character, not '" + o.delimiter + "'");
        }
        return d.charAt(0);
    }

    /** The state file's real path: {@code --state}, or beside the first input. */
    private Path stateFile(List<Inputs.Input> inputs) {
        Path file = o.state;
        if (file == null) {
            Inputs.Input first = inputs.get(0);
            file = first.path() == null ? Paths.get("stdin.import-state.json")
                    : first.path().toAbsolutePath().resolveSibling(first.path().getFileName() + ".import-state.json");
        }
        return realStatePath(file);
    }

    /** Refuses a rejects file that is an input or the state file, before either is written. */
    private void checkRejectsFile(List<Inputs.Input> inputs) {
        if (o.rejects == null) {
            return;
        }
        Path rejects = realStatePath(o.rejects);
        for (Inputs.Input in : inputs) {
            if (in.path() != null && rejects.equals(realStatePath(in.path()))) {
                throw new UsageException("--rejects " + o.rejects + " is also an input: give the rejected rows a file of"
                        + " their own; nothing was sent");
            }
        }
        if (rejects.equals(stateFile(inputs))) {
            throw new UsageException("--rejects " + o.rejects + " is the state file: give the rejected rows a file of"
                    + " their own; nothing was sent");
        }
    }

    private State loadState(List<Inputs.Input> inputs, String table) {
        Path file = stateFile(inputs);
        for (Inputs.Input in : inputs) {
            if (in.path() != null && file.equals(realStatePath(in.path()))) {
                throw new UsageException("the state file " + file + " is also an input: give --state a file of its own;"
                        + " nothing was sent");
            }
        }
        lock(file);
        State s;
        try {
            // Read even with --restart: a file that is no state file is refused rather than written over.
            s = State.load(file);
        } catch (IOException e) {
            throw new UsageException(e.getMessage());
        }
        if (o.restart) {
            s = null;
        }
        if (s != null && !table.equals(s.table)) {
            throw new UsageException("state file " + file + " belongs to an import into '" + s.table + "', not '" + table
                    + "': pass --state with another file, or --restart");
        }
        if (s != null && s.database != null && !o.database.equals(s.database)) {
            throw new UsageException("state file " + file + " belongs to an import into database '" + s.database
                    + "', not '" + o.database + "': pass --state with another file, or --restart");
        }
        if (s == null) {
            s = new State(file);
            s.table = table;
            s.database = o.database;
            s.importTimeNanos = System.currentTimeMillis() * 1_000_000L;
        }
        for (Inputs.Input in : inputs) {
            State.Entry e = s.entry(in.name());
            if (e == null) {
                s.entries.add(new State.Entry(in.name(), in.size(), in.modified()));
            } else if (in.path() == null && e.done) {
                throw new UsageException("state file " + file + " records standard input as imported to the end, and"
                        + " a stream cannot be told apart from the one it recorded: rerun with --restart to import this"
                        + " stream, or pass --state with another file");
            } else if (in.path() != null && (e.size != in.size() || e.modified != in.modified())) {
                throw new UsageException("'" + in.name() + "' changed since " + file + " recorded it (size " + e.size
                        + " -> " + in.size() + "): rerun with --restart to import everything again, or restore the file"
                        + (s.appendMode ? ". The table keeps every row (append mode): --restart would store the rows"
                        + " already written twice; import the rows not yet written from a new file instead" : ""));
            }
        }
        return s;
    }

    private void resolveInDoubt(List<Inputs.Input> inputs, ServerSql sql, State state, boolean appendMode) {
        if (!appendMode) {
            return;
        }
        if (o.inDoubt.equals("check") && !checkInDoubt(sql, state)) {
            return;
        }
        List<String> doubts = new ArrayList<>();
        for (Inputs.Input in : inputs) {
            State.Entry e = state.entry(in.name());
            if (!e.done && e.sent > e.acked) {
                doubts.add("'" + in.name() + "' records " + (e.acked + 1) + ".." + e.sent);
            }
        }
        if (doubts.isEmpty()) {
            return;
        }
        switch (o.inDoubt) {
            case "fail":
            case "check":
                throw new ImportFailure("the previous run stopped with batches sent to append-mode table '" + state.table
                        + "' but never answered: " + String.join(", ", doubts) + ". They may or may not be stored, and"
                        + " the table keeps duplicates. " + (o.inDoubt.equals("check") ? ""
                        : "Rerun with --in-doubt check to ask the server which of them arrived and send only the others;"
                        + " or check the table, then ") + "rerun with --in-doubt resend (send them again) or --in-doubt"
                        + " skip (continue after them). Nothing was sent.", null);
            case "skip":
                for (State.Entry e : state.entries) {
                    if (!e.done && e.sent > e.acked) {
                        e.acked = e.sent;
                    }
                }
                err.println("note: continuing after the in-doubt records (" + String.join(", ", doubts) + ")");
                break;
            default:
                err.println("note: sending the in-doubt records again (" + String.join(", ", doubts) + ")");
                break;
        }
    }

    /**
     * {@code --in-doubt check}: asks the server which in-doubt batches arrived; when each is decided, the rerun sends
     * only the missing ones.
     *
     * @return true when some batch could not be decided (the in-doubt batches stay as they are: the import stops
     *     and names them)
     */
    private boolean checkInDoubt(ServerSql sql, State state) {
        InDoubt.Verdict v;
        try {
            v = InDoubt.check(state, p -> sql.countBetween(p.table(), p.timeIndex(), p.unitsPerSecond(), p.min(),
                    p.max()));
        } catch (IOException | RuntimeException e) {
            err.println("error: --in-doubt check: the server could not count the in-doubt batches' rows over HTTP SQL"
                    + " at " + httpEndpoint() + ": " + e.getMessage());
            return true;
        }
        if (!v.undecided().isEmpty()) {
            err.println("error: --in-doubt check cannot tell whether these batches arrived: "
                    + String.join("; ", v.undecided()));
            return true;
        }
        if (!v.arrived().isEmpty() || !v.missing().isEmpty()) {
            err.println("note: --in-doubt check: stored, not sent again: " + (v.arrived().isEmpty() ? "none"
                    : String.join(", ", v.arrived())) + "; not stored, sent again: " + (v.missing().isEmpty() ? "none"
                    : String.join(", ", v.missing())));
        }
        return false;
    }

    // ------------------------------------------------------------------ line protocol

    private long precisionUnits() {
        switch (o.precision.toLowerCase(Locale.ROOT)) {
            case "ns": case "n": return 1_000_000_000L;
            case "us": case "u": return 1_000_000L;
            case "ms": return 1_000L;
            case "s": return 1L;
            default: throw new UsageException("--precision must be ns, us, ms or s, not '" + o.precision + "'");
        }
    }

    private int runLineProtocol(List<Inputs.Input> inputs, Summary summary) {
        long precision = precisionUnits();
        Map<String, String> with = keyValues(o.with, "--with");
        ServerSql sql = new ServerSql(httpEndpoint(), o.database, o.user, password());
        if (o.dryRun) {
            LineProtocolTables.Columns columns = new LineProtocolTables.Columns(o.table, described(sql, null));
            boolean appendMode = appendModeAsked(with);
            warn(summary, LineProtocolTables.collapses(precision, columns, columns.sample(inputs, in -> false,
                    o.sample), System.currentTimeMillis() * 1_000_000L, t -> keepsEveryRow(appendMode, sql, columns, t)));
            DryRun.lineProtocol(out, inputs.get(0), precision, columns,
                    lineProtocolTableOptions(with, appendModeAsked(with)), o.dryRunRows, stats.rawBytes);
            return OK;
        }
        State state = loadState(inputs, o.table != null ? o.table : "(line protocol measurements)");
        state.countBefore = 0;
        boolean appendMode = appendModeAsked(with) || state.appendMode;
        state.appendMode = appendMode;
        with = lineProtocolTableOptions(with, appendMode);
        resolveInDoubt(inputs, sql, state, appendMode);
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
            return load(new RunSetup(settings(), inputs, state, rejects, null, false, appendMode,
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
                    throw new ImportFailure("cannot read table '" + n + "' over HTTP SQL at " + httpEndpoint() + ": "
                            + e.getMessage(), e);
                }
                httpDown.set(true);
                if (!o.quiet) {
                    err.println("note: the HTTP API at " + httpEndpoint() + " did not answer (" + e.getMessage()
                            + "): existing tables' column types are not known; new columns are added as the lines"
                            + " bring them");
                }
                return Optional.empty();
            }
        }).orElse(null);
    }

}
