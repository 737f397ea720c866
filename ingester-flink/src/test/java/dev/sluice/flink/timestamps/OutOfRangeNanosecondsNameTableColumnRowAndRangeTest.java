package dev.sluice.flink.timestamps;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.flink.testjobs.SqlJobs;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A nanosecond value outside int64 nanoseconds since 1970 fails the job naming table, column, the row (its place
 * in the input) and the representable range: for a TIMESTAMP_LTZ(9) field on the bulk path, and for a
 * TIMESTAMP(9) time index, in the second row of the input.
 */
class OutOfRangeNanosecondsNameTableColumnRowAndRangeTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = SqlJobs.miniCluster(2);
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = new GreptimeTestkitExtension();

    private static StreamTableEnvironment env() {
        return SqlJobs.withoutRestarts(1);
    }

    private static String failure(StreamTableEnvironment t, String insert) {
        return SqlJobs.messages(assertThrows(Exception.class, () -> t.executeSql(insert).await()));
    }

    private static void assertNamed(String m, String table, String column) {
        assertTrue(m.contains(table) && m.contains(column) && m.contains("k=bad")
                && m.contains("1677-09-21T00:12:43.145224192Z") && m.contains("2262-04-11T23:47:16.854775807Z")
                && !m.contains("ArithmeticException"),
                "the failure names table " + table + ", column " + column + ", the refused element (k=bad, whichever"
                        + " subtask and position it had) and the range: " + m);
    }

    @Test
    void aTimestampLtzFieldOfTheYear2300OnTheBulkPath(GreptimeTestServer server) {
        StreamTableEnvironment t = env();
        t.executeSql("CREATE TABLE ltz_bulk (k STRING, seen TIMESTAMP_LTZ(9), ts TIMESTAMP(3), PRIMARY KEY (k, ts) NOT"
                + " ENFORCED) WITH ('connector'='greptimedb', 'endpoints'='" + server.endpoint() + "',"
                + " 'time-index'='ts', 'write.path'='BULK')");
        String m = failure(t, "INSERT INTO ltz_bulk VALUES"
                + " ('good', CAST(TIMESTAMP '2024-01-01 00:00:00' AS TIMESTAMP_LTZ(9)), TIMESTAMP '2024-01-01 00:00:00'),"
                + " ('bad', CAST(TIMESTAMP '2300-01-01 00:00:00' AS TIMESTAMP_LTZ(9)), TIMESTAMP '2024-01-01 00:00:01')");
        assertNamed(m, "ltz_bulk", "seen");
    }

    @Test
    void aNanosecondTimeIndexBeforeTheRange(GreptimeTestServer server) {
        StreamTableEnvironment t = env();
        t.executeSql("CREATE TABLE ns_index (k STRING, v DOUBLE, ts TIMESTAMP(9), PRIMARY KEY (k, ts) NOT ENFORCED)"
                + " WITH ('connector'='greptimedb', 'endpoints'='" + server.endpoint() + "')");
        String m = failure(t, "INSERT INTO ns_index VALUES ('good', 1.0, TIMESTAMP '2024-01-01 00:00:00'),"
                + " ('bad', 2.0, TIMESTAMP '1600-01-01 00:00:00')");
        assertNamed(m, "ns_index", "ts");
    }
}
