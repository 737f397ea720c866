package dev.sluice.bulk.delivery;

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
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.StatusCode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Bulk batches are stored as written: on one stream in the order written, each with its own rows, and with a server
 * that refuses some of them for a while, each batch still stored exactly once with its own row count; the server
 * never has more of the writer's batches unanswered than {@code maxInFlightRequests}, across the reopened streams
 * too. After a batch refused for good (which fails the writer), each future tells the truth: a batch reported stored
 * is stored with its rows, a batch reported failed is not stored; {@code completed()} reports the refusal. A batch
 * with no rows completes as well.
 */
class BulkBatchesAreStoredOnceEachAsWrittenWithinTheInFlightBoundTest {
    private static final TableSchema SCHEMA = TableSchema.newBuilder("as_written").addTag("host", DataType.String)
            .addField("v", DataType.Int64).addTimestamp("ts", DataType.TimestampMillisecond).build();
    private static final int BATCHES = 120;

    private static int rowsOf(int b) {
        return 1 + (b * 7) % 9;
    }

    /** Writes the batches (batch b holds rowsOf(b) rows whose v is b); returns each future. */
    private static List<CompletableFuture<Integer>> write(BulkStreamWriter w) {
        TableBufferRoot batch = w.tableBufferRoot(16);
        List<CompletableFuture<Integer>> futures = new ArrayList<>();
        long ts = 0;
        for (int b = 0; b < BATCHES; b++) {
            for (int r = 0; r < rowsOf(b); r++) {
                batch.addRow("h", (long) b, ts++);
            }
            futures.add(w.writeNext());
        }
        return futures;
    }

    private static long checkFutures(List<CompletableFuture<Integer>> futures) throws Exception {
        long total = 0;
        for (int b = 0; b < BATCHES; b++) {
            try {
                assertEquals(rowsOf(b), futures.get(b).get(2, TimeUnit.MINUTES), "rows of batch " + b);
            } catch (ExecutionException e) {
                throw new AssertionError("batch " + b + " failed", e.getCause());
            }
            total += rowsOf(b);
        }
        return total;
    }

    @Test
    void onAHealthySlowServerEveryBatchIsStoredInTheOrderWritten() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            try {
                assertTrue(db.createTable(SCHEMA, Context.newBuilder().build()).join().isOk());
                server.faults().bulkAckDelay(Duration.ofMillis(2));
                long total;
                try (BulkStreamWriter w = db.bulkStreamWriter(SCHEMA, BulkWrite.Config.newBuilder()
                        .maxInFlightRequests(8).createTable(false).build(), Context.newBuilder().build())) {
                    List<CompletableFuture<Integer>> futures = write(w);
                    total = checkFutures(futures);
                    assertEquals(total, w.completed());
                    assertEquals(0, w.replays(), "a healthy server's stream was reopened");
                }
                List<Object> values = server.columns("as_written", "v").get(0);
                List<Object> expected = new ArrayList<>();
                for (int b = 0; b < BATCHES; b++) {
                    for (int r = 0; r < rowsOf(b); r++) {
                        expected.add((long) b);
                    }
                }
                assertEquals(expected, values, "rows stored out of the order written");
                assertTrue(server.bulkMaxUnanswered() <= 8, "unanswered at once: " + server.bulkMaxUnanswered());
            } finally {
                db.shutdownNow();
            }
        }
    }

    @Test
    void behindAServerRefusingSomeBatchesForAWhileEachBatchIsStoredOnceWithinTheBound() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                    .retryPolicy(RetryPolicy.newBuilder().maxAttempts(100)
                            .backoff(Duration.ofMillis(1), Duration.ofMillis(5))
                            .deliveryTimeout(Duration.ofSeconds(60)).build())
                    .build());
            try {
                assertTrue(db.createTable(SCHEMA, Context.newBuilder().build()).join().isOk());
                server.faults().bulkAckDelay(Duration.ofMillis(3));
                server.faults().failEvery(5, StatusCode.RateLimited, "slow down");
                long total;
                try (BulkStreamWriter w = db.bulkStreamWriter(SCHEMA, BulkWrite.Config.newBuilder()
                        .maxInFlightRequests(4).createTable(false).build(), Context.newBuilder().build())) {
                    List<CompletableFuture<Integer>> futures = write(w);
                    total = checkFutures(futures);
                    assertEquals(total, w.completed());
                    assertTrue(w.replays() > 0, "no batch was refused: nothing was checked");
                }
                Map<Long, Integer> perBatch = new TreeMap<>();
                for (Object v : server.columns("as_written", "v").get(0)) {
                    perBatch.merge((Long) v, 1, Integer::sum);
                }
                for (int b = 0; b < BATCHES; b++) {
                    assertEquals(rowsOf(b), perBatch.getOrDefault((long) b, 0), "rows stored of batch " + b);
                }
                assertTrue(server.bulkMaxUnanswered() <= 4, "unanswered at once: " + server.bulkMaxUnanswered());
            } finally {
                db.shutdownNow();
            }
        }
    }

    @Test
    void aBatchWithNoRowsCompletesAndTheNextBatchIsStored() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            try {
                assertTrue(db.createTable(SCHEMA, Context.newBuilder().build()).join().isOk());
                try (BulkStreamWriter w = db.bulkStreamWriter(SCHEMA, BulkWrite.Config.newBuilder()
                        .createTable(false).build(), Context.newBuilder().build())) {
                    TableBufferRoot batch = w.tableBufferRoot(4);
                    CompletableFuture<Integer> empty = w.writeNext();
                    try {
                        assertEquals(0, empty.get(1, TimeUnit.MINUTES));
                    } catch (ExecutionException refused) {
                        // refusing an empty batch is an answer too
                    }
                    batch.addRow("h", 1L, 1L);
                    assertEquals(1, w.writeNext().get(1, TimeUnit.MINUTES));
                    assertEquals(1, w.completed());
                }
                assertEquals(1, server.rowCount("as_written"));
            } finally {
                db.shutdownNow();
            }
        }
    }

    @Test
    void afterABatchRefusedForGoodEveryBatchReportedStoredIsStoredAndEveryBatchReportedFailedIsNot()
            throws Exception {
        int refused = 30; // 0-based index of the batch the server refuses
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            try {
                assertTrue(db.createTable(SCHEMA, Context.newBuilder().build()).join().isOk());
                server.faults().bulkAckDelay(Duration.ofMillis(3));
                server.faults().failBulkBatch(refused + 1, StatusCode.InvalidArguments, "refused for the test");
                Map<Long, Integer> reported = new TreeMap<>();
                try (BulkStreamWriter w = db.bulkStreamWriter(SCHEMA, BulkWrite.Config.newBuilder()
                        .maxInFlightRequests(8).createTable(false).build(), Context.newBuilder().build())) {
                    List<CompletableFuture<Integer>> futures = write(w);
                    for (int b = 0; b < BATCHES; b++) {
                        try {
                            reported.put((long) b, futures.get(b).get(2, TimeUnit.MINUTES));
                        } catch (ExecutionException failed) {
                            reported.put((long) b, 0);
                        }
                    }
                    assertEquals(0, reported.get((long) refused), "the refused batch did not fail");
                    assertEquals(rowsOf(0), reported.get(0L), "the first batch, answered before the refusal");
                    assertThrows(BulkWriteException.class, w::completed);
                }
                Map<Long, Integer> stored = new TreeMap<>();
                for (Object v : server.columns("as_written", "v").get(0)) {
                    stored.merge((Long) v, 1, Integer::sum);
                }
                for (int b = 0; b < BATCHES; b++) {
                    assertEquals(reported.get((long) b), stored.getOrDefault((long) b, 0),
                            "rows of batch " + b + " the future reported against rows the server stored");
                }
            } finally {
                db.shutdownNow();
            }
        }
    }
}
