package dev.sluice.kafka.connect;

import dev.sluice.testkit.GreptimeTestServer;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;

/**
 * Throughput of the sink for the metrics workload through a real Connect worker into the testkit, all in one JVM:
 * records are produced first (4 partitions; the testkit counts rows without keeping them, so its memory stays
 * out of the measurement), then the connector starts and the clock runs until the testkit holds
 * every row. CPU is summed per thread group (Connect task threads with the converter and the sink's mapping, the
 * Sluice client's threads, the testkit, the broker and the rest), from the threads' CPU times.
 *
 * <pre>
 * ./mvnw -B -ntp -q -Pbench -pl ingester-kafka-connect -am test-compile dependency:build-classpath \
 *   -Dmdep.outputFile=target/bench.cp -Dmdep.includeScope=test
 * java --add-opens=java.base/java.nio=ALL-UNNAMED -Xmx2g -cp ingester-kafka-connect/target/test-classes:\
 * ingester-kafka-connect/target/classes:$(cat ingester-kafka-connect/target/bench.cp) \
 *   dev.sluice.kafka.connect.ConnectThroughputBenchmark 1000000 4
 * </pre>
 * Arguments: records (default 1,000,000), tasks (default 4), batch rows (default 10,000).
 *
 * <p>A program, not a test. It lives in this module's bench sources (compiled only with {@code -Pbench}, beside the
 * test classes) because it runs on {@code EmbeddedConnectCluster} from connect-runtime's test jar, with a broker and
 * the sink's own classes: moving it to ingester-bench would put Kafka's broker, Connect runtime and their test jars on
 * the benchmark module's class path.
 */
public final class ConnectThroughputBenchmark {
    private ConnectThroughputBenchmark() {
    }

    /**
     * Runs the benchmark.
     *
     * @param args records, tasks, batch rows
     * @throws Exception on failure
     */
    public static void main(String[] args) throws Exception {
        long n = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000L;
        int tasks = args.length > 1 ? Integer.parseInt(args[1]) : 4;
        String batch = args.length > 2 ? args[2] : "10000";
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        try (GreptimeTestServer server = GreptimeTestServer.builder().retainRows(false).requestLogCapacity(16).start()) {
            Map<String, String> worker = new HashMap<>();
            worker.put("offset.flush.interval.ms", "5000");
            worker.put("consumer.max.poll.records", "5000");
            EmbeddedConnectCluster connect = new EmbeddedConnectCluster.Builder().name("bench").numWorkers(1)
                    .numBrokers(1).workerProps(worker).build();
            connect.start();
            try {
                connect.kafka().createTopic("metrics", 4);
                long g0 = System.nanoTime();
                Map<String, Object> props = new HashMap<>();
                props.put("linger.ms", 20);
                props.put("batch.size", 1 << 20);
                props.put("acks", "1");
                props.put("enable.idempotence", false);
                try (KafkaProducer<byte[], byte[]> p = connect.kafka().createProducer(props)) {
                    for (long i = 0; i < n; i++) {
                        int part = (int) (i % 4);
                        p.send(new ProducerRecord<>("metrics", part, null,
                                EmbeddedConnectTest.metricsJson(i, part, i / 4).getBytes(StandardCharsets.UTF_8)));
                    }
                    p.flush();
                }
                long inTopic = 0;
                for (int part = 0; part < 4; part++) {
                    inTopic += connect.kafka().endOffset(new org.apache.kafka.common.TopicPartition("metrics", part));
                }
                if (inTopic != n) {
                    throw new IllegalStateException("the topic holds " + inTopic + " records, not " + n
                            + "; the producer failed (see its log)");
                }
                System.out.printf("produced %,d records in %.1f s%n", n, (System.nanoTime() - g0) / 1e9);
                Map<String, Long> before = cpuByGroup(mx);
                Map<String, String> c = new HashMap<>();
                c.put("connector.class", GreptimeSinkConnector.class.getName());
                c.put("tasks.max", Integer.toString(tasks));
                c.put("topics", "metrics");
                c.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
                c.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
                c.put("value.converter.schemas.enable", "false");
                c.put(GreptimeSinkConfig.ENDPOINTS, server.endpoint());
                c.put(GreptimeSinkConfig.TAGS, "host,region,datacenter,service");
                c.put(GreptimeSinkConfig.TS_FIELD, "ts");
                c.put(GreptimeSinkConfig.BATCH_ROWS, batch);
                long t0 = System.nanoTime();
                connect.configureConnector("bench-sink", c);
                long deadline = t0 + 10L * 60 * 1_000_000_000L;
                dev.sluice.Await.happensBy(deadline, () -> server.rowCount("metrics") >= n);
                if (server.rowCount("metrics") < n) {
                    throw new IllegalStateException("only " + server.rowCount("metrics") + " of " + n
                            + " rows arrived within 10 minutes");
                }
                double secs = (System.nanoTime() - t0) / 1e9;
                long stored = server.rowCount("metrics");
                Map<String, Long> after = cpuByGroup(mx);
                System.out.printf("stored %,d rows for %,d records (more when records were redelivered) in %.2f s:"
                        + " %,.0f records/s (%d tasks, batch %s)%n", stored, n, secs, n / secs, tasks, batch);
                long sinkNanos = 0;
                for (String g : after.keySet()) {
                    long d = after.get(g) - before.getOrDefault(g, 0L);
                    System.out.printf("  cpu %-28s %7.2f s  %7.2f us/record%n", g, d / 1e9, d / 1e3 / stored);
                    if (g.startsWith("connect task") || g.startsWith("sluice client")) {
                        sinkNanos += d;
                    }
                }
                System.out.printf("  worker cpu per record (task threads + Sluice client threads): %.2f us%n",
                        sinkNanos / 1e3 / stored);
                connect.deleteConnector("bench-sink");
            } finally {
                connect.stop();
            }
        }
    }

    private static Map<String, Long> cpuByGroup(ThreadMXBean mx) {
        Map<String, Long> out = new LinkedHashMap<>();
        for (String g : new String[] {"connect task (consume+convert+map)", "sluice client", "testkit", "kafka broker",
                "other"}) {
            out.put(g, 0L);
        }
        for (ThreadInfo ti : mx.getThreadInfo(mx.getAllThreadIds())) {
            if (ti == null) {
                continue;
            }
            long cpu = mx.getThreadCpuTime(ti.getThreadId());
            if (cpu < 0) {
                continue;
            }
            String name = ti.getThreadName();
            String g;
            if (name.startsWith("task-thread-")) {
                g = "connect task (consume+convert+map)";
            } else if (name.startsWith("sluice-") || name.startsWith("grpc-default") || name.startsWith("grpc-nio")) {
                g = "sluice client";
            } else if (name.startsWith("testkit") || name.contains("testkit")) {
                g = "testkit";
            } else if (name.contains("broker") || name.contains("kafka-") || name.contains("raft")
                    || name.contains("data-plane") || name.contains("controller")) {
                g = "kafka broker";
            } else {
                g = "other";
            }
            out.merge(g, cpu, Long::sum);
        }
        return out;
    }
}
