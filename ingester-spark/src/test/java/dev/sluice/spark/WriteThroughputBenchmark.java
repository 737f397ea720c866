package dev.sluice.spark;

import com.sun.management.OperatingSystemMXBean;
import dev.sluice.BatchingWriter;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;

/**
 * Throughput of a batch write through the connector beside Sluice's own batching writer, in one JVM with one
 * in-process testkit, in interleaved rounds. Both write the same rows (the host-metrics shape of Sluice's benchmark:
 * four tags, five fields, a time index) with the same parallelism: the Spark job has one task per core, each with
 * its writer; the reference runs that many threads, each with a batching writer of the connector's defaults
 * (10,000-row batches, four in flight). It prints rows/s and client CPU per row (the process's CPU less the
 * testkit's threads) of each round and their medians.
 *
 * <p>Arguments: rows (1,000,000), parallelism (2), rounds (3), paths (regular,bulk).
 */
public final class WriteThroughputBenchmark {
    private static final long BASE_MICROS = 1_704_067_200_000_000L;

    private WriteThroughputBenchmark() {
    }

    /**
     * Runs the benchmark.
     *
     * @param args rows, parallelism, rounds, paths
     * @throws Exception when a write fails
     */
    public static void main(String[] args) throws Exception {
        long rows = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000;
        int parallelism = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        List<String> paths = Arrays.asList((args.length > 3 ? args[3] : "regular,bulk").split(","));
        try (GreptimeTestServer server = GreptimeTestServer.builder().httpPort(0).retainRows(false).start()) {
            SparkSession spark = SparkSession.builder().appName("sluice-spark-benchmark")
                    .master("local[" + parallelism + "]").config("spark.ui.enabled", "false")
                    .config("spark.sql.session.timeZone", "UTC").config("spark.driver.host", "127.0.0.1")
                    .getOrCreate();
            System.out.printf(Locale.ROOT, "%,d rows, parallelism %d, %d rounds, %d cores, Java %s%n", rows,
                    parallelism, rounds, Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"));
            Dataset<Row> input = cachedInput(spark, rows, parallelism);
            Columns columns = Columns.of(rows);
            for (String path : paths) {
                List<double[]> job = new ArrayList<>();
                List<double[]> reference = new ArrayList<>();
                // A first, uncounted round of each loads and compiles their code.
                for (int round = 0; round <= rounds; round++) {
                    double[] j = measure(rows, () -> sparkJob(input, server, path));
                    double[] r = measure(rows, () -> sluiceWriters(server, path, columns, parallelism));
                    if (round > 0) {
                        job.add(j);
                        reference.add(r);
                        System.out.printf(Locale.ROOT, "%s round %d: Spark job %,.0f rows/s %.2f us CPU/row;"
                                + " Sluice writers %,.0f rows/s %.2f us CPU/row%n", path, round, j[0], j[1], r[0], r[1]);
                    }
                }
                double jobRate = median(job, 0);
                double refRate = median(reference, 0);
                System.out.printf(Locale.ROOT, "%s median: Spark job %,.0f rows/s %.2f us CPU/row; Sluice writers"
                        + " %,.0f rows/s %.2f us CPU/row; job/writers %.0f%%%n", path, jobRate, median(job, 1),
                        refRate, median(reference, 1), 100 * jobRate / refRate);
            }
            spark.stop();
        }
    }

    /**
     * The job's input: the benchmark's rows computed by Spark once and cached in memory ({@code MEMORY_ONLY}), in
     * {@code parallelism} partitions, so that a round measures reading cached rows and writing them, as a migration
     * job reads rows that already exist, rather than Spark computing them.
     */
    private static Dataset<Row> cachedInput(SparkSession spark, long rows, int parallelism) {
        Dataset<Row> df = spark.range(0, rows, 1, parallelism).selectExpr(
                "concat('host-', id % 1000) AS host", "concat('region-', id % 5) AS region",
                "concat('dc-', id % 10) AS datacenter", "concat('service-', id % 20) AS service",
                "(id * 7 % 10000) / 100.0D AS cpu", "(id * 11 % 10000) / 100.0D AS memory",
                "(id * 13 % 10000) / 100.0D AS disk_util", "id * 3 % 100000 AS net_in",
                "id * 5 % 100000 AS net_out", "timestamp_micros(" + BASE_MICROS + " + id) AS ts")
                .persist(StorageLevel.MEMORY_ONLY());
        if (df.count() != rows) {
            throw new IllegalStateException("the cached input does not hold " + rows + " rows");
        }
        return df;
    }

    private static void sparkJob(Dataset<Row> input, GreptimeTestServer server, String path) {
        input.write().format("greptimedb").option("endpoints", server.endpoint())
                .option("httpEndpoint", server.httpEndpoint()).option("table", "bench_spark_" + path)
                .option("tags", "host,region,datacenter,service").option("writePath", path).mode("append").save();
    }

    /**
     * The writers' input: the same rows as {@link #cachedInput}, computed once into column arrays (one per column, a
     * string object per row and text column), split between the threads as Spark splits its partitions.
     */
    record Columns(String[] host, String[] region, String[] datacenter, String[] service, double[] cpu,
                   double[] memory, double[] diskUtil, long[] netIn, long[] netOut, long[] ts) {
        static Columns of(long rows) {
            int n = Math.toIntExact(rows);
            Columns c = new Columns(new String[n], new String[n], new String[n], new String[n], new double[n],
                    new double[n], new double[n], new long[n], new long[n], new long[n]);
            for (int i = 0; i < n; i++) {
                c.host[i] = "host-" + i % 1000;
                c.region[i] = "region-" + i % 5;
                c.datacenter[i] = "dc-" + i % 10;
                c.service[i] = "service-" + i % 20;
                c.cpu[i] = (i * 7L % 10000) / 100.0;
                c.memory[i] = (i * 11L % 10000) / 100.0;
                c.diskUtil[i] = (i * 13L % 10000) / 100.0;
                c.netIn[i] = i * 3L % 100000;
                c.netOut[i] = i * 5L % 100000;
                c.ts[i] = BASE_MICROS + i;
            }
            return c;
        }
    }

    private static void sluiceWriters(GreptimeTestServer server, String path, Columns c, int parallelism)
            throws Exception {
        TableSchema schema = TableSchema.newBuilder("bench_sluice_" + path)
                .addTag("host", DataType.String).addTag("region", DataType.String)
                .addTag("datacenter", DataType.String).addTag("service", DataType.String)
                .addField("cpu", DataType.Float64).addField("memory", DataType.Float64)
                .addField("disk_util", DataType.Float64).addField("net_in", DataType.Int64)
                .addField("net_out", DataType.Int64).addTimestamp("ts", DataType.TimestampMicrosecond)
                .build();
        BatchingWriter.Config config = BatchingWriter.Config.newBuilder().maxBatchRows(10_000)
                .maxInFlightRequests(4).maxBufferedRows(200_000).path(path.equals("bulk")
                        ? BatchingWriter.Path.Bulk : BatchingWriter.Path.Regular).build();
        int rows = c.ts().length;
        ExecutorService pool = Executors.newFixedThreadPool(parallelism);
        try {
            List<Future<?>> tasks = new ArrayList<>();
            for (int t = 0; t < parallelism; t++) {
                int from = (int) ((long) rows * t / parallelism);
                int to = (int) ((long) rows * (t + 1) / parallelism);
                tasks.add(pool.submit(() -> {
                    try (GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(List.of(server.endpoint()),
                            "public").build()); BatchingWriter w = db.batchingWriter(config)) {
                        for (int id = from; id < to; id++) {
                            int i = id;
                            w.write(schema, a -> a.setString(0, c.host[i]).setString(1, c.region[i])
                                    .setString(2, c.datacenter[i]).setString(3, c.service[i])
                                    .setDouble(4, c.cpu[i]).setDouble(5, c.memory[i]).setDouble(6, c.diskUtil[i])
                                    .setLong(7, c.netIn[i]).setLong(8, c.netOut[i]).setLong(9, c.ts[i]));
                        }
                        w.flushOrThrow(Duration.ofMinutes(5));
                    }
                    return null;
                }));
            }
            for (Future<?> f : tasks) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
    }

    /** @return rows/s and client CPU microseconds per row */
    private static double[] measure(long rows, Job job) throws Exception {
        System.gc();
        double cpu0 = clientCpuSeconds();
        long start = System.nanoTime();
        job.run();
        double seconds = (System.nanoTime() - start) / 1e9;
        double cpu = clientCpuSeconds() - cpu0;
        return new double[] {rows / seconds, cpu * 1e6 / rows};
    }

    /** The process's CPU time less the in-process testkit's threads. */
    private static double clientCpuSeconds() {
        OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long excluded = 0;
        for (long id : threads.getAllThreadIds()) {
            ThreadInfo info = threads.getThreadInfo(id);
            if (info != null && info.getThreadName().startsWith("testkit-")) {
                excluded += Math.max(0, threads.getThreadCpuTime(id));
            }
        }
        return (os.getProcessCpuTime() - excluded) / 1e9;
    }

    private static double median(List<double[]> values, int index) {
        double[] v = values.stream().mapToDouble(a -> a[index]).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    private interface Job {
        void run() throws Exception;
    }
}
