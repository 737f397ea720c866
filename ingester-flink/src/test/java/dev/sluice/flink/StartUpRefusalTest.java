package dev.sluice.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A job the server would refuse fails when its writers start, before any row, on either write path. */
class StartUpRefusalTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = FlinkJobs.miniCluster();
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = new GreptimeTestkitExtension();

    private static String failure(TableEnvironment t, String insert) {
        return SqlConnectorTest.fullMessage(org.junit.jupiter.api.Assertions.assertThrows(Exception.class,
                () -> t.executeSql(insert).await()));
    }

    @Test
    void aWrongPasswordFailsABulkJobAtStartWithoutThePassword() throws Exception {
        try (GreptimeTestServer secured = GreptimeTestServer.builder().user("admin", "secret").start()) {
            TableEnvironment t = SqlConnectorTest.streaming();
            t.executeSql("CREATE TABLE guarded_bulk (host STRING, v DOUBLE, ts TIMESTAMP(3)) WITH ("
                    + SqlConnectorTest.with(secured, "username", "admin", "password", "hunter2-wrong",
                    "write.path", "BULK", "tags", "host") + ")");
            String msg = failure(t, "INSERT INTO guarded_bulk VALUES ('a', 1.0, TIMESTAMP '2024-01-01 00:00:00')");
            assertTrue(msg.contains("UNAUTHENTICATED") && msg.contains("admin"), msg);
            assertFalse(msg.contains("hunter2-wrong"), "the password is not in the message: " + msg);
            assertEquals(0, secured.rowCount("guarded_bulk"));
        }
    }

    @Test
    void aMissingDatabaseFailsTheJobAtStartNamingIt(GreptimeTestServer server) {
        TableEnvironment t = SqlConnectorTest.streaming();
        t.executeSql("CREATE TABLE nowhere (host STRING, ts TIMESTAMP(3)) WITH ("
                + SqlConnectorTest.with(server, "database", "no_such_db") + ")");
        String msg = failure(t, "INSERT INTO nowhere VALUES ('a', TIMESTAMP '2024-01-01 00:00:00')");
        assertTrue(msg.contains("no_such_db"), msg);
        assertTrue(msg.contains("refused the sink's start"), msg);
        assertTrue(server.requests().stream().noneMatch(r -> r.kind().equals("insert") || r.kind().equals("bulk")),
                server.requests().toString());
    }
}
