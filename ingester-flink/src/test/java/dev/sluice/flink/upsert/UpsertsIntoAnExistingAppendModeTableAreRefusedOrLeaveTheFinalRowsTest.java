package dev.sluice.flink.upsert;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.flink.testjobs.SqlJobs;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An existing GreptimeDB table in append mode keeps every row written to it, so an upsert query (an aggregate whose
 * key holds the tags and time index) cannot overwrite its earlier results there: the sink reads the table's mode
 * (it reads the table's columns from the HTTP API when it starts) and refuses the table naming it and its append
 * mode, or the stored table is the query's final result. It never keeps every intermediate result silently.
 */
class UpsertsIntoAnExistingAppendModeTableAreRefusedOrLeaveTheFinalRowsTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = SqlJobs.miniCluster(2);
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    private static String with(GreptimeTestServer server, String extra) {
        return "WITH ('connector'='greptimedb', 'endpoints'='" + server.endpoint() + "', 'http-endpoint'='"
                + server.httpEndpoint() + "', 'table-name'='totals'" + extra + ")";
    }

    @Test
    void anAggregateIntoAnAppendModeTable(GreptimeTestServer server) throws Exception {
        StreamTableEnvironment seed = SqlJobs.withoutRestarts(1);
        seed.executeSql("CREATE TABLE seed (k STRING, total BIGINT, ts TIMESTAMP_LTZ(3)) "
                + with(server, ", 'append-mode'='true', 'tags'='k'"));
        seed.executeSql("INSERT INTO seed VALUES ('z', 0, TO_TIMESTAMP_LTZ(0, 3))").await();
        assertEquals("true", server.tableOptions("public", "totals").get("append_mode"),
                "the existing table is in append mode: " + server.tableOptions("public", "totals"));

        StreamTableEnvironment t = SqlJobs.withNumbers(1, 10, () -> { });
        t.executeSql("CREATE TABLE agg (k STRING, total BIGINT, ts TIMESTAMP_LTZ(3), PRIMARY KEY (k, ts) NOT ENFORCED) "
                + with(server, ""));
        try {
            // Key k0 sums 0+2+4+6+8, key k1 1+3+5+7+9; each key's updates overwrite one row (same tags and time).
            t.executeSql("INSERT INTO agg SELECT k, SUM(v), ts FROM (SELECT CONCAT('k', CAST(f0 % 2 AS STRING)) AS k,"
                    + " f0 AS v, TO_TIMESTAMP_LTZ(f0 % 2, 3) AS ts FROM numbers) GROUP BY k, ts").await();
        } catch (Exception refused) {
            String m = SqlJobs.messages(refused);
            assertTrue(m.contains("totals") && m.contains("append"), "a refusal naming the table and its mode: " + m);
            return;
        }
        Map<String, Integer> rows = new TreeMap<>();
        for (Map<String, Object> r : server.rows("totals")) {
            rows.merge(r.get("k") + "=" + r.get("total"), 1, Integer::sum);
        }
        assertEquals(Map.of("z=0", 1, "k0=20", 1, "k1=25", 1), rows, "the stored rows: " + server.rows("totals"));
    }
}
