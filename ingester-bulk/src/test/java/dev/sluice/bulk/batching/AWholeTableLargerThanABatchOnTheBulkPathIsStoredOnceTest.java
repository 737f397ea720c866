package dev.sluice.bulk.batching;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.Await;
import dev.sluice.BatchingWriter;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code write(Table)} of a table of 25,000 rows (more than a batch's {@code maxBatchRows}) on the bulk path, between
 * single rows of the same schema: every row is stored once with its values, and the writer holds nothing afterwards.
 */
class AWholeTableLargerThanABatchOnTheBulkPathIsStoredOnceTest {
    static final TableSchema SCHEMA = TableSchema.newBuilder("whole_table").addTag("host", DataType.String)
            .addField("msg", DataType.String).addField("n", DataType.Int64)
            .addTimestamp("ts", DataType.TimestampMillisecond).build();

    @Test
    void everyRowIsStoredOnce() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            try {
                try (BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder().path(BatchingWriter.Path.Bulk)
                        .maxBatchRows(1_000).build(), Context.newBuilder().build())) {
                    for (long i = 0; i < 500; i++) {
                        w.write(SCHEMA, "single", "row " + i, i, i);
                    }
                    Table t = Table.from(SCHEMA);
                    for (long i = 500; i < 25_500; i++) {
                        t.addRow("table", "row " + i, i, i);
                    }
                    var whole = w.write(t);
                    for (long i = 25_500; i < 26_000; i++) {
                        w.write(SCHEMA, "single", "row " + i, i, i);
                    }
                    whole.get(120, TimeUnit.SECONDS);
                    w.flushOrThrow(Duration.ofMinutes(2));
                    assertEquals(26_000, w.ackedRows());
                }
                List<Map<String, Object>> rows = server.rows("whole_table");
                assertEquals(26_000, rows.size());
                for (Map<String, Object> r : rows) {
                    long i = (Long) r.get("ts");
                    assertEquals("row " + i, r.get("msg"));
                    assertEquals(i, r.get("n"));
                    assertEquals(i >= 500 && i < 25_500 ? "table" : "single", r.get("host"));
                }
                Await.until("the bulk memory is released", Duration.ofSeconds(60),
                        () -> db.stats().bulkAllocatedBytes() == 0);
            } finally {
                db.shutdownNow();
            }
        }
    }
}
