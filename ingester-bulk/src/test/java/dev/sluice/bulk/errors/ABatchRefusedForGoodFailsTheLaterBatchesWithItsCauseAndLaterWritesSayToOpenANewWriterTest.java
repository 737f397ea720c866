package dev.sluice.bulk.errors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Await;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.BulkWriteException;
import dev.sluice.bulk.FiveRowBatches;
import dev.sluice.bulk.NothingHeld;
import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import dev.sluice.write.StatusCode;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The server refuses the third of six pipelined batches with a non-retryable error: the two before it are
 * acknowledged and stored, it and every batch after it fail with a {@link BulkWriteException} naming the table and
 * carrying the server's message, a {@code writeNext()} after that fails at once saying to open a new writer,
 * {@code completed()} throws, and the client holds nothing afterwards.
 */
class ABatchRefusedForGoodFailsTheLaterBatchesWithItsCauseAndLaterWritesSayToOpenANewWriterTest {
    private static final Duration BOUND = Duration.ofSeconds(30);
    private static final String TABLE = "refused_for_good";
    private static final String REFUSAL = "value refused by the server for good";

    static TableSchema schema() {
        return TableSchema.newBuilder(TABLE).addTag("host", DataType.String).addField("v", DataType.Int64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
    }

    @Test
    void theEarlierBatchesAreStoredAndTheRefusedAndLaterOnesFailWithItsCause() throws Exception {
        writeAndRefuseTheThird(false);
    }

    @Test
    void aWriteAfterTheFailureSaysToOpenANewWriter() throws Exception {
        writeAndRefuseTheThird(true);
    }

    private static void writeAndRefuseTheThird(boolean adviceToo) throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            try {
                assertTrue(db.write(Table.from(schema()).addRow("setup", 0L, 0L)).get(30, TimeUnit.SECONDS).isOk());
                server.faults().failBulkBatch(3, StatusCode.InvalidArguments, REFUSAL);
                try (BulkStreamWriter w = db.bulkStreamWriter(schema(), BulkWrite.Config.newBuilder()
                        .createTable(false).maxInFlightRequests(8).build(), Context.newBuilder().build())) {
                    List<CompletableFuture<Integer>> acks = FiveRowBatches.writeAndAwait(w, 6, BOUND);
                    assertEquals(5, acks.get(0).get());
                    assertEquals(5, acks.get(1).get());
                    for (int b = 2; b < 6; b++) {
                        Throwable t = failure(acks.get(b));
                        assertTrue(t instanceof BulkWriteException, "batch " + (b + 1) + ": " + t);
                        assertTrue(t.getMessage().contains(TABLE) && t.getMessage().contains(REFUSAL),
                                "batch " + (b + 1) + " names the table and the server's refusal: " + t.getMessage());
                    }
                    assertEquals(2, w.ackedBatches());
                    assertEquals(4, w.failedBatches());

                    w.tableBufferRoot(8).addRow("h", 31L, 31L); // after the six batches' rows
                    CompletableFuture<Integer> late = w.writeNext();
                    assertTrue(late.isDone(), "a write to a writer failed for good fails at once");
                    Throwable t = failure(late);
                    assertTrue(t instanceof BulkWriteException, "late batch: " + t);
                    assertTrue(t.getMessage().contains(TABLE) && t.getMessage().contains(REFUSAL),
                            "the late batch names the table and the first failure: " + t.getMessage());
                    if (adviceToo) {
                        assertTrue(t.getMessage().contains("new writer"),
                                "the late batch's error says to open a new writer: " + t.getMessage());
                    }
                    BulkWriteException end = assertThrows(BulkWriteException.class, w::completed);
                    assertTrue(end.getMessage().contains(TABLE), end.getMessage());
                }
                assertEquals(11, server.rowCount(TABLE), "the setup row and the two acknowledged batches");
                NothingHeld.await(db, BOUND, true);
            } finally {
                db.shutdownNow();
            }
        }
    }

    private static Throwable failure(CompletableFuture<Integer> f) throws Exception {
        try {
            return new AssertionError("stored " + f.get(BOUND.toSeconds(), TimeUnit.SECONDS) + " rows");
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }
}
