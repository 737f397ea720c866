package dev.sluice.bulk.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

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
 * {@code completed()} ends the writer's stream. Rows written after it cannot be sent on that stream: their batch must
 * be answered at once (stored, or failed telling the caller to open a new writer), never left pending, and the writer
 * must hold no budget or memory afterwards.
 */
class AWriteNextAfterCompletedAnswersAtOnceTest {
    static final TableSchema SCHEMA = TableSchema.newBuilder("after_completed").addTag("host", DataType.String)
            .addField("v", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();

    @Test
    void aBatchWrittenAfterCompletedIsAnsweredAndNothingIsHeld() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            try {
                try (BulkStreamWriter w = db.bulkStreamWriter(SCHEMA, BulkWrite.Config.newBuilder().build(),
                        Context.newBuilder().build())) {
                    TableBufferRoot batch = w.tableBufferRoot(10);
                    for (int i = 0; i < 10; i++) {
                        batch.addRow("h", i * 0.5, (long) i);
                    }
                    assertEquals(10, w.writeNext().get(60, TimeUnit.SECONDS));
                    assertEquals(10, w.completed());
                    CompletableFuture<Integer> late;
                    try {
                        for (int i = 10; i < 20; i++) {
                            batch.addRow("h", i * 0.5, (long) i);
                        }
                        late = w.writeNext();
                    } catch (RuntimeException refused) {
                        assertMessageSaysWhatToDo(refused);
                        return;
                    }
                    try {
                        Integer stored = late.get(60, TimeUnit.SECONDS);
                        assertEquals(10, stored);
                        assertEquals(20, server.rowCount("after_completed"));
                    } catch (ExecutionException refused) {
                        assertMessageSaysWhatToDo(refused.getCause());
                        assertEquals(10, server.rowCount("after_completed"));
                    }
                }
                dev.sluice.bulk.NothingHeld.await(db, Duration.ofSeconds(60), true);
            } finally {
                db.shutdownNow();
            }
        }
    }

    private static void assertMessageSaysWhatToDo(Throwable refused) {
        String m = String.valueOf(refused.getMessage());
        if (!m.contains("new writer") && !m.contains("open a new")) {
            fail("a write after completed() is refused without saying what to do next: " + refused);
        }
        assertTrue(m.contains("after_completed"), "names the table: " + m);
    }
}
