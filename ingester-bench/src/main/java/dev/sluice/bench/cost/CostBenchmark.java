package dev.sluice.bench.cost;

import dev.sluice.bench.target.Target;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What a user of the client pays per row: for each path and batch size, a short and a long client run, each in
 * a fresh JVM of its own, against a target in another process (the testkit in its own JVM, or any endpoint).
 * Cold cost is a whole run's process CPU over its rows (JIT compilation, class loading and GC included); marginal
 * cost is the long run's extra CPU over the short run's, divided by the extra rows (the steady state).
 * Allocation per row is marginal the same way; peak RSS is the long run's {@code VmHWM}. After every run the
 * target's own count of stored rows must equal the rows written.
 *
 * <p>Each batch size also gets a {@value #WORKLOAD_ONLY} row: the same short and long runs making the rows with no
 * client ({@link WorkloadOnly}), each three times, keeping the run of median CPU. The rows are generated in the
 * measured process, so a path's figures include what the benchmark pays to make them; its "client" column is the
 * path's marginal less this row's.
 */
public final class CostBenchmark {
    /** The path name of the baseline runs: the workload's rows made and read, no client. */
    public static final String WORKLOAD_ONLY = "workload";
    /** Runs per size of the baseline: a run that short varies with its JVM's start-up, so the median is kept. */
    private static final int BASELINE_REPEATS = 3;

    /** The batch sizes of the public protocol comparison's sweep. */
    public static final List<Integer> SWEEP = List.of(50, 200, 1_000, 2_000, 65_536);

    /**
     * What to run.
     *
     * @param workload logs or metrics
     * @param paths regular, stream and/or bulk
     * @param batches batch sizes, each run for every path
     * @param shortRows rows of the short run
     * @param longRows rows of the long run
     * @param parallelism requests in flight: that many writers with one each on the regular and stream paths, one
     *     writer with that many batches in flight on the bulk path
     * @param compression none, zstd, lz4 or gzip
     * @param seed generator seed
     * @param database database
     * @param user basic-auth user or null
     * @param password its password or null
     * @param clientJvmArgs options of every client JVM (e.g. {@code -Xmx4g})
     * @param runTimeout the longest one client run may take
     * @param rowApi how rows reach the client: {@code objects} ({@code addRow(Object...)}, boxed numbers) or
     *     {@code typed} (the typed row appender, primitive numbers); both validate every value
     */
    public record Plan(String workload, List<String> paths, List<Integer> batches, long shortRows, long longRows,
                       int parallelism, String compression, long seed, String database, String user,
                       String password, List<String> clientJvmArgs, Duration runTimeout, String rowApi) {
    }

    /**
     * One client JVM's figures.
     *
     * @param rows rows written
     * @param cpuSeconds process CPU from creating the client to its shutdown
     * @param seconds wall time of the writes
     * @param allocatedBytes heap bytes allocated by the process's threads while writing
     * @param peakRssMiB peak resident set of the process
     * @param jitSeconds JIT compilation time during the run (the compilers' own clock: time spent waiting for a
     *     core counts too)
     * @param jitCpuSeconds CPU time of the JIT compiler threads during the run, NaN where unknown
     * @param stored rows the target held afterwards, by its own count
     */
    public record Measure(long rows, double cpuSeconds, double seconds, long allocatedBytes, double peakRssMiB,
                          double jitSeconds, double jitCpuSeconds, long stored) {
    }

    /**
     * One table row: a path at a batch size.
     *
     * @param path regular, stream or bulk
     * @param batch rows per batch
     * @param shortRun the short run, or null when it failed
     * @param longRun the long run, or null when it failed
     * @param status ok, or what failed
     */
    public record Result(String path, int batch, Measure shortRun, Measure longRun, String status) {
        /** @return whole-run CPU per row of the long run, µs */
        public double coldMicrosPerRow() {
            return longRun.cpuSeconds() * 1e6 / longRun.rows();
        }

        /** @return whole-run CPU per row of the short run, µs */
        public double shortColdMicrosPerRow() {
            return shortRun.cpuSeconds() * 1e6 / shortRun.rows();
        }

        /** @return extra CPU per extra row, µs */
        public double marginalMicrosPerRow() {
            return (longRun.cpuSeconds() - shortRun.cpuSeconds()) * 1e6 / (longRun.rows() - shortRun.rows());
        }

        /**
         * Returns the marginal CPU per row less that of making the rows.
         *
         * @param workload the {@value CostBenchmark#WORKLOAD_ONLY} row of the same batch size
         * @return µs per row
         */
        public double clientMarginalMicrosPerRow(Result workload) {
            return marginalMicrosPerRow() - workload.marginalMicrosPerRow();
        }

        /** @return extra CPU per extra row of every thread but the JIT compilers', µs (NaN where unknown) */
        public double marginalExcludingJitMicrosPerRow() {
            double cpu = longRun.cpuSeconds() - longRun.jitCpuSeconds() - (shortRun.cpuSeconds() - shortRun.jitCpuSeconds());
            return cpu * 1e6 / (longRun.rows() - shortRun.rows());
        }

        /** @return extra heap allocation per extra row, bytes */
        public double marginalBytesPerRow() {
            return (longRun.allocatedBytes() - shortRun.allocatedBytes()) / (double) (longRun.rows() - shortRun.rows());
        }

        /** @return rows per second of the long run */
        public double rowsPerSecond() {
            return longRun.rows() / longRun.seconds();
        }

        /** @return true when both runs stored exactly their rows */
        public boolean ok() {
            return status.equals("ok");
        }
    }

    private final Plan plan;
    private final Target target;
    private final PrintStream log;

    /**
     * Prepares a benchmark.
     *
     * @param plan what to run
     * @param target where the clients write (not in this process)
     * @param log where progress goes
     */
    public CostBenchmark(Plan plan, Target target, PrintStream log) {
        if (plan.shortRows() <= 0 || plan.longRows() <= plan.shortRows()) {
            throw new IllegalArgumentException("the long run needs more rows than the short one, which needs some: short "
                    + plan.shortRows() + ", long " + plan.longRows());
        }
        this.plan = plan;
        this.target = target;
        this.log = log;
    }

    /**
     * Runs every path at every batch size, a short run then a long one each.
     *
     * @return one result per path and batch size
     * @throws InterruptedException when interrupted
     */
    public List<Result> run() throws InterruptedException {
        List<Result> out = new ArrayList<>();
        String table = "bench_" + plan.workload();
        for (int batch : plan.batches()) {
            List<String> paths = new ArrayList<>();
            paths.add(WORKLOAD_ONLY);
            paths.addAll(plan.paths());
            for (String path : paths) {
                boolean baseline = path.equals(WORKLOAD_ONLY);
                Measure[] m = new Measure[2];
                String status = "ok";
                long[] sizes = {plan.shortRows(), plan.longRows()};
                for (int i = 0; i < 2 && status.equals("ok"); i++) {
                    log.printf(Locale.ROOT, "cost: %s %s batch %,d, %,d rows ...%n", plan.workload(), path, batch, sizes[i]);
                    try {
                        if (!baseline) {
                            target.reset(table);
                        }
                        m[i] = baseline ? medianBaseline(batch, sizes[i]) : clientRun(path, batch, sizes[i], table);
                        if (m[i].stored() != sizes[i]) {
                            status = "FAILED: wrote " + sizes[i] + " rows but the target holds " + m[i].stored();
                        }
                    } catch (InterruptedException e) {
                        throw e;
                    } catch (Exception e) {
                        status = "FAILED: " + e.getMessage();
                    }
                }
                out.add(new Result(path, batch, m[0], m[1], status));
            }
        }
        return out;
    }

    /**
     * Combines rounds of the same plan (interleaved: each round runs every path and batch size once) into one row per
     * path and batch size: the round whose marginal CPU per row is the median (the lower of the two middle ones for an
     * even count), a measured pair of runs rather than an average of several. A cell that failed in any round is
     * reported failed, with the round named.
     *
     * @param rounds the results of each round, in the order {@link #run()} returns them
     * @return one result per path and batch size
     * @throws IllegalArgumentException when the rounds do not list the same cells in the same order
     */
    public static List<Result> medianOfRounds(List<List<Result>> rounds) {
        if (rounds.isEmpty()) {
            throw new IllegalArgumentException("no rounds");
        }
        List<Result> out = new ArrayList<>();
        int cells = rounds.get(0).size();
        cells:
        for (int i = 0; i < cells; i++) {
            List<Result> cell = new ArrayList<>();
            for (int r = 0; r < rounds.size(); r++) {
                List<Result> round = rounds.get(r);
                Result x = round.size() == cells ? round.get(i) : null;
                Result first = rounds.get(0).get(i);
                if (x == null || !x.path().equals(first.path()) || x.batch() != first.batch()) {
                    throw new IllegalArgumentException("round " + (r + 1) + " does not list the cells of round 1");
                }
                if (!x.ok()) {
                    out.add(new Result(x.path(), x.batch(), x.shortRun(), x.longRun(),
                            (rounds.size() > 1 ? "round " + (r + 1) + ": " : "") + x.status()));
                    continue cells;
                }
                cell.add(x);
            }
            cell.sort(Comparator.comparingDouble(Result::marginalMicrosPerRow));
            out.add(cell.get((cell.size() - 1) / 2));
        }
        return out;
    }

    /**
     * Prints each cell's marginal CPU per row in every round, under the table of medians.
     *
     * @param out where to print
     * @param rounds the results of each round
     */
    public static void printRounds(PrintStream out, List<List<Result>> rounds) {
        if (rounds.size() < 2) {
            return;
        }
        out.println("marginal µs/row in each of " + rounds.size() + " rounds (the table shows each cell's median round):");
        for (int i = 0; i < rounds.get(0).size(); i++) {
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "  %-8s %,7d:", rounds.get(0).get(i).path(),
                    rounds.get(0).get(i).batch()));
            for (List<Result> round : rounds) {
                Result r = round.get(i);
                line.append(r.ok() ? String.format(Locale.ROOT, " %.2f", r.marginalMicrosPerRow()) : " failed");
            }
            out.println(line);
        }
    }

    /** Runs a baseline three times (each lasts about a JVM's start-up) and keeps the run of median CPU. */
    private Measure medianBaseline(int batch, long rows) throws Exception {
        List<Measure> runs = new ArrayList<>();
        for (int k = 0; k < BASELINE_REPEATS; k++) {
            runs.add(clientRun(WORKLOAD_ONLY, batch, rows, null));
        }
        runs.sort(java.util.Comparator.comparingDouble(Measure::cpuSeconds));
        return runs.get(BASELINE_REPEATS / 2);
    }

    /**
     * Returns the cost client's arguments for one run. Regular and stream run {@code parallelism} writers, each with
     * one request in flight; bulk runs one writer with {@code parallelism} batches in flight, the shape of the official
     * client's bulk benchmark (one {@code BulkStreamWriter}, {@code max_requests_in_flight} 4), which the bulk
     * figures come from. Four bulk writers would hold four batches being filled at once: on logs, about 140 MB each.
     *
     * @param plan what to run
     * @param path regular, stream, bulk, or the workload-only baseline
     * @param batch rows per batch
     * @param rows rows of the run
     * @param endpoint host:port of the server
     * @return the arguments after the cost client's class name
     */
    static List<String> clientArgs(Plan plan, String path, int batch, long rows, String endpoint) {
        boolean bulk = path.equals("bulk");
        List<String> args = new ArrayList<>(List.of("--workload", plan.workload(), "--mode", path,
                "--rows", Long.toString(rows), "--batch", Integer.toString(batch),
                "--parallelism", Integer.toString(bulk ? 1 : plan.parallelism()),
                "--max-in-flight", Integer.toString(plan.parallelism()),
                "--compression", plan.compression(), "--seed", Long.toString(plan.seed()),
                "--endpoint", endpoint, "--database", plan.database(), "--row-api", plan.rowApi()));
        if (plan.user() != null) {
            args.addAll(List.of("--user", plan.user()));
        }
        return args;
    }

    /**
     * The options of a client JVM: the user's, then what the measurement needs. Its JIT compiler threads all start
     * with the JVM and stay ({@code -XX:-UseDynamicNumberOfCompilerThreads}): HotSpot otherwise retires an idle one,
     * and its CPU would be missing from the reading at the end of the run, which could then come out lower than the
     * one at the start.
     *
     * @param userArgs the options given with {@code --client-jvm-args}
     * @return the options, before the class path
     */
    static List<String> clientJvmOptions(List<String> userArgs) {
        List<String> options = new ArrayList<>(userArgs);
        options.add("-XX:-UseDynamicNumberOfCompilerThreads");
        options.add("--add-opens=java.base/java.nio=ALL-UNNAMED");
        return options;
    }

    /** Runs one client JVM; {@code table} is null for a baseline run, which writes nothing. */
    private Measure clientRun(String path, int batch, long rows, String table) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Jvm.javaBinary());
        cmd.addAll(clientJvmOptions(plan.clientJvmArgs()));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(CostClient.class.getName());
        cmd.addAll(clientArgs(plan, path, batch, rows, target.endpoint()));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT);
        if (plan.user() != null) {
            pb.environment().put(CostClient.PASSWORD_ENV, plan.password() == null ? "" : plan.password());
        }
        Process p = pb.start();
        CompletableFuture<String> result = CompletableFuture.supplyAsync(() -> {
            String found = null;
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    if (line.startsWith(CostClient.MARKER + " ")) {
                        found = line;
                    }
                }
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            return found;
        });
        String line;
        try {
            if (!p.waitFor(plan.runTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
                throw new TimeoutException("the client run did not end within " + plan.runTimeout());
            }
            line = result.get(30, TimeUnit.SECONDS);
        } catch (TimeoutException | ExecutionException e) {
            throw new IOException(path + " run of " + rows + " rows: " + e.getMessage(), e);
        } finally {
            if (p.isAlive()) {
                p.destroyForcibly().waitFor(15, TimeUnit.SECONDS);
            }
        }
        if (line == null || p.exitValue() != 0) {
            throw new IOException(path + " run of " + rows + " rows ended with exit code " + p.exitValue()
                    + (line == null ? " and no result" : ": " + line));
        }
        Map<String, String> kv = new HashMap<>();
        for (String part : line.substring(CostClient.MARKER.length()).trim().split("\\s+")) {
            int eq = part.indexOf('=');
            kv.put(part.substring(0, eq), part.substring(eq + 1));
        }
        long stored = table == null ? rows : target.count(table);
        long jitMs = Long.parseLong(kv.get("jit_ms"));
        long jitCpuNs = Long.parseLong(kv.get("jit_cpu_ns"));
        return new Measure(rows, Long.parseLong(kv.get("cpu_ns")) / 1e9, Double.parseDouble(kv.get("seconds")),
                Long.parseLong(kv.get("alloc_bytes")), Long.parseLong(kv.get("rss_kib")) / 1024.0,
                jitMs < 0 ? Double.NaN : jitMs / 1e3, jitCpuNs < 0 ? Double.NaN : jitCpuNs / 1e9, stored);
    }

    /**
     * Prints the table.
     *
     * @param out where
     * @param header the run's description
     * @param results the rows
     */
    public static void print(PrintStream out, String header, List<Result> results) {
        out.println();
        out.println(header);
        out.printf(Locale.ROOT, "%-8s %7s %11s %11s %7s %7s %10s %10s %10s %7s %7s %10s %10s %8s %11s  %s%n", "path",
                "batch", "short rows", "long rows", "cpu s", "cpu s", "cold", "marginal", "client", "jit cpu", "jit cpu",
                "marginal", "alloc", "RSS", "rows/s", "status");
        out.printf(Locale.ROOT, "%-8s %7s %11s %11s %7s %7s %10s %10s %10s %7s %7s %10s %10s %8s %11s%n", "", "", "",
                "", "short", "long", "µs/row", "µs/row", "µs/row", "s short", "s long", "no JIT", "B/row", "MiB", "long");
        for (Result r : results) {
            if (r.shortRun() == null || r.longRun() == null) {
                out.printf(Locale.ROOT, "%-8s %,7d %s%n", r.path(), r.batch(), r.status());
                continue;
            }
            Result base = baselineOf(results, r);
            out.printf(Locale.ROOT, "%-8s %,7d %,11d %,11d %7.2f %7.2f %10.2f %10.2f %10s %7.2f %7.2f %10.2f %10.0f %8.0f"
                            + " %,11.0f  %s%n",
                    r.path(), r.batch(), r.shortRun().rows(), r.longRun().rows(), r.shortRun().cpuSeconds(),
                    r.longRun().cpuSeconds(), r.coldMicrosPerRow(), r.marginalMicrosPerRow(),
                    base == null ? "-" : String.format(Locale.ROOT, "%.2f", r.clientMarginalMicrosPerRow(base)),
                    r.shortRun().jitCpuSeconds(), r.longRun().jitCpuSeconds(), r.marginalExcludingJitMicrosPerRow(),
                    r.marginalBytesPerRow(), r.longRun().peakRssMiB(), r.rowsPerSecond(), r.status());
        }
        out.println("client = marginal less the " + WORKLOAD_ONLY + " row's (the benchmark making and reading the same"
                + " rows with no client, in the same kind of JVM); jit cpu = CPU of the JIT compiler threads;"
                + " marginal no JIT = marginal without their CPU");
    }

    /** The complete baseline row of a path row's batch size, or null (for the baseline row itself too). */
    private static Result baselineOf(List<Result> results, Result r) {
        if (r.path().equals(WORKLOAD_ONLY)) {
            return null;
        }
        for (Result b : results) {
            if (b.path().equals(WORKLOAD_ONLY) && b.batch() == r.batch() && b.shortRun() != null && b.longRun() != null) {
                return b;
            }
        }
        return null;
    }

    /**
     * Writes the results as CSV, or JSON when the file name ends in {@code .json}.
     *
     * @param file the file
     * @param workload the workload, one column of every row
     * @param results the rows
     * @throws IOException on failure
     */
    public static void write(Path file, String workload, List<Result> results) throws IOException {
        boolean json = file.toString().toLowerCase(Locale.ROOT).endsWith(".json");
        StringBuilder sb = new StringBuilder(json ? "[\n" : "workload,path,batch,short_rows,long_rows,short_cpu_s,"
                + "long_cpu_s,cold_us_per_row,marginal_us_per_row,marginal_bytes_per_row,peak_rss_mib,jit_s,"
                + "rows_per_s,client_marginal_us_per_row,short_jit_cpu_s,long_jit_cpu_s,marginal_excl_jit_us_per_row,"
                + "status\n");
        for (int i = 0; i < results.size(); i++) {
            Result r = results.get(i);
            boolean full = r.shortRun() != null && r.longRun() != null;
            Result base = full ? baselineOf(results, r) : null;
            if (json) {
                sb.append(String.format(Locale.ROOT, "  {\"workload\":\"%s\",\"path\":\"%s\",\"batch\":%d", workload,
                        r.path(), r.batch()));
                if (full) {
                    sb.append(String.format(Locale.ROOT, ",\"short_rows\":%d,\"long_rows\":%d,\"short_cpu_s\":%.3f,"
                                    + "\"long_cpu_s\":%.3f,\"cold_us_per_row\":%.3f,\"marginal_us_per_row\":%.3f,"
                                    + "\"marginal_bytes_per_row\":%.1f,\"peak_rss_mib\":%.1f,\"jit_s\":%.3f,"
                                    + "\"rows_per_s\":%.1f", r.shortRun().rows(), r.longRun().rows(),
                            r.shortRun().cpuSeconds(), r.longRun().cpuSeconds(), r.coldMicrosPerRow(),
                            r.marginalMicrosPerRow(), r.marginalBytesPerRow(), r.longRun().peakRssMiB(),
                            r.longRun().jitSeconds(), r.rowsPerSecond()));
                    if (base != null) {
                        sb.append(String.format(Locale.ROOT, ",\"client_marginal_us_per_row\":%.3f",
                                r.clientMarginalMicrosPerRow(base)));
                    }
                    if (!Double.isNaN(r.marginalExcludingJitMicrosPerRow())) {
                        sb.append(String.format(Locale.ROOT, ",\"short_jit_cpu_s\":%.3f,\"long_jit_cpu_s\":%.3f,"
                                        + "\"marginal_excl_jit_us_per_row\":%.3f", r.shortRun().jitCpuSeconds(),
                                r.longRun().jitCpuSeconds(), r.marginalExcludingJitMicrosPerRow()));
                    }
                }
                sb.append(",\"status\":\"").append(r.status().replace("\\", "\\\\").replace("\"", "\\\""))
                        .append("\"}").append(i + 1 < results.size() ? ",\n" : "\n");
            } else {
                sb.append(workload).append(',').append(r.path()).append(',').append(r.batch()).append(',');
                if (full) {
                    sb.append(String.format(Locale.ROOT, "%d,%d,%.3f,%.3f,%.3f,%.3f,%.1f,%.1f,%.3f,%.1f,",
                            r.shortRun().rows(), r.longRun().rows(), r.shortRun().cpuSeconds(), r.longRun().cpuSeconds(),
                            r.coldMicrosPerRow(), r.marginalMicrosPerRow(), r.marginalBytesPerRow(),
                            r.longRun().peakRssMiB(), r.longRun().jitSeconds(), r.rowsPerSecond()));
                    if (base != null) {
                        sb.append(String.format(Locale.ROOT, "%.3f", r.clientMarginalMicrosPerRow(base)));
                    }
                    sb.append(',');
                    if (!Double.isNaN(r.marginalExcludingJitMicrosPerRow())) {
                        sb.append(String.format(Locale.ROOT, "%.3f,%.3f,%.3f", r.shortRun().jitCpuSeconds(),
                                r.longRun().jitCpuSeconds(), r.marginalExcludingJitMicrosPerRow()));
                    } else {
                        sb.append(",,");
                    }
                    sb.append(',');
                } else {
                    sb.append(",,,,,,,,,,,,,,");
                }
                sb.append('"').append(r.status().replace("\"", "\"\"")).append("\"\n");
            }
        }
        if (json) {
            sb.append("]\n");
        }
        Files.writeString(file, sb.toString(), StandardCharsets.UTF_8);
    }
}
