package dev.sluice.spark.paths;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.DataType;
import dev.sluice.data.SemanticType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.data.VectorType;
import dev.sluice.spark.Failures;
import dev.sluice.spark.LocalSpark;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import dev.sluice.write.Context;
import dev.sluice.write.WriteOp;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The bulk path carries no Vector column, by the client's one rule: a write on the bulk path into an existing
 * table with a Vector column is refused at planning, naming the table and the column, before any write request is
 * sent, as a JSON column is.
 */
class BinaryIntoAnExistingVectorColumnIsRefusedOnTheBulkPathBeforeSendingTest {
    private static final Set<String> WRITES = Set.of("insert", "delete", "bulk");

    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = new GreptimeTestkitExtension(
            GreptimeTestServer.builder().httpPort(0));

    private static long writes(GreptimeTestServer server) {
        return server.requests().stream().filter(r -> WRITES.contains(r.kind())).count();
    }

    @Test
    void theBulkWriteIsRefusedNamingTableAndColumn(GreptimeTestServer server) throws Exception {
        TableSchema schema = TableSchema.newBuilder("embeddings").addTag("host", DataType.String)
                .addColumn("emb", SemanticType.Field, DataType.Vector, new VectorType(3))
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        Table t = Table.from(schema).addRow("a", new float[] {1f, 2f, 3f}, 1_704_067_200_000L);
        GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(List.of(server.endpoint()), "public").build());
        try {
            assertTrue(db.write(List.of(t), WriteOp.Insert, Context.newBuilder().build()).get(60, TimeUnit.SECONDS)
                    .isOk());
        } finally {
            db.close();
        }
        assertEquals(DataType.Vector, server.schema("embeddings").column(1).dataType());
        long before = writes(server);
        Map<String, String> o = new HashMap<>();
        o.put("endpoints", server.endpoint());
        o.put("httpEndpoint", server.httpEndpoint());
        o.put("table", "embeddings");
        o.put("tags", "host");
        o.put("writePath", "bulk");
        Exception e = assertThrows(Exception.class, () -> LocalSpark.session().sql("SELECT 'b' AS host,"
                + " X'0000803F0000004000004040' AS emb, TIMESTAMP'2024-01-01 00:00:01' AS ts").write()
                .format("greptimedb").options(o).mode("append").save());
        String m = Failures.messages(e);
        assertTrue(m.contains("embeddings") && m.contains("emb"), m);
        assertEquals(before, writes(server), () -> "no write request was sent: " + server.requests() + " | " + m);
        assertEquals(1, server.rowCount("embeddings"));
    }
}
