package dev.sluice.errors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Await;
import dev.sluice.BatchWriteException;
import dev.sluice.BatchingWriter;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.ManualTimeClients;
import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.internal.send.ManualTime;
import dev.sluice.testkit.Faults;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.StatusCode;
import dev.sluice.write.WhenFull;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A batching writer's failed batch says who made the failure: a refusal by the server says so, with its code; a
 * failure the client made itself (no endpoint reached, the batch's deadline passed before it was sent, a local limit,
 * a row over the client's message size, the client's shutdown) says what the client decided and why, naming the
 * table and, where one was involved, the endpoint, and never that the server refused the batch.
 */
class BatchFailuresAreWordedByWhoMadeThemTest {
    private static final TableSchema CPU = TableSchema.newBuilder("cpu").addTag("host", DataType.String)
            .addField("usage", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();
    private static final TableSchema HELD = TableSchema.newBuilder("held").addTag("host", DataType.String)
            .addField("usage", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();
    private static final String SERVER_REFUSED = "server refused";
    private static GreptimeTestServer server;

    @BeforeAll
    static void start() {
        server = GreptimeTestServer.start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @AfterEach
    void reset() {
        server.faults().reset();
        server.clear();
    }

    /** Writes one row of {@code cpu} through a new batching writer and returns how its batch failed. */
    private static String failedBatch(GreptimeDB db, Context ctx, Object... row) {
        BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder().build(), ctx);
        try {
            CompletableFuture<Void> f = w.write(CPU, row);
            w.flush(Await.HANG_GUARD);
            CompletionException e = assertThrows(CompletionException.class,
                    () -> f.orTimeout(Await.HANG_GUARD.toSeconds(), TimeUnit.SECONDS).join());
            assertInstanceOf(BatchWriteException.class, e.getCause(), e.toString());
            return e.getCause().getMessage();
        } finally {
            w.close();
        }
    }

    private static String failedBatch(GreptimeDB db, Context ctx) {
        return failedBatch(db, ctx, "h1", 0.5, 1_700_000_000_000L);
    }

    private static Context once() {
        return Context.newBuilder().retryPolicy(RetryPolicy.newBuilder().maxAttempts(1).build()).build();
    }

    @Test
    void aRefusalByTheServerSaysTheServerRefusedTheBatchWithItsCode() {
        server.faults().failNext(1, StatusCode.InvalidArguments, "column usage is not a number");
        try (GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build())) {
            String msg = failedBatch(db, once());
            assertTrue(msg.contains("the server refused the batch"), msg);
            assertTrue(msg.contains("1004"), "the server's code: " + msg);
            assertTrue(msg.contains("'cpu'"), msg);
            assertTrue(msg.contains("column usage is not a number"), msg);
        }
    }

    @Test
    void noEndpointReachedIsNoRefusal() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort(); // closed at once: nothing listens there
        }
        String endpoint = "127.0.0.1:" + port;
        try (GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(endpoint, "public").build())) {
            String msg = failedBatch(db, once());
            assertFalse(msg.contains(SERVER_REFUSED), msg);
            assertTrue(msg.contains(endpoint), "names the endpoint: " + msg);
            assertTrue(msg.contains("'cpu'"), msg);
        }
    }

    /**
     * On a manual clock the batch's delivery deadline, under a millisecond away, is still ahead when the batch is
     * sent, and too close for an attempt: the client sends nothing.
     */
    @Test
    void aDeadlineThatPassedBeforeTheBatchWasSentIsNoRefusal() {
        ManualTime time = new ManualTime();
        GreptimeDB db = ManualTimeClients.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build(), time);
        try {
            String msg = failedBatch(db, Context.newBuilder().retryPolicy(RetryPolicy.newBuilder()
                    .deliveryTimeout(Duration.ofNanos(500_000)).build()).build());
            assertFalse(msg.contains(SERVER_REFUSED), msg);
            assertTrue(msg.contains("deadline"), msg);
            assertTrue(msg.contains(server.endpoint()), "names the endpoint not tried: " + msg);
            assertTrue(msg.contains("'cpu'"), msg);
            assertEquals(0, server.rowCount("cpu"), "nothing was sent");
        } finally {
            db.shutdownNow();
        }
    }

    @Test
    void theClientsInFlightLimitIsNoRefusal() throws Exception {
        server.faults().hold(Faults.HoldPoint.BEFORE_ANSWER, r -> r.tables().contains("held"));
        try (GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                .maxInFlightRequests(1).whenFull(WhenFull.FailFast).build())) {
            var held = db.write(Table.from(HELD).addRow("h1", 0.5, 1_700_000_000_000L));
            server.faults().awaitHeld(1, Await.HANG_GUARD);
            String msg;
            try {
                msg = failedBatch(db, once());
            } finally {
                server.faults().release();
            }
            assertFalse(msg.contains(SERVER_REFUSED), msg);
            assertTrue(msg.contains("maxInFlightRequests"), "names the limit: " + msg);
            assertTrue(msg.contains("'cpu'"), msg);
            assertTrue(held.join().isOk(), "the held write is answered once released");
            assertEquals(0, server.rowCount("cpu"), "the batch was not sent");
        }
    }

    @Test
    void aRowOverTheClientsMessageSizeIsNoRefusal() {
        try (GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                .maxMessageSize(1024).build())) {
            String msg = failedBatch(db, once(), "h".repeat(4096), 0.5, 1_700_000_000_000L);
            assertFalse(msg.contains(SERVER_REFUSED), msg);
            assertTrue(msg.contains("maxMessageSize"), "names the limit: " + msg);
            assertTrue(msg.contains("'cpu'"), msg);
            assertEquals(0, server.rowCount("cpu"), "nothing was sent");
        }
    }

    @Test
    void theClientsShutdownIsNoRefusal() throws Exception {
        server.faults().hold(Faults.HoldPoint.BEFORE_ANSWER);
        GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
        BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder().build());
        CompletableFuture<Void> f = w.write(CPU, "h1", 0.5, 1_700_000_000_000L);
        CompletableFuture.runAsync(() -> w.flush(Await.HANG_GUARD));
        server.faults().awaitHeld(1, Await.HANG_GUARD);
        db.shutdownNow();
        CompletionException e = assertThrows(CompletionException.class,
                () -> f.orTimeout(Await.HANG_GUARD.toSeconds(), TimeUnit.SECONDS).join());
        String msg = e.getCause().getMessage();
        assertFalse(msg.contains(SERVER_REFUSED), msg);
        assertTrue(msg.contains("'cpu'"), msg);
        assertTrue(msg.contains("shut down"), "says the client was shut down: " + msg);
    }
}
