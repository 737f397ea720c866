package dev.sluice.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.spark.internal.GreptimeWrite;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Spark hands a task's writer one row object after another and may reuse it, and the text in it, for the next row.
 * Each stored row holds the values the row had when it was written; on the bulk path the writer takes them from the
 * row in place, without copying the row.
 */
class ReusedRowTest {
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = LocalSpark.testkit();

    private static final StructType STRUCT = new StructType().add("host", DataTypes.StringType, false)
            .add("v", DataTypes.DoubleType).add("ts", DataTypes.TimestampType, false);

    @Test
    void bulkWriterStoresEachValueOfAReusedRowWithoutCopyingTheRow(GreptimeTestServer server) throws Exception {
        writeThroughOneReusedRow(server, "reused_bulk", "bulk", false);
    }

    @Test
    void regularWriterStoresEachValueOfAReusedRow(GreptimeTestServer server) throws Exception {
        writeThroughOneReusedRow(server, "reused_regular", "regular", true);
    }

    /** Writes three rows through one row object whose text bytes are overwritten in place between rows. */
    private static void writeThroughOneReusedRow(GreptimeTestServer server, String table, String path,
            boolean copyAllowed) throws Exception {
        GreptimeWrite write = new GreptimeWrite(Map.of("endpoints", server.endpoint(), "httpEndpoint",
                server.httpEndpoint(), "tags", "host", "writePath", path), table, STRUCT, null);
        byte[] text = new byte["host-0".length()];
        GenericInternalRow row = new GenericInternalRow(3) {
            @Override
            public GenericInternalRow copy() {
                if (!copyAllowed) {
                    throw new AssertionError("the bulk path copied a row it could read in place");
                }
                return super.copy();
            }
        };
        DataWriter<InternalRow> writer = write.createBatchWriterFactory(() -> 1).createWriter(0, 1);
        try {
            for (int i = 0; i < 3; i++) {
                byte[] host = ("host-" + i).getBytes(StandardCharsets.UTF_8);
                System.arraycopy(host, 0, text, 0, host.length);
                row.update(0, UTF8String.fromBytes(text));
                row.update(1, i * 1.5);
                row.update(2, 1_704_067_200_000_000L + i);
                writer.write(row);
            }
            writer.commit();
        } finally {
            writer.close();
        }

        Map<Object, Map<String, Object>> stored = LocalSpark.byKey(server.rows(table), "host");
        assertEquals(3, stored.size(), "stored rows: " + stored);
        for (int i = 0; i < 3; i++) {
            Map<String, Object> r = stored.get("host-" + i);
            assertEquals(i * 1.5, r.get("v"), "v of host-" + i);
        }
    }
}
