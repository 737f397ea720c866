package dev.sluice.bulk.batching;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
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
import dev.sluice.write.StatusCode;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * On the bulk path a batching writer keeps one bulk stream per table. When the server refuses one batch of a table
 * for its data (not retryable), that batch's future fails naming the table, and the rows written to the same table
 * afterwards are still delivered: one bad batch does not end the table's writing for the writer's life.
 */
class ATableWhoseBulkBatchWasRefusedStillTakesItsLaterRowsTest {
    static final TableSchema SCHEMA = TableSchema.newBuilder("refused_once").addTag("host", DataType.String)
            .addField("v", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();

    @Test
    void laterRowsOfTheTableAreStored() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            try {
                try (BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder().path(BatchingWriter.Path.Bulk)
                        .maxBatchRows(100).build(), Context.newBuilder().build())) {
                    CompletableFuture<Void> first = null;
                    for (int i = 0; i < 100; i++) {
                        first = w.write(SCHEMA, "h", i * 0.5, (long) i);
                    }
                    first.get(60, TimeUnit.SECONDS);
                    server.faults().failBulkBatch(1, StatusCode.InvalidArguments, "Invalid argument: bad batch");
                    CompletableFuture<Void> refused0 = null;
                    for (int i = 100; i < 200; i++) {
                        refused0 = w.write(SCHEMA, "h", i * 0.5, (long) i);
                    }
                    CompletableFuture<Void> refused = refused0;
                    ExecutionException e = assertThrows(ExecutionException.class, () -> refused.get(60, TimeUnit.SECONDS));
                    assertTrue(e.getCause() instanceof BatchWriteException, e.getCause().toString());
                    assertTrue(e.getCause().getMessage().contains("refused_once"), e.getCause().getMessage());
                    CompletableFuture<Void> later = null;
                    for (int i = 200; i < 300; i++) {
                        later = w.write(SCHEMA, "h", i * 0.5, (long) i);
                    }
                    try {
                        later.get(60, TimeUnit.SECONDS);
                    } catch (ExecutionException laterFailure) {
                        throw new AssertionError("rows written after one refused batch were not delivered: "
                                + laterFailure.getCause(), laterFailure.getCause());
                    }
                }
                assertEquals(200, server.rowCount("refused_once"));
                Await.until("the bulk memory is released", Duration.ofSeconds(60),
                        () -> db.stats().bulkAllocatedBytes() == 0);
                dev.sluice.bulk.NothingHeld.await(db, Duration.ofSeconds(60), false);
            } finally {
                db.shutdownNow();
            }
        }
    }
}
