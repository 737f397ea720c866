package dev.sluice.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.data.DataType;
import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What the driver checks and creates when a write is planned, read back from the testkit. */
class TablePlanningTest {
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = LocalSpark.testkit();

    static Dataset<Row> sql(String query) {
        SparkSession s = LocalSpark.session();
        return s.sql(query);
    }

    @Test
    void aMissingTableIsCreatedWithTheDataFramesTypesTagsAndTableOptions(GreptimeTestServer server) {
        LocalSpark.write(sql("SELECT 'a' AS host, 'eu' AS region, 0.5D AS usage, 7 AS n,"
                + " TIMESTAMP'2024-01-01 00:00:00' AS ts"), server, "created", "append",
                "tags", "host,region", "ttl", "7d", "merge_mode", "last_non_null");
        TableSchema s = server.schema("created");
        assertEquals(SemanticType.Tag, s.column(s.indexOf("host")).semanticType());
        assertEquals(SemanticType.Tag, s.column(s.indexOf("region")).semanticType());
        assertEquals(SemanticType.Field, s.column(s.indexOf("usage")).semanticType());
        assertEquals(DataType.Float64, s.column(s.indexOf("usage")).dataType());
        assertEquals(DataType.Int32, s.column(s.indexOf("n")).dataType());
        assertEquals("ts", s.column(s.timestampIndex()).name());
        assertEquals(DataType.TimestampMicrosecond, s.column(s.timestampIndex()).dataType());
        Map<String, String> options = server.tableOptions("public", "created");
        assertTrue(options.containsKey("ttl") && "last_non_null".equals(options.get("merge_mode")), options.toString());
        Map<String, Object> row = server.rows("created").get(0);
        assertEquals(0.5, row.get("usage"));
        assertEquals(1_704_067_200_000_000L, row.get("ts"));
    }

    @Test
    void aColumnTypeTheExistingTableDisagreesWithFailsAtPlanningNamingBothTypes(GreptimeTestServer server) {
        LocalSpark.write(sql("SELECT 'a' AS host, 0.5D AS v, TIMESTAMP'2024-01-01 00:00:00' AS ts"), server, "clash",
                "append", "tags", "host");
        long requests = server.requestCount();
        Exception e = assertThrows(Exception.class, () -> LocalSpark.write(sql("SELECT 'b' AS host, 'text' AS v,"
                + " TIMESTAMP'2024-01-01 00:00:01' AS ts"), server, "clash", "append", "tags", "host"));
        String m = rootMessage(e);
        assertTrue(m.contains("column v is STRING in the DataFrame") && m.contains("Float64 in GreptimeDB's table"), m);
        assertEquals(requests, server.requestCount(), "no write request was sent");
        assertEquals(1, server.rowCount("clash"));
    }

    @Test
    void anExistingTableKeepsItsTagsAndGainsNewColumnsOnTheRegularPath(GreptimeTestServer server) {
        LocalSpark.write(sql("SELECT 'a' AS host, 0.5D AS v, TIMESTAMP'2024-01-01 00:00:00' AS ts"), server, "grows",
                "append", "tags", "host");
        LocalSpark.write(sql("SELECT 'b' AS host, 1.5D AS v, 'new' AS note, TIMESTAMP'2024-01-01 00:00:01' AS ts"),
                server, "grows", "append");
        TableSchema s = server.schema("grows");
        assertEquals(SemanticType.Tag, s.column(s.indexOf("host")).semanticType(), "tags kept without the option");
        assertEquals(DataType.String, s.column(s.indexOf("note")).dataType());
        Map<Object, Map<String, Object>> byHost = LocalSpark.byKey(server.rows("grows"), "host");
        assertNull(byHost.get("a").get("note"));
        assertEquals("new", byHost.get("b").get("note"));
        assertEquals(1.5, byHost.get("b").get("v"));
    }

    @Test
    void aColumnTheTableLacksFailsAtPlanningOnTheBulkPath(GreptimeTestServer server) {
        LocalSpark.write(sql("SELECT 'a' AS host, 0.5D AS v, TIMESTAMP'2024-01-01 00:00:00' AS ts"), server,
                "bulk_fixed", "append", "tags", "host");
        Exception e = assertThrows(Exception.class, () -> LocalSpark.write(sql("SELECT 'b' AS host, 1.5D AS v,"
                + " 1 AS extra, TIMESTAMP'2024-01-01 00:00:01' AS ts"), server, "bulk_fixed", "append",
                "writePath", "bulk"));
        assertTrue(rootMessage(e).contains("column extra (INT in the DataFrame, written as Int32) is missing"),
                rootMessage(e));
        assertEquals(1, server.rowCount("bulk_fixed"));
    }

    @Test
    void aRowTheClientRefusesNamesTaskPartitionRowAndColumn(GreptimeTestServer server) {
        Exception e = assertThrows(Exception.class, () -> LocalSpark.write(sql("SELECT * FROM VALUES"
                + " ('a', TIMESTAMP'2024-01-01 00:00:00'), ('b', CAST(NULL AS TIMESTAMP)) AS t(host, ts)").coalesce(1),
                server, "null_time", "append", "tags", "host"));
        String m = rootMessage(e);
        assertTrue(m.contains("row 2 of task") && m.contains("(partition 0)") && m.contains("column ts")
                && m.contains("host=b"), m);
    }

    @Test
    void aDataFrameWithoutATimestampIsRefusedBeforeAnythingIsSent(GreptimeTestServer server) {
        long requests = server.requestCount();
        Exception e = assertThrows(Exception.class, () -> LocalSpark.write(sql("SELECT 'a' AS host, 1 AS v"),
                server, "no_time", "append"));
        assertTrue(rootMessage(e).contains("set option 'timeIndex'"), rootMessage(e));
        assertEquals(requests, server.requestCount());
    }

    @Test
    void aConnectionStringNamesHostsAndDatabaseInsteadOfEndpoints(GreptimeTestServer server) {
        server.createDatabase("metrics");
        sql("SELECT 'a' AS host, 0.5D AS v, TIMESTAMP'2024-01-01 00:00:00' AS ts").write().format("greptimedb")
                .option("connection", "greptimedb://" + server.endpoint() + "/metrics")
                .option("httpEndpoint", server.httpEndpoint()).option("table", "by_connection")
                .option("tags", "host").mode("append").save();
        assertEquals(1, server.rowCount("metrics", "by_connection"));
        assertEquals(0.5, server.rows("metrics", "by_connection").get(0).get("v"));
    }

    static String rootMessage(Throwable t) {
        StringBuilder b = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            b.append(c.getMessage()).append(" | ");
        }
        return b.toString();
    }
}
