package dev.sluice.spark.paths;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.spark.Failures;
import dev.sluice.spark.LocalSpark;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The bulk path carries no JSON column, by the client's one rule: a string written into an existing JSON column on
 * the bulk path is refused at planning, naming the table and the column, before any write request is sent.
 */
class AStringIntoAnExistingJsonColumnIsRefusedOnTheBulkPathBeforeSendingTest {
    private static final Set<String> WRITES = Set.of("insert", "delete", "bulk");

    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = new GreptimeTestkitExtension(
            GreptimeTestServer.builder().httpPort(0));

    private static void write(String query, GreptimeTestServer server, String table, String path) {
        SparkSession s = LocalSpark.session();
        Map<String, String> o = new HashMap<>();
        o.put("endpoints", server.endpoint());
        o.put("httpEndpoint", server.httpEndpoint());
        o.put("table", table);
        o.put("tags", "host");
        o.put("writePath", path);
        s.sql(query).write().format("greptimedb").options(o).mode("append").save();
    }

    /** Write requests the testkit received: inserts, deletes and bulk streams (not DDL, health checks or SQL). */
    private static long writes(GreptimeTestServer server) {
        return server.requests().stream().filter(r -> WRITES.contains(r.kind())).count();
    }

    @Test
    void theBulkWriteIsRefusedNamingTableAndColumn(GreptimeTestServer server) {
        write("SELECT 'a' AS host, map('k', 'v') AS attrs, TIMESTAMP'2024-01-01 00:00:00' AS ts", server, "docs",
                "regular");
        TableSchema schema = server.schema("docs");
        assertEquals(DataType.Json, schema.column(schema.indexOf("attrs")).dataType());
        long writes = writes(server);
        Exception e = assertThrows(Exception.class, () -> write("SELECT 'b' AS host, '{\"k\":1}' AS attrs,"
                + " TIMESTAMP'2024-01-01 00:00:01' AS ts", server, "docs", "bulk"));
        String m = Failures.messages(e);
        assertTrue(m.contains("docs") && m.contains("attrs"), m);
        assertTrue(!m.contains("UNAVAILABLE") && !m.contains("once the server answers"),
                "a rule of the client is not the server being unavailable: " + m);
        assertEquals(writes, writes(server), () -> "no write request was sent: " + server.requests() + " | " + m);
        assertEquals(1, server.rowCount("docs"));
    }
}
