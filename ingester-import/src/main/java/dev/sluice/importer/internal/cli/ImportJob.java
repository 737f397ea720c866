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
import dev.sluice.importer.internal.report.Rejects;
import dev.sluice.importer.internal.report.Stats;
import dev.sluice.importer.internal.report.Summary;
import dev.sluice.importer.internal.report.Verify;
import dev.sluice.importer.internal.run.Loading;
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
import dev.sluice.importer.internal.target.Connecting;
import dev.sluice.importer.internal.target.ServerSql;
import dev.sluice.importer.internal.target.ServerTables;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * One {@code sluice import}: checks the options and inputs, plans the tables (from a sample of CSV, TSV, JSON Lines or
 * Parquet rows, or the line protocol samples), loads the state, then hands the setup to {@link Loading}, the load of
 * every format, and reports.
 */
public final class ImportJob {
    /** Exit code: everything written. */
    public static final int OK = Loading.OK;
    /** Exit code: usage error. */
    public static final int USAGE = 2;
    /** Exit code: failed. */
    public static final int FAILED = Loading.FAILED;

    private final ImportOptions o;
    private final OptionReading options;
    private final PrintStream out;
    private final PrintStream err;

    final Stats stats = new Stats();
    /** The state file: found, locked from its first reading to the end of the run, read. */
    private final StateFiles stateFiles;
    /** The client, created early on a thread of its own when there is something to send. */
    private final Connecting connecting;

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
        this.connecting = new Connecting(this.options::target, !options.path.equalsIgnoreCase("regular"),
                options.timeoutSeconds);
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
            connecting.close();
            stateFiles.close();
        }
        summary.exitCode = code;
        // A failure before loading started still leaves --summary-json, with its error and exit code.
        if (!o.dryRun && (summary.started || summary.error != null)) {
            summary.fill(stats);
            if (!o.quiet && summary.started) {
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
        List<Inputs.Input> inputs = Inputs.expand(o.inputs, forced, summary.skipped, stateFiles::isOwn);
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
            connecting.start();
        }
        Map<String, String> with = OptionReading.keyValues(o.with, "--with");
        boolean appendModeAsked = options.appendModeAsked(with);
        Mapping m = new Mapping(table, o.timeIndex, o.timeFormat, o.tags, options.types(), new LinkedHashSet<>(o.skip),
                OptionReading.keyValues(o.rename, "--rename"), zone, with);

        // The table is looked up over HTTP while the first input is sampled: neither needs the other.
        CompletableFuture<TableLookup> lookup = Connecting.inBackground("sluice-import-lookup", () -> {
            ServerTables q = serverTables();
            return new TableLookup(q, q.describe(table));
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
        TableLookup looked = connecting.await(lookup, "looking the table up over HTTP");
        ServerTables tables = looked.tables();
        ServerSql sql = tables.sql();
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
            warnOfCollisions(appendModeAsked || existing != null && tables.keepsEveryRow(table), plan, sampled,
                    sampledName,
                    summary);
            DryRun.oneTable(out, plan, bulk, sampled, sampledName, o.dryRunRows);
            return OK;
        }
        State state = stateFiles.load(inputs, table);
        if (state.countBefore < 0) {
            state.countBefore = existing == null ? 0 : tables.countOrMinusOne(table);
        }
        boolean appendMode = appendModeAsked || state.appendMode || existing != null && tables.keepsEveryRow(table);
        state.appendMode = appendMode;
        warnOfCollisions(appendMode, plan, sampled, sampledName, summary);
        InDoubt.resolve(inputs, state, appendMode, o.inDoubt, p -> sql.countBetween(p.table(), p.timeIndex(),
                p.unitsPerSecond(), p.min(), p.max()), options.httpEndpoint(), err);
        state.save();
        Sampled s = sampled;
        Verify verify = new Verify(state, stats, err);
        Loading.Load load = new Loading.Load(table, existing == null ? with : Map.of(),
                existing == null ? plan.schema() : null,
                sum -> verify.oneTable(sql, table, sum));
        try (Rejects rejects = openRejects()) {
            return loading().load(new RunSetup(options.settings(), inputs, state, rejects, m, bulk, appendMode,
                    new RunSetup.OneTable(plan, s,
                    sampledAt, sampledName, in -> openSource(in, m))), summary, load);
        }
    }

    /** The server's tables, asked over HTTP SQL. */
    private ServerTables serverTables() {
        return new ServerTables(new ServerSql(options.httpEndpoint(), o.database, o.user, options.password()),
                new ServerTables.Options(options.httpEndpoint(), o.httpEndpoint != null, o.verify, o.quiet), err);
    }

    /** The load that follows the setup. */
    private Loading loading() {
        return new Loading(new Loading.Options(o.verify, o.quiet, o.progressInterval), connecting, stats, err);
    }

    /** The {@code --rejects} file, opened; null without one. */
    private Rejects openRejects() {
        return o.rejects == null ? null : new Rejects(o.rejects);
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
    private static boolean keepsEveryRow(boolean appendMode, ServerTables tables, LineProtocolTables.Columns columns,
            String table) {
        return appendMode || columns.existing(table) != null && tables.keepsEveryRow(table);
    }

    /**
     * The HTTP SQL client and the table as the server describes it.
     *
     * @param tables the server's tables
     * @param existing the table's schema, or null when it does not exist
     */
    private record TableLookup(ServerTables tables, TableSchema existing) {
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

    private int runLineProtocol(List<Inputs.Input> inputs, Summary summary) {
        options.checkLineProtocolOptions();
        long precision = options.precisionUnits();
        Map<String, String> with = OptionReading.keyValues(o.with, "--with");
        ServerTables tables = serverTables();
        ServerSql sql = tables.sql();
        if (o.dryRun) {
            LineProtocolTables.Columns columns = new LineProtocolTables.Columns(o.table, described(tables, null));
            boolean appendMode = options.appendModeAsked(with);
            warn(summary, LineProtocolTables.collapses(precision, columns, columns.sample(inputs, in -> false,
                    o.sample), System.currentTimeMillis() * 1_000_000L,
                    t -> keepsEveryRow(appendMode, tables, columns, t)));
            DryRun.lineProtocol(out, inputs.get(0), precision, columns,
                    OptionReading.lineProtocolTableOptions(with, options.appendModeAsked(with)), o.dryRunRows,
                    stats.rawBytes);
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
        LineProtocolTables.Columns columns = new LineProtocolTables.Columns(o.table, described(tables, state));
        // The samples decide the columns' types before any row is sent, whatever the parallelism.
        warn(summary, LineProtocolTables.collapses(precision, columns, columns.sample(inputs,
                in -> state.entry(in.name()).done, o.sample), state.importTimeNanos,
                t -> keepsEveryRow(appendMode, tables, columns, t)));
        Verify verify = new Verify(state, stats, err);
        Loading.Load load = new Loading.Load(o.table != null ? o.table : "one table per measurement", with, null,
                sum -> verify.perTable(sql, sum));
        try (Rejects rejects = openRejects()) {
            return loading().load(new RunSetup(options.settings(), inputs, state, rejects, null, false, appendMode,
                    new RunSetup.Measurements(precision, columns)), summary, load);
        }
    }

    /**
     * Describes the tables line protocol writes to, each once, over HTTP SQL; records a table's row count before the
     * import first writes to it, for {@code --verify}. When the HTTP API does not answer (and
     * {@code --http-endpoint} was not given), tables are taken as new.
     *
     * @param tables the server's tables
     * @param state the resume state the counts go to, or null (a dry run)
     * @return the schema of a table by name, null when it does not exist
     */
    private Function<String, TableSchema> described(ServerTables tables, State state) {
        Map<String, Optional<TableSchema>> described = new java.util.concurrent.ConcurrentHashMap<>();
        AtomicBoolean httpDown = new AtomicBoolean();
        return name -> described.computeIfAbsent(name, n -> {
            if (httpDown.get()) {
                return Optional.empty();
            }
            try {
                TableSchema t = tables.sql().describe(n);
                if (state != null) {
                    // The table's count before this import first writes to it, for --verify.
                    synchronized (state) {
                        if (!state.tableCountsBefore.containsKey(n)) {
                            state.tableCountsBefore.put(n, t == null ? 0 : tables.countOrMinusOne(n));
                            // On disk before any row of the table is sent: a run killed after sending must not
                            // leave its rows to be counted as "before" by the rerun.
                            state.save();
                        }
                    }
                }
                return Optional.ofNullable(t);
            } catch (IOException | RuntimeException e) {
                if (o.httpEndpoint != null) {
                    throw new ImportFailure("cannot read table '" + n + "' over HTTP SQL at " + options.httpEndpoint()
                            + ": " + e.getMessage(), e);
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
