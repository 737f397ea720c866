package dev.sluice.bulk.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.LimitExceededException;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.Faults;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.RecordedRequest;
import dev.sluice.write.Compression;
import dev.sluice.write.Context;
import dev.sluice.write.WhenFull;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A bulk writer pipelines: while the server holds its answers, as many batches as {@code maxInFlightRequests} allows
 * reach the server (are stored there) without waiting for any answer, and no more than that; once the answers go out
 * every batch completes with its own row count. A batch whose answer the server holds does not keep the later batches
 * from being sent and stored. Behind a server whose answers are merely slow (seconds late) the whole pipeline is
 * stored before the first answer comes. A writer whose answers are held does not hold back another writer of the same
 * client.
 */
class BatchesWrittenWhileTheServerHoldsAnswersReachTheServerUpToTheInFlightBoundTest {
    private static final TableSchema SCHEMA = TableSchema.newBuilder("held_answers").addTag("host", DataType.String)
            .addField("v", DataType.Int64).addTimestamp("ts", DataType.TimestampMillisecond).build();
    private static final Duration WAIT = Duration.ofSeconds(60);

    /** Adds {@code rows} rows to the batch, continuing the timestamps at {@code ts}; returns the next timestamp. */
    private static long fill(TableBufferRoot batch, int rows, long ts, long value) {
        for (int r = 0; r < rows; r++) {
            batch.addRow("h", value, ts++);
        }
        return ts;
    }

    /** Waits until the server stored {@code rows} rows in bulk; fails naming what it has at the deadline. */
    private static void awaitStored(GreptimeTestServer server, long rows) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        long stored = 0;
        while (stored < rows) {
            long left = deadline - System.nanoTime();
            RecordedRequest r = left > 0 ? server.takeRequest(Duration.ofNanos(left)) : null;
            if (r == null) {
                throw new AssertionError("the server stored " + stored + " of " + rows + " rows within " + WAIT);
            }
            if ("DoPut".equals(r.method())) {
                stored += r.rows();
            }
        }
    }

    @ParameterizedTest(name = "maxInFlightRequests={0}")
    @ValueSource(ints = {1, 2, 8, 31})
    void asManyBatchesAsTheBoundAllowsReachTheServerBeforeAnyAnswerAndNoMore(int inFlight) throws Exception {
        asManyBatchesAsTheBoundAllows(inFlight, Compression.None);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Compression.class)
    void withEveryCompressionTheBatchesReachTheServerBeforeAnyAnswer(Compression compression) throws Exception {
        asManyBatchesAsTheBoundAllows(8, compression);
    }

    private static void asManyBatchesAsTheBoundAllows(int inFlight, Compression compression) throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            try {
                assertTrue(db.createTable(SCHEMA, Context.newBuilder().build()).join().isOk());
                server.faults().hold(Faults.HoldPoint.BEFORE_ANSWER);
                List<CompletableFuture<Integer>> futures = new ArrayList<>();
                long ts = 0;
                int expectedRows = 0;
                try (BulkStreamWriter w = db.bulkStreamWriter(SCHEMA, BulkWrite.Config.newBuilder()
                        .maxInFlightRequests(inFlight).whenFull(WhenFull.FailFast).createTable(false).build(),
                        Context.newBuilder().compression(compression).build())) {
                    TableBufferRoot batch = w.tableBufferRoot(64);
                    for (int b = 1; b <= inFlight; b++) {
                        ts = fill(batch, b, ts, b); // batch b holds b rows
                        futures.add(w.writeNext());
                        expectedRows += b;
                    }
                    // Every batch is stored with its answer held: all were sent without waiting for one.
                    server.faults().awaitHeld(inFlight, WAIT);
                    assertEquals(expectedRows, server.rowCount("held_answers"));
                    for (CompletableFuture<Integer> f : futures) {
                        assertFalse(f.isDone(), "a batch completed although the server answered none: " + f);
                    }

                    // One more is refused at once: the bound is reached, and the batch keeps its rows.
                    ts = fill(batch, 5, ts, 99);
                    CompletableFuture<Integer> refused = w.writeNext();
                    ExecutionException e = assertThrows(ExecutionException.class,
                            () -> refused.get(WAIT.toSeconds(), TimeUnit.SECONDS));
                    assertInstanceOf(LimitExceededException.class, e.getCause(), e.toString());
                    assertEquals(inFlight, server.faults().heldCount(), "a batch past the bound reached the server");

                    server.faults().release();
                    for (int b = 1; b <= inFlight; b++) {
                        assertEquals(b, futures.get(b - 1).get(WAIT.toSeconds(), TimeUnit.SECONDS),
                                "batch " + b + " rows");
                    }
                    // The refused batch's rows are sent by the next writeNext.
                    assertEquals(5, w.writeNext().get(WAIT.toSeconds(), TimeUnit.SECONDS));
                    assertEquals(expectedRows + 5, w.completed());
                }
                assertEquals(expectedRows + 5, server.rowCount("held_answers"));
            } finally {
                db.shutdownNow();
            }
        }
    }

    @Test
    void aBatchWhoseAnswerIsHeldDoesNotKeepTheLaterBatchesFromTheServer() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            try {
                assertTrue(db.createTable(SCHEMA, Context.newBuilder().build()).join().isOk());
                AtomicInteger seen = new AtomicInteger();
                // Only the first batch's answer is held; every later batch is answered as it is stored.
                server.faults().hold(Faults.HoldPoint.BEFORE_ANSWER,
                        r -> "DoPut".equals(r.method()) && seen.incrementAndGet() == 1);
                List<CompletableFuture<Integer>> futures = new ArrayList<>();
                long ts = 0;
                int total = 0;
                try (BulkStreamWriter w = db.bulkStreamWriter(SCHEMA, BulkWrite.Config.newBuilder()
                        .maxInFlightRequests(8).createTable(false).build(), Context.newBuilder().build())) {
                    TableBufferRoot batch = w.tableBufferRoot(64);
                    for (int b = 1; b <= 40; b++) {
                        ts = fill(batch, 1 + b % 7, ts, b);
                        total += 1 + b % 7;
                        futures.add(w.writeNext());
                    }
                    // All 40 batches reach the server while the first one's answer is still held.
                    awaitStored(server, total);
                    assertEquals(1, server.faults().heldCount());
                    assertFalse(futures.get(0).isDone(), "the first batch completed although its answer is held");
                    server.faults().release();
                    for (int b = 1; b <= 40; b++) {
                        assertEquals(1 + b % 7, futures.get(b - 1).get(WAIT.toSeconds(), TimeUnit.SECONDS),
                                "batch " + b + " rows");
                    }
                    assertEquals(total, w.completed());
                }
                assertEquals(total, server.rowCount("held_answers"));
            } finally {
                db.shutdownNow();
            }
        }
    }

    @Test
    void behindAServerAnsweringSecondsLateTheWholePipelineIsStoredBeforeTheFirstAnswer() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            try {
                assertTrue(db.createTable(SCHEMA, Context.newBuilder().build()).join().isOk());
                try (BulkStreamWriter w = db.bulkStreamWriter(SCHEMA, BulkWrite.Config.newBuilder()
                        .maxInFlightRequests(8).createTable(false).build(), Context.newBuilder().build())) {
                    TableBufferRoot batch = w.tableBufferRoot(64);
                    long ts = fill(batch, 1, 0, 0);
                    assertEquals(1, w.writeNext().get(WAIT.toSeconds(), TimeUnit.SECONDS)); // the stream is open
                    server.faults().bulkAckDelay(Duration.ofSeconds(3));
                    List<CompletableFuture<Integer>> futures = new ArrayList<>();
                    for (int b = 1; b <= 8; b++) {
                        ts = fill(batch, b, ts, b);
                        futures.add(w.writeNext());
                    }
                    for (int b = 1; b <= 8; b++) {
                        assertEquals(b, futures.get(b - 1).get(WAIT.toSeconds(), TimeUnit.SECONDS));
                    }
                    // The server's high-water mark of batches stored and not yet answered.
                    assertEquals(8, server.bulkMaxUnanswered(), "batches stored before the first delayed answer");
                }
            } finally {
                db.shutdownNow();
            }
        }
    }

    @Test
    void aWriterWhoseAnswersAreHeldDoesNotHoldBackAnotherWriterOfTheClient() throws Exception {
        TableSchema other = TableSchema.newBuilder("answered_meanwhile").addTag("host", DataType.String)
                .addField("v", DataType.Int64).addTimestamp("ts", DataType.TimestampMillisecond).build();
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            try {
                assertTrue(db.createTable(SCHEMA, Context.newBuilder().build()).join().isOk());
                assertTrue(db.createTable(other, Context.newBuilder().build()).join().isOk());
                server.faults().hold(Faults.HoldPoint.BEFORE_ANSWER, r -> r.tables().contains("held_answers"));
                BulkWrite.Config config = BulkWrite.Config.newBuilder().maxInFlightRequests(4).createTable(false)
                        .build();
                try (BulkStreamWriter held = db.bulkStreamWriter(SCHEMA, config, Context.newBuilder().build());
                     BulkStreamWriter free = db.bulkStreamWriter(other, config, Context.newBuilder().build())) {
                    List<CompletableFuture<Integer>> heldFutures = new ArrayList<>();
                    TableBufferRoot heldBatch = held.tableBufferRoot(8);
                    long ts = 0;
                    for (int b = 1; b <= 4; b++) {
                        ts = fill(heldBatch, 2, ts, b);
                        heldFutures.add(held.writeNext());
                    }
                    server.faults().awaitHeld(4, WAIT);
                    TableBufferRoot freeBatch = free.tableBufferRoot(8);
                    for (int b = 1; b <= 40; b++) {
                        fill(freeBatch, 3, b * 10L, b);
                        assertEquals(3, free.writeNext().get(WAIT.toSeconds(), TimeUnit.SECONDS), "batch " + b);
                    }
                    assertEquals(120, free.completed());
                    assertEquals(4, server.faults().heldCount());
                    server.faults().release();
                    for (CompletableFuture<Integer> f : heldFutures) {
                        assertEquals(2, f.get(WAIT.toSeconds(), TimeUnit.SECONDS));
                    }
                    assertEquals(8, held.completed());
                }
                assertEquals(120, server.rowCount("answered_meanwhile"));
                assertEquals(8, server.rowCount("held_answers"));
            } finally {
                db.shutdownNow();
            }
        }
    }
}
