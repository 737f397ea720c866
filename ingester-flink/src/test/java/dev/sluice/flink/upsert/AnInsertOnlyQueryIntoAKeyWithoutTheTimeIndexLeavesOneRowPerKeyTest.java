package dev.sluice.flink.upsert;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.flink.testjobs.SqlJobs;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.time.ZoneId;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A Flink table whose primary key leaves the time index out is upserted by that key: an insert-only query that
 * writes one key twice, at two times, leaves that key's last row only (as Flink's upsert sinks do), or the table is
 * refused at planning saying why and what to declare. It never keeps both rows, which GreptimeDB (keyed by tags and
 * time index) would otherwise do.
 */
class AnInsertOnlyQueryIntoAKeyWithoutTheTimeIndexLeavesOneRowPerKeyTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = SqlJobs.miniCluster(2);
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = new GreptimeTestkitExtension();

    @Test
    void aKeyWrittenTwiceKeepsItsLastRowOnly(GreptimeTestServer server) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        StreamTableEnvironment t = StreamTableEnvironment.create(env);
        t.getConfig().setLocalTimeZone(ZoneId.of("UTC"));
        t.executeSql("CREATE TABLE latest (k STRING, v BIGINT, ts TIMESTAMP(3), PRIMARY KEY (k) NOT ENFORCED)"
                + " WITH ('connector'='greptimedb', 'endpoints'='" + server.endpoint() + "', 'http-endpoint'='none')");
        try {
            t.executeSql("INSERT INTO latest VALUES ('a', 1, TIMESTAMP '2024-01-01 00:00:00'),"
                    + " ('a', 2, TIMESTAMP '2024-01-01 00:00:01'), ('b', 3, TIMESTAMP '2024-01-01 00:00:02')").await();
        } catch (Exception refused) {
            String m = SqlJobs.messages(refused);
            assertTrue(m.contains("latest") && m.contains("PRIMARY KEY"), "a refusal saying why: " + m);
            return;
        }
        Map<String, Object> byKey = new TreeMap<>();
        Map<String, Integer> count = new TreeMap<>();
        for (Map<String, Object> r : server.rows("latest")) {
            String k = String.valueOf(r.get("k"));
            byKey.put(k, r.get("v"));
            count.merge(k, 1, Integer::sum);
        }
        assertEquals(Map.of("a", 1, "b", 1), count, "rows per key: " + server.rows("latest"));
        assertEquals(Map.of("a", 2L, "b", 3L), byKey);
    }
}
