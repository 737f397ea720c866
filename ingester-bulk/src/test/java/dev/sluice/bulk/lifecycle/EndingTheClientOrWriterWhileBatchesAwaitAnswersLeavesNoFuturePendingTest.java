package dev.sluice.bulk.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.Faults;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import dev.sluice.write.RetryPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Whatever ends a bulk writer's stream while its batches await answers the server holds (the client shut down at once
 * or after a grace period, the writer closed, the server gone), every batch future completes: the batches in flight,
 * the batch of a producer blocked for an answer slot, and the thread waiting in {@code completed()}. A graceful
 * shutdown behind a server that is merely slow waits for the answers and stores every batch.
 */
class EndingTheClientOrWriterWhileBatchesAwaitAnswersLeavesNoFuturePendingTest {
    private static final TableSchema SCHEMA = TableSchema.newBuilder("ended_in_flight").addTag("host", DataType.String)
            .addField("v", DataType.Int64).addTimestamp("ts", DataType.TimestampMillisecond).build();
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int IN_FLIGHT = 5;

    /** What ends the stream, and how the server went silent before it. */
    enum Ending {
        SHUTDOWN_NOW(Faults.HoldPoint.BEFORE_ANSWER, (s, db, w) -> db.shutdownNow()),
        SHUTDOWN_GRACEFULLY_PAST_ITS_TIMEOUT(Faults.HoldPoint.BEFORE_ANSWER,
                (s, db, w) -> db.shutdownGracefully(Duration.ofMillis(300))),
        WRITER_CLOSED(Faults.HoldPoint.BEFORE_ANSWER, (s, db, w) -> w.close()),
        /** A hung server (no hold: the batches are not stored, their stream never ends) that then goes away. */
        HUNG_SERVER_STOPPED(null, (s, db, w) -> s.stop());

        final Faults.HoldPoint hold;
        final Action action;

        Ending(Faults.HoldPoint hold, Action action) {
            this.hold = hold;
            this.action = action;
        }
    }

    @FunctionalInterface
    interface Action {
        void run(GreptimeTestServer server, GreptimeDB db, BulkStreamWriter writer) throws Exception;
    }

    private static void fill(TableBufferRoot batch, int b) {
        for (int r = 0; r < 4; r++) {
            batch.addRow("h", (long) b, (long) b * 10 + r);
        }
    }

    /** Waits for a future to complete, either way; fails when it is still pending at the deadline. */
    private static void awaitDone(CompletableFuture<?> f, String what) throws InterruptedException {
        try {
            f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        } catch (ExecutionException failed) {
            // completed with an error: not pending
        } catch (TimeoutException e) {
            throw new AssertionError(what + " is still pending " + WAIT + " after the stream was ended");
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Ending.class)
    void everyBatchFutureAndTheWaitInCompletedEnd(Ending ending) throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            BulkStreamWriter w = null;
            try {
                assertTrue(db.createTable(SCHEMA, Context.newBuilder().build()).join().isOk());
                if (ending.hold != null) {
                    server.faults().hold(ending.hold);
                } else {
                    server.faults().neverRespond(true);
                }
                RetryPolicy policy = RetryPolicy.newBuilder().deliveryTimeout(Duration.ofSeconds(5)).build();
                w = db.bulkStreamWriter(SCHEMA, BulkWrite.Config.newBuilder().maxInFlightRequests(IN_FLIGHT)
                        .maxBlock(WAIT).createTable(false).build(), Context.newBuilder().retryPolicy(policy).build());
                BulkStreamWriter writer = w;
                TableBufferRoot batch = w.tableBufferRoot(8);
                List<CompletableFuture<Integer>> futures = new ArrayList<>();
                for (int b = 0; b < IN_FLIGHT; b++) {
                    fill(batch, b);
                    futures.add(w.writeNext());
                }
                if (ending.hold != null) {
                    server.faults().awaitHeld(IN_FLIGHT, WAIT);
                }
                // A producer waits for an answer slot, and another thread waits for the writer's total.
                CompletableFuture<CompletableFuture<Integer>> blocked = CompletableFuture.supplyAsync(() -> {
                    fill(batch, IN_FLIGHT);
                    return writer.writeNext();
                });
                CompletableFuture<Long> total = CompletableFuture.supplyAsync(writer::completed);

                ending.action.run(server, db, w);

                for (int b = 0; b < IN_FLIGHT; b++) {
                    awaitDone(futures.get(b), "the future of batch " + b);
                }
                CompletableFuture<Integer> last;
                try {
                    last = blocked.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                } catch (ExecutionException refused) {
                    last = CompletableFuture.completedFuture(0); // writeNext threw: the writer was ended
                } catch (TimeoutException e) {
                    throw new AssertionError("the producer waiting for an answer slot is still blocked");
                }
                awaitDone(last, "the future of the batch written while waiting for a slot");
                awaitDone(total, "completed()");
            } finally {
                if (w != null) {
                    w.close();
                }
                db.shutdownNow();
            }
        }
    }

    @Test
    void aGracefulShutdownBehindASlowServerStoresEveryBatchInFlight() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            try {
                assertTrue(db.createTable(SCHEMA, Context.newBuilder().build()).join().isOk());
                server.faults().bulkAckDelay(Duration.ofMillis(300));
                BulkStreamWriter w = db.bulkStreamWriter(SCHEMA, BulkWrite.Config.newBuilder()
                        .maxInFlightRequests(IN_FLIGHT).createTable(false).build(), Context.newBuilder().build());
                TableBufferRoot batch = w.tableBufferRoot(8);
                List<CompletableFuture<Integer>> futures = new ArrayList<>();
                for (int b = 0; b < IN_FLIGHT; b++) {
                    fill(batch, b);
                    futures.add(w.writeNext());
                }
                assertTrue(db.shutdownGracefully(WAIT), "the graceful shutdown did not finish in " + WAIT);
                for (int b = 0; b < IN_FLIGHT; b++) {
                    assertEquals(4, futures.get(b).get(WAIT.toSeconds(), TimeUnit.SECONDS), "batch " + b);
                }
                assertEquals(4L * IN_FLIGHT, server.rowCount("ended_in_flight"));
                w.close();
            } finally {
                db.shutdownNow();
            }
        }
    }
}
