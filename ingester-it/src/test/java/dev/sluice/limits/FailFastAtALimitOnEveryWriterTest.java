package dev.sluice.limits;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.BatchingWriter;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.LimitExceededException;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import dev.sluice.write.WhenFull;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * One block/fail-fast enum, one outcome: the guide says a client limit reached under {@code WhenFull.FailFast} (or
 * after {@code maxBlock} under {@code Block}) is a {@code LimitExceededException}, whose contract is that nothing
 * was dropped or sent. That holds for the client's request limit, the batching writer's buffer and the bulk writer's
 * in-flight batches alike; and the bulk batch refused for want of a slot keeps its rows, so the caller can try again.
 */
class FailFastAtALimitOnEveryWriterTest {
    private static TableSchema schema(String table) {
        return TableSchema.newBuilder(table).addTag("host", DataType.String).addField("usage", DataType.Float64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
    }

    private static Throwable failureOf(CompletableFuture<?> f) throws Exception {
        try {
            f.get(30, TimeUnit.SECONDS);
            return null;
        } catch (java.util.concurrent.ExecutionException e) {
            return e.getCause();
        }
    }

    @Test
    void theClientsRequestLimit() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            TableSchema s = schema("limit_regular");
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                    .maxInFlightRequests(1).whenFull(WhenFull.FailFast).build());
            try {
                assertTrue(db.write(Table.from(s).addRow("setup", 0.0, 1L)).join().isOk());
                server.faults().neverRespond(true);
                db.write(Table.from(s).addRow("h", 0.5, 2L));
                // a regular write never throws: its Result holds the Err, caused by the LimitExceededException
                dev.sluice.write.Result<dev.sluice.write.WriteOk, dev.sluice.write.Err> r =
                        db.write(Table.from(s).addRow("h", 0.5, 3L)).get(30, TimeUnit.SECONDS);
                assertTrue(!r.isOk(), "regular: stored past the limit");
                assertTrue(r.getErr().cause() instanceof LimitExceededException, "regular: " + r.getErr());
            } finally {
                server.faults().reset();
                db.shutdownNow();
            }
        }
    }

    @Test
    void theBatchingWritersBuffer() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            TableSchema s = schema("limit_batching");
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            try {
                assertTrue(db.write(Table.from(s).addRow("setup", 0.0, 1L)).join().isOk());
                server.faults().neverRespond(true);
                BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder().maxBatchRows(1)
                        .maxBufferedRows(1).whenFull(WhenFull.FailFast).build());
                w.write(s, "h", 0.5, 2L);
                Throwable t;
                try {
                    t = failureOf(w.write(s, "h", 0.5, 3L));
                } catch (RuntimeException thrown) {
                    t = thrown;
                }
                assertTrue(t instanceof LimitExceededException, "batching: " + t);
            } finally {
                server.faults().reset();
                db.shutdownNow();
            }
        }
    }

    /** What a full fail-fast bulk writer answered to a second batch, and how many rows its batch still held. */
    private record Refusal(Throwable failure, int rowsLeft) {
    }

    /**
     * A bulk writer with one answer slot and {@code FailFast}, whose first batch the server never answers: the
     * second batch's {@code writeNext()} finds no slot.
     */
    private static Refusal secondBatchOfAFullBulkWriter(String table) throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            TableSchema s = schema(table);
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            try {
                assertTrue(db.write(Table.from(s).addRow("setup", 0.0, 1L)).join().isOk());
                server.faults().bulkNeverAck(true);
                BulkStreamWriter bulk = db.bulkStreamWriter(s, BulkWrite.Config.newBuilder().createTable(false)
                        .maxInFlightRequests(1).whenFull(WhenFull.FailFast).requestTimeout(Duration.ofSeconds(60))
                        .build(), Context.newBuilder().build());
                TableBufferRoot batch = bulk.tableBufferRoot(8);
                batch.addRow("h", 0.5, 2L);
                bulk.writeNext();
                batch.addRow("h", 0.5, 3L).addRow("h", 0.5, 4L);
                Throwable t;
                try {
                    t = failureOf(bulk.writeNext());
                } catch (RuntimeException thrown) {
                    t = thrown;
                }
                return new Refusal(t, batch.rowCount());
            } finally {
                server.faults().reset();
                db.shutdownNow();
            }
        }
    }

    @Test
    void theBulkWritersInFlightBatches() throws Exception {
        Refusal r = secondBatchOfAFullBulkWriter("limit_bulk");
        assertTrue(r.failure() instanceof LimitExceededException, "bulk: " + r.failure());
    }

    @Test
    void aBulkBatchRefusedForWantOfASlotKeepsItsRows() throws Exception {
        Refusal r = secondBatchOfAFullBulkWriter("limit_bulk_rows");
        assertTrue(r.failure() != null, "the batch was refused");
        assertEquals(2, r.rowsLeft(), "the refused batch keeps its rows (nothing was dropped)");
    }
}
