package dev.sluice.bulk.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Await;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
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
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A batch of more than 4 MiB (sent from the vectors it was built in) finds no room in the client's byte budget, which
 * another writer's unanswered batch holds: its future fails at once under {@code WhenFull.FailFast}; the writer holds
 * its 5 MiB of vectors only while the batch still has its rows, it is not failed for good (its next batch is stored,
 * with any rows the refused batch kept, once the budget is free), and nothing is held once it is closed.
 */
class ABatchKeptInItsVectorsRefusedForWantOfTheByteBudgetHoldsNoMemoryForRowsItLostAndLeavesTheWriterWritingTest {
    private static final Duration BOUND = Duration.ofSeconds(30);
    private static final String LINE = "x".repeat(1_000);

    static TableSchema schema(String table) {
        return TableSchema.newBuilder(table).addTag("host", DataType.String).addField("msg", DataType.String)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
    }

    @Test
    void noMemoryIsHeldForLostRowsAndTheWriterWritesOn() throws Exception {
        String holderTable = "vectors_budget_holder";
        String takerTable = "vectors_budget_taker";
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                    .maxInFlightBytes(1L << 20).whenFull(WhenFull.FailFast).build());
            try {
                for (String t : new String[] {holderTable, takerTable}) {
                    assertTrue(db.write(Table.from(schema(t)).addRow("setup", "s", 0L)).get(30, TimeUnit.SECONDS)
                            .isOk());
                }
                server.faults().hold(Faults.HoldPoint.BEFORE_ANSWER, r -> r.tables().contains(holderTable));
                BulkWrite.Config config = BulkWrite.Config.newBuilder().createTable(false).build();
                try (BulkStreamWriter holder = db.bulkStreamWriter(schema(holderTable), config,
                        Context.newBuilder().build());
                     BulkStreamWriter taker = db.bulkStreamWriter(schema(takerTable), config,
                             Context.newBuilder().build())) {
                    TableBufferRoot held = holder.tableBufferRoot(100);
                    for (int i = 1; i <= 100; i++) {
                        held.addRow("h", LINE, (long) i);
                    }
                    CompletableFuture<Integer> heldAck = holder.writeNext();
                    server.faults().awaitHeld(1, BOUND);

                    TableBufferRoot batch = taker.tableBufferRoot(5_000);
                    for (int i = 1; i <= 5_000; i++) {
                        batch.addRow("h", LINE, (long) i);
                    }
                    assertTrue(taker.allocatedBytes() > 5_000_000, "the batch is built: " + taker.allocatedBytes());
                    CompletableFuture<Integer> refused = taker.writeNext();
                    assertTrue(refused.isCompletedExceptionally(), "refused at once under FailFast");
                    int kept = batch.rowCount();
                    assertTrue(kept == 0 || kept == 5_000, "the batch keeps all its rows or none: " + kept);
                    if (kept == 0) {
                        Await.until("the vectors of the lost rows are freed (the writer holds "
                                + taker.allocatedBytes() + " bytes)", BOUND, () -> taker.allocatedBytes() < 1_000_000);
                    }

                    server.faults().release();
                    assertEquals(100, heldAck.get(BOUND.toSeconds(), TimeUnit.SECONDS));
                    for (int i = 1; i <= 10; i++) {
                        batch.addRow("h", "after " + i, 10_000L + i);
                    }
                    assertEquals(kept + 10, taker.writeNext().get(BOUND.toSeconds(), TimeUnit.SECONDS),
                            "the writer is not failed by the refusal");
                    assertEquals(1 + kept + 10, server.rowCount(takerTable));
                }
                NothingHeld.await(db, BOUND, true);
            } finally {
                server.faults().reset();
                db.shutdownNow();
            }
        }
    }
}
