package dev.sluice.bulk.threads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Await;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.BulkWriteException;
import dev.sluice.bulk.NothingHeld;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import dev.sluice.write.StatusCode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A program closes its bulk writer from the callback of a failed batch, on a client whose callback executor has a
 * single thread: close returns there (it waits for nothing only that thread could do), every batch future completes
 * in batch order (the ones before the refused batch stored, the others failed), and nothing is held afterwards.
 */
class ClosingABulkWriterFromItsOwnFailureCallbackOnASingleCallbackThreadEndsEveryBatchTest {
    private static final Duration BOUND = Duration.ofSeconds(30);
    private static final String TABLE = "close_in_callback";

    @Test
    void closeInTheCallbackEndsEveryBatch() throws Exception {
        TableSchema schema = TableSchema.newBuilder(TABLE).addTag("host", DataType.String)
                .addField("v", DataType.Int64).addTimestamp("ts", DataType.TimestampMillisecond).build();
        ExecutorService callbacks = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "user-callbacks");
            t.setDaemon(true);
            return t;
        });
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                    .callbackExecutor(callbacks).build());
            try {
                assertTrue(db.write(Table.from(schema).addRow("setup", 0L, 0L)).get(30, TimeUnit.SECONDS).isOk());
                server.faults().failBulkBatch(3, StatusCode.InvalidArguments, "refused for good");
                BulkStreamWriter w = db.bulkStreamWriter(schema, BulkWrite.Config.newBuilder().createTable(false)
                        .build(), Context.newBuilder().build());
                List<CompletableFuture<Integer>> acks = new ArrayList<>();
                List<Integer> order = java.util.Collections.synchronizedList(new ArrayList<>());
                CompletableFuture<String> closedInCallback = new CompletableFuture<>();
                java.util.concurrent.CountDownLatch allWritten = new java.util.concurrent.CountDownLatch(1);
                TableBufferRoot batch = w.tableBufferRoot(8);
                long ts = 1;
                for (int b = 0; b < 6; b++) {
                    for (int i = 0; i < 5; i++, ts++) {
                        batch.addRow("h", ts, ts);
                    }
                    int n = b;
                    CompletableFuture<Integer> f = w.writeNext();
                    f.whenComplete((rows, t) -> {
                        order.add(n);
                        if (t != null && !closedInCallback.isDone()) {
                            try {
                                // The producer has written every batch: close ends a writer with batches to end.
                                assertTrue(allWritten.await(BOUND.toSeconds(), TimeUnit.SECONDS));
                                w.close();
                                closedInCallback.complete(Thread.currentThread().getName());
                            } catch (Throwable e) {
                                closedInCallback.completeExceptionally(e);
                            }
                        }
                    });
                    acks.add(f);
                }
                allWritten.countDown();
                assertEquals("user-callbacks", closedInCallback.get(BOUND.toSeconds(), TimeUnit.SECONDS),
                        "close returned inside the failure callback");
                for (CompletableFuture<Integer> f : acks) {
                    Await.until("every batch future completes", BOUND, f::isDone);
                }
                assertEquals(5, acks.get(0).get());
                assertEquals(5, acks.get(1).get());
                for (int b = 2; b < 6; b++) {
                    try {
                        acks.get(b).get();
                        throw new AssertionError("batch " + (b + 1) + " was stored after the refusal");
                    } catch (ExecutionException e) {
                        assertTrue(e.getCause() instanceof BulkWriteException, e.getCause()::toString);
                    }
                }
                Await.until("every callback ran", BOUND, () -> order.size() == 6);
                assertEquals(List.of(0, 1, 2, 3, 4, 5), order, "callbacks in batch order");
                assertEquals(11, server.rowCount(TABLE));
                NothingHeld.await(db, BOUND, true);
            } finally {
                db.shutdownNow();
                callbacks.shutdownNow();
            }
        }
    }
}
