package dev.sluice.flink;

import static dev.sluice.flink.SqlConnectorTest.fullMessage;
import static dev.sluice.flink.SqlConnectorTest.with;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Configurations and types the SQL connector refuses when the INSERT is planned, before anything is written. */
class SqlPlanningValidationTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = FlinkJobs.miniCluster();
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = new GreptimeTestkitExtension();

    static TableEnvironment env() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        return StreamTableEnvironment.create(env);
    }

    private static String refusedAtPlanning(TableEnvironment t, String insert) {
        ValidationException e = assertThrows(ValidationException.class, () -> t.executeSql(insert));
        return fullMessage(e);
    }

    @Test
    void aVariantColumnIsRefusedNamingTheColumn(GreptimeTestServer server) {
        TableEnvironment t = env();
        t.executeSql("CREATE TABLE with_variant (k STRING, doc VARIANT, ts TIMESTAMP(3)) WITH ("
                + with(server) + ")");
        String m = refusedAtPlanning(t, "INSERT INTO with_variant SELECT 'a', PARSE_JSON('{\"a\": 1}'),"
                + " TIMESTAMP '2024-01-01 00:00:00'");
        assertTrue(m.contains("doc"), m);
        assertEquals(0, server.rowCount("with_variant"));
    }

    @Test
    void aJsonColumnIsRefusedOnTheBulkPathNamingTheColumn(GreptimeTestServer server) {
        TableEnvironment t = env();
        t.executeSql("CREATE TABLE bulk_json (k STRING, arr ARRAY<INT>, ts TIMESTAMP(3)) WITH ("
                + with(server, "write.path", "BULK") + ")");
        String m = refusedAtPlanning(t, "INSERT INTO bulk_json VALUES ('a', ARRAY[1], TIMESTAMP '2024-01-01 00:00:00')");
        assertTrue(m.contains("arr"), m);
        assertEquals(0, server.rowCount("bulk_json"));
    }

    @Test
    void aTimeIndexThatIsNotATimestampIsRefusedNamingIt(GreptimeTestServer server) {
        TableEnvironment t = env();
        t.executeSql("CREATE TABLE bad_time (k STRING, n BIGINT, ts TIMESTAMP(3)) WITH ("
                + with(server, "time-index", "n") + ")");
        String m = refusedAtPlanning(t, "INSERT INTO bad_time VALUES ('a', 1, TIMESTAMP '2024-01-01 00:00:00')");
        assertTrue(m.contains("'time-index'") && m.contains("n"), m);
    }

    @Test
    void aTimeIndexThatIsNoColumnIsRefusedNamingIt(GreptimeTestServer server) {
        TableEnvironment t = env();
        t.executeSql("CREATE TABLE missing_time (k STRING, ts TIMESTAMP(3)) WITH ("
                + with(server, "time-index", "nope") + ")");
        String m = refusedAtPlanning(t, "INSERT INTO missing_time VALUES ('a', TIMESTAMP '2024-01-01 00:00:00')");
        assertTrue(m.contains("nope"), m);
    }

    @Test
    void aTagThatIsNoColumnIsRefusedNamingIt(GreptimeTestServer server) {
        TableEnvironment t = env();
        t.executeSql("CREATE TABLE missing_tag (k STRING, ts TIMESTAMP(3)) WITH ("
                + with(server, "tags", "k;nope") + ")");
        String m = refusedAtPlanning(t, "INSERT INTO missing_tag VALUES ('a', TIMESTAMP '2024-01-01 00:00:00')");
        assertTrue(m.contains("nope"), m);
    }

    @Test
    void aMisspelledOptionIsRefusedNamingIt(GreptimeTestServer server) {
        TableEnvironment t = env();
        t.executeSql("CREATE TABLE misspelled (k STRING, ts TIMESTAMP(3)) WITH ("
                + with(server, "sink.batch.row", "5") + ")");
        String m = refusedAtPlanning(t, "INSERT INTO misspelled VALUES ('a', TIMESTAMP '2024-01-01 00:00:00')");
        assertTrue(m.contains("sink.batch.row"), m);
    }

    @Test
    void anUnknownWritePathIsRefusedNamingTheOption(GreptimeTestServer server) {
        TableEnvironment t = env();
        t.executeSql("CREATE TABLE bad_path (k STRING, ts TIMESTAMP(3)) WITH ("
                + with(server, "write.path", "fast") + ")");
        String m = refusedAtPlanning(t, "INSERT INTO bad_path VALUES ('a', TIMESTAMP '2024-01-01 00:00:00')");
        assertTrue(m.contains("write.path"), m);
    }

    /** Not promised at planning: the job fails before any row is stored, naming the value. */
    @Test
    void anUnknownCompressionFailsTheJobBeforeAnyRowNamingTheValue(GreptimeTestServer server) {
        TableEnvironment t = env();
        t.executeSql("CREATE TABLE bad_compression (k STRING, ts TIMESTAMP(3)) WITH ("
                + with(server, "compression", "brotli") + ")");
        Exception e = assertThrows(Exception.class, () -> t.executeSql(
                "INSERT INTO bad_compression VALUES ('a', TIMESTAMP '2024-01-01 00:00:00')").await());
        assertTrue(fullMessage(e).contains("brotli"), fullMessage(e));
        assertEquals(0, server.rowCount("bad_compression"));
    }
}
