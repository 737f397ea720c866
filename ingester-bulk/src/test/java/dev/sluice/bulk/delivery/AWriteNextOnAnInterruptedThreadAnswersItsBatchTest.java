package dev.sluice.bulk.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A producer thread whose interrupt flag is set (a task being cancelled) calls {@code writeNext()}. Whatever the
 * writer decides, its batch is answered: stored and acknowledged, or failed and kept for a later {@code writeNext()};
 * the interrupt is not swallowed, and nothing is left pending or held.
 */
class AWriteNextOnAnInterruptedThreadAnswersItsBatchTest {
    static final TableSchema SCHEMA = TableSchema.newBuilder("interrupted_producer").addTag("host", DataType.String)
            .addField("v", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();

    @Test
    void theBatchIsStoredOrKeptAndTheInterruptSurvives() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            try {
                try (BulkStreamWriter w = db.bulkStreamWriter(SCHEMA, BulkWrite.Config.newBuilder().build(),
                        Context.newBuilder().build())) {
                    TableBufferRoot batch = w.tableBufferRoot(10);
                    for (int i = 0; i < 10; i++) {
                        batch.addRow("h", i * 0.5, (long) i);
                    }
                    Thread.currentThread().interrupt();
                    CompletableFuture<Integer> f;
                    try {
                        f = w.writeNext();
                    } finally {
                        assertTrue(Thread.interrupted(), "the interrupt is kept for the caller");
                    }
                    try {
                        assertEquals(10, f.get(60, TimeUnit.SECONDS));
                    } catch (ExecutionException refused) {
                        assertEquals(10, batch.rowCount(), "a refused batch keeps its rows: " + refused.getCause());
                        assertEquals(10, w.writeNext().get(60, TimeUnit.SECONDS));
                    }
                    assertEquals(10, w.completed());
                }
                assertEquals(10, server.rowCount("interrupted_producer"));
                dev.sluice.bulk.NothingHeld.await(db, Duration.ofSeconds(60), true);
            } finally {
                db.shutdownNow();
            }
        }
    }
}
