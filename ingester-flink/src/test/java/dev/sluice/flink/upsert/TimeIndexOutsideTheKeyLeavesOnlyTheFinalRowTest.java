package dev.sluice.flink.upsert;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.flink.testjobs.SqlJobs;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.time.ZoneId;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * GreptimeDB keys a row by its tags and time index, so an upsert keyed on columns that leave the time index out
 * must remove a key's row when an update moves its time: the stored table is exactly the query's final result,
 * one row per live key, on the bulk path too, and when a HAVING filter retracts keys that no longer pass.
 */
class TimeIndexOutsideTheKeyLeavesOnlyTheFinalRowTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = SqlJobs.miniCluster(4);
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = new GreptimeTestkitExtension();
    private static final int EVENTS = 10_000;
    private static final int KEYS = 100;

    private static StreamTableEnvironment env() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        StreamTableEnvironment t = StreamTableEnvironment.create(env);
        t.getConfig().setLocalTimeZone(ZoneId.of("UTC"));
        t.createTemporaryView("events", env.fromSequence(0, EVENTS - 1));
        return t;
    }

    /** Key to "total@epochMillis", one entry per stored row; a key stored twice fails. */
    private static Map<String, String> stored(GreptimeTestServer server, String table) {
        return server.rows(table).stream().collect(Collectors.toMap(r -> String.valueOf(r.get("k")),
                r -> r.get("total") + "@" + r.get("ts"), (a, b) -> {
                    throw new AssertionError("a key stored twice in " + table + ": " + a + " and " + b);
                }, TreeMap::new));
    }

    /** Sum of v = i over the events of key k, and the key's last time (i as epoch millis). */
    private static Map<String, String> expected(long below) {
        Map<String, String> out = new TreeMap<>();
        for (int k = 0; k < KEYS; k++) {
            long sum = 0;
            for (long i = k; i < EVENTS; i += KEYS) {
                sum += i;
            }
            if (sum < below) {
                out.put(String.valueOf(k), sum + "@" + (EVENTS - KEYS + k));
            }
        }
        return out;
    }

    @Test
    void onTheBulkPathAMovingMaxTimeLeavesOneRowPerKey(GreptimeTestServer server) throws Exception {
        StreamTableEnvironment t = env();
        t.executeSql("CREATE TABLE bulk_totals (k INT, total BIGINT, ts TIMESTAMP(3), PRIMARY KEY (k) NOT ENFORCED)"
                + " WITH ('connector'='greptimedb', 'endpoints'='" + server.endpoint() + "', 'write.path'='BULK')");
        t.executeSql("INSERT INTO bulk_totals SELECT k, SUM(v), MAX(ts) FROM (SELECT CAST(MOD(f0, " + KEYS
                + ") AS INT) AS k, f0 AS v, CAST(TO_TIMESTAMP_LTZ(f0, 3) AS TIMESTAMP(3)) AS ts FROM events)"
                + " GROUP BY k").await();
        assertEquals(expected(Long.MAX_VALUE), stored(server, "bulk_totals"));
    }

    @Test
    void aHavingFilterThatRetractsKeysLeavesOnlyTheKeysThatStillPass(GreptimeTestServer server) throws Exception {
        StreamTableEnvironment t = env();
        // Every key's final sum is 495,000 + 100 k: keys 0..49 end below 500,000 and stay, 50..99 pass it and go.
        t.executeSql("CREATE TABLE passing (k INT, g STRING, total BIGINT, ts TIMESTAMP_LTZ(3),"
                + " PRIMARY KEY (k, g) NOT ENFORCED) WITH ('connector'='greptimedb', 'endpoints'='"
                + server.endpoint() + "')");
        t.executeSql("INSERT INTO passing SELECT k, g, SUM(v), MAX(ts) FROM (SELECT CAST(MOD(f0, " + KEYS
                + ") AS INT) AS k, CAST(MOD(MOD(f0, " + KEYS + "), 3) AS STRING) AS g, f0 AS v,"
                + " TO_TIMESTAMP_LTZ(f0, 3) AS ts FROM events) GROUP BY k, g HAVING SUM(v) < 500000").await();
        assertEquals(expected(500_000), stored(server, "passing"));
    }
}
