package dev.sluice.bulk.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import dev.sluice.write.StatusCode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Batches of distinct sizes, answered late and one in forty rate limited (their streams broken and resent): each batch's
 * future completes with its own row count, an empty {@code writeNext()} answers 0 and sends nothing, and the writer's
 * total equals the rows stored.
 */
class EachBatchFutureCarriesItsOwnRowCountThroughResendsTest {
    static final TableSchema SCHEMA = TableSchema.newBuilder("own_counts").addTag("host", DataType.String)
            .addField("v", DataType.Int64).addTimestamp("ts", DataType.TimestampMillisecond).build();

    @Test
    void everyFutureHasItsBatchsRows() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            try {
                server.faults().bulkAckDelay(Duration.ofMillis(20));
                server.faults().failEvery(40, StatusCode.RateLimited, "slow down");
                List<CompletableFuture<Integer>> futures = new ArrayList<>();
                long ts = 0;
                long total = 0;
                try (BulkStreamWriter w = db.bulkStreamWriter(SCHEMA,
                        BulkWrite.Config.newBuilder().maxInFlightRequests(31).build(), Context.newBuilder().build())) {
                    TableBufferRoot batch = w.tableBufferRoot(8);
                    for (int b = 1; b <= 60; b++) {
                        for (int r = 0; r < b; r++) {
                            batch.addRow("h", (long) b, ts++);
                        }
                        total += b;
                        futures.add(w.writeNext());
                    }
                    CompletableFuture<Integer> empty = w.writeNext();
                    assertEquals(0, empty.get(60, TimeUnit.SECONDS));
                    for (int b = 1; b <= 60; b++) {
                        assertEquals(b, futures.get(b - 1).get(120, TimeUnit.SECONDS), "batch " + b);
                    }
                    assertEquals(total, w.completed());
                }
                assertEquals(total, server.rowCount("own_counts"));
                dev.sluice.bulk.NothingHeld.await(db, Duration.ofSeconds(60), false);
            } finally {
                db.shutdownNow();
            }
        }
    }
}
