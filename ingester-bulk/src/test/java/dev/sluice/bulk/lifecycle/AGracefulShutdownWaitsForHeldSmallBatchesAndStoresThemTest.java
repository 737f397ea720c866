package dev.sluice.bulk.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Await;
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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A graceful shutdown that starts while small bulk batches of two open writers wait for their answers waits for those
 * answers: it returns true once they come, every future holds its batch's rows, and nothing is held afterwards.
 */
class AGracefulShutdownWaitsForHeldSmallBatchesAndStoresThemTest {
    @Test
    void theShutdownWaitsAndEveryBatchIsAcknowledged() throws Exception {
        TableSchema a = TableSchema.newBuilder("held_a").addTag("host", DataType.String).addField("v", DataType.Float64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        TableSchema b = TableSchema.newBuilder("held_b").addTag("host", DataType.String).addField("v", DataType.Float64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            try {
                for (TableSchema s : List.of(a, b)) {
                    assertTrue(db.createTable(s, Context.newBuilder().build()).get(60, TimeUnit.SECONDS).isOk());
                }
                server.faults().hold(Faults.HoldPoint.BEFORE_STORE);
                List<CompletableFuture<Integer>> futures = new ArrayList<>();
                BulkWrite.Config config = BulkWrite.Config.newBuilder().createTable(false).build();
                BulkStreamWriter wa = db.bulkStreamWriter(a, config, Context.newBuilder().build());
                BulkStreamWriter wb = db.bulkStreamWriter(b, config, Context.newBuilder().build());
                for (BulkStreamWriter w : List.of(wa, wb)) {
                    TableBufferRoot batch = w.tableBufferRoot(10);
                    for (int n = 0; n < 3; n++) {
                        for (int i = 0; i < 10; i++) {
                            batch.addRow("h", i * 1.0, (long) (n * 10 + i));
                        }
                        futures.add(w.writeNext());
                    }
                }
                server.faults().awaitHeld(2, Duration.ofSeconds(60));
                CompletableFuture<Boolean> shutdown = CompletableFuture.supplyAsync(
                        () -> db.shutdownGracefully(Await.HANG_GUARD));
                server.faults().release();
                assertTrue(shutdown.get(5, TimeUnit.MINUTES), "everything in flight was answered in time");
                for (CompletableFuture<Integer> f : futures) {
                    assertEquals(10, f.get(0, TimeUnit.SECONDS));
                }
                wa.close();
                wb.close();
                assertEquals(30, server.rowCount("held_a"));
                assertEquals(30, server.rowCount("held_b"));
                assertEquals(0, db.stats().bytesInFlight());
                assertEquals(0, db.stats().bulkAllocatedBytes());
            } finally {
                db.shutdownNow();
            }
        }
    }
}
