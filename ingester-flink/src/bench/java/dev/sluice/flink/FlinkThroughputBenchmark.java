package dev.sluice.flink;

import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Throughput of a DataStream job writing the metrics workload (4 tags over 1M series, 5 float fields, one row per
 * millisecond from 2024-01-01, the shape of ingester-bench's {@code --workload metrics}) through {@link GreptimeSink}
 * into the testkit, in one JVM on a local Flink cluster (started once, before the first job) with checkpoints
 * every second. The clock runs from submitting a job to its end: scheduling and deploying the tasks included. The testkit counts rows
 * without keeping them. Reports wall time, rows/s and CPU per row: the process's CPU minus the testkit's threads
 * (named {@code testkit-*}), as ingester-bench counts it; Flink's runtime, the source, the mapping and the client are
 * all in it. Not a test: run it by hand.
 *
 * <pre>
 * ./mvnw -B -ntp -q -Pbench -pl ingester-flink -am test-compile dependency:build-classpath \
 *   -Dmdep.outputFile=target/bench.cp -Dmdep.includeScope=test
 * java --add-opens=java.base/java.nio=ALL-UNNAMED -Xmx2g -cp ingester-flink/target/test-classes:\
 * ingester-flink/target/classes:$(cat ingester-flink/target/bench.cp) \
 *   dev.sluice.flink.FlinkThroughputBenchmark 1000000 4 regular,bulk
 * </pre>
 * Arguments: rows (default 1,000,000), parallelism (default 4), paths (default regular,bulk), batch rows (default
 * 10,000), rounds per path (default 1; the first round of a JVM includes the JIT warm-up).
 */
public final class FlinkThroughputBenchmark {
    private static final long START = Instant.parse("2024-01-01T00:00:00Z").toEpochMilli();
    private static final String[] REGIONS = {"us-east", "us-west", "eu-central", "ap-south", "sa-east"};

    private FlinkThroughputBenchmark() {
    }

    /**
     * Runs the benchmark.
     *
     * @param args rows, parallelism, paths, batch rows, rounds
     * @throws Exception on failure
     */
    public static void main(String[] args) throws Exception {
        long rows = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000L;
        int parallelism = args.length > 1 ? Integer.parseInt(args[1]) : 4;
        String[] paths = (args.length > 2 ? args[2] : "regular,bulk").split(",");
        int batch = args.length > 3 ? Integer.parseInt(args[3]) : 10_000;
        int rounds = args.length > 4 ? Integer.parseInt(args[4]) : 1;
        MiniCluster cluster = new MiniCluster(new MiniClusterConfiguration.Builder().setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(parallelism).build());
        cluster.start();
        TestStreamEnvironment.setAsContext(cluster, parallelism);
        try {
            System.out.printf("%-8s %10s %9s %12s %10s %12s%n", "path", "rows", "seconds", "rows/s", "cpu s",
                    "cpu us/row");
            for (int round = 0; round < rounds; round++) {
                for (String p : paths) {
                    run(WritePath.valueOf(p.trim().toUpperCase(java.util.Locale.ROOT)), rows, parallelism, batch);
                }
            }
        } finally {
            TestStreamEnvironment.unsetAsContext();
            cluster.close();
        }
    }

    private static void run(WritePath path, long rows, int parallelism, int batch) throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.builder().retainRows(false).requestLogCapacity(16).start()) {
            String table = "bench_metrics_" + path.name().toLowerCase(java.util.Locale.ROOT);
            TableSchema schema = TableSchema.newBuilder(table)
                    .addTag("host", DataType.String).addTag("region", DataType.String)
                    .addTag("datacenter", DataType.String).addTag("service", DataType.String)
                    .addField("cpu", DataType.Float64).addField("memory", DataType.Float64)
                    .addField("disk_util", DataType.Float64).addField("net_in", DataType.Float64)
                    .addField("net_out", DataType.Float64)
                    .addTimestamp("ts", DataType.TimestampMillisecond).build();
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setParallelism(parallelism);
            env.enableCheckpointing(1000);
            env.fromSequence(0, rows - 1).returns(Types.LONG)
                    .sinkTo(GreptimeSink.<Long>builder().endpoints(server.endpoint()).writePath(path)
                            .batch(batch, 64L << 20).bufferRows(Math.max(200_000, 4L * batch))
                            .table(schema, FlinkThroughputBenchmark::metricsRow).build());
            CpuSampler cpu = new CpuSampler();
            cpu.start();
            long t0 = System.nanoTime();
            env.execute("bench-" + path);
            double seconds = (System.nanoTime() - t0) / 1e9;
            double cpuSeconds = cpu.finish();
            long stored = server.rowCount(table);
            if (stored != rows) {
                throw new IllegalStateException("the testkit holds " + stored + " rows of " + rows);
            }
            System.out.printf("%-8s %,10d %9.2f %,12.0f %10.1f %12.2f%n", path.name().toLowerCase(java.util.Locale.ROOT),
                    rows, seconds, rows / seconds, cpuSeconds, cpuSeconds * 1e6 / rows);
        }
    }

    /** Row {@code i} of the metrics workload: series {@code i mod 1M}, fields from a 64-bit mix of {@code i}. */
    static void metricsRow(Long boxed, dev.sluice.data.RowAppender a) {
        long i = boxed;
        int series = (int) (i % 1_000_000);
        long x = mix(i * 2 + 1);
        long y = mix(i * 2 + 2);
        a.setString(0, HOSTS[series % 1_000]);
        a.setString(1, REGIONS[(series / 1_000) % 5]);
        a.setString(2, DATACENTERS[(series / 5_000) % 10]);
        a.setString(3, SERVICES[(series / 50_000) % 20]);
        a.setDouble(4, ((x >>> 48) & 4095) * (100.0 / 4096));
        a.setDouble(5, ((x >>> 32) & 4095) * (100.0 / 4096));
        a.setDouble(6, ((x >>> 16) & 4095) * (100.0 / 4096));
        a.setDouble(7, ((y >>> 48) & 4095) * (1e9 / 4096));
        a.setDouble(8, ((y >>> 32) & 4095) * (1e9 / 4096));
        a.setLong(9, START + i);
    }

    private static final String[] HOSTS = new String[1_000];
    private static final String[] DATACENTERS = new String[10];
    private static final String[] SERVICES = new String[20];

    static {
        for (int i = 0; i < HOSTS.length; i++) {
            HOSTS[i] = String.format("host-%04d", i);
        }
        for (int i = 0; i < DATACENTERS.length; i++) {
            DATACENTERS[i] = "dc-" + i;
        }
        for (int i = 0; i < SERVICES.length; i++) {
            SERVICES[i] = "svc-" + i;
        }
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    /** Process CPU minus the testkit's threads, with every thread's CPU sampled so that ended threads count. */
    static final class CpuSampler extends Thread {
        private final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        private final Map<Long, Long> testkitCpu = new HashMap<>();
        private final long startProcess = processCpu();
        private volatile boolean running = true;

        CpuSampler() {
            super("cpu-sampler");
            setDaemon(true);
        }

        private static long processCpu() {
            return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                    .getProcessCpuTime();
        }

        @Override
        public void run() {
            while (running) {
                sample();
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        private synchronized void sample() {
            for (ThreadInfo ti : mx.getThreadInfo(mx.getAllThreadIds())) {
                if (ti != null && ti.getThreadName().startsWith("testkit-")) {
                    long c = mx.getThreadCpuTime(ti.getThreadId());
                    if (c > 0) {
                        testkitCpu.merge(ti.getThreadId(), c, Math::max);
                    }
                }
            }
        }

        double finish() throws InterruptedException {
            running = false;
            join();
            sample();
            long testkit;
            synchronized (this) {
                testkit = testkitCpu.values().stream().mapToLong(Long::longValue).sum();
            }
            return (processCpu() - startProcess - testkit) / 1e9;
        }
    }
}
