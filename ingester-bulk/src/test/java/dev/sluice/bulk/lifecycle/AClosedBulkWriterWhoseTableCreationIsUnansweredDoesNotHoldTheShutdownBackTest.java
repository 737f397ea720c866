package dev.sluice.bulk.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Await;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import org.junit.jupiter.api.Test;

/**
 * A bulk writer starts creating its table when it opens. Closed before it sent anything, while the server has not
 * answered the creation, it leaves nothing of its own in flight: the client's requests and byte budget are back to
 * zero, and a graceful shutdown right after returns true without waiting out the creation's request timeout (here
 * longer than the hang guard).
 */
class AClosedBulkWriterWhoseTableCreationIsUnansweredDoesNotHoldTheShutdownBackTest {
    static final TableSchema SCHEMA = TableSchema.newBuilder("closed_unused").addTag("host", DataType.String)
            .addField("v", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();

    @Test
    void theShutdownDoesNotWaitForTheCreation() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                    .requestTimeout(Await.BEYOND_THE_HANG_GUARD).build());
            try {
                server.faults().neverRespond(true);
                BulkStreamWriter w = db.bulkStreamWriter(SCHEMA, BulkWrite.Config.newBuilder().build(),
                        Context.newBuilder().build());
                w.tableBufferRoot(10).addRow("h", 1.0, 1L);
                Await.until("the creation is under way", Await.HANG_GUARD, () -> db.stats().requestsInFlight() > 0);
                w.close();
                boolean finished = Await.returns("the graceful shutdown",
                        () -> db.shutdownGracefully(Await.BEYOND_THE_HANG_GUARD));
                assertTrue(finished, "nothing the application wrote was in flight");
                assertEquals(0, db.stats().requestsInFlight(), "requests in flight: " + db.stats());
                assertEquals(0, db.stats().bytesInFlight(), "bytes in flight: " + db.stats());
            } finally {
                db.shutdownNow();
            }
        }
    }
}
