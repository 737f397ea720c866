package dev.sluice.flink;

import dev.sluice.testkit.GreptimeTestServer;
import java.time.ZoneId;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

/**
 * Time of an SQL aggregate whose changelog carries deletes against the same aggregate as plain upserts, on a local
 * Flink cluster writing into the testkit. Both run {@code SUM(v) ... GROUP BY k} over the same events (keys spread
 * over the stream). "deletes": {@code MAX(ts)} as the time index outside the primary key {@code (k)}, so each
 * update's {@code UPDATE_BEFORE} deletes the key's old row. "upserts": a constant time index inside the primary key,
 * so each update overwrites its row and nothing is deleted. Both end with one row per key, checked. Not a test: run
 * it by hand.
 *
 * <pre>
 * ./mvnw -B -ntp -q -Pbench -pl ingester-flink -am test-compile dependency:build-classpath \
 *   -Dmdep.outputFile=target/bench.cp -Dmdep.includeScope=test
 * java --add-opens=java.base/java.nio=ALL-UNNAMED -Xmx2g -cp ingester-flink/target/test-classes:\
 * ingester-flink/target/classes:$(cat ingester-flink/target/bench.cp) \
 *   dev.sluice.flink.FlinkChangelogBenchmark 200000 1000 2 2
 * </pre>
 * Arguments: events (default 200,000), keys (default 1,000), parallelism (default 2), rounds (default 2; the first
 * round of a JVM includes the JIT warm-up, and its first job Flink's own start-up). Odd rounds run the deletes first,
 * even rounds the upserts.
 */
public final class FlinkChangelogBenchmark {
    private FlinkChangelogBenchmark() {
    }

    /**
     * Runs the benchmark.
     *
     * @param args events, keys, parallelism, rounds
     * @throws Exception on failure
     */
    public static void main(String[] args) throws Exception {
        long events = args.length > 0 ? Long.parseLong(args[0]) : 200_000L;
        int keys = args.length > 1 ? Integer.parseInt(args[1]) : 1_000;
        int parallelism = args.length > 2 ? Integer.parseInt(args[2]) : 2;
        int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 2;
        MiniCluster cluster = new MiniCluster(new MiniClusterConfiguration.Builder().setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(parallelism).build());
        cluster.start();
        TestStreamEnvironment.setAsContext(cluster, parallelism);
        try (GreptimeTestServer server = GreptimeTestServer.builder().start()) {
            for (int round = 1; round <= rounds; round++) {
                // The runs alternate which goes first, so neither always follows the other's garbage or warm-up.
                for (boolean deletes : round % 2 == 1 ? new boolean[] {true, false} : new boolean[] {false, true}) {
                    String table = (deletes ? "with_deletes_" : "upserts_") + round;
                    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
                    env.enableCheckpointing(1000);
                    StreamTableEnvironment t = StreamTableEnvironment.create(env);
                    t.getConfig().setLocalTimeZone(ZoneId.of("UTC"));
                    t.createTemporaryView("events_" + table, env.fromSequence(0, events - 1));
                    t.executeSql("CREATE TABLE " + table + " (k INT, total BIGINT, ts TIMESTAMP(3), PRIMARY KEY ("
                            + (deletes ? "k" : "k, ts") + ") NOT ENFORCED) WITH ('connector'='greptimedb',"
                            + " 'endpoints'='" + server.endpoint() + "', 'http-endpoint'='none')");
                    String ts = deletes ? "MAX(CAST(TO_TIMESTAMP_LTZ(f0, 3) AS TIMESTAMP(3)))"
                            : "TIMESTAMP '2024-01-01 00:00:00'";
                    long start = System.nanoTime();
                    t.executeSql("INSERT INTO " + table + " SELECT CAST(MOD(f0 * 7919, " + keys + ") AS INT), SUM(f0), "
                            + ts + " FROM events_" + table + " GROUP BY CAST(MOD(f0 * 7919, " + keys + ") AS INT)")
                            .await();
                    double s = (System.nanoTime() - start) / 1e9;
                    long stored = server.rowCount(table);
                    System.out.printf("round %d, %-8s: %,d events, %,d keys: %.1f s, %,d rows stored%s%n", round,
                            deletes ? "deletes" : "upserts", events, keys, s, stored,
                            stored == keys ? "" : " (expected " + keys + ")");
                }
            }
        } finally {
            cluster.close();
        }
    }
}
