package dev.sluice.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.sluice.BatchingWriter;
import dev.sluice.write.Context;
import dev.sluice.write.Err;
import dev.sluice.GreptimeDB;
import dev.sluice.write.Result;
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.StatusCode;
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
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Every path under rate-limited requests, slow answers and a tiny in-flight budget, alone and all at once: what is
 * acknowledged is exactly what is stored, fail-fast refuses only what it refused, and nothing hangs.
 */
class DeliveryUnderRateLimitsAndTightBudgetsTest extends DeliveryUnderFaultsKit {
    @Test
    void bulkFailFastUnderSlowAnswersFailsOnlyWhatItRefusedAndStoresTheRest() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(opts(server).build());
            TableSchema s = schema("bulk_failfast");
            server.faults().bulkAckDelay(Duration.ofMillis(200));
            long sent = 0;
            List<CompletableFuture<Integer>> acks = new ArrayList<>();
            try (BulkStreamWriter w = db.bulkStreamWriter(s, BulkWrite.Config.newBuilder().maxInFlightRequests(2)
                    .whenFull(WhenFull.FailFast).build(), Context.newBuilder().build())) {
                TableBufferRoot root = w.tableBufferRoot(100);
                for (int b = 0; b < 40; b++) {
                    root.addTable(table(s, b * 100L, 100, 0));
                    try {
                        acks.add(w.writeNext());
                        sent += 100;
                    } catch (RuntimeException e) {
                        // refused synchronously: not sent
                    }
                }
                Tally t = new Tally(BOUND_S);
                acks.forEach(a -> t.await(a, 100, n -> (long) n));
                assertContract("bulk/failfast", sent, t, server.rowCount("bulk_failfast"));
                assertTrue(t.failed > 0, "FailFast refused some batches while 2 were unanswered");
                assertTrue(t.acked > 0);
                try {
                    w.completed(); // bounded; may report the refused batches as failed (documented)
                } catch (RuntimeException e) {
                    System.out.println("[adversarial] bulk/failfast completed(): " + e);
                }
            }
            db.shutdownGracefully(Duration.ofSeconds(10));
        }
    }

    @Test
    void tinyInFlightBudgetNeverHangsAnyPathAndStoresWhatItAcknowledges() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(opts(server).maxInFlightBytes(1024 * 1024)
                    .whenFull(WhenFull.Block).maxBlock(Duration.ofSeconds(3)).retryPolicy(shortPolicy()).build());
            server.faults().latency(Duration.ofMillis(20)).bulkAckDelay(Duration.ofMillis(20));
            TableSchema rs = schema("tiny_regular");
            TableSchema ks = schema("tiny_bulk");
            TableSchema ss = schema("tiny_stream");
            // every table ~ 3 MB: three times the whole budget
            List<CompletableFuture<Result<WriteOk, Err>>> fs = new ArrayList<>();
            long rsent = 0;
            for (int b = 0; b < 6; b++) {
                try {
                    fs.add(db.write(table(rs, b * 10_000L, 10_000, 300)));
                    rsent += 10_000;
                } catch (RuntimeException e) {
                    // LimitExceededException at the limit: not sent
                }
            }
            Tally rt = new Tally(BOUND_S);
            fs.forEach(f -> rt.regular(f, 10_000));
            // A write its short deadline failed on a loaded machine may have been stored meanwhile (as the bulk and
            // stream parts below allow too): what is acknowledged is stored, and nothing beyond what was sent.
            assertAbortContract("regular/tiny-budget", rsent, rt, server.rowCount("tiny_regular"));
            // bulk
            long ksent = 0;
            List<CompletableFuture<Integer>> acks = new ArrayList<>();
            createTable(server, ks);
            try (BulkStreamWriter w = db.bulkStreamWriter(ks, BulkWrite.Config.newBuilder().maxInFlightRequests(4)
                    .createTable(false).build(), Context.newBuilder().build())) {
                TableBufferRoot root = w.tableBufferRoot(10_000);
                for (int b = 0; b < 6; b++) {
                    root.addTable(table(ks, b * 10_000L, 10_000, 300));
                    try {
                        acks.add(w.writeNext());
                        ksent += 10_000;
                    } catch (RuntimeException e) {
                        // refused at the limit: not sent
                    }
                }
                Tally kt = new Tally(BOUND_S);
                acks.forEach(a -> kt.await(a, 10_000, n -> (long) n));
                assertAbortContract("bulk/tiny-budget", ksent, kt, server.rowCount("tiny_bulk"));
            }
            // stream
            long ssent = 0;
            StreamWriter<Table, WriteOk> sw = db.streamWriter(StreamWriter.Config.newBuilder().build(), Context.newBuilder().build());
            for (int b = 0; b < 6; b++) {
                try {
                    sw.write(table(ss, b * 10_000L, 10_000, 300));
                    ssent += 10_000;
                } catch (RuntimeException e) {
                    break;
                }
            }
            Tally st = new Tally(BOUND_S);
            st.await(sw.completed(), ssent, ok -> (long) ok.affectedRows());
            assertAbortContract("stream/tiny-budget", ssent, st, server.rowCount("tiny_stream"));
            assertTrue(db.shutdownGracefully(Duration.ofSeconds(10)));
        }
    }

    @Test
    void everyPathAtOnceUnderEverySeventhRequestRateLimitedStoresExactlyWhatItAcknowledges() throws Exception {
        Set<Thread> before = clientThreads();
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(opts(server)
                    .retryPolicy(RetryPolicy.newBuilder().deliveryTimeout(Duration.ofSeconds(60)).build()).build());
            // the testkit counts stream messages as requests: a period shorter than a stream's 5 messages would fail
            // a lone stream's every replay, whatever the client does
            server.faults().failEvery(7, StatusCode.RateLimited, "rate limited");
            List<Thread> threads = new ArrayList<>();
            Map<String, Tally> tallies = new java.util.concurrent.ConcurrentHashMap<>();
            Map<String, Long> sent = new java.util.concurrent.ConcurrentHashMap<>();
            AtomicReference<Throwable> crash = new AtomicReference<>();
            for (int k = 0; k < 2; k++) {
                int id = k;
                threads.add(new Thread(() -> {
                    TableSchema s = schema("mix_regular_" + id);
                    List<CompletableFuture<Result<WriteOk, Err>>> fs = new ArrayList<>();
                    for (int b = 0; b < 30; b++) {
                        fs.add(db.write(table(s, b * 200L, 200, 0)));
                    }
                    Tally t = new Tally(90);
                    fs.forEach(f -> t.regular(f, 200));
                    tallies.put(s.tableName(), t);
                    sent.put(s.tableName(), 6_000L);
                }));
                threads.add(new Thread(() -> {
                    TableSchema s = schema("mix_stream_" + id);
                    Tally t = new Tally(90);
                    for (int st = 0; st < 6; st++) {
                        StreamWriter<Table, WriteOk> w = db.streamWriter(StreamWriter.Config.newBuilder().build(), Context.newBuilder().build());
                        for (int b = 0; b < 5; b++) {
                            w.write(table(s, (st * 5 + b) * 200L, 200, 0));
                        }
                        t.await(w.completed(), 1_000, ok -> (long) ok.affectedRows());
                    }
                    tallies.put(s.tableName(), t);
                    sent.put(s.tableName(), 6_000L);
                }));
                threads.add(new Thread(() -> {
                    TableSchema s = schema("mix_bulk_" + id);
                    Tally t = new Tally(90);
                    try (BulkStreamWriter w = db.bulkStreamWriter(s, BulkWrite.Config.newBuilder()
                            .maxInFlightRequests(4).build(), Context.newBuilder().build())) {
                        TableBufferRoot root = w.tableBufferRoot(200);
                        List<CompletableFuture<Integer>> acks = new ArrayList<>();
                        for (int b = 0; b < 30; b++) {
                            root.addTable(table(s, b * 200L, 200, 0));
                            acks.add(w.writeNext());
                        }
                        acks.forEach(a -> t.await(a, 200, n -> (long) n));
                    }
                    tallies.put(s.tableName(), t);
                    sent.put(s.tableName(), 6_000L);
                }));
                for (BatchingWriter.Path p : BatchingWriter.Path.values()) {
                    threads.add(new Thread(() -> {
                        TableSchema s = schema("mix_batching_" + p + "_" + id);
                        Tally t = new Tally(90);
                        try (BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder().path(p)
                                .maxBatchRows(300).build())) {
                            List<CompletableFuture<Void>> fs = new ArrayList<>();
                            for (long i = 0; i < 6_000; i++) {
                                fs.add(w.write(s, row(i, 0)));
                            }
                            fs.forEach(f -> t.await(f, 1, v -> 1L));
                        }
                        tallies.put(s.tableName(), t);
                        sent.put(s.tableName(), 6_000L);
                    }));
                }
            }
            threads.forEach(t -> t.setUncaughtExceptionHandler((th, e) -> crash.compareAndSet(null, e)));
            threads.forEach(Thread::start);
            for (Thread t : threads) {
                t.join(TimeUnit.SECONDS.toMillis(150));
                assertFalse(t.isAlive(), "a producer thread hung");
            }
            assertEquals(null, crash.get(), "a producer thread threw");
            for (Map.Entry<String, Tally> e : tallies.entrySet()) {
                assertContract("mixed/" + e.getKey(), sent.get(e.getKey()), e.getValue(), server.rowCount(e.getKey()));
                assertEquals(0, e.getValue().failed, e.getKey() + ": default retries ride out every seventh failure");
            }
            assertEquals(threads.size(), tallies.size());
            assertTrue(db.shutdownGracefully(Duration.ofSeconds(10)));
        }
        assertNoNewClientThreads(before);
    }

    @Test
    void fortyStreamsAtOnceUnderFaultsEachStoreExactlyWhatTheyAcknowledge() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(opts(server)
                    .retryPolicy(RetryPolicy.newBuilder().deliveryTimeout(Duration.ofSeconds(60)).build()).build());
            server.faults().failEvery(7, StatusCode.RateLimited, "rate limited");
            List<StreamWriter<Table, WriteOk>> ws = new ArrayList<>();
            for (int k = 0; k < 40; k++) {
                ws.add(db.streamWriter(StreamWriter.Config.newBuilder().build(), Context.newBuilder().build()));
            }
            for (int b = 0; b < 4; b++) {
                for (int k = 0; k < 40; k++) {
                    ws.get(k).write(table(schema("many_streams_" + k), b * 100L, 100, 0));
                }
            }
            List<CompletableFuture<WriteOk>> done = new ArrayList<>();
            ws.forEach(w -> done.add(w.completed()));
            long stored = 0;
            Tally t = new Tally(90);
            for (int k = 0; k < 40; k++) {
                t.await(done.get(k), 400, ok -> (long) ok.affectedRows());
                stored += server.rowCount("many_streams_" + k);
            }
            // a failed stream may have had some messages committed (documented): stored >= acknowledged
            assertAbortContract("stream/40-at-once", 16_000, t, stored);
            assertEquals(0, t.failed, "default retries (60 s deadline) ride out every seventh message failing");
            assertEquals(16_000, stored);
            ws.forEach(StreamWriter::close);
            assertTrue(db.shutdownGracefully(Duration.ofSeconds(10)));
        }
    }
}
