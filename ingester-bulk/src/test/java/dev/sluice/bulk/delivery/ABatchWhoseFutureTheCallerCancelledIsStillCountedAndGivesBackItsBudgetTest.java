package dev.sluice.bulk.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.Faults;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A caller may cancel the future of a batch it no longer wants to wait for; the batch was already sent, so the server
 * stores it and answers. The writer must still count that answer, give the batch's share of the client's byte budget
 * back, and go on with later batches.
 */
class ABatchWhoseFutureTheCallerCancelledIsStillCountedAndGivesBackItsBudgetTest {
    static final TableSchema SCHEMA = TableSchema.newBuilder("cancelled_future").addTag("host", DataType.String)
            .addField("v", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();

    @Test
    void theCancelledBatchIsStoredCountedByCompletedAndItsBudgetIsGivenBack() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            try {
                assertEquals(true, db.createTable(SCHEMA, Context.newBuilder().build()).get(60, TimeUnit.SECONDS).isOk());
                server.faults().hold(Faults.HoldPoint.BEFORE_ANSWER);
                try (BulkStreamWriter w = db.bulkStreamWriter(SCHEMA,
                        BulkWrite.Config.newBuilder().createTable(false).build(), Context.newBuilder().build())) {
                    TableBufferRoot batch = w.tableBufferRoot(100);
                    for (int i = 0; i < 100; i++) {
                        batch.addRow("h" + i % 3, i * 0.5, (long) i);
                    }
                    CompletableFuture<Integer> first = w.writeNext();
                    server.faults().awaitHeld(1, Duration.ofSeconds(60));
                    first.cancel(true);
                    server.faults().release();
                    for (int i = 100; i < 200; i++) {
                        batch.addRow("h" + i % 3, i * 0.5, (long) i);
                    }
                    assertEquals(100, w.writeNext().get(60, TimeUnit.SECONDS));
                    assertEquals(200, w.completed(), "rows the server acknowledged over the writer's life");
                }
                assertEquals(200, server.rowCount("cancelled_future"));
                dev.sluice.bulk.NothingHeld.await(db, Duration.ofSeconds(60), true);
            } finally {
                db.shutdownNow();
            }
        }
    }
}
