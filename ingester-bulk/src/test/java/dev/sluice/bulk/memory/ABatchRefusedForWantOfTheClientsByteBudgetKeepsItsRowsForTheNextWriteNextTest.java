package dev.sluice.bulk.memory;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.LimitExceededException;
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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code BulkStreamWriter.writeNext()} promises that a batch finding no room in the client's byte budget
 * ({@code maxInFlightBytes}) within the client's limit policy fails with a {@link LimitExceededException} and that
 * nothing is sent or dropped: the batch keeps its rows and a later {@code writeNext()} sends them. One writer holds
 * most of a 1 MiB budget with a batch whose answer the server holds; a second writer's batch cannot fit.
 */
class ABatchRefusedForWantOfTheClientsByteBudgetKeepsItsRowsForTheNextWriteNextTest {
    private static final Duration BOUND = Duration.ofSeconds(30);
    private static final String LINE = "x".repeat(1_000);

    static TableSchema schema(String table) {
        return TableSchema.newBuilder(table).addTag("host", DataType.String).addField("msg", DataType.String)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
    }

    @ParameterizedTest
    @EnumSource(WhenFull.class)
    void theRefusedBatchKeepsItsRowsAndTheNextWriteNextStoresThem(WhenFull whenFull) throws Exception {
        String suffix = whenFull.name().toLowerCase();
        String holderTable = "budget_holder_" + suffix;
        String takerTable = "budget_taker_" + suffix;
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                    .maxInFlightBytes(1L << 20).whenFull(whenFull).maxBlock(Duration.ofMillis(300)).build());
            try {
                // Both tables exist before the server starts holding answers.
                assertTrue(db.write(Table.from(schema(holderTable)).addRow("setup", "s", 0L)).get(30, TimeUnit.SECONDS)
                        .isOk());
                assertTrue(db.write(Table.from(schema(takerTable)).addRow("setup", "s", 0L)).get(30, TimeUnit.SECONDS)
                        .isOk());
                server.faults().hold(Faults.HoldPoint.BEFORE_ANSWER, r -> r.tables().contains(holderTable));
                BulkWrite.Config config = BulkWrite.Config.newBuilder().createTable(false).build();
                try (BulkStreamWriter holder = db.bulkStreamWriter(schema(holderTable), config, Context.newBuilder()
                        .build());
                     BulkStreamWriter taker = db.bulkStreamWriter(schema(takerTable), config, Context.newBuilder()
                             .build())) {
                    TableBufferRoot held = holder.tableBufferRoot(800);
                    for (int i = 1; i <= 800; i++) {
                        held.addRow("h", LINE, (long) i);
                    }
                    CompletableFuture<Integer> heldAck = holder.writeNext();
                    server.faults().awaitHeld(1, BOUND);
                    assertTrue(db.stats().bytesInFlight() > 700_000, "the held batch takes most of the budget: "
                            + db.stats().bytesInFlight());

                    TableBufferRoot batch = taker.tableBufferRoot(400);
                    for (int i = 1; i <= 400; i++) {
                        batch.addRow("h", LINE, (long) i);
                    }
                    CompletableFuture<Integer> refused = taker.writeNext();
                    Throwable cause = null;
                    try {
                        refused.get(BOUND.toSeconds(), TimeUnit.SECONDS);
                        fail("a 400 KB batch fitted in a 1 MiB budget holding " + db.stats().bytesInFlight()
                                + " bytes");
                    } catch (ExecutionException e) {
                        cause = e.getCause();
                    }
                    Throwable refusal = cause;
                    assertAll(
                        () -> assertEquals(400, batch.rowCount(), "the refused batch keeps its rows"),
                        () -> assertTrue(refusal instanceof LimitExceededException,
                                "a batch without room in the byte budget fails with a LimitExceededException: "
                                        + refusal),
                        () -> assertTrue(String.valueOf(refusal.getMessage()).contains("maxInFlightBytes"),
                                "names the limit to raise: " + refusal.getMessage()));

                    server.faults().release();
                    assertEquals(800, heldAck.get(BOUND.toSeconds(), TimeUnit.SECONDS));
                    assertEquals(400, taker.writeNext().get(BOUND.toSeconds(), TimeUnit.SECONDS),
                            "the next writeNext() sends the kept rows");
                    assertEquals(401, server.rowCount(takerTable), "the kept rows are stored");
                    assertEquals(400, taker.completed());
                }
                NothingHeld.await(db, BOUND, true);
            } finally {
                server.faults().reset();
                db.shutdownNow();
            }
        }
    }
}
