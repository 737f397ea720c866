package dev.sluice.bulk.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.Await;
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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

/**
 * The application's {@code callbackExecutor} is shut down (its service stopping) while bulk batches are in flight, so
 * it refuses the completions handed to it. Every batch future must still complete, and the writer's budget and memory
 * be given back: a refused hand-off must not leave a future pending forever.
 */
class ACallbackExecutorThatRefusesWorkLeavesNoBatchFuturePendingTest {
    static final TableSchema SCHEMA = TableSchema.newBuilder("refusing_executor").addTag("host", DataType.String)
            .addField("v", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();

    /** Far longer than a released answer takes to arrive, far shorter than any timeout of the client. */
    private static final Duration ANSWERED = Duration.ofSeconds(15);

    @Test
    void everyFutureCompletes() throws Exception {
        ExecutorService callbacks = Executors.newFixedThreadPool(2);
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                    .callbackExecutor(callbacks).build());
            try {
                assertEquals(true, db.createTable(SCHEMA, Context.newBuilder().build()).join().isOk());
                server.faults().hold(dev.sluice.testkit.Faults.HoldPoint.BEFORE_ANSWER);
                List<CompletableFuture<Integer>> futures = new ArrayList<>();
                try (BulkStreamWriter w = db.bulkStreamWriter(SCHEMA,
                        BulkWrite.Config.newBuilder().createTable(false).build(), Context.newBuilder().build())) {
                    TableBufferRoot batch = w.tableBufferRoot(10);
                    for (int b = 0; b < 4; b++) {
                        for (int i = 0; i < 10; i++) {
                            batch.addRow("h", i * 1.0, (long) (b * 10 + i));
                        }
                        futures.add(w.writeNext());
                    }
                    server.faults().awaitHeld(4, Duration.ofSeconds(60));
                    callbacks.shutdown();
                    server.faults().release();
                    for (CompletableFuture<Integer> f : futures) {
                        Await.until("the batch's future completes", ANSWERED, f::isDone);
                    }
                }
                assertEquals(40, server.rowCount("refusing_executor"));
                dev.sluice.bulk.NothingHeld.await(db, ANSWERED, true);
            } finally {
                db.shutdownNow();
                callbacks.shutdownNow();
            }
        }
    }
}
