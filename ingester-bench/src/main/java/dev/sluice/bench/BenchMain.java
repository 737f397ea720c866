package dev.sluice.bench;

import com.sun.management.OperatingSystemMXBean;
import dev.sluice.AuthInfo;
import dev.sluice.BatchingWriter;
import dev.sluice.write.Compression;
import dev.sluice.write.Context;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.TlsConfig;
import dev.sluice.bench.cost.CostBenchmark;
import dev.sluice.bench.cost.TestkitProcess;
import dev.sluice.bench.report.ModeResult;
import dev.sluice.bench.report.Report;
import dev.sluice.bench.run.ModeRunner;
import dev.sluice.bench.run.RunStats;
import dev.sluice.bench.target.ContainerTarget;
import dev.sluice.bench.target.EmbeddedTarget;
import dev.sluice.bench.target.GreptimeTarget;
import dev.sluice.bench.target.Target;
import dev.sluice.bench.workload.Workload;
import dev.sluice.bulk.BulkWrite;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** The benchmark command line: writes a workload through each chosen path and prints a result table. */
@Command(name = "sluice-bench", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Writes a log or metrics workload to GreptimeDB (or the embedded testkit) through the regular,"
                + " stream and bulk paths and compares them.")
public final class BenchMain implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Lets gRPC's shaded netty allocate direct memory without zeroing it. */
    public static final String NETTY_UNZEROED = "io.grpc.netty.shaded.io.netty.tryReflectionSetAccessible";

    @Option(names = "--workload", defaultValue = "metrics", description = "logs | metrics (default: ${DEFAULT-VALUE})")
    String workload;

    @Option(names = "--mode", split = ",", defaultValue = "regular,stream,bulk",
            description = "paths to run, comma-separated: regular, stream, bulk; single and batching compare"
                    + " one-row writes (default: ${DEFAULT-VALUE})")
    List<String> modes;

    @Option(names = "--rows", description = "rows per mode (default: logs 5,000,000; metrics 10,000,000)")
    Long rows;

    @Option(names = "--batch", description = "rows per batch (default: logs 65,536; metrics 1,000)")
    Integer batch;

    @Option(names = "--parallelism", description = "concurrent writers (default: logs 4; metrics 5); with --cost, requests"
            + " in flight: that many writers on the regular and stream paths, one writer with that many batches in flight"
            + " on the bulk path")
    Integer parallelism;

    @Option(names = "--compression", defaultValue = "none",
            description = "none | zstd | lz4 (bulk only) | gzip (default: ${DEFAULT-VALUE})")
    String compression;

    @Option(names = "--seed", defaultValue = "42", description = "generator seed (default: ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--endpoint", description = "host:port of a GreptimeDB gRPC endpoint (default: embedded testkit)")
    String endpoint;

    @Option(names = "--http-endpoint", description = "host:port (or an http:// or https:// URL) of its HTTP API for"
            + " checks (default: endpoint host, port 4000, plain HTTP)")
    String httpEndpoint;

    @Option(names = "--database", defaultValue = "public", description = "database (default: ${DEFAULT-VALUE})")
    String database;

    @Option(names = "--user", description = "basic-auth user")
    String user;

    @Option(names = "--password", description = "basic-auth password")
    String password;

    @Option(names = "--tls", description = "connect to --endpoint over TLS, trusting the JVM's CA certificates")
    boolean tls;

    @Option(names = "--tls-ca", description = "connect to --endpoint over TLS, trusting this CA certificate (PEM)")
    Path tlsCa;

    @Option(names = "--testcontainers", description = "start GreptimeDB in Docker with Testcontainers")
    boolean testcontainers;

    @Option(names = "--image", defaultValue = "greptime/greptimedb:latest",
            description = "image for --testcontainers (default: ${DEFAULT-VALUE})")
    String image;

    @Option(names = "--max-in-flight", defaultValue = "8", description = "bulk batches in flight per writer (default: ${DEFAULT-VALUE}); --cost runs one bulk writer"
            + " with --parallelism batches in flight instead")
    int maxInFlight;

    @Option(names = "--batching-path", defaultValue = "regular",
            description = "path of the batching mode: regular | bulk (default: ${DEFAULT-VALUE})")
    String batchingPath;

    @Option(names = "--retry", defaultValue = "default",
            description = "retry policy: default (resend until the 2-minute deadline; unanswered bulk batches and stream"
                    + " messages are kept for it) | none (fail fast, nothing kept) (default: ${DEFAULT-VALUE})")
    String retry;

    @Option(names = "--repeat", defaultValue = "1",
            description = "rounds over all modes (interleaved); each mode reports its median round; with --cost, rounds"
                    + " of the whole plan, each cell reporting its round of median marginal CPU (default: ${DEFAULT-VALUE})")
    int repeat;

    @Option(names = "--warmup-rows", description = "rows each mode writes, unmeasured, before the measured rounds, so"
            + " JIT compilation is not timed; 0 turns warm-up off (default: logs 8 batches, metrics 1,000,000; a"
            + " twentieth of that for the one-row mode single)")
    Long warmupRows;

    @Option(names = "--cost", description = "measure what the client costs its process: each path and batch size in"
            + " fresh client JVMs (a short and a long run: cold and marginal CPU per row, allocation per row, peak RSS)"
            + " against the testkit in its own JVM, or --endpoint")
    boolean cost;

    @Option(names = "--short-rows", description = "with --cost: rows of the short run (default: a quarter of --rows)")
    Long shortRows;

    @Option(names = "--batch-sweep", split = ",", description = "with --cost: batch sizes to run, comma-separated, or"
            + " 'sweep' for 50,200,1000,2000,65536 (default: --batch)")
    List<String> batchSweep;

    @Option(names = "--client-jvm-args", defaultValue = "-Xmx4g -XX:MaxDirectMemorySize=4g",
            description = "with --cost: options of each client JVM, space-separated; the benchmark adds"
                    + " -XX:-UseDynamicNumberOfCompilerThreads after them so that every JIT compiler thread's CPU is"
                    + " read (default: ${DEFAULT-VALUE})")
    String clientJvmArgs;

    @Option(names = "--row-api", defaultValue = "objects", description = "with --cost: how rows reach the client:"
            + " objects (addRow with boxed numbers and Strings) or typed (the typed row appender, primitive numbers and"
            + " Strings); both check every value (default: ${DEFAULT-VALUE})")
    String rowApi;

    @Option(names = "--testkit-jvm-args", defaultValue = "-Xmx4g -XX:MaxDirectMemorySize=4g",
            description = "with --cost and no --endpoint: options of the testkit's JVM (default: ${DEFAULT-VALUE})")
    String testkitJvmArgs;

    @Option(names = "--out", description = "also write results to this .csv or .json file")
    Path out;

    @Option(names = "--chart", description = "also draw rows/s per mode into this PNG file")
    Path chart;

    @Override
    public Integer call() throws Exception {
        if ((tls || tlsCa != null) && endpoint == null) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--tls and --tls-ca apply to --endpoint; the embedded testkit and --testcontainers speak plaintext");
        }
        if (cost) {
            return cost();
        }
        boolean logs = workload.equals("logs");
        long totalRows = rows != null ? rows : logs ? 5_000_000L : 10_000_000L;
        int batchRows = batch != null ? batch : logs ? 65_536 : 1_000;
        int workers = parallelism != null ? parallelism : logs ? 4 : 5;
        Workload wl = Workload.named(workload, seed);
        Compression comp = Compression.valueOf(compression.substring(0, 1).toUpperCase(Locale.ROOT)
                + compression.substring(1).toLowerCase(Locale.ROOT));
        List<ModeRunner> runners = new ArrayList<>();
        for (String m : modes) {
            runners.add(ModeRunner.named(m.trim()));
        }
        double genNanosPerRow = generatorCost(wl);
        try (Target target = target()) {
            System.out.println("target: " + target.description());
            System.out.println("jvm: " + NETTY_UNZEROED + "=" + System.getProperty(NETTY_UNZEROED)
                    + ", max heap " + (Runtime.getRuntime().maxMemory() >> 20) + " MiB");
            GreptimeOptions.Builder ob = GreptimeOptions.newBuilder(target.endpoint(), database)
                    .requestTimeout(Duration.ofMinutes(5)).maxMessageSize(500 << 20).maxInboundMessageSize(64 << 20)
                    // Unanswered bulk batches (kept for resending) count against this budget: room for the
                    // writers' batches in flight, 150 MB each on the logs workload.
                    .maxInFlightBytes(Integer.MAX_VALUE);
            if (retry.equals("none")) {
                ob.retryPolicy(dev.sluice.write.RetryPolicy.none());
            } else if (!retry.equals("default")) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--retry is default or none, not " + retry);
            }
            if (user != null) {
                ob.authInfo(new AuthInfo(user, password == null ? "" : password));
            }
            if (tls || tlsCa != null) {
                ob.tls(tlsCa != null ? TlsConfig.newBuilder().trustCertificates(tlsCa).build() : TlsConfig.newBuilder().build());
            }
            BulkWrite.Config bulk = BulkWrite.Config.newBuilder().maxInFlightRequests(maxInFlight)
                    .requestTimeout(Duration.ofMillis(300_000)).allocatorMaxAllocation(8L << 30).build();
            long warmup = Math.min(totalRows, warmupRows != null ? warmupRows : logs ? 8L * batchRows : 1_000_000L);
            if (warmup > 0) {
                for (ModeRunner runner : runners) {
                    long rowsToWarm = warmupRows == null && runner.name().equals("single") ? warmup / 20 : warmup;
                    target.reset(wl.schema().tableName());
                    GreptimeDB db = GreptimeDB.create(ob.build());
                    ModeRunner.Run run = run(db, wl, rowsToWarm, batchRows, workers, comp, bulk, runner);
                    RunStats stats = new RunStats(runner.units(run));
                    Progress progress = new Progress(runner.name() + " warm-up", run.rows(), stats, System.nanoTime());
                    runner.runAll(run, stats, progress::print);
                    progress.finish();
                    db.shutdownGracefully(Duration.ofSeconds(30));
                    if (stats.failedBatches() > 0) {
                        System.out.println("warm-up of " + runner.name() + " FAILED: " + stats.failedBatches()
                                + " failures, e.g. " + stats.errors());
                        return 1;
                    }
                }
            }
            // Rounds interleave the modes, so slow drifts of the machine hit every mode alike.
            List<List<ModeResult>> rounds = new ArrayList<>();
            for (ModeRunner runner : runners) {
                rounds.add(new ArrayList<>());
            }
            for (int round = 0; round < Math.max(1, repeat); round++) {
                for (int m = 0; m < runners.size(); m++) {
                    ModeRunner runner = runners.get(m);
                    target.reset(wl.schema().tableName());
                    GreptimeDB db = GreptimeDB.create(ob.build());
                    ModeRunner.Run run = run(db, wl, totalRows, batchRows, workers, comp, bulk, runner);
                    rounds.get(m).add(measure(runner, run, target, genNanosPerRow));
                    db.shutdownGracefully(Duration.ofSeconds(30));
                }
            }
            List<ModeResult> results = new ArrayList<>();
            for (List<ModeResult> r : rounds) {
                results.add(median(r));
            }
            String header = String.format(Locale.ROOT, "workload=%s rows=%,d batch=%,d parallelism=%d compression=%s rounds=%d;"
                            + " %s; %d cores, Java %s", workload, totalRows, batchRows, workers, compression, Math.max(1, repeat),
                    target.description(),
                    Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"));
            Report.print(System.out, header, results);
            if (out != null) {
                Report.write(out, results);
                System.out.println("wrote " + out);
            }
            if (chart != null) {
                Report.chart(chart, workload + " workload, " + String.format(Locale.ROOT, "%,d", totalRows) + " rows", results);
                System.out.println("wrote " + chart);
            }
            return results.stream().allMatch(r -> r.status().startsWith("ok")) ? 0 : 1;
        }
    }

    private int cost() throws Exception {
        if (testcontainers) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--cost runs against the testkit in its own"
                    + " JVM or an --endpoint, not --testcontainers");
        }
        if (tls || tlsCa != null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--cost does not pass TLS settings to its"
                    + " client JVMs yet; use a plaintext endpoint");
        }
        if (!List.of("objects", "typed").contains(rowApi)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--row-api takes objects or typed, not '"
                    + rowApi + "'");
        }
        boolean logs = workload.equals("logs");
        long longRows = rows != null ? rows : logs ? 400_000L : 2_000_000L;
        long short0 = shortRows != null ? shortRows : longRows / 4;
        List<Integer> batches = new ArrayList<>();
        if (batchSweep == null || batchSweep.isEmpty()) {
            batches.add(batch != null ? batch : logs ? 65_536 : 1_000);
        } else if (batchSweep.size() == 1 && batchSweep.get(0).trim().equals("sweep")) {
            batches.addAll(CostBenchmark.SWEEP);
        } else {
            for (String b : batchSweep) {
                batches.add(Integer.parseInt(b.trim()));
            }
        }
        int workers = parallelism != null ? parallelism : logs ? 4 : 5;
        List<String> paths = modes.stream().map(String::trim).toList();
        for (String p : paths) {
            if (!List.of("regular", "stream", "bulk").contains(p)) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--cost measures regular, stream and bulk,"
                        + " not '" + p + "'");
            }
        }
        CostBenchmark.Plan plan = new CostBenchmark.Plan(workload, paths,
                batches, short0, longRows, workers, compression, seed, database, user, password,
                splitArgs(clientJvmArgs), Duration.ofMinutes(30), rowApi);
        try (Target target = endpoint != null ? target()
                : new TestkitProcess(splitArgs(testkitJvmArgs), Duration.ofMinutes(2))) {
            System.out.println("target: " + target.description());
            List<List<CostBenchmark.Result>> rounds = new ArrayList<>();
            for (int round = 0; round < Math.max(1, repeat); round++) {
                rounds.add(new CostBenchmark(plan, target, System.out).run());
            }
            List<CostBenchmark.Result> results = CostBenchmark.medianOfRounds(rounds);
            String header = String.format(Locale.ROOT, "client cost: workload=%s parallelism=%d compression=%s;"
                            + " rows as %s; each run a fresh client JVM (%s); cold = whole run's process CPU / rows, marginal ="
                            + " (long - short CPU) / (long - short rows)%s; %s; %d cores, Java %s", workload, workers,
                    compression, rowApi, clientJvmArgs, rounds.size() > 1 ? "; each cell the median of " + rounds.size()
                            + " interleaved rounds" : "", target.description(), Runtime.getRuntime().availableProcessors(),
                    System.getProperty("java.version"));
            CostBenchmark.print(System.out, header, results);
            CostBenchmark.printRounds(System.out, rounds);
            if (out != null) {
                CostBenchmark.write(out, workload, results);
                System.out.println("wrote " + out);
            }
            return results.stream().allMatch(CostBenchmark.Result::ok) ? 0 : 1;
        }
    }

    private static List<String> splitArgs(String args) {
        return args == null || args.isBlank() ? List.of() : List.of(args.trim().split("\\s+"));
    }

    private ModeRunner.Run run(GreptimeDB db, Workload wl, long rows, int batchRows, int workers, Compression comp,
            BulkWrite.Config bulk, ModeRunner runner) {
        Context ctx = Context.newBuilder().compression(comp == Compression.Lz4 && !runner.name().equals("bulk")
                ? Compression.None : comp).build();
        return new ModeRunner.Run(db, wl, rows, batchRows, workers, ctx, bulk,
                batchingPath.equalsIgnoreCase("bulk") ? BatchingWriter.Path.Bulk : BatchingWriter.Path.Regular);
    }

    /** The round with the median rows/s; a failed round, if any, is reported instead so failures are never hidden. */
    static ModeResult median(List<ModeResult> rounds) {
        for (ModeResult r : rounds) {
            if (!r.status().equals("ok")) {
                return r;
            }
        }
        List<ModeResult> sorted = new ArrayList<>(rounds);
        sorted.sort(java.util.Comparator.comparingDouble(ModeResult::rowsPerSecond));
        ModeResult m = sorted.get(sorted.size() / 2);
        if (rounds.size() == 1) {
            return m;
        }
        return new ModeResult(m.mode(), m.rows(), m.seconds(), m.wireBytes(), m.p50Micros(), m.p99Micros(),
                m.clientCpuSeconds(), m.peakHeapMiB(), m.generatorSeconds(), "ok (median of " + rounds.size() + ")");
    }

    private Target target() {
        if (testcontainers) {
            return new ContainerTarget(image);
        }
        if (endpoint != null) {
            String http = httpEndpoint != null ? httpEndpoint : endpoint.substring(0, endpoint.lastIndexOf(':')) + ":4000";
            return new GreptimeTarget(endpoint, http, database, user, password);
        }
        return new EmbeddedTarget();
    }

    /** Generator cost per row, measured alone on this thread before the runs. */
    private static double generatorCost(Workload wl) {
        long[] sink = new long[1];
        int n = 200_000;
        double best = Double.MAX_VALUE;
        // The fastest of several rounds: the first ones still run interpreted or half-compiled code.
        for (int round = 0; round < 6; round++) {
            long start = System.nanoTime();
            wl.fill(row -> sink[0] += row.length, (long) round * n, n);
            best = Math.min(best, (System.nanoTime() - start) / (double) n);
        }
        return best + (sink[0] == 0 ? 1 : 0);
    }

    private ModeResult measure(ModeRunner runner, ModeRunner.Run run, Target target, double genNanosPerRow)
            throws Exception {
        if (runner.name().equals("bulk") || (runner.name().equals("batching") && batchingPath.equalsIgnoreCase("bulk"))) {
            // Loading the bulk writers' classes is start-up, not throughput: done before the clock starts.
            run.db().prepareBulk();
        }
        System.gc();
        List<MemoryPoolMXBean> heap = ManagementFactory.getMemoryPoolMXBeans().stream()
                .filter(p -> p.getType() == MemoryType.HEAP).toList();
        heap.forEach(MemoryPoolMXBean::resetPeakUsage);
        double cpu0 = clientCpuSeconds(target);
        long wire0 = run.db().wireBytesSent();
        RunStats stats = new RunStats(runner.units(run));
        long start = System.nanoTime();
        Progress progress = new Progress(runner.name(), run.rows(), stats, start);
        runner.runAll(run, stats, progress::print);
        double seconds = (System.nanoTime() - start) / 1e9;
        progress.finish();
        double cpu = clientCpuSeconds(target) - cpu0;
        long peak = heap.stream().mapToLong(p -> p.getPeakUsage().getUsed()).sum() >> 20;
        String status = "ok";
        if (stats.failedBatches() > 0) {
            status = "FAILED: " + stats.failedBatches() + " failures, e.g. " + stats.errors();
        } else if (stats.ackedRows() != run.rows()) {
            status = "FAILED: acknowledged " + stats.ackedRows() + " of " + run.rows() + " rows";
        }
        long stored = target.count(run.workload().schema().tableName());
        if (stored != stats.ackedRows()) {
            status = "FAILED: acknowledged " + stats.ackedRows() + " but the target holds " + stored
                    + (status.equals("ok") ? "" : "; " + status);
        }
        return new ModeResult(runner.name(), stats.ackedRows(), seconds, run.db().wireBytesSent() - wire0,
                stats.percentileMicros(0.5), stats.percentileMicros(0.99), cpu, peak,
                genNanosPerRow * run.rows() / 1e9, status);
    }

    /** Process CPU time less the target's own threads (the embedded testkit shares this process). */
    private static double clientCpuSeconds(Target target) {
        OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long total = os.getProcessCpuTime();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long excluded = 0;
        for (long id : threads.getAllThreadIds()) {
            ThreadInfo info = threads.getThreadInfo(id);
            if (info != null && target.ownsThread(info.getThreadName())) {
                long t = threads.getThreadCpuTime(id);
                if (t > 0) {
                    excluded += t;
                }
            }
        }
        return (total - excluded) / 1e9;
    }

    /** One updating progress line on stderr per mode. */
    static final class Progress {
        private final String mode;
        private final long total;
        private final RunStats stats;
        private final long start;

        Progress(String mode, long total, RunStats stats, long start) {
            this.mode = mode;
            this.total = total;
            this.stats = stats;
            this.start = start;
        }

        void print() {
            long sent = stats.sentRows();
            double s = Math.max(1e-9, (System.nanoTime() - start) / 1e9);
            double rate = sent / s;
            long eta = rate > 0 ? (long) ((total - sent) / rate) : -1;
            System.err.printf(Locale.ROOT, "\r%-8s %,13d rows sent %5.1f%%  %,12.0f rows/s  acked %,13d  ETA %ds   ",
                    mode, sent, 100.0 * sent / total, rate, stats.ackedRows(), eta);
        }

        void finish() {
            print();
            System.err.println();
        }
    }

    /**
     * Runs the benchmark.
     *
     * @param args command-line options ({@code --help} lists them)
     */
    public static void main(String[] args) {
        // Before any netty class loads: gRPC's netty then takes direct buffers from malloc without zero-filling
        // them (it needs the java.nio opening the jar's manifest already grants for Arrow). The guide recommends
        // the same for applications that send large batches.
        if (System.getProperty(NETTY_UNZEROED) == null) {
            System.setProperty(NETTY_UNZEROED, "true");
        }
        int code = new CommandLine(new BenchMain()).setCaseInsensitiveEnumValuesAllowed(true).execute(args);
        System.exit(code);
    }
}
