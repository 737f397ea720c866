package dev.sluice.bulk.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.BulkWriteException;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Under an {@code allocatorMaxAllocation} cap, the memory a writer keeps for batches that are all answered does not
 * count against the rows of its next batch: after a burst of small batches, all in flight at once and then all
 * answered, a batch of three quarters of the rows a fresh writer of the same cap takes is still taken whole.
 */
class AfterABurstOfSmallBatchesABatchThatFitsTheWritersCapIsStillTakenTest {
    static final long CAP = 2L << 20;
    static final String TEXT = "t".repeat(100);

    static TableSchema schema(String table) {
        return TableSchema.newBuilder(table).addTag("host", DataType.String).addField("msg", DataType.String)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
    }

    static BulkWrite.Config config() {
        return BulkWrite.Config.newBuilder().allocatorMaxAllocation(CAP).maxInFlightRequests(8).build();
    }

    /** Adds rows until one is refused for the cap; returns how many were taken. */
    static int rowsUnderTheCap(TableBufferRoot batch, long firstTs) {
        for (int i = 0; ; i++) {
            try {
                batch.addRow("h", TEXT, firstTs + i);
            } catch (BulkWriteException e) {
                return batch.rowCount();
            }
        }
    }

    @Test
    void theLargerBatchIsTaken() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            try {
                int fresh;
                try (BulkStreamWriter w = db.bulkStreamWriter(schema("cap_fresh"), config(),
                        Context.newBuilder().build())) {
                    TableBufferRoot batch = w.tableBufferRoot(300);
                    fresh = rowsUnderTheCap(batch, 0);
                    assertEquals(fresh, w.writeNext().get(120, TimeUnit.SECONDS));
                }
                server.faults().bulkAckDelay(Duration.ofMillis(300)); // the burst's batches all wait together
                long ts = 1_700_000_000_000L;
                try (BulkStreamWriter w = db.bulkStreamWriter(schema("cap_after_burst"), config(),
                        Context.newBuilder().build())) {
                    TableBufferRoot batch = w.tableBufferRoot(300);
                    List<CompletableFuture<Integer>> burst = new ArrayList<>();
                    for (int b = 0; b < 24; b++) {
                        for (int i = 0; i < 300; i++) {
                            batch.addRow("h", TEXT, ts++);
                        }
                        burst.add(w.writeNext());
                    }
                    for (CompletableFuture<Integer> f : burst) {
                        assertEquals(300, f.get(120, TimeUnit.SECONDS));
                    }
                    server.faults().bulkAckDelay(Duration.ZERO);
                    int wanted = fresh * 3 / 4;
                    assertTrue(wanted > 600, "the cap takes " + fresh + " rows");
                    long held = w.allocatedBytes();
                    for (int i = 0; i < wanted; i++) {
                        try {
                            batch.addRow("h", TEXT, ts++);
                        } catch (BulkWriteException e) {
                            throw new AssertionError("row " + i + " of " + wanted + " refused (a fresh writer took "
                                    + fresh + "); with every batch answered the writer held " + held + " bytes", e);
                        }
                    }
                    assertEquals(wanted, w.writeNext().get(120, TimeUnit.SECONDS));
                }
            } finally {
                db.shutdownNow();
            }
        }
    }
}
