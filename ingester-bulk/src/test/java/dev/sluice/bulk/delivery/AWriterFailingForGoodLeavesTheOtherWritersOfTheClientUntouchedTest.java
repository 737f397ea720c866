package dev.sluice.bulk.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Await;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.StreamWriter;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.BulkWriteException;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import dev.sluice.write.StatusCode;
import dev.sluice.write.WriteOk;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Bulk writers and a stream share the client's send engine. One bulk writer whose column type differs from its table's is refused for its data and fails for good;
 * the other bulk writer and the stream, interleaved with it (a bulk batch rate limited once), store every row and
 * complete normally, and nothing is held afterwards.
 */
class AWriterFailingForGoodLeavesTheOtherWritersOfTheClientUntouchedTest {
    static TableSchema schema(String name) {
        return TableSchema.newBuilder(name).addTag("host", DataType.String).addField("v", DataType.Int64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
    }

    @Test
    void theOthersAreUntouched() throws Exception {
        TableSchema doomed = schema("doomed");
        TableSchema healthy = schema("healthy");
        TableSchema streamed = schema("streamed");
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            try {
                for (TableSchema s : List.of(doomed, healthy, streamed)) {
                    assertTrue(db.createTable(s, Context.newBuilder().build()).get(60, TimeUnit.SECONDS).isOk());
                }
                server.faults().failBulkBatch(8, StatusCode.RateLimited, "slow down");
                BulkWrite.Config config = BulkWrite.Config.newBuilder().createTable(false).build();
                List<CompletableFuture<Integer>> healthyAcks = new ArrayList<>();
                List<CompletableFuture<Integer>> doomedAcks = new ArrayList<>();
                StreamWriter<Table, WriteOk> stream = db.streamWriter();
                TableSchema doomedOtherwise = TableSchema.newBuilder("doomed").addTag("host", DataType.String)
                        .addField("v", DataType.String).addTimestamp("ts", DataType.TimestampMillisecond).build();
                try (BulkStreamWriter d = db.bulkStreamWriter(doomedOtherwise, config, Context.newBuilder().build());
                        BulkStreamWriter h = db.bulkStreamWriter(healthy, config, Context.newBuilder().build())) {
                    TableBufferRoot db1 = d.tableBufferRoot(20);
                    TableBufferRoot hb = h.tableBufferRoot(20);
                    long ts = 0;
                    for (int b = 0; b < 30; b++) {
                        Table t = Table.from(streamed);
                        for (int i = 0; i < 20; i++) {
                            db1.addRow("h", "text " + b, ts);
                            hb.addRow("h", (long) b, ts);
                            t.addRow("h", (long) b, ts);
                            ts++;
                        }
                        doomedAcks.add(d.writeNext());
                        healthyAcks.add(h.writeNext());
                        stream.write(t);
                    }
                    for (CompletableFuture<Integer> f : healthyAcks) {
                        assertEquals(20, f.get(120, TimeUnit.SECONDS));
                    }
                    assertEquals(600, h.completed());
                    for (CompletableFuture<Integer> f : doomedAcks) {
                        Await.until("every doomed batch is answered", Duration.ofMinutes(2), f::isDone);
                    }
                    assertThrows(BulkWriteException.class, d::completed);
                }
                assertEquals(600, stream.completed().get(120, TimeUnit.SECONDS).affectedRows());
                assertEquals(600, server.rowCount("healthy"));
                assertEquals(600, server.rowCount("streamed"));
                dev.sluice.bulk.NothingHeld.await(db, Duration.ofSeconds(60), true);
            } finally {
                db.shutdownNow();
            }
        }
    }
}
