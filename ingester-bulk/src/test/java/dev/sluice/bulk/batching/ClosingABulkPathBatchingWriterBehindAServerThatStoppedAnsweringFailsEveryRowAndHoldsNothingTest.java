package dev.sluice.bulk.batching;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Await;
import dev.sluice.BatchWriteException;
import dev.sluice.BatchingWriter;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A batching writer on the bulk path whose server stores batches but stopped answering them: {@code close()} comes
 * back, every row's future completes (failed, as its batch was never acknowledged, or acknowledged), the writer's
 * counters add up, and the client holds no bulk memory and no byte budget afterwards.
 */
class ClosingABulkPathBatchingWriterBehindAServerThatStoppedAnsweringFailsEveryRowAndHoldsNothingTest {
    @Test
    void everyFutureCompletesAndNothingIsHeld() throws Exception {
        List<TableSchema> schemas = new ArrayList<>();
        for (int t = 0; t < 5; t++) {
            schemas.add(TableSchema.newBuilder("unanswered_" + t).addTag("host", DataType.String)
                    .addField("msg", DataType.String).addTimestamp("ts", DataType.TimestampMillisecond).build());
        }
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                    .requestTimeout(Duration.ofSeconds(3)).build());
            try {
                for (TableSchema s : schemas) {
                    assertTrue(db.createTable(s, Context.newBuilder().build()).get(60, TimeUnit.SECONDS).isOk());
                }
                server.faults().bulkNeverAck(true);
                List<CompletableFuture<Void>> futures = new ArrayList<>();
                BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder().path(BatchingWriter.Path.Bulk)
                        .maxBatchRows(50).build(), Context.newBuilder().build());
                for (int i = 0; i < 1_000; i++) {
                    futures.add(w.write(schemas.get(i % 5), "h", "line " + i, (long) i));
                }
                Await.returns("close", w::close);
                int failed = 0;
                for (CompletableFuture<Void> f : futures) {
                    Await.until("every row's future completes", Duration.ofSeconds(60), f::isDone);
                    try {
                        f.get(0, TimeUnit.SECONDS);
                    } catch (ExecutionException e) {
                        assertTrue(e.getCause() instanceof BatchWriteException, e.getCause().toString());
                        failed++;
                    }
                }
                assertEquals(1_000, failed, "no batch was acknowledged");
                assertEquals(0, w.pendingRows());
                assertEquals(1_000, w.failedRows() + w.ackedRows());
                Await.until("the bulk memory is released", Duration.ofSeconds(60),
                        () -> db.stats().bulkAllocatedBytes() == 0);
                dev.sluice.bulk.NothingHeld.await(db, Duration.ofSeconds(60), false);
            } finally {
                db.shutdownNow();
            }
        }
    }
}
