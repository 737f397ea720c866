package dev.sluice.bench.cost;

import dev.sluice.AuthInfo;
import dev.sluice.BatchingWriter;
import dev.sluice.write.Compression;
import dev.sluice.write.Context;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.bench.run.ModeRunner;
import dev.sluice.bench.run.RunStats;
import dev.sluice.bench.workload.Workload;
import dev.sluice.bulk.BulkWrite;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * One measured client run, in a JVM of its own: writes a workload's rows through one path (or, for the path
 * {@value CostBenchmark#WORKLOAD_ONLY}, makes them with no client) and prints one {@value #MARKER} line with the
 * process's CPU, wall time, heap allocation, peak RSS and JIT time. With {@code --steady-from-rows N} the line also
 * has the CPU and JIT CPU of the steady window, from the batch that brings the rows handed to the client to
 * {@code N} or more until the last answer, and the rows after that batch ({@code steady_rows}): a figure that leaves
 * start-up and most of the JIT's warm-up out without a second run.
 * {@link CostBenchmark} starts it; it is not meant to be run by hand.
 */
@Command(name = "sluice-cost-client", description = "One client run of the cost benchmark (started by --cost).")
public final class CostClient implements Callable<Integer> {
    /** Starts the line the parent reads. */
    static final String MARKER = "sluice-cost-result";
    /** Environment variable that carries the basic-auth password, so it never shows in a process list. */
    static final String PASSWORD_ENV = "SLUICE_BENCH_PASSWORD";

    @Option(names = "--workload", required = true)
    String workload;

    @Option(names = "--mode", required = true)
    String mode;

    @Option(names = "--rows", required = true)
    long rows;

    @Option(names = "--batch", required = true)
    int batch;

    @Option(names = "--parallelism", required = true)
    int parallelism;

    @Option(names = "--compression", defaultValue = "None")
    Compression compression;

    @Option(names = "--seed", defaultValue = "42")
    long seed;

    @Option(names = "--endpoint", required = true)
    String endpoint;

    @Option(names = "--database", defaultValue = "public")
    String database;

    @Option(names = "--user")
    String user;

    @Option(names = "--max-in-flight", defaultValue = "8")
    int maxInFlight;

    @Option(names = "--row-api", defaultValue = "objects")
    String rowApi;

    @Option(names = "--steady-from-rows", defaultValue = "0")
    long steadyFromRows;

    @Override
    public Integer call() throws Exception {
        Workload wl = Workload.named(workload, seed);
        if (rowApi.equals("typed")) {
            wl = wl.typedRows();
        } else if (!rowApi.equals("objects")) {
            throw new IllegalArgumentException("--row-api takes objects or typed, not '" + rowApi + "'");
        }
        boolean baseline = mode.equals(CostBenchmark.WORKLOAD_ONLY);
        ModeRunner runner = baseline ? new WorkloadOnly() : ModeRunner.named(mode);
        GreptimeOptions.Builder ob = GreptimeOptions.newBuilder(endpoint, database)
                .requestTimeout(Duration.ofMinutes(5)).maxMessageSize(500 << 20).maxInboundMessageSize(64 << 20)
                // The client's default in-flight budget (256 MiB: one ~145 MB logs request at a time), with a wait
                // that a loaded machine does not run out of: the run measures cost, not the client's back-pressure.
                .whenFull(dev.sluice.write.WhenFull.Block).maxBlock(Duration.ofMinutes(5));
        if (user != null) {
            String password = System.getenv(PASSWORD_ENV);
            ob.authInfo(new AuthInfo(user, password == null ? "" : password));
        }
        BulkWrite.Config bulk = BulkWrite.Config.newBuilder().maxInFlightRequests(maxInFlight)
                .requestTimeout(Duration.ofMillis(300_000)).allocatorMaxAllocation(8L << 30).build();
        Context ctx = Context.newBuilder().compression(
                compression == Compression.Lz4 && !mode.equals("bulk") ? Compression.None : compression).build();
        // Measured from here: the workload's pools are built (the rows come precomputed, as in the issue's
        // comparison); everything the client does, from creating it to its shutdown, counts.
        Map<Long, Long> alloc0 = Jvm.allocatedByThread();
        long cpu0 = Jvm.processCpuNanos();
        long jit0 = Jvm.compilationMillis();
        long jitCpu0 = Jvm.compilerCpuNanos();
        long start = System.nanoTime();
        GreptimeDB db = baseline ? null : GreptimeDB.create(ob.build());
        ModeRunner.Run run = new ModeRunner.Run(db, wl, rows, batch, parallelism, ctx, bulk, BatchingWriter.Path.Regular);
        RunStats stats = new RunStats(runner.units(run));
        // The steady window: from the batch that brings the rows handed over to --steady-from-rows, to the last
        // answer (before shutdown). Its CPU per row leaves out start-up and most JIT warm-up, which the difference of
        // a short and a long run cancels only when both runs warm up alike.
        long[] steady0 = {-1, -1, -1};
        if (steadyFromRows > 0) {
            stats.markAt(steadyFromRows, () -> {
                steady0[0] = stats.sentRows();
                steady0[1] = Jvm.processCpuNanos();
                steady0[2] = Jvm.compilerCpuNanos();
            });
        }
        runner.runAll(run, stats, () -> { });
        long steadyRows = steady0[0] < 0 ? 0 : rows - steady0[0];
        long steadyCpu = steady0[0] < 0 ? -1 : Jvm.processCpuNanos() - steady0[1];
        long steadyJit = steady0[0] < 0 || steady0[2] < 0 ? -1 : Jvm.compilerCpuNanos() - steady0[2];
        double seconds = (System.nanoTime() - start) / 1e9;
        long alloc = Jvm.allocatedSince(alloc0) + stats.endedWorkerAllocatedBytes();
        if (db != null) {
            db.shutdownGracefully(Duration.ofSeconds(60));
        }
        long cpu = Jvm.processCpuNanos() - cpu0;
        long jit = jit0 < 0 ? -1 : Jvm.compilationMillis() - jit0;
        long jitCpu = jitCpu0 < 0 ? -1 : Jvm.compilerCpuNanos() - jitCpu0;
        for (String e : stats.errors()) {
            System.err.println("cost client: " + e);
        }
        System.out.printf(Locale.ROOT, "%s rows=%d acked=%d failed=%d cpu_ns=%d seconds=%.6f alloc_bytes=%d"
                        + " rss_kib=%d jit_ms=%d jit_cpu_ns=%d steady_rows=%d steady_cpu_ns=%d steady_jit_cpu_ns=%d%n", MARKER,
                rows, stats.ackedRows(), stats.failedBatches(), cpu, seconds, alloc, Jvm.peakRssKiB(), jit, jitCpu,
                steadyRows, steadyCpu, steadyJit);
        System.out.flush();
        return stats.failedBatches() == 0 && stats.ackedRows() == rows ? 0 : 1;
    }

    /**
     * Entry point of the child JVM.
     *
     * @param args the options {@link CostBenchmark} passes
     */
    public static void main(String[] args) {
        if (System.getProperty(dev.sluice.bench.BenchMain.NETTY_UNZEROED) == null) {
            System.setProperty(dev.sluice.bench.BenchMain.NETTY_UNZEROED, "true");
        }
        System.exit(new CommandLine(new CostClient()).setCaseInsensitiveEnumValuesAllowed(true).execute(args));
    }
}
