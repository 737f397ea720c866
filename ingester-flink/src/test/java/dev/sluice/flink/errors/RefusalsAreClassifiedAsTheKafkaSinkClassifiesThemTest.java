package dev.sluice.flink.errors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.flink.testjobs.SqlJobs;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import dev.sluice.write.StatusCode;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The answers the Kafka sink treats as setup (an unparsable table option, Unsupported) fail a Flink job without
 * blaming an element; a value refusal worded "Column c of table t" blames the element and names the column.
 */
class RefusalsAreClassifiedAsTheKafkaSinkClassifiesThemTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = SqlJobs.miniCluster(2);
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = new GreptimeTestkitExtension();

    private static String failure(GreptimeTestServer s, String table, Runnable fault) {
        StreamTableEnvironment t = SqlJobs.withNumbers(1, 10, fault);
        t.executeSql("CREATE TABLE " + table + " (host STRING, v DOUBLE, ts TIMESTAMP_LTZ(3), PRIMARY KEY (host, ts) NOT"
                + " ENFORCED) WITH ('connector'='greptimedb', 'endpoints'='" + s.endpoint() + "',"
                + " 'http-endpoint'='none', 'time-index'='ts')");
        return SqlJobs.messages(assertThrows(Exception.class, () -> t.executeSql("INSERT INTO " + table + " SELECT"
                + " CONCAT('h', CAST(f0 AS STRING)), CAST(f0 AS DOUBLE), TO_TIMESTAMP_LTZ(f0, 3) FROM numbers")
                .await()));
    }

    @Test
    void anUnparsableTableOptionIsNotBlamedOnAnElement(GreptimeTestServer s) {
        try {
            String msg = failure(s, "badopt", () -> s.faults().failEvery(1, StatusCode.InvalidArguments,
                    "Failed to parse table option, key: ttl, value: x"));
            assertTrue(msg.contains("Failed to parse table option"), msg);
            assertFalse(msg.contains("refused element"), msg);
            assertEquals(0, s.rowCount("badopt"));
        } finally {
            s.faults().reset();
        }
    }

    @Test
    void anUnsupportedAnswerIsNotBlamedOnAnElement(GreptimeTestServer s) {
        try {
            String msg = failure(s, "unsup", () -> s.faults().failEvery(1, StatusCode.Unsupported,
                    "Not supported: this write"));
            assertFalse(msg.contains("refused element"), msg);
            assertEquals(0, s.rowCount("unsup"));
        } finally {
            s.faults().reset();
        }
    }

    @Test
    void aColumnOfTableRefusalBlamesTheElementAndNamesTheColumn(GreptimeTestServer s) {
        try {
            String msg = failure(s, "colref", () -> s.faults().refuseValue("host", "h3", StatusCode.InvalidArguments,
                    "Column host of table colref cannot hold this value"));
            assertTrue(msg.contains("refused element") && msg.contains("column host"), msg);
        } finally {
            s.faults().refuseValue(null, null, null, null);
        }
    }
}
