package dev.sluice.flink;

import static dev.sluice.flink.SqlConnectorTest.with;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import dev.sluice.testkit.RecordedRequest;
import java.util.List;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Options of the README's table behave as it says: batch size, database, hints, timezone, table name. */
class SqlOptionsBehaviourTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = FlinkJobs.miniCluster();
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = new GreptimeTestkitExtension();

    static List<RecordedRequest> inserts(GreptimeTestServer s, String table) {
        return s.requests().stream().filter(r -> r.kind().equals("insert") && r.tables().contains(table)).toList();
    }

    @Test
    void sinkBatchRowsBoundsEveryInsertRequest(GreptimeTestServer server) throws Exception {
        TableEnvironment t = SqlConnectorTest.streaming();
        t.executeSql("CREATE TABLE gen_b (id BIGINT) WITH ('connector'='datagen', 'number-of-rows'='3000',"
                + " 'fields.id.kind'='sequence', 'fields.id.start'='0', 'fields.id.end'='2999')");
        t.executeSql("CREATE TABLE batched (id BIGINT, ts TIMESTAMP_LTZ(3)) WITH ("
                + with(server, "tags", "id", "sink.batch.rows", "250", "sink.flush.interval", "1 h") + ")");
        t.executeSql("INSERT INTO batched SELECT id, TO_TIMESTAMP_LTZ(1704067200000 + id, 3) FROM gen_b").await();
        assertEquals(3000, server.rowCount("batched"));
        List<RecordedRequest> reqs = inserts(server, "batched");
        assertTrue(reqs.stream().allMatch(r -> r.rows() <= 250), reqs.toString());
        assertTrue(reqs.size() >= 12, "3000 rows in batches of at most 250: " + reqs.size());
    }

    @Test
    void databaseHintsAndTimezoneReachEveryWrite(GreptimeTestServer server) throws Exception {
        server.createDatabase("metrics");
        TableEnvironment t = SqlConnectorTest.streaming();
        t.executeSql("CREATE TABLE hinted (host STRING, v DOUBLE, ts TIMESTAMP(3)) WITH (" + with(server,
                "database", "metrics", "tags", "host", "hints", "compaction.type:twcs,skip_wal:true",
                "timezone", "+08:00", "ttl", "7d") + ")");
        t.executeSql("INSERT INTO hinted VALUES ('a', 1.0, TIMESTAMP '2024-01-01 00:00:00'),"
                + " ('b', 2.0, TIMESTAMP '2024-01-01 00:00:01')").await();
        assertEquals(2, server.rowCount("metrics", "hinted"));
        assertEquals(0, server.rowCount("public", "hinted"));
        List<RecordedRequest> reqs = inserts(server, "hinted");
        assertTrue(!reqs.isEmpty());
        for (RecordedRequest r : reqs) {
            assertEquals("metrics", r.database(), r.toString());
            assertEquals("twcs", r.hints().get("compaction.type"), r.toString());
            assertEquals("true", r.hints().get("skip_wal"), r.toString());
            assertEquals("+08:00", r.timezone(), r.toString());
        }
        assertTrue(server.tableOptions("metrics", "hinted").containsKey("ttl"),
                server.tableOptions("metrics", "hinted").toString());
    }

    @Test
    void tableNameOptionOverridesTheFlinkTablesName(GreptimeTestServer server) throws Exception {
        TableEnvironment t = SqlConnectorTest.streaming();
        t.executeSql("CREATE TABLE flink_side (host STRING, ts TIMESTAMP(3)) WITH ("
                + with(server, "table-name", "greptime_side") + ")");
        t.executeSql("INSERT INTO flink_side VALUES ('a', TIMESTAMP '2024-01-01 00:00:00')").await();
        assertEquals(1, server.rowCount("greptime_side"));
        assertTrue(!server.tables().contains("flink_side"), server.tables().toString());
    }
}
