package dev.sluice.bulk.threads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.metrics.MetricsSink;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Compression;
import dev.sluice.write.Context;
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.StatusCode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * With a callback executor of the user's own (a pool of several threads), a bulk writer's batch futures complete
 * there and their dependents run in the order the batches were written, whether the batches were stored or a batch
 * was refused and the batches after it lost with the stream; the metrics sink runs there too. A callback that blocks
 * holds back only the callbacks after it, never the sending of later batches.
 */
class BulkCallersCodeRunsOnTheUsersCallbackExecutorInBatchOrderTest {
    private static final TableSchema SCHEMA = TableSchema.newBuilder("user_callbacks").addTag("host", DataType.String)
            .addField("v", DataType.Int64).addTimestamp("ts", DataType.TimestampMillisecond).build();
    private static final String USER_THREADS = "user-callbacks-";
    private static final int BATCHES = 60;

    /** Writes the batches; returns "index outcome on thread" per dependent, in the order the dependents ran. */
    private static List<String> write(GreptimeTestServer server, ThreadRecordingSink sink, RetryPolicy policy)
            throws Exception {
        return write(server, sink, policy, Compression.None);
    }

    private static List<String> write(GreptimeTestServer server, ThreadRecordingSink sink, RetryPolicy policy,
                                      Compression compression) throws Exception {
        AtomicInteger n = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(4, r -> {
            Thread t = new Thread(r, USER_THREADS + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").metrics(sink)
                .callbackExecutor(pool).build());
        List<String> order = new ArrayList<>();
        try {
            assertTrue(db.createTable(SCHEMA, Context.newBuilder().build()).join().isOk());
            server.faults().bulkAckDelay(Duration.ofMillis(3));
            List<CompletableFuture<?>> dependents = new ArrayList<>();
            try (BulkStreamWriter w = db.bulkStreamWriter(SCHEMA, BulkWrite.Config.newBuilder()
                    .maxInFlightRequests(16).createTable(false).build(), Context.newBuilder().retryPolicy(policy)
                    .compression(compression).build())) {
                TableBufferRoot batch = w.tableBufferRoot(16);
                long ts = 0;
                for (int b = 0; b < BATCHES; b++) {
                    for (int r = 0; r < 5; r++) {
                        batch.addRow("h", (long) b, ts++);
                    }
                    CompletableFuture<Integer> f = w.writeNext();
                    if (f.isDone()) {
                        continue; // its dependents would run on this thread: only those attached before count
                    }
                    int index = b;
                    dependents.add(f.handle((rows, error) -> {
                        synchronized (order) {
                            order.add(index + (error == null ? " stored" : " failed") + " on "
                                    + Thread.currentThread().getName());
                        }
                        return null;
                    }));
                }
                for (CompletableFuture<?> d : dependents) {
                    d.get(1, TimeUnit.MINUTES);
                }
            } catch (RuntimeException endOfAFailedStream) {
                // close() reports the stream's failure; the dependents are what is checked
            }
        } finally {
            db.shutdownNow();
            pool.shutdownNow();
        }
        synchronized (order) {
            assertFalse(order.isEmpty(), "no dependent was attached before its answer: nothing was checked");
            return List.copyOf(order);
        }
    }

    private static void assertInBatchOrderOnTheUsersThreads(List<String> order) {
        int last = -1;
        for (String seen : order) {
            assertTrue(seen.contains(" on " + USER_THREADS), "a dependent ran " + seen + "; all: " + order);
            int index = Integer.parseInt(seen.substring(0, seen.indexOf(' ')));
            assertTrue(index > last, "dependents ran out of batch order: " + order);
            last = index;
        }
    }

    private static void assertTheSinkRanOnTheUsersThreads(ThreadRecordingSink sink) {
        assertFalse(sink.threads.isEmpty(), "the metrics sink heard nothing: nothing was checked");
        for (String seen : sink.threads) {
            assertTrue(seen.contains(" on " + USER_THREADS), "the metrics sink ran " + seen + "; all: " + sink.threads);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Compression.class)
    void storedBatchesCompleteInBatchOrderOnTheUsersExecutor(Compression compression) throws Exception {
        ThreadRecordingSink sink = new ThreadRecordingSink();
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            List<String> order = write(server, sink, RetryPolicy.newBuilder().build(), compression);
            assertEquals(5L * BATCHES, server.rowCount("user_callbacks"));
            assertTrue(order.stream().allMatch(s -> s.contains(" stored ")), order::toString);
            assertInBatchOrderOnTheUsersThreads(order);
            assertTheSinkRanOnTheUsersThreads(sink);
        }
    }

    /**
     * A stream that breaks for good at batch 20: every future, stored or failed, completes in batch order on the
     * user's executor, exactly the batches reported stored are on the server, and every report to the metrics sink
     * (the failures of the broken stream and of batches written after it included) runs on the user's executor.
     */
    @Test
    void storedAndFailedBatchesCompleteInBatchOrderOnTheUsersExecutor() throws Exception {
        ThreadRecordingSink sink = new ThreadRecordingSink();
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            server.faults().failBulkBatch(20, StatusCode.StorageUnavailable, "storage away for the test");
            List<String> order = write(server, sink, RetryPolicy.newBuilder().maxAttempts(1).build());
            long stored = order.stream().filter(s -> s.contains(" stored ")).count();
            assertTrue(order.stream().anyMatch(s -> s.contains(" failed ")), order::toString);
            assertTrue(stored > 0, order::toString);
            assertEquals(5 * stored, server.rowCount("user_callbacks"), "rows on the server against " + order);
            assertInBatchOrderOnTheUsersThreads(order);
            assertTrue(sink.threads.stream().anyMatch(s -> s.startsWith("failure ")), sink.threads::toString);
            assertTheSinkRanOnTheUsersThreads(sink);
        }
    }

    @Test
    void aBlockedCallbackDoesNotHoldBackTheLaterBatches() throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, USER_THREADS + "1");
            t.setDaemon(true);
            return t;
        });
        java.util.concurrent.CountDownLatch unblock = new java.util.concurrent.CountDownLatch(1);
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                    .callbackExecutor(pool).build());
            try {
                assertTrue(db.createTable(SCHEMA, Context.newBuilder().build()).join().isOk());
                List<CompletableFuture<Integer>> futures = new ArrayList<>();
                try (BulkStreamWriter w = db.bulkStreamWriter(SCHEMA, BulkWrite.Config.newBuilder()
                        .maxInFlightRequests(4).maxBlock(Duration.ofSeconds(30)).createTable(false).build(),
                        Context.newBuilder().build())) {
                    TableBufferRoot batch = w.tableBufferRoot(16);
                    long ts = 0;
                    for (int b = 0; b < BATCHES; b++) {
                        for (int r = 0; r < 5; r++) {
                            batch.addRow("h", (long) b, ts++);
                        }
                        CompletableFuture<Integer> f = w.writeNext();
                        if (b == 0) {
                            // The user's only callback thread blocks in the first batch's callback.
                            f.thenRun(() -> {
                                try {
                                    unblock.await(2, TimeUnit.MINUTES);
                                } catch (InterruptedException e) {
                                    Thread.currentThread().interrupt();
                                }
                            });
                        }
                        futures.add(f);
                    }
                    // Every batch was written (no writeNext waited out its maxBlock) and is stored.
                    for (CompletableFuture<Integer> f : futures) {
                        if (f.isDone()) {
                            assertEquals(5, f.join(), "a batch written while a callback blocked failed");
                        }
                    }
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                    while (server.rowCount("user_callbacks") < 5L * BATCHES) {
                        if (server.takeRequest(Duration.ofNanos(Math.max(1, deadline - System.nanoTime()))) == null) {
                            break;
                        }
                    }
                    assertEquals(5L * BATCHES, server.rowCount("user_callbacks"));
                    unblock.countDown();
                    for (CompletableFuture<Integer> f : futures) {
                        assertEquals(5, f.get(1, TimeUnit.MINUTES));
                    }
                    assertEquals(5L * BATCHES, w.completed());
                }
            } finally {
                unblock.countDown();
                db.shutdownNow();
                pool.shutdownNow();
            }
        }
    }
}
