package dev.sluice.flink.timeouts;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.flink.testjobs.SqlJobs;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * On the bulk path, a server that goes silent fails the job saying that no answer came within the request timeout
 * as configured (1500 ms is not "1 s"), from which endpoint, for which table, and that the job stays failed when
 * restarts are off; it does not say the server refused anything: whether the sink was creating the table or
 * sending a batch into an existing one.
 */
class ABulkBatchWithoutAnswerSaysNoAnswerCameWithinTheTimeoutTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = SqlJobs.miniCluster(2);
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = new GreptimeTestkitExtension();

    private static String failure(GreptimeTestServer s, String table) {
        try {
            StreamTableEnvironment t = SqlJobs.withNumbers(1, 100, () -> {
                s.faults().bulkNeverAck(true);
                s.faults().neverRespond(true);
            });
            t.executeSql("CREATE TABLE " + table + " (host STRING, v DOUBLE, ts TIMESTAMP_LTZ(3)) WITH ("
                    + "'connector'='greptimedb', 'endpoints'='" + s.endpoint() + "', 'write.path'='BULK',"
                    + " 'http-endpoint'='none', 'request-timeout'='1500 ms', 'sink.retry.max-attempts'='2',"
                    + " 'sink.retry.backoff'='10 ms', 'sink.retry.timeout'='4 s')");
            return SqlJobs.messages(assertThrows(Exception.class, () -> t.executeSql("INSERT INTO " + table
                    + " SELECT 'h', CAST(f0 AS DOUBLE), TO_TIMESTAMP_LTZ(f0, 3) FROM numbers").await()));
        } finally {
            s.faults().bulkNeverAck(false);
            s.faults().neverRespond(false);
        }
    }

    private static void assertSaysNoAnswer(String msg, GreptimeTestServer s, String table) {
        assertTrue(msg.contains("no answer within") && msg.contains("from " + s.endpoint()), msg);
        assertTrue(msg.contains("1.5 s") || msg.contains("1500 ms"), "the timeout as configured: " + msg);
        assertTrue(msg.contains(table), msg);
        assertFalse(msg.contains("refused"), "a silent server refused nothing: " + msg);
        assertTrue(msg.contains("the job stays failed"), msg);
    }

    @Test
    void aTableTheSinkCreatesOnTheSilentServer(GreptimeTestServer s) {
        assertSaysNoAnswer(failure(s, "silent_bulk"), s, "silent_bulk");
    }

    @Test
    void anExistingTableWhoseBatchIsNeverAnswered(GreptimeTestServer s) {
        TableSchema schema = TableSchema.newBuilder("silent_existing").addField("host", DataType.String)
                .addField("v", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();
        try (GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(s.endpoint(), "public").build())) {
            assertTrue(db.write(Table.from(schema).addRow("h", 0.0, 1L)).join().isOk());
        }
        assertSaysNoAnswer(failure(s, "silent_existing"), s, "silent_existing");
    }
}
