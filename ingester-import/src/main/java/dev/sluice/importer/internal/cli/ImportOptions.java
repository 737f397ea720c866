package dev.sluice.importer.internal.cli;

import dev.sluice.BatchingWriter;
import dev.sluice.ConnectionConfig;
import dev.sluice.importer.internal.failure.UsageException;
import dev.sluice.sink.internal.ConnectionOverlap;
import dev.sluice.sink.internal.SinkSettings;
import dev.sluice.write.Compression;
import dev.sluice.write.RetryPolicy;
import java.time.Duration;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** The command line of {@code sluice import}, as picocli fills it. */
public final class ImportOptions {
    /** Creates the options with their defaults. */
    public ImportOptions() {
    }

    /** Files, directories, globs or {@code -}. */
    @Parameters(arity = "1..*", paramLabel = "INPUT", description = "Files, directories, globs (quoted) or - for"
            + " standard input. .gz and .zst are decompressed. Format by extension (.csv .tsv .jsonl .ndjson .lp"
            + " .parquet) or --format. Parquet is read from files only, row group by row group.")
    public List<String> inputs = new ArrayList<>();

    /** Input format. */
    @Option(names = "--format", paramLabel = "FMT", description = "csv, tsv, jsonl, lp or parquet (default: by"
            + " extension).")
    public String format;

    // ---- CSV
    /** Field delimiter. */
    @Option(names = "--delimiter", paramLabel = "C", description = "CSV field delimiter (default , for CSV, TAB for"
            + " TSV; \\t accepted).")
    public String delimiter;
    /** Quote character. */
    @Option(names = "--quote", paramLabel = "C", defaultValue = "\"", description = "CSV quote character; a quote"
            + " inside a quoted value is doubled (default: ${DEFAULT-VALUE}).")
    public char quote;
    /** Escape character. */
    @Option(names = "--escape", paramLabel = "C", description = "CSV escape character, e.g. \\: it makes the next"
            + " character literal (delimiter, quote, itself, a line break); \\n \\t \\r are a line feed, tab and"
            + " carriage return (default: none, RFC 4180).")
    public Character escape;
    /** Comment prefix. */
    @Option(names = "--comment", paramLabel = "C", description = "Skip CSV lines starting with this character.")
    public Character comment;
    /** Whether the first line is a header. */
    @Option(names = "--no-header", negatable = false, description = "CSV has no header line: name columns with"
            + " --columns (else c1, c2, ...).")
    public boolean noHeader;
    /** Column names. */
    @Option(names = "--columns", split = ",", paramLabel = "a,b,...", description = "CSV column names (replace the"
            + " header's, or name a file without one).")
    public List<String> columns;
    /** Null token. */
    @Option(names = "--null", paramLabel = "TEXT", defaultValue = "", description = "Unquoted CSV text read as NULL; a quoted"
            + " value is never NULL (default: empty).")
    public String nullToken;

    // ---- mapping
    /** Table name. */
    @Option(names = {"-t", "--table"}, paramLabel = "NAME", description = "Target table (default: the first input's"
            + " file name without extensions; line protocol: the measurement).")
    public String table;
    /** Time index column. */
    @Option(names = "--time-index", paramLabel = "COL", description = "Source column of the time index (default: a"
            + " column --types gives a Timestamp type, else a column named ts, time, timestamp or *_ts, *_time holding ISO-8601 times or epoch integers, else the first column of"
            + " ISO-8601 times, else the import's time in a column greptime_timestamp; Parquet: a TIMESTAMP column named"
            + " so, else the first TIMESTAMP column).")
    public String timeIndex;
    /** Time index format. */
    @Option(names = "--time-format", paramLabel = "FMT", description = "s, ms, us, ns (epoch), iso, or a pattern such"
            + " as 'yyyy-MM-dd HH:mm:ss' (default: inferred; epoch units from the digits).")
    public String timeFormat;
    /** Tag columns. */
    @Option(names = "--tags", split = ",", paramLabel = "a,b", description = "Source columns stored as tags (the"
            + " primary key); every other column is a field.")
    public List<String> tags = new ArrayList<>();
    /** Type overrides. */
    @Option(names = "--types", paramLabel = "col:Type,...", description = "Type overrides: Int64, Float64, Boolean,"
            + " String, Json, Date, TimestampMillisecond..., Decimal(p,s), or SQL names (BIGINT, DOUBLE, TIMESTAMP(3))."
            + " Parquet columns keep their file's types unless overridden.")
    public List<String> types = new ArrayList<>();
    /** Skipped columns. */
    @Option(names = "--skip", split = ",", paramLabel = "a,b", description = "Source columns not imported.")
    public List<String> skip = new ArrayList<>();
    /** Renames. */
    @Option(names = "--rename", split = ",", paramLabel = "old=new", description = "Rename source columns.")
    public List<String> rename = new ArrayList<>();
    /** Time zone of zone-less times. */
    @Option(names = "--timezone", paramLabel = "ZONE", defaultValue = "UTC", description = "Zone of times without an"
            + " offset and of Parquet timestamps not adjusted to UTC, such as +08:00 or Asia/Shanghai (default:"
            + " ${DEFAULT-VALUE}).")
    public String timezone;
    /** Rows sampled for inference. */
    @Option(names = "--sample", paramLabel = "N", defaultValue = "1000", description = "Rows read to infer types"
            + " (default: ${DEFAULT-VALUE}).")
    public int sample;
    /** Table options. */
    @Option(names = "--with", split = ",", paramLabel = "k=v", description = "Options of a table the import creates,"
            + " e.g. ttl=7d,append_mode=true.")
    public List<String> with = new ArrayList<>();
    /** Line protocol precision. */
    @Option(names = "--precision", paramLabel = "P", defaultValue = "ns", description = "Line protocol timestamp"
            + " unit: ns, us, ms or s (default: ${DEFAULT-VALUE}).")
    public String precision;

    // ---- run
    /** Dry run. */
    @Option(names = "--dry-run", description = "Print the CREATE TABLE and the first rows as they would be stored;"
            + " write nothing.")
    public boolean dryRun;
    /** Rows shown by a dry run. */
    @Option(names = "--dry-run-rows", paramLabel = "N", defaultValue = "10", description = "Rows a dry run shows"
            + " (default: ${DEFAULT-VALUE}).")
    public int dryRunRows;
    /** Write path. */
    @Option(names = "--path", paramLabel = "P", defaultValue = "bulk", description = "bulk (Arrow Flight, default) or"
            + " regular (gRPC inserts; adds missing columns; used for Json columns and line protocol).")
    public String path;
    /** Rows per batch. */
    @Option(names = "--batch", paramLabel = "N", defaultValue = "20000", description = "Rows per batch (default:"
            + " ${DEFAULT-VALUE}).")
    public int batch;
    /** Parallel readers. */
    @Option(names = "--parallelism", paramLabel = "N", defaultValue = "2", description = "Files read and sent in"
            + " parallel, one writer each (default: ${DEFAULT-VALUE}).")
    public int parallelism;
    /** In-flight batches per writer. */
    @Option(names = "--in-flight", paramLabel = "N", defaultValue = "8", description = "Unanswered batches per writer"
            + " (default: ${DEFAULT-VALUE}).")
    public int inFlight;

    // ---- errors
    /** Error policy. */
    @Option(names = "--on-error", paramLabel = "P", defaultValue = "abort", description = "abort (default: stop at the"
            + " first bad row; rows before it are written, nothing after it is sent) or skip (reject the row and go"
            + " on).")
    public String onError;
    /** Rejects file. */
    @Option(names = "--rejects", paramLabel = "FILE", description = "Append each rejected row as a JSON line: source,"
            + " line (Parquet: row of the file), column, reason, raw text; a row the file holds is not added again.")
    public Path rejects;
    /** Max rejected rows. */
    @Option(names = "--max-errors", paramLabel = "N", description = "With skip: stop once more than N rows are"
            + " rejected (N of 0 or more; default: no limit).")
    public Long maxErrors;

    // ---- resume
    /** State file. */
    @Option(names = "--state", paramLabel = "FILE", description = "State file (default: <first input>.import-state.json;"
            + " for standard input ./stdin.import-state.json).")
    public Path state;
    /** Ignore the state. */
    @Option(names = "--restart", description = "Ignore the state file and import everything again.")
    public boolean restart;
    /** Append-mode in-doubt policy. */
    @Option(names = "--in-doubt", paramLabel = "P", defaultValue = "fail", description = "Append-mode tables only:"
            + " what a rerun does with batches sent but never answered before the previous run stopped: fail"
            + " (default: stop before sending anything and name them), check (count each batch's rows in its time"
            + " range over HTTP SQL and send again only the batches not stored; where that cannot be decided, stop"
            + " as fail does), resend (may store them twice), skip (may lose them).")
    public String inDoubt;
    /** Whether the table keeps duplicates. */
    @Option(names = "--append-mode", description = "The table keeps every row (append_mode=true) even if the import"
            + " did not create it: in-doubt batches are then never resent silently.")
    public boolean appendMode;

    // ---- output
    /** Quiet. */
    @Option(names = {"-q", "--quiet"}, description = "No progress and no summary (errors are still printed).")
    public boolean quiet;
    /** Summary JSON. */
    @Option(names = "--summary-json", paramLabel = "FILE", description = "Write the summary as JSON (- for standard"
            + " output).")
    public String summaryJson;
    /** Verify. */
    @Option(names = "--verify", description = "At the end, compare the server's count(*) over HTTP SQL with the rows"
            + " acknowledged (line protocol: each table's, with its count before the import).")
    public boolean verify;
    /** Progress interval when not a terminal. */
    @Option(names = "--progress-interval", paramLabel = "SECONDS", defaultValue = "10", description = "Seconds between"
            + " progress lines when output is not a terminal (default: ${DEFAULT-VALUE}).")
    public int progressInterval;

    // ---- target
    /** The client's connection string. */
    @Option(names = "--connection", paramLabel = "URL", description = "The client's connection string,"
            + " greptimedb://[user[:password]@]host[:port][,host...][/database][?key=value&...]. It replaces -e"
            + " and -d, and -u and -p when it names a user; an option it sets too is refused (also --tls, --tls-ca,"
            + " --timeout, --retry-deadline beside tls, tls_ca, request_timeout, retry_timeout). Its keys (retry_*,"
            + " tls_*, compression...) are the client's, see the user's guide; table options go in --with.")
    public String connection;
    /** gRPC endpoints. */
    @Option(names = {"-e", "--endpoint"}, split = ",", paramLabel = "HOST:PORT", defaultValue = "127.0.0.1:4001",
            description = "GreptimeDB gRPC endpoints (default: ${DEFAULT-VALUE}).")
    public List<String> endpoints;
    /** HTTP endpoint. */
    @Option(names = "--http-endpoint", paramLabel = "HOST:PORT|URL", description = "HTTP API for DESC TABLE and"
            + " --verify (default: the first endpoint's host, port 4000).")
    public String httpEndpoint;
    /** Database. */
    @Option(names = {"-d", "--database"}, paramLabel = "DB", defaultValue = "public", description = "Database"
            + " (default: ${DEFAULT-VALUE}).")
    public String database;
    /** User. */
    @Option(names = {"-u", "--user"}, paramLabel = "USER", description = "User for basic auth.")
    public String user;
    /** Password. */
    @Option(names = {"-p", "--password"}, paramLabel = "PASS", description = "Password (or set SLUICE_PASSWORD).")
    public String password;
    /** TLS. */
    @Option(names = "--tls", description = "Connect with TLS (system trust store).")
    public boolean tls;
    /** CA certificate. */
    @Option(names = "--tls-ca", paramLabel = "PEM", description = "Connect with TLS, trusting this CA certificate.")
    public Path tlsCa;
    /** Call timeout. */
    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "60", description = "Deadline of one call and"
            + " of one batch's answer (default: ${DEFAULT-VALUE}).")
    public int timeoutSeconds;
    /** Retry deadline. */
    @Option(names = "--retry-deadline", paramLabel = "SECONDS", defaultValue = "120", description = "How long a failed"
            + " write is retried (server restarts, failover) before the import stops (default: ${DEFAULT-VALUE}).")
    public int retryDeadlineSeconds;

    /** The command line as picocli parsed it (null when the options are filled by other code). */
    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    /**
     * The options a connection string sets too, each with what the string calls it: an option is refused only beside
     * a string that sets the same thing, as every integration refuses it ({@link ConnectionOverlap}). A CA file turns
     * TLS on, so it clashes with the string's {@code tls} key as well.
     */
    private static final Map<String, List<String>> IN_CONNECTION_STRING = inConnectionString();

    private static Map<String, List<String>> inConnectionString() {
        Map<String, List<String>> m = new LinkedHashMap<>();
        m.put("--endpoint", List.of(ConnectionOverlap.HOSTS));
        m.put("--database", List.of(ConnectionOverlap.DATABASE));
        m.put("--user", List.of(ConnectionOverlap.USER));
        m.put("--password", List.of(ConnectionOverlap.PASSWORD));
        m.put("--tls", List.of("tls"));
        m.put("--tls-ca", List.of("tls", "tls_ca"));
        m.put("--timeout", List.of("request_timeout"));
        m.put("--retry-deadline", List.of("retry_timeout"));
        return Collections.unmodifiableMap(m);
    }

    /** Connection string keys of a batching writer, which the import does not use. */
    private static final List<String> BATCHING_KEYS = List.of("write_path", "batch_rows", "batch_bytes",
            "flush_interval", "batch_in_flight", "buffer_rows", "ordered_per_table");

    /**
     * Reads {@code --connection} and puts its hosts, database and credentials (when it names a user) into the target
     * options, so the rest of the import (HTTP SQL, the state file) reads them as if given one by one; the client is
     * opened with the string applied over the options.
     *
     * @throws UsageException for a string the client refuses, a target option the string sets too, a batching
     *     writer's key or a hint
     */
    public void resolveConnection() {
        if (connection == null) {
            return;
        }
        ConnectionConfig c;
        try {
            c = ConnectionConfig.parse(connection);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--connection: " + e.getMessage());
        }
        ConnectionOverlap.clash(c, IN_CONNECTION_STRING, this::given).ifPresent(x -> {
            throw new UsageException(x.setting() + " is given, and --connection sets it too (" + x.inString()
                    + "): keep one");
        });
        for (String k : BATCHING_KEYS) {
            if (c.has(k)) {
                throw new UsageException("--connection key '" + k + "' sets a batching writer, which sluice import does"
                        + " not use: use --batch, --in-flight and --path");
            }
        }
        if (c.context().hints().size() > 0) {
            throw new UsageException("--connection sets hints (hint.<name>): give table options with --with, and"
                    + " --append-mode for an existing append-mode table, so the import knows them");
        }
        endpoints = c.endpoints();
        database = c.database();
        if (c.hasUser()) {
            user = c.options().authInfo().username();
            if (c.hasPassword()) {
                password = c.options().authInfo().password();
            }
        }
    }

    /** Whether an option was on the command line (or, without picocli, differs from its default). */
    private boolean given(String name) {
        if (spec != null && spec.commandLine() != null && spec.commandLine().getParseResult() != null) {
            return spec.commandLine().getParseResult().hasMatchedOption(name);
        }
        switch (name) {
            case "--endpoint":
                return !List.of("127.0.0.1:4001").equals(endpoints);
            case "--database":
                return !"public".equals(database);
            case "--user":
                return user != null;
            case "--password":
                return password != null;
            case "--tls":
                return tls;
            case "--tls-ca":
                return tlsCa != null;
            case "--timeout":
                return timeoutSeconds != 60;
            default:
                return retryDeadlineSeconds != 120;
        }
    }

    /** The import's words in the shared client's failures. */
    private static final SinkSettings.Wording WORDING = new SinkSettings.Wording("--retry-deadline",
            "The import stops; the rows acknowledged so far are recorded in its state file.",
            "run the same command again", Map.of("write_path", "--path", "compression",
            "--connection's compression", "password", "--password"));

    /**
     * The client's settings from the command line: the target options, with {@code --connection} applied over them
     * (an option the string sets too was refused by {@link #resolveConnection()}).
     *
     * @param password the password ({@code --password} or {@code SLUICE_PASSWORD}), or null
     * @return the settings the client is opened with
     * @throws UsageException when the string's keys do not fit with the options
     */
    public SinkSettings settings(String password) {
        BatchingWriter.Config unused = BatchingWriter.Config.newBuilder().build();
        RetryPolicy retry = RetryPolicy.newBuilder().build();
        SinkSettings s;
        try {
            s = new SinkSettings(endpoints, database, user == null ? "" : user,
                    password == null ? "" : password, tls, tlsCa == null ? "" : tlsCa.toString(), "", "", "", "",
                    Duration.ofSeconds(timeoutSeconds), 0, retry.initialBackoff(), retry.maxBackoff(),
                    Duration.ofSeconds(retryDeadlineSeconds), path.equalsIgnoreCase("regular")
                    ? BatchingWriter.Path.Regular : BatchingWriter.Path.Bulk, batch, unused.maxBatchBytes(),
                    unused.flushInterval(), inFlight, (long) batch * inFlight, Compression.None.settingName(),
                    Map.of(), httpEndpoint, "", WORDING);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        try {
            return connection == null ? s : s.connect(connection);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--connection: " + e.getMessage());
        }
    }
}
