package dev.sluice.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.BulkWriteException;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.errors.StandardErrorCapture;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import dev.sluice.write.StatusCode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code completed()} sends the rows of a bulk batch that was filled but never passed to {@code writeNext()};
 * {@code close()} without {@code completed()} discards them with a warning, never silently.
 */
class BulkBatchNotPassedToWriteNextTest {
    private static GreptimeTestServer server;
    private static GreptimeDB db;

    @BeforeAll
    static void start() {
        server = GreptimeTestServer.start();
        db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
    }

    @AfterAll
    static void stop() {
        db.shutdownGracefully();
        server.close();
    }

    @AfterEach
    void noOffHeapLeft() {
        assertEquals(0, db.stats().bulkAllocatedBytes(), "every bulk buffer was released");
    }

    private static TableSchema schema(String table) {
        return TableSchema.newBuilder(table).addTag("host", DataType.String).addField("usage", DataType.Float64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
    }

    private static void fill(TableBufferRoot batch, int from, int rows) {
        for (int i = from; i < from + rows; i++) {
            batch.addRow("h" + i, i * 0.5, 1_700_000_000_000L + i);
        }
    }

    @Test
    void aCompletedBatchNeverSentIsSentByCompleted() {
        TableSchema schema = schema("completed_not_sent");
        try (BulkStreamWriter bulk = db.bulkStreamWriter(schema, BulkWrite.Config.newBuilder().build(),
                Context.newBuilder().build())) {
            TableBufferRoot batch = bulk.tableBufferRoot(16);
            fill(batch, 0, 3);
            batch.complete();
            assertEquals(3, bulk.completed());
        }
        assertEquals(3, server.rowCount("completed_not_sent"));
    }

    @Test
    void rowsAddedAfterTheLastWriteNextAreTheLastBatch() {
        TableSchema schema = schema("last_batch_unsent");
        try (BulkStreamWriter bulk = db.bulkStreamWriter(schema, BulkWrite.Config.newBuilder().build(),
                Context.newBuilder().build())) {
            TableBufferRoot batch = bulk.tableBufferRoot(16);
            fill(batch, 0, 2);
            assertEquals(2, bulk.writeNext().join());
            fill(batch, 2, 4);
            assertEquals(6, bulk.completed());
            assertEquals(2, bulk.ackedBatches());
        }
        assertEquals(6, server.rowCount("last_batch_unsent"));
    }

    @Test
    void anUnsentBatchThatFailsMakesCompletedThrow() {
        TableSchema schema = schema("unsent_batch_fails");
        try (BulkStreamWriter bulk = db.bulkStreamWriter(schema, BulkWrite.Config.newBuilder().build(),
                Context.newBuilder().build())) {
            TableBufferRoot batch = bulk.tableBufferRoot(16);
            fill(batch, 0, 3);
            server.faults().failBulkBatch(1, StatusCode.InvalidArguments, "refused for the test");
            BulkWriteException e = assertThrows(BulkWriteException.class, bulk::completed);
            assertTrue(e.getMessage().contains("refused for the test"), e.getMessage());
            assertEquals(1, bulk.failedBatches());
        } finally {
            server.faults().reset();
        }
        assertEquals(0, server.rowCount("unsent_batch_fails"));
    }

    @Test
    void closingWithoutCompletedWarnsAboutTheRowsItDiscards() {
        TableSchema schema = schema("closed_not_sent");
        try (StandardErrorCapture log = new StandardErrorCapture()) {
            try (BulkStreamWriter bulk = db.bulkStreamWriter(schema, BulkWrite.Config.newBuilder().build(),
                    Context.newBuilder().build())) {
                fill(bulk.tableBufferRoot(16), 0, 5);
            }
            assertEquals(1, log.linesContaining("WARN dev.sluice.bulk.BulkStreamWriter - bulk writer for"
                    + " 'closed_not_sent' closed with 5 rows never passed to writeNext() or completed(): they were not"
                    + " sent"), log.text());
        }
        assertEquals(0, server.rowCount("closed_not_sent"));
    }
}
