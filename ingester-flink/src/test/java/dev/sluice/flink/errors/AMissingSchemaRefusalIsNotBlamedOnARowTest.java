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
 * An InvalidArguments answer about the settings ("Failed to find schema": the database is gone) is a setup failure
 * in the client's classification, as the Kafka sink treats it: the Flink job fails without blaming an element as
 * the bad row, and stores nothing of the refused batch.
 */
class AMissingSchemaRefusalIsNotBlamedOnARowTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = SqlJobs.miniCluster(2);
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = new GreptimeTestkitExtension();

    @Test
    void theJobFailsAsSetupNamingNoElement(GreptimeTestServer s) {
        try {
            StreamTableEnvironment t = SqlJobs.withNumbers(1, 10, () -> s.faults().failEvery(1,
                    StatusCode.InvalidArguments, "Failed to find schema, schema info: greptime.public"));
            t.executeSql("CREATE TABLE gone (host STRING, v DOUBLE, ts TIMESTAMP_LTZ(3), PRIMARY KEY (host, ts) NOT"
                    + " ENFORCED) WITH ('connector'='greptimedb', 'endpoints'='" + s.endpoint() + "',"
                    + " 'http-endpoint'='none', 'time-index'='ts')");
            String msg = SqlJobs.messages(assertThrows(Exception.class, () -> t.executeSql("INSERT INTO gone SELECT"
                    + " CONCAT('h', CAST(f0 AS STRING)), CAST(f0 AS DOUBLE), TO_TIMESTAMP_LTZ(f0, 3) FROM numbers")
                    .await()));
            assertTrue(msg.contains("Failed to find schema"), msg);
            assertFalse(msg.contains("refused element"), "no element is to blame for a missing database: " + msg);
            assertEquals(0, s.rowCount("gone"), "nothing stored");
        } finally {
            s.faults().reset();
        }
    }
}
