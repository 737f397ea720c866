package dev.sluice.delivery;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Await;
import dev.sluice.BatchingWriter;
import dev.sluice.write.Context;
import dev.sluice.write.Err;
import dev.sluice.GreptimeDB;
import dev.sluice.write.Result;
import dev.sluice.write.RetryPolicy;
import dev.sluice.StreamWriter;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.write.WhenFull;
import dev.sluice.write.WriteOk;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.testkit.GreptimeTestServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Shutting the client down while writes are unanswered, waiting to retry or blocked at a limit: shutdownNow fails
 * them at once and releases blocked producers, shutdownGracefully completes every future and stops every client
 * thread, and writers left open still close cleanly.
 */
class ShutdownDuringDeliveryTest extends DeliveryUnderFaultsKit {
    @Test
    void shutdownNowFailsUnansweredBulkBatchesAtOnceAndTheWriterStillClosesCleanly() throws Exception {
        Set<Thread> before = clientThreads();
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(opts(server).build()); // default 2 min delivery deadline
            TableSchema s = schema("now_bulk");
            BulkStreamWriter w = db.bulkStreamWriter(s, BulkWrite.Config.newBuilder().maxInFlightRequests(4).build(),
                    Context.newBuilder().build());
            server.faults().bulkNeverAck(true);
            TableBufferRoot root = w.tableBufferRoot(200);
            List<CompletableFuture<Integer>> acks = new ArrayList<>();
            for (int b = 0; b < 4; b++) {
                root.addTable(table(s, b * 200L, 200, 0));
                acks.add(w.writeNext());
            }
            Kit.await("the 4 batches stored and left unanswered", Duration.ofSeconds(BOUND_S),
                    () -> Kit.stored(server, "now_bulk") == 800);
            db.shutdownNow();
            Tally t = new Tally(15);
            acks.forEach(a -> t.await(a, 200, n -> (long) n));
            assertAbortContract("bulk/shutdownNow", 800, t, server.rowCount("now_bulk"));
            assertDoesNotThrow(w::close, "bulk close after shutdownNow");
            assertEquals(0, w.allocatedBytes());
        }
        assertNoNewClientThreads(before);
    }

    @Test
    void shutdownNowFailsTheFutureOfAStreamWaitingToReopen() throws Exception {
        Set<Thread> before = clientThreads();
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(opts(server).build());
            TableSchema s = schema("now_stream");
            StreamWriter<Table, WriteOk> w = db.streamWriter(StreamWriter.Config.newBuilder().build(), Context.newBuilder().build());
            w.write(table(s, 0, 100, 0));
            server.stop();
            CompletableFuture<WriteOk> done = w.completed();
            // now it waits to reopen, with a 2 min deadline
            Kit.await("the stream waits to reopen", Duration.ofSeconds(BOUND_S), () -> w.replays() >= 1);
            db.shutdownNow();
            Tally t = new Tally(15);
            t.await(done, 100, ok -> (long) ok.affectedRows());
            server.resume();
            assertAbortContract("stream/shutdownNow", 100, t, server.rowCount("now_stream"));
        }
        assertNoNewClientThreads(before);
    }

    @Test
    void shutdownNowFailsRegularWritesWaitingToRetryAtOnce() throws Exception {
        Set<Thread> before = clientThreads();
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(opts(server).build());
            TableSchema s = schema("now_regular");
            server.stop();
            List<CompletableFuture<Result<WriteOk, Err>>> fs = new ArrayList<>();
            for (int b = 0; b < 10; b++) {
                fs.add(db.write(table(s, b * 100L, 100, 0)));
            }
            Kit.await("every write failed once and waits to retry", Duration.ofSeconds(BOUND_S),
                    () -> db.stats().retries() >= 10);
            db.shutdownNow();
            Tally t = new Tally(15);
            fs.forEach(f -> t.regular(f, 100));
            server.resume();
            assertContract("regular/shutdownNow", 1_000, t, server.rowCount("now_regular"));
        }
        assertNoNewClientThreads(before);
    }

    @ParameterizedTest
    @EnumSource(BatchingWriter.Path.class)
    void shutdownNowFailsBatchingRowsOfAHungServerAndLeavesNothingPending(BatchingWriter.Path path) throws Exception {
        Set<Thread> before = clientThreads();
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            // a delivery deadline longer than the hang guard: only shutdownNow can end these writes in time
            GreptimeDB db = GreptimeDB.create(opts(server).retryPolicy(beyondTheHangGuard()).build());
            TableSchema s = schema("now_batching_" + path);
            BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder().path(path).maxBatchRows(100).build());
            // the first batch creates the table (bulk) and goes through; then the server hangs
            w.write(s, row(-1, 0)).get(BOUND_S, TimeUnit.SECONDS);
            server.faults().neverRespond(true).bulkNeverAck(true);
            List<CompletableFuture<Void>> fs = new ArrayList<>();
            for (long i = 0; i < 1_000; i++) {
                fs.add(w.write(s, row(i, 0)));
            }
            Kit.await("a batch held by the hung server", Duration.ofSeconds(BOUND_S),
                    () -> Kit.holdsAnUnansweredRequest(server));
            Await.returns("shutdownNow with a hung server", db::shutdownNow);
            Tally t = new Tally(Await.HANG_GUARD.toSeconds());
            fs.forEach(f -> t.await(f, 1, v -> 1L));
            assertAbortContract("batching-" + path + "/shutdownNow", 1_000, t, server.rowCount(s.tableName()) - 1);
            assertEquals(0, w.pendingRows(), "pendingRows after shutdownNow");
        }
        assertNoNewClientThreads(before);
    }

    @Test
    void shutdownGracefullyWithWritersLeftOpenCompletesEveryFutureAndStopsEveryThread() throws Exception {
        Set<Thread> before = clientThreads();
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = shortClient(server);
            TableSchema sb = schema("grace_batching");
            TableSchema ss = schema("grace_stream");
            TableSchema sk = schema("grace_bulk");
            BatchingWriter bw = db.batchingWriter(BatchingWriter.Config.newBuilder()
                    .flushInterval(Duration.ofSeconds(30)).build());
            List<CompletableFuture<Void>> rows = new ArrayList<>();
            for (long i = 0; i < 500; i++) {
                rows.add(bw.write(sb, row(i, 0)));
            }
            StreamWriter<Table, WriteOk> sw = db.streamWriter(StreamWriter.Config.newBuilder().build(), Context.newBuilder().build());
            sw.write(table(ss, 0, 100, 0)); // never completed by the user
            BulkStreamWriter kw = db.bulkStreamWriter(sk, BulkWrite.Config.newBuilder().build(), Context.newBuilder().build());
            server.faults().bulkAckDelay(Duration.ofMillis(500));
            TableBufferRoot root = kw.tableBufferRoot(100);
            List<CompletableFuture<Integer>> acks = new ArrayList<>();
            for (int b = 0; b < 3; b++) {
                root.addTable(table(sk, b * 100L, 100, 0));
                acks.add(kw.writeNext());
            }
            db.shutdownGracefully(Duration.ofSeconds(10));
            Tally tb = new Tally(BOUND_S);
            rows.forEach(f -> tb.await(f, 1, v -> 1L));
            assertContract("batching/shutdownGracefully", 500, tb, server.rowCount("grace_batching"));
            assertEquals(0, bw.pendingRows());
            Tally tk = new Tally(BOUND_S);
            acks.forEach(a -> tk.await(a, 100, n -> (long) n));
            assertAbortContract("bulk/shutdownGracefully", 300, tk, server.rowCount("grace_bulk"));
            assertDoesNotThrow(kw::close);
            assertEquals(0, kw.allocatedBytes());
            sw.close();
        }
        assertNoNewClientThreads(before);
    }

    @Test
    void shutdownGracefullyFailsTheFutureOfAStreamWaitingToReopen() throws Exception {
        Set<Thread> before = clientThreads();
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            // a 4 s delivery deadline: the future is still pending 15 s after shutdown, far past it
            GreptimeDB db = GreptimeDB.create(opts(server)
                    .retryPolicy(RetryPolicy.newBuilder().deliveryTimeout(Duration.ofSeconds(4)).build()).build());
            TableSchema s = schema("grace_stream_reopen");
            StreamWriter<Table, WriteOk> w = db.streamWriter(StreamWriter.Config.newBuilder().build(), Context.newBuilder().build());
            w.write(table(s, 0, 100, 0));
            server.stop();
            CompletableFuture<WriteOk> done = w.completed();
            Kit.await("the stream waits to reopen", Duration.ofSeconds(BOUND_S), () -> w.replays() >= 1);
            db.shutdownGracefully(Duration.ofSeconds(3));
            Tally t = new Tally(15);
            t.await(done, 100, ok -> (long) ok.affectedRows());
            server.resume();
            assertAbortContract("stream/shutdownGracefully-reopen", 100, t, server.rowCount("grace_stream_reopen"));
        }
        assertNoNewClientThreads(before);
    }

    @Test
    void shutdownNowReleasesProducersBlockedOnEveryLimit() throws Exception {
        Set<Thread> before = clientThreads();
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(opts(server).maxInFlightRequests(1)
                    .whenFull(WhenFull.Block).maxBlock(Await.BEYOND_THE_HANG_GUARD).build());
            TableSchema ks = schema("blocked_bulk");
            TableSchema bs = schema("blocked_batching");
            TableSchema rs = schema("blocked_regular");
            BulkStreamWriter kw = db.bulkStreamWriter(ks, BulkWrite.Config.newBuilder().maxInFlightRequests(1).build(),
                    Context.newBuilder().build());
            BatchingWriter bw = db.batchingWriter(BatchingWriter.Config.newBuilder().maxBatchRows(10)
                    .maxInFlightRequests(1).maxBufferedRows(20).maxBlock(Await.BEYOND_THE_HANG_GUARD).build());
            server.faults().neverRespond(true).bulkNeverAck(true);
            List<CompletableFuture<?>> futures = Collections.synchronizedList(new ArrayList<>());
            List<Thread> producers = List.of(
                    new Thread(() -> {
                        try {
                            TableBufferRoot root = kw.tableBufferRoot(10);
                            for (int b = 0; b < 3; b++) {
                                root.addTable(table(ks, b * 10L, 10, 0));
                                futures.add(kw.writeNext());
                            }
                        } catch (RuntimeException e) {
                            // refused after shutdown: fine
                        }
                    }, "producer-bulk"),
                    new Thread(() -> {
                        try {
                            for (long i = 0; i < 100; i++) {
                                futures.add(bw.write(bs, row(i, 0)));
                            }
                        } catch (RuntimeException e) {
                            // refused after shutdown: fine
                        }
                    }, "producer-batching"),
                    new Thread(() -> {
                        try {
                            for (int b = 0; b < 5; b++) {
                                futures.add(db.write(table(rs, b * 10L, 10, 0)));
                            }
                        } catch (RuntimeException e) {
                            // refused after shutdown: fine
                        }
                    }, "producer-regular"));
            producers.forEach(Thread::start);
            Kit.await("every producer waits at its limit", Duration.ofSeconds(BOUND_S),
                    () -> Kit.waitingIn(producers.get(0), "writeNext") && Kit.waitingIn(producers.get(1), "write")
                            && Kit.waitingIn(producers.get(2), "write"));
            // every limit waits longer than the hang guard: a producer that returns was released by shutdownNow
            db.shutdownNow();
            for (Thread p : producers) {
                p.join(Await.HANG_GUARD.toMillis());
            }
            List<String> stuck = producers.stream().filter(Thread::isAlive).map(Thread::getName).toList();
            assertTrue(stuck.isEmpty(), "producers still blocked after shutdownNow: " + stuck);
            List<CompletableFuture<?>> copy;
            synchronized (futures) {
                copy = new ArrayList<>(futures);
            }
            long pending = copy.stream().filter(f -> {
                try {
                    f.get(10, TimeUnit.SECONDS);
                    return false;
                } catch (TimeoutException e) {
                    return true;
                } catch (Exception e) {
                    return false;
                }
            }).count();
            assertEquals(0, pending, "futures pending after shutdownNow");
            assertDoesNotThrow(kw::close);
            assertEquals(0, kw.allocatedBytes());
            assertEquals(0, bw.pendingRows());
        }
        assertNoNewClientThreads(before);
    }
}
