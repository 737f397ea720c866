package dev.sluice.delivery;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Await;
import dev.sluice.BatchingWriter;
import dev.sluice.write.Context;
import dev.sluice.write.Err;
import dev.sluice.GreptimeDB;
import dev.sluice.write.Result;
import dev.sluice.StreamWriter;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.write.WriteOk;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.testkit.GreptimeTestServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Writes to a server that is down or never answers, on every path: every write fails by its deadline (nothing is
 * left pending, bulk memory is freed), close and flush stay bounded, and a server that comes back after ten seconds
 * gets every row the client acknowledged. Counts come from the futures and the testkit's stored rows.
 */
class DeliveryToADownOrHungServerTest extends DeliveryUnderFaultsKit {
    @Test
    void regularWritesToAServerDownForeverAllFailByTheirDeadline() throws Exception {
        Set<Thread> before = clientThreads();
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = shortClient(server);
            TableSchema s = schema("down_regular");
            server.stop();
            List<CompletableFuture<Result<WriteOk, Err>>> fs = new ArrayList<>();
            for (int b = 0; b < 20; b++) {
                fs.add(db.write(table(s, b * 100L, 100, 0)));
            }
            // attempts are unlimited and the server never comes back while they run: only the 3 s deadline ends
            // them, so every future completing within the tally's bound proves the deadline applies
            Tally t = new Tally(BOUND_S);
            fs.forEach(f -> t.regular(f, 100));
            server.resume();
            assertContract("regular/down-forever", 2_000, t, server.rowCount("down_regular"));
            assertEquals(2_000, t.failed);
            assertTrue(db.shutdownGracefully(Duration.ofSeconds(10)));
        }
        assertNoNewClientThreads(before);
    }

    @Test
    void streamToAServerStoppedForeverFailsByItsDeadline() throws Exception {
        Set<Thread> before = clientThreads();
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = shortClient(server);
            TableSchema s = schema("down_stream");
            StreamWriter<Table, WriteOk> w = db.streamWriter(StreamWriter.Config.newBuilder().build(), Context.newBuilder().build());
            w.write(table(s, 0, 100, 0));
            server.stop();
            long sentRows = 100;
            for (int b = 1; b < 5; b++) {
                try {
                    w.write(table(s, b * 100L, 100, 0));
                    sentRows += 100;
                } catch (RuntimeException e) {
                    break; // a broken stream may refuse further writes: not sent
                }
            }
            Tally t = new Tally(BOUND_S);
            t.await(w.completed(), sentRows, ok -> (long) ok.affectedRows());
            server.resume();
            assertAbortContract("stream/down-forever", sentRows, t, server.rowCount("down_stream"));
            assertEquals(sentRows, t.failed, "the stream cannot have been answered: " + t);
            w.close();
            assertTrue(db.shutdownGracefully(Duration.ofSeconds(10)));
        }
        assertNoNewClientThreads(before);
    }

    @Test
    void bulkToAServerStoppedForeverFailsEveryBatchByItsDeadlineAndFreesMemory() throws Exception {
        Set<Thread> before = clientThreads();
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = shortClient(server);
            TableSchema s = schema("down_bulk");
            createTable(server, s);
            List<CompletableFuture<Integer>> acks = new ArrayList<>();
            long sent = 0;
            BulkStreamWriter w = db.bulkStreamWriter(s, BulkWrite.Config.newBuilder().maxInFlightRequests(4)
                    .createTable(false).requestTimeout(java.time.Duration.ofMillis(1_000)).build(),
                    Context.newBuilder().build());
            TableBufferRoot root = w.tableBufferRoot(500);
            for (int b = 0; b < 12; b++) {
                if (b == 3) {
                    server.stop();
                }
                root.addTable(table(s, b * 500L, 500, 0));
                try {
                    acks.add(w.writeNext());
                    sent += 500;
                } catch (RuntimeException e) {
                    break; // a writer failed for good refuses batches (documented): not sent
                }
            }
            Tally t = new Tally(BOUND_S);
            acks.forEach(a -> t.await(a, 500, n -> (long) n));
            server.resume();
            assertDoesNotThrow(w::close, "close after a failed bulk stream");
            assertEquals(0, w.allocatedBytes(), "off-heap bytes after close");
            assertAbortContract("bulk/down-forever", sent, t, server.rowCount("down_bulk"));
            assertTrue(t.failed > 0);
            assertTrue(db.shutdownGracefully(Duration.ofSeconds(10)));
        }
        assertNoNewClientThreads(before);
    }

    @ParameterizedTest
    @EnumSource(BatchingWriter.Path.class)
    void batchingToAServerDownForeverFailsEveryRowAndLeavesNothingPending(BatchingWriter.Path path) throws Exception {
        Set<Thread> before = clientThreads();
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = shortClient(server);
            TableSchema s = schema("down_batching_" + path);
            server.stop();
            BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder().path(path).maxBatchRows(100).build(),
                    Context.newBuilder().retryPolicy(shortPolicy()).build());
            List<CompletableFuture<Void>> fs = new ArrayList<>();
            for (long i = 0; i < 1_000; i++) {
                fs.add(w.write(s, row(i, 0)));
            }
            Tally t = new Tally(BOUND_S);
            fs.forEach(f -> t.await(f, 1, v -> 1L));
            Await.returns("close with every row failed", w::close);
            server.resume();
            assertContract("batching-" + path + "/down-forever", 1_000, t, server.rowCount(s.tableName()));
            assertEquals(0, w.pendingRows(), "pendingRows after close");
            assertTrue(db.shutdownGracefully(Duration.ofSeconds(10)));
        }
        assertNoNewClientThreads(before);
    }

    @Test
    void aHungServerFailsEveryPathByItsDeadline() throws Exception {
        Set<Thread> before = clientThreads();
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = shortClient(server);
            TableSchema rs = schema("hung_regular");
            TableSchema ss = schema("hung_stream");
            TableSchema ks = schema("hung_bulk");
            BulkStreamWriter kw = db.bulkStreamWriter(ks, BulkWrite.Config.newBuilder().requestTimeout(java.time.Duration.ofMillis(1_000))
                    .build(), Context.newBuilder().build());
            TableBufferRoot root = kw.tableBufferRoot(100);
            server.faults().neverRespond(true).bulkNeverAck(true);
            // the server never answers and attempts are unlimited: only the 3 s delivery deadline ends them, so
            // every future completing within the tallies' bound proves each path applies it
            List<CompletableFuture<Result<WriteOk, Err>>> rf = new ArrayList<>();
            for (int b = 0; b < 5; b++) {
                rf.add(db.write(table(rs, b * 100L, 100, 0)));
            }
            StreamWriter<Table, WriteOk> sw = db.streamWriter(StreamWriter.Config.newBuilder().build(), Context.newBuilder().build());
            sw.write(table(ss, 0, 100, 0));
            CompletableFuture<WriteOk> sf = sw.completed();
            List<CompletableFuture<Integer>> kf = new ArrayList<>();
            for (int b = 0; b < 3; b++) {
                root.addTable(table(ks, b * 100L, 100, 0));
                kf.add(kw.writeNext());
            }
            Tally rt = new Tally(BOUND_S);
            rf.forEach(f -> rt.regular(f, 100));
            Tally st = new Tally(BOUND_S);
            st.await(sf, 100, ok -> (long) ok.affectedRows());
            Tally kt = new Tally(BOUND_S);
            kf.forEach(f -> kt.await(f, 100, n -> (long) n));
            System.out.printf("[adversarial] hung server: regular %s | stream %s | bulk %s%n", rt, st, kt);
            rt.assertNonePending("regular/hung");
            st.assertNonePending("stream/hung");
            kt.assertNonePending("bulk/hung");
            assertEquals(500, rt.failed);
            assertEquals(100, st.failed);
            assertEquals(300, kt.failed + kt.acked);
            assertDoesNotThrow(kw::close);
            assertEquals(0, kw.allocatedBytes());
            sw.close();
            db.shutdownNow();
        }
        assertNoNewClientThreads(before);
    }

    @Test
    void batchingCloseAgainstADownServerReturnsWithinTheDefaultTimeoutAndFailsEveryRow() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            // a delivery deadline longer than the hang guard, and a 2 s default timeout that close() documents as its
            // flush wait: close returning at all proves it did not wait for the deadline
            GreptimeDB db = GreptimeDB.create(opts(server).retryPolicy(beyondTheHangGuard())
                    .requestTimeout(Duration.ofSeconds(2)).build());
            TableSchema s = schema("close_down_batching");
            BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder().maxBatchRows(100).build());
            w.write(s, row(-1, 0)).get(BOUND_S, TimeUnit.SECONDS);
            server.stop();
            List<CompletableFuture<Void>> fs = new ArrayList<>();
            for (long i = 0; i < 500; i++) {
                fs.add(w.write(s, row(i, 0)));
            }
            Await.returns("close against a down server", w::close);
            Tally t = new Tally(BOUND_S);
            fs.forEach(f -> t.await(f, 1, v -> 1L));
            server.resume();
            assertContract("batching/close-against-down-server", 500, t, server.rowCount(s.tableName()) - 1);
            assertEquals(0, w.pendingRows());
            db.shutdownNow();
        }
    }

    @Test
    void batchingFlushAgainstAHungServerIsBoundedAndCloseFailsTheRest() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            // a delivery deadline longer than the hang guard: flush returning at all proves it did not wait for it
            GreptimeDB db = GreptimeDB.create(opts(server).retryPolicy(beyondTheHangGuard())
                    .requestTimeout(Duration.ofSeconds(2)).build());
            TableSchema s = schema("flush_hung");
            BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder().maxBatchRows(100).build());
            w.write(s, row(-1, 0)).get(BOUND_S, TimeUnit.SECONDS);
            server.faults().neverRespond(true);
            List<CompletableFuture<Void>> fs = new ArrayList<>();
            for (long i = 0; i < 300; i++) {
                fs.add(w.write(s, row(i, 0)));
            }
            boolean flushed = Await.returns("flush(1 s) against a hung server", () -> {
                try {
                    return w.flush(Duration.ofSeconds(1));
                } catch (dev.sluice.LimitExceededException e) {
                    return false;
                }
            });
            assertFalse(flushed);
            w.close();
            Tally t = new Tally(15);
            fs.forEach(f -> t.await(f, 1, v -> 1L));
            server.faults().reset();
            assertAbortContract("batching/flush-hung", 300, t, server.rowCount("flush_hung") - 1);
            assertEquals(0, w.pendingRows());
            db.shutdownNow();
        }
    }

    @Test
    void everyPathSurvivesTheOnlyServerDownForTenSecondsWhileWritingConcurrently() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(opts(server).build()); // defaults: 2 min deadline
            TableSchema rs = schema("ten_regular");
            TableSchema ss = schema("ten_stream");
            TableSchema ks = schema("ten_bulk");
            TableSchema bs = schema("ten_batching");
            BulkStreamWriter kw = db.bulkStreamWriter(ks, BulkWrite.Config.newBuilder().maxInFlightRequests(4)
                    .build(), Context.newBuilder().build());
            TableBufferRoot root = kw.tableBufferRoot(200);
            BatchingWriter bw = db.batchingWriter(BatchingWriter.Config.newBuilder().maxBatchRows(200).build());
            List<CompletableFuture<Result<WriteOk, Err>>> rf = new ArrayList<>();
            List<CompletableFuture<WriteOk>> sf = new ArrayList<>();
            List<CompletableFuture<Integer>> kf = new ArrayList<>();
            List<CompletableFuture<Void>> bf = new ArrayList<>();
            for (int b = 0; b < 20; b++) {
                if (b == 5) {
                    server.stop();
                    new Thread(() -> {
                        try {
                            Thread.sleep(10_000); // scenario timing: the outage lasts ten seconds, not a wait
                        } catch (InterruptedException e) {
                            return;
                        }
                        server.resume();
                    }).start();
                }
                rf.add(db.write(table(rs, b * 200L, 200, 0)));
                StreamWriter<Table, WriteOk> sw = db.streamWriter(StreamWriter.Config.newBuilder().build(), Context.newBuilder().build());
                sw.write(table(ss, b * 200L, 200, 0));
                sf.add(sw.completed());
                root.addTable(table(ks, b * 200L, 200, 0));
                kf.add(kw.writeNext());
                for (long i = b * 200L; i < (b + 1) * 200L; i++) {
                    bf.add(bw.write(bs, row(i, 0)));
                }
                Thread.sleep(200); // scenario timing: the writes spread across the outage, not a wait
            }
            Tally rt = new Tally(150);
            rf.forEach(f -> rt.regular(f, 200));
            Tally st = new Tally(150);
            sf.forEach(f -> st.await(f, 200, ok -> (long) ok.affectedRows()));
            Tally kt = new Tally(150);
            kf.forEach(f -> kt.await(f, 200, n -> (long) n));
            Tally bt = new Tally(150);
            bf.forEach(f -> bt.await(f, 1, v -> 1L));
            assertContract("regular/down-10s", 4_000, rt, server.rowCount("ten_regular"));
            assertContract("stream/down-10s", 4_000, st, server.rowCount("ten_stream"));
            assertContract("bulk/down-10s", 4_000, kt, server.rowCount("ten_bulk"));
            assertContract("batching/down-10s", 4_000, bt, server.rowCount("ten_batching"));
            assertEquals(0, rt.failed + st.failed + kt.failed + bt.failed, "nothing within its deadline fails");
            assertDoesNotThrow(kw::close);
            assertEquals(0, kw.allocatedBytes());
            bw.close();
            assertTrue(db.shutdownGracefully(Duration.ofSeconds(10)));
        }
    }
}
