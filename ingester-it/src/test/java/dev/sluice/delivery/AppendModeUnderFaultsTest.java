package dev.sluice.delivery;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.BatchingWriter;
import dev.sluice.write.Context;
import dev.sluice.write.Err;
import dev.sluice.GreptimeDB;
import dev.sluice.write.Result;
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.StatusCode;
import dev.sluice.StreamWriter;
import dev.sluice.Warm;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.write.WriteOk;
import dev.sluice.write.WriteOp;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.testkit.Faults;
import dev.sluice.testkit.GreptimeTestServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Writes to append-mode tables under timeouts, broken streams, refused batches and rate limits: what timed out or
 * broke ambiguously is never stored twice, and what failed unambiguously is resent so every row is stored exactly
 * once.
 */
class AppendModeUnderFaultsTest extends DeliveryUnderFaultsKit {
    @Test
    void appendModeRegularWritesTimingOutAreNeverStoredTwice() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(opts(server).requestTimeout(Duration.ofSeconds(1))
                    .retryPolicy(RetryPolicy.newBuilder().deliveryTimeout(Duration.ofSeconds(6)).build()).build());
            Context append = Context.newBuilder().hint("append_mode", "true").build();
            TableSchema s = schema("append_regular");
            // The table and its first ten rows through a client with the default timeout, and the client under test
            // connected, before its 1 s timeout can catch anything but the writes under test.
            try (GreptimeDB setup = GreptimeDB.create(opts(server).build())) {
                assertTrue(setup.write(List.of(table(s, -10, 10, 0)), WriteOp.Insert, append)
                        .get(BOUND_S, TimeUnit.SECONDS).isOk());
            }
            Warm.regular(db);
            // Each write reaches the server and is held there unstored past the client's 1 s timeout; the release
            // below stores every held one at once, as a server that was merely slow commits late.
            server.faults().hold(Faults.HoldPoint.BEFORE_STORE,
                    r -> r.kind().equals("insert") && r.tables().contains("append_regular"));
            List<CompletableFuture<Result<WriteOk, Err>>> fs = new ArrayList<>();
            for (int b = 0; b < 8; b++) {
                fs.add(db.write(List.of(table(s, b * 100L, 100, 0)), WriteOp.Insert, append));
            }
            Tally t = new Tally(BOUND_S);
            fs.forEach(f -> t.regular(f, 100));
            // Every write has its outcome, so the client sends nothing more for them; the late commits land now,
            // before release() returns, and any resend the client made was held with them.
            server.faults().release();
            server.faults().reset();
            long stored = server.rowCount("append_regular") - 10;
            assertAbortContract("regular/append-timeouts", 800, t, stored);
            assertNoDuplicates(server, "append_regular");
            assertTrue(db.shutdownGracefully(Duration.ofSeconds(10)));
        }
    }

    @Test
    void appendModeBulkBatchesTimingOutAreNeverStoredTwice() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(opts(server)
                    .retryPolicy(RetryPolicy.newBuilder().deliveryTimeout(Duration.ofSeconds(6)).build()).build());
            Context append = Context.newBuilder().hint("append_mode", "true").build();
            TableSchema s = schema("append_bulk");
            List<CompletableFuture<Integer>> acks = new ArrayList<>();
            long sent = 0;
            BulkStreamWriter w = db.bulkStreamWriter(s, BulkWrite.Config.newBuilder().maxInFlightRequests(4)
                    .requestTimeout(java.time.Duration.ofMillis(500)).build(), append);
            // Each batch is stored on arrival and its answer held past the writer's 500 ms timeout.
            server.faults().hold(Faults.HoldPoint.BEFORE_ANSWER,
                    r -> r.kind().equals("bulk") && r.tables().contains("append_bulk"));
            TableBufferRoot root = w.tableBufferRoot(100);
            for (int b = 0; b < 8; b++) {
                root.addTable(table(s, b * 100L, 100, 0));
                try {
                    acks.add(w.writeNext());
                    sent += 100;
                } catch (RuntimeException e) {
                    break;
                }
            }
            Tally t = new Tally(BOUND_S);
            acks.forEach(a -> t.await(a, 100, n -> (long) n));
            assertDoesNotThrow(w::close);
            assertEquals(0, w.allocatedBytes());
            // Every batch has its outcome and the writer is closed: nothing more is sent, and what was sent is
            // stored (on arrival); the held answers go out to a closed writer.
            server.faults().release();
            server.faults().reset();
            assertAbortContract("bulk/append-timeouts", sent, t, server.rowCount("append_bulk"));
            assertNoDuplicates(server, "append_bulk");
            assertTrue(db.shutdownGracefully(Duration.ofSeconds(10)));
        }
    }

    @Test
    void appendModeStreamBrokenMidwayIsNeverReplayed() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(opts(server)
                    .retryPolicy(RetryPolicy.newBuilder().deliveryTimeout(Duration.ofSeconds(6)).build()).build());
            Context append = Context.newBuilder().hint("append_mode", "true").build();
            TableSchema s = schema("append_stream");
            StreamWriter<Table, WriteOk> w = db.streamWriter(StreamWriter.Config.newBuilder().build(), append);
            long sent = 0;
            for (int b = 0; b < 6; b++) {
                if (b == 3) {
                    server.restart();
                }
                try {
                    w.write(table(s, b * 100L, 100, 0));
                    sent += 100;
                } catch (RuntimeException e) {
                    break;
                }
                Thread.sleep(100); // scenario timing: the writes spread across the restart, not a wait
            }
            Tally t = new Tally(BOUND_S);
            t.await(w.completed(), sent, ok -> (long) ok.affectedRows());
            Thread.sleep(500); // a window for a replay to land, if one were made: the contract must hold after it
            long stored = server.tables().contains("append_stream") ? server.rowCount("append_stream") : 0;
            assertAbortContract("stream/append-restart", sent, t, stored);
            assertEquals(0, w.replays(), "an append-mode stream is not replayed");
            if (stored > 0) {
                assertNoDuplicates(server, "append_stream");
            }
            w.close();
            assertTrue(db.shutdownGracefully(Duration.ofSeconds(10)));
        }
    }

    @Test
    void appendModeBulkFailedBatchIsResentOnceAndEveryRowStoredExactlyOnce() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(opts(server)
                    .retryPolicy(RetryPolicy.newBuilder().deliveryTimeout(Duration.ofSeconds(30)).build()).build());
            Context append = Context.newBuilder().hint("append_mode", "true").build();
            TableSchema s = schema("append_bulk_error");
            List<CompletableFuture<Integer>> acks = new ArrayList<>();
            try (BulkStreamWriter w = db.bulkStreamWriter(s, BulkWrite.Config.newBuilder().maxInFlightRequests(6)
                    .build(), append)) {
                server.faults().failBulkBatch(3, StatusCode.RateLimited, "rate limited");
                TableBufferRoot root = w.tableBufferRoot(100);
                for (int b = 0; b < 12; b++) {
                    if (b == 7) {
                        server.faults().failBulkBatch(2, StatusCode.RateLimited, "rate limited");
                    }
                    root.addTable(table(s, b * 100L, 100, 0));
                    acks.add(w.writeNext());
                }
                Tally t = new Tally(BOUND_S);
                acks.forEach(a -> t.await(a, 100, n -> (long) n));
                assertContract("bulk/append-server-error", 1_200, t, server.rowCount("append_bulk_error"));
                assertEquals(0, t.failed, "a server error status is not ambiguous: retried by default");
                assertNoDuplicates(server, "append_bulk_error");
            }
            assertTrue(db.shutdownGracefully(Duration.ofSeconds(10)));
        }
    }

    @Test
    void appendModeRegularAndBatchingUnderRateLimitsStoreEveryRowExactlyOnce() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(opts(server)
                    .retryPolicy(RetryPolicy.newBuilder().deliveryTimeout(Duration.ofSeconds(30)).build()).build());
            Context append = Context.newBuilder().hint("append_mode", "true").build();
            TableSchema rs = schema("append_regular_error");
            TableSchema bs = schema("append_batching_error");
            server.faults().failEvery(3, StatusCode.RateLimited, "rate limited");
            List<CompletableFuture<Result<WriteOk, Err>>> fs = new ArrayList<>();
            for (int b = 0; b < 15; b++) {
                fs.add(db.write(List.of(table(rs, b * 100L, 100, 0)), WriteOp.Insert, append));
            }
            Tally rt = new Tally(BOUND_S);
            fs.forEach(f -> rt.regular(f, 100));
            List<CompletableFuture<Void>> bf = new ArrayList<>();
            try (BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder().maxBatchRows(100).build(),
                    append)) {
                for (long i = 0; i < 1_500; i++) {
                    bf.add(w.write(bs, row(i, 0)));
                }
                Tally bt = new Tally(BOUND_S);
                bf.forEach(f -> bt.await(f, 1, v -> 1L));
                assertContract("batching/append-rate-limited", 1_500, bt, server.rowCount("append_batching_error"));
                assertEquals(0, bt.failed);
            }
            assertContract("regular/append-rate-limited", 1_500, rt, server.rowCount("append_regular_error"));
            assertEquals(0, rt.failed);
            assertNoDuplicates(server, "append_regular_error");
            assertNoDuplicates(server, "append_batching_error");
            assertTrue(db.shutdownGracefully(Duration.ofSeconds(10)));
        }
    }
}
