package dev.sluice.spark.compression;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.spark.Failures;
import dev.sluice.spark.LocalSpark;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * lz4 is a bulk-path compression: on the regular path the write is refused naming the compression, as the Kafka
 * sink refuses it, not reported as a server that does not answer.
 */
class Lz4OnTheRegularPathIsRefusedNamingTheOptionTest {
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = new GreptimeTestkitExtension(
            GreptimeTestServer.builder().httpPort(0));

    @Test
    void theWriteIsRefusedNamingTheCompression(GreptimeTestServer server) {
        SparkSession s = LocalSpark.session();
        Exception e = assertThrows(Exception.class, () -> s.sql("SELECT 'a' AS host, 1.0D AS v,"
                + " TIMESTAMP'2024-01-01 00:00:00' AS ts").write().format("greptimedb")
                .option("endpoints", server.endpoint()).option("httpEndpoint", server.httpEndpoint())
                .option("table", "lz4reg").option("tags", "host").option("compression", "lz4")
                .option("writePath", "regular").mode("append").save());
        String m = Failures.messages(e);
        assertTrue(m.toLowerCase(java.util.Locale.ROOT).contains("lz4") && m.contains("compression"), m);
        assertFalse(m.contains("UNAVAILABLE") || m.contains("once the server answers"), m);
        assertEquals(0, server.rowCount("lz4reg"));
    }
}
