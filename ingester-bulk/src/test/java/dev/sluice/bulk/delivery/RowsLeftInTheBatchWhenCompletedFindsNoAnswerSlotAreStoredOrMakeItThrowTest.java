package dev.sluice.bulk.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Await;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.BulkWriteException;
import dev.sluice.bulk.NothingHeld;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.Faults;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import dev.sluice.write.WhenFull;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code completed()} sends the rows added since the last {@code writeNext()} as the last batch: they are acknowledged
 * in the total it returns, or their failure makes it throw, never dropped in silence. That holds when the writer's
 * only answer slot is taken by a batch whose answer the server holds at that moment, under either limit policy.
 */
class RowsLeftInTheBatchWhenCompletedFindsNoAnswerSlotAreStoredOrMakeItThrowTest {
    private static final Duration BOUND = Duration.ofSeconds(30);

    static TableSchema schema(String table) {
        return TableSchema.newBuilder(table).addTag("host", DataType.String).addField("v", DataType.Int64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
    }

    @ParameterizedTest
    @EnumSource(WhenFull.class)
    void theLeftRowsAreCountedInTheTotalOrCompletedThrows(WhenFull whenFull) throws Exception {
        String table = "completed_without_slot_" + whenFull.name().toLowerCase();
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            try {
                assertTrue(db.write(Table.from(schema(table)).addRow("setup", 0L, 0L)).get(30, TimeUnit.SECONDS)
                        .isOk());
                server.faults().hold(Faults.HoldPoint.BEFORE_ANSWER, r -> r.tables().contains(table));
                BulkWrite.Config config = BulkWrite.Config.newBuilder().createTable(false).maxInFlightRequests(1)
                        .whenFull(whenFull).maxBlock(Duration.ofMillis(200)).requestTimeout(BOUND).build();
                try (BulkStreamWriter w = db.bulkStreamWriter(schema(table), config, Context.newBuilder().build())) {
                    TableBufferRoot batch = w.tableBufferRoot(16);
                    for (long i = 1; i <= 10; i++) {
                        batch.addRow("h", i, i);
                    }
                    CompletableFuture<Integer> first = w.writeNext();
                    server.faults().awaitHeld(1, BOUND);
                    for (long i = 11; i <= 15; i++) {
                        batch.addRow("h", i, i);
                    }
                    CompletableFuture<Long> total = new CompletableFuture<>();
                    Thread completing = new Thread(() -> {
                        try {
                            total.complete(w.completed());
                        } catch (Throwable t) {
                            total.completeExceptionally(t);
                        }
                    }, "completing-" + table);
                    completing.start();
                    // The server answers once completed() has ended the stream (the writer then takes no batch),
                    // or after a bounded look, for a writer that waits for the slot before ending it.
                    Await.happensWithin(Duration.ofSeconds(5), () -> total.isDone() || endedForNewBatches(w));
                    server.faults().release();
                    assertEquals(10, first.get(BOUND.toSeconds(), TimeUnit.SECONDS));
                    try {
                        long acknowledged = total.get(BOUND.toSeconds(), TimeUnit.SECONDS);
                        assertEquals(15, acknowledged, "completed() counts the rows it was left with ("
                                + server.rowCount(table) + " rows stored with the setup row)");
                        assertEquals(16, server.rowCount(table), "the left rows are stored");
                    } catch (ExecutionException e) {
                        assertTrue(e.getCause() instanceof BulkWriteException, "completed() throws: " + e.getCause());
                    }
                    completing.join(BOUND.toMillis());
                }
                NothingHeld.await(db, BOUND, true);
            } finally {
                server.faults().reset();
                db.shutdownNow();
            }
        }
    }

    /** Whether the writer refuses new batches, which it does once completed() has ended its stream. */
    private static boolean endedForNewBatches(BulkStreamWriter w) {
        try {
            w.tableBufferRoot(16); // the batch exists: this only checks the writer's state
            return false;
        } catch (IllegalStateException ended) {
            return true;
        }
    }
}
