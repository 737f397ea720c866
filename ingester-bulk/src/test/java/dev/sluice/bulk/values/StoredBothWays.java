package dev.sluice.bulk.values;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.GreptimeDB;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Writes the same rows through a bulk writer and through the regular path, and compares what the testkit stored. */
final class StoredBothWays {
    private StoredBothWays() {
    }

    static void writeAndCompare(GreptimeTestServer server, GreptimeDB db, TableSchema viaBulk, TableSchema viaRegular,
            List<Object[]> rows, Context bulkContext) throws Exception {
        try (BulkStreamWriter w = db.bulkStreamWriter(viaBulk, BulkWrite.Config.newBuilder().build(), bulkContext)) {
            TableBufferRoot batch = w.tableBufferRoot(Math.max(1, rows.size()));
            rows.forEach(batch::addRow);
            assertEquals(rows.size(), w.writeNext().get(120, TimeUnit.SECONDS));
            assertEquals(rows.size(), w.completed());
        }
        Table t = Table.from(viaRegular);
        rows.forEach(t::addRow);
        var result = db.write(t).get(120, TimeUnit.SECONDS);
        assertTrue(result.isOk(), () -> "regular write: " + result);
        assertEquals(server.schema(viaRegular.tableName()).columns(), server.schema(viaBulk.tableName()).columns(),
                "the table created for the bulk writer has the regular path's columns");
        List<Map<String, Object>> bulkRows = server.rows(viaBulk.tableName());
        List<Map<String, Object>> regularRows = server.rows(viaRegular.tableName());
        assertEquals(regularRows.size(), bulkRows.size());
        for (int i = 0; i < regularRows.size(); i++) {
            for (Map.Entry<String, Object> e : regularRows.get(i).entrySet()) {
                Object b = bulkRows.get(i).get(e.getKey());
                if (e.getValue() instanceof byte[] bytes) {
                    assertArrayEquals(bytes, (byte[]) b, "row " + i + " column " + e.getKey());
                } else {
                    assertEquals(e.getValue(), b, "row " + i + " column " + e.getKey());
                }
            }
        }
    }
}
