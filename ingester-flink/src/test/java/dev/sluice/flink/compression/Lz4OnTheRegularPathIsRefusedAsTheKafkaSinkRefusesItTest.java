package dev.sluice.flink.compression;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
 * lz4 is a bulk-path compression: on the regular path the connector refuses it naming the option, as the Kafka
 * sink does, instead of failing batches as if the server were unreachable.
 */
class Lz4OnTheRegularPathIsRefusedAsTheKafkaSinkRefusesItTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = SqlJobs.miniCluster(2);
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = new GreptimeTestkitExtension();

    @Test
    void theJobFailsNamingTheCompressionAndStoresNothing(GreptimeTestServer s) {
        StreamTableEnvironment t = SqlJobs.withNumbers(1, 10, () -> { });
        t.executeSql("CREATE TABLE lz4reg (host STRING, v DOUBLE, ts TIMESTAMP_LTZ(3), PRIMARY KEY (host) NOT"
                + " ENFORCED) WITH ('connector'='greptimedb', 'endpoints'='" + s.endpoint() + "',"
                + " 'http-endpoint'='none', 'time-index'='ts', 'compression'='lz4')");
        String msg = SqlJobs.messages(assertThrows(Exception.class, () -> t.executeSql("INSERT INTO lz4reg SELECT"
                + " CONCAT('h', CAST(f0 AS STRING)), CAST(f0 AS DOUBLE), TO_TIMESTAMP_LTZ(f0, 3) FROM numbers")
                .await()));
        assertTrue(msg.toLowerCase(java.util.Locale.ROOT).contains("lz4") && msg.contains("compression"), msg);
        assertFalse(msg.contains("UNAVAILABLE") || msg.contains("refused element"), msg);
        assertEquals(0, s.rowCount("lz4reg"));
    }
}
