package dev.sluice.delivery;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.sluice.Await;
import dev.sluice.BatchingWriter;
import dev.sluice.write.Context;
import dev.sluice.write.Err;
import dev.sluice.GreptimeDB;
import dev.sluice.write.Result;
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
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Writers closed, cancelled, completed or interrupted at odd moments, from other threads, under faults: every future
 * completes, producers waiting for room or answers are released, nothing acknowledged is lost, and no budget or
 * memory leaks.
 */
class ClosingCancellingAndInterruptingWritersTest extends DeliveryUnderFaultsKit {
    @Test
    void closingABulkWriterFromAnotherThreadWhileItsProducerWritesLeaksNothing() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(opts(server).build());
            for (int round = 0; round < 40; round++) {
                TableSchema s = schema("bulk_close_race_" + round);
                server.faults().bulkAckDelay(Duration.ofMillis(20 * (round % 3)));
                BulkStreamWriter w = db.bulkStreamWriter(s, BulkWrite.Config.newBuilder().maxInFlightRequests(3)
                        .build(), Context.newBuilder().build());
                List<CompletableFuture<Integer>> acks = Collections.synchronizedList(new ArrayList<>());
                AtomicReference<Throwable> unexpected = new AtomicReference<>();
                CountDownLatch started = new CountDownLatch(1);
                Thread producer = new Thread(() -> {
                    try {
                        TableBufferRoot root = w.tableBufferRoot(200);
                        for (int b = 0; b < 10_000; b++) {
                            root.addTable(table(s, b * 200L, 200, 0));
                            acks.add(w.writeNext());
                            started.countDown();
                        }
                    } catch (IllegalStateException e) {
                        // closed: documented refusal
                    } catch (RuntimeException e) {
                        if (!(e instanceof dev.sluice.write.WriteException)) {
                            unexpected.set(e);
                        }
                    } finally {
                        started.countDown();
                    }
                });
                producer.start();
                started.await(BOUND_S, TimeUnit.SECONDS);
                int handed = 1 + round % 8; // close lands after a different number of batches each round
                Kit.await(handed + " batches handed over", Duration.ofSeconds(BOUND_S),
                        () -> acks.size() >= handed || !producer.isAlive());
                AtomicReference<Throwable> closeError = new AtomicReference<>();
                try {
                    w.close();
                } catch (Throwable e) {
                    closeError.set(e);
                }
                producer.join(TimeUnit.SECONDS.toMillis(BOUND_S));
                assertFalse(producer.isAlive(), "producer still blocked after close");
                if (closeError.get() != null) {
                    java.io.StringWriter trace = new java.io.StringWriter();
                    closeError.get().printStackTrace(new java.io.PrintWriter(trace));
                    fail("round " + round + ": close() from another thread threw " + trace);
                }
                assertEquals(null, unexpected.get(), "producer saw an unexpected exception");
                Tally t = new Tally(BOUND_S);
                List<CompletableFuture<Integer>> copy;
                synchronized (acks) {
                    copy = new ArrayList<>(acks);
                }
                copy.forEach(a -> t.await(a, 200, n -> (long) n));
                server.faults().reset();
                Kit.await("the closed writer holds no batch that could still be sent", Duration.ofSeconds(BOUND_S),
                        () -> w.allocatedBytes() == 0);
                assertAbortContract("bulk/close-from-other-thread round " + round, copy.size() * 200L, t,
                        server.rowCount(s.tableName()));
                assertEquals(0, w.allocatedBytes(), "off-heap bytes after close");
            }
            db.shutdownGracefully(Duration.ofSeconds(10));
        }
    }

    /**
     * Twenty-five rounds, each with its own writer and table, three at a time on one client (a round waits mostly
     * for resends of rate-limited batches): six producers race each writer's close().
     */
    @ParameterizedTest
    @EnumSource(BatchingWriter.Path.class)
    void producersRacingCloseUnderFaultsLeaveNoFuturePending(BatchingWriter.Path path) throws Exception {
        Set<Thread> before = clientThreads();
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(opts(server).retryPolicy(shortPolicy()).build());
            server.faults().failEvery(7, StatusCode.RateLimited, "rate limited");
            int rounds = 25;
            int lanes = 3;
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(lanes);
            try {
                List<java.util.concurrent.Future<?>> running = new ArrayList<>();
                for (int lane = 0; lane < lanes; lane++) {
                    int first = lane;
                    running.add(pool.submit(() -> {
                        for (int round = first; round < rounds; round += lanes) {
                            closeRaceRound(server, db, path, round);
                        }
                        return null;
                    }));
                }
                for (java.util.concurrent.Future<?> f : running) {
                    try {
                        f.get(10, TimeUnit.MINUTES);
                    } catch (ExecutionException e) {
                        if (e.getCause() instanceof Error err) {
                            throw err;
                        }
                        throw e;
                    }
                }
            } finally {
                pool.shutdownNow();
            }
            assertTrue(db.shutdownGracefully(Duration.ofSeconds(10)));
        }
        assertNoNewClientThreads(before);
    }

    @Test
    void streamCancelAndCloseAtOddMomentsAlwaysCompleteTheFuture() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = shortClient(server);
            TableSchema s = schema("stream_cancel");
            // (a) cancel right after completed()
            StreamWriter<Table, WriteOk> a = db.streamWriter(StreamWriter.Config.newBuilder().build(), Context.newBuilder().build());
            a.write(table(s, 0, 100, 0));
            CompletableFuture<WriteOk> af = a.completed();
            a.cancel();
            Tally ta = new Tally(BOUND_S);
            ta.await(af, 100, ok -> (long) ok.affectedRows());
            ta.assertNonePending("cancel after completed");
            // (b) cancel from another thread while the writer is held by its rate limit
            StreamWriter<Table, WriteOk> b = db.streamWriter(StreamWriter.Config.newBuilder().maxRowsPerSecond(200).build(), Context.newBuilder().build());
            AtomicReference<Throwable> bErr = new AtomicReference<>();
            Thread writer = new Thread(() -> {
                try {
                    for (int k = 0; k < 10; k++) {
                        b.write(table(s, 1_000 + k * 100L, 100, 0));
                    }
                } catch (RuntimeException e) {
                    bErr.set(e);
                }
            });
            writer.start();
            Kit.await("the writer held by its rate limit", Duration.ofSeconds(BOUND_S),
                    () -> Kit.waitingIn(writer, "write"));
            b.cancel();
            writer.join(TimeUnit.SECONDS.toMillis(BOUND_S));
            assertFalse(writer.isAlive(), "a writer held by the rate limit stays blocked after cancel()");
            Tally tb = new Tally(BOUND_S);
            tb.await(b.completed(), 1, ok -> 1L);
            tb.assertNonePending("completed() after cancel");
            assertEquals(1, tb.failed, "a cancelled stream's completed() fails");
            // (c) close twice, cancel after close, completed after close
            StreamWriter<Table, WriteOk> c = db.streamWriter(StreamWriter.Config.newBuilder().build(), Context.newBuilder().build());
            c.write(table(s, 5_000, 10, 0));
            c.close();
            assertDoesNotThrow(c::close);
            assertDoesNotThrow(c::cancel);
            Tally tc = new Tally(BOUND_S);
            CompletableFuture<WriteOk> cf;
            try {
                cf = c.completed();
            } catch (RuntimeException e) {
                cf = CompletableFuture.failedFuture(e);
            }
            tc.await(cf, 1, ok -> 1L);
            tc.assertNonePending("completed() after close");
            // (d) a server that never answers: completed() fails by the deadline, cancel afterwards is harmless
            server.faults().neverRespond(true);
            StreamWriter<Table, WriteOk> d = db.streamWriter(StreamWriter.Config.newBuilder().build(), Context.newBuilder().build());
            d.write(table(s, 9_000, 10, 0));
            Tally td = new Tally(BOUND_S);
            td.await(d.completed(), 10, ok -> (long) ok.affectedRows());
            td.assertNonePending("hung server stream");
            assertDoesNotThrow(d::cancel);
            server.faults().reset();
            db.shutdownGracefully(Duration.ofSeconds(10));
        }
    }

    @Test
    void closingABulkWriterWhoseProducerWaitsForAnAnswerSlotReleasesTheProducer() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(opts(server).build());
            TableSchema s = schema("bulk_slot_wait_close");
            // Block, with a slot wait longer than the hang guard: a producer that returns was released by close
            BulkStreamWriter w = db.bulkStreamWriter(s, BulkWrite.Config.newBuilder().maxInFlightRequests(1)
                    .maxBlock(Await.BEYOND_THE_HANG_GUARD).build(), Context.newBuilder().build());
            server.faults().bulkNeverAck(true);
            List<CompletableFuture<Integer>> acks = Collections.synchronizedList(new ArrayList<>());
            AtomicReference<Throwable> seen = new AtomicReference<>();
            Thread producer = new Thread(() -> {
                try {
                    TableBufferRoot root = w.tableBufferRoot(100);
                    for (int b = 0; b < 3; b++) {
                        root.addTable(table(s, b * 100L, 100, 0));
                        acks.add(w.writeNext());
                    }
                } catch (RuntimeException e) {
                    seen.set(e);
                }
            });
            producer.start();
            Kit.await("the second writeNext waits for the only slot", Duration.ofSeconds(BOUND_S),
                    () -> acks.size() == 1 && Kit.waitingIn(producer, "writeNext"));
            AtomicReference<Throwable> closeError = new AtomicReference<>();
            try {
                w.close();
            } catch (Throwable e) {
                closeError.set(e);
            }
            producer.join(Await.HANG_GUARD.toMillis());
            assertFalse(producer.isAlive(), "producer still waiting for a slot after close");
            assertEquals(null, closeError.get(), "close() threw");
            Tally t = new Tally(BOUND_S);
            List<CompletableFuture<Integer>> copy;
            synchronized (acks) {
                copy = new ArrayList<>(acks);
            }
            copy.forEach(a -> t.await(a, 100, n -> (long) n));
            System.out.println("[adversarial] bulk/slot-wait-close: producer saw " + seen.get());
            assertAbortContract("bulk/slot-wait-close", copy.size() * 100L, t, server.rowCount(s.tableName()));
            assertEquals(0, w.allocatedBytes());
            db.shutdownNow();
        }
    }

    @Test
    void aStreamRefusesWritesAfterCompletedAndABulkWriterAfterCompletedInsteadOfHanging() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = shortClient(server);
            TableSchema s = schema("after_completed");
            StreamWriter<Table, WriteOk> w = db.streamWriter(StreamWriter.Config.newBuilder().build(), Context.newBuilder().build());
            w.write(table(s, 0, 10, 0));
            CompletableFuture<WriteOk> done = w.completed();
            assertThrows(RuntimeException.class, () -> w.write(table(s, 10, 10, 0)));
            assertEquals(10, done.get(BOUND_S, TimeUnit.SECONDS).affectedRows());
            assertEquals(10, server.rowCount("after_completed"));
            TableSchema ks = schema("after_completed_bulk");
            BulkStreamWriter kw = db.bulkStreamWriter(ks, BulkWrite.Config.newBuilder().build(), Context.newBuilder().build());
            TableBufferRoot root = kw.tableBufferRoot(10);
            root.addTable(table(ks, 0, 10, 0));
            CompletableFuture<Integer> a = kw.writeNext();
            assertEquals(10, kw.completed());
            assertEquals(10, a.get(BOUND_S, TimeUnit.SECONDS));
            assertThrows(IllegalStateException.class, kw::writeNext);
            assertDoesNotThrow(kw::close);
            assertDoesNotThrow(kw::close);
            assertEquals(0, kw.allocatedBytes());
            assertEquals(10, server.rowCount("after_completed_bulk"));
            assertTrue(db.shutdownGracefully(Duration.ofSeconds(10)));
        }
    }

    @Test
    void closingABulkWriterWhileAnotherThreadWaitsInCompletedForAReopenReleasesBothWithoutLeak() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(opts(server).build()); // 2 min deadline: it would wait to reopen
            for (int round = 0; round < 5; round++) {
                TableSchema s = schema("bulk_close_vs_completed_" + round);
                BulkStreamWriter w = db.bulkStreamWriter(s, BulkWrite.Config.newBuilder().maxInFlightRequests(4)
                        .build(), Context.newBuilder().build());
                server.faults().bulkAckDelay(Duration.ofMillis(300));
                TableBufferRoot root = w.tableBufferRoot(100);
                List<CompletableFuture<Integer>> acks = new ArrayList<>();
                for (int b = 0; b < 4; b++) {
                    root.addTable(table(s, b * 100L, 100, 0));
                    acks.add(w.writeNext());
                }
                server.stop();
                AtomicReference<Object> completedOutcome = new AtomicReference<>();
                Thread completer = new Thread(() -> {
                    try {
                        completedOutcome.set(w.completed());
                    } catch (Throwable e) {
                        completedOutcome.set(e);
                    }
                });
                completer.start();
                Kit.await("completed() waits", Duration.ofSeconds(BOUND_S), () -> Kit.waitingIn(completer, "completed"));
                Thread.sleep(150 * round); // close lands later in the reopen wait each round
                AtomicReference<Throwable> closeError = new AtomicReference<>();
                try {
                    w.close();
                } catch (Throwable e) {
                    closeError.set(e);
                }
                completer.join(TimeUnit.SECONDS.toMillis(15));
                server.resume();
                server.faults().reset();
                assertFalse(completer.isAlive(), "round " + round + ": completed() still waiting after close()");
                assertEquals(null, closeError.get(), "round " + round + ": close() threw");
                Tally t = new Tally(15);
                acks.forEach(a -> t.await(a, 100, n -> (long) n));
                long stored = server.tables().contains(s.tableName()) ? server.rowCount(s.tableName()) : 0;
                System.out.println("[adversarial] bulk/close-vs-completed round " + round + ": completed() -> "
                        + completedOutcome.get());
                assertAbortContract("bulk/close-vs-completed round " + round, 400, t, stored);
                assertEquals(0, w.allocatedBytes());
            }
            db.shutdownNow();
        }
    }

    @Test
    void interruptedBatchingProducersLeaveNoFuturePendingAndLoseNoAcknowledgedRow() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(opts(server).retryPolicy(shortPolicy()).build());
            server.faults().latency(Duration.ofMillis(30));
            TableSchema s = schema("interrupted_batching");
            BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder().maxBatchRows(100)
                    .maxBufferedRows(300).maxBlock(Duration.ofSeconds(5)).maxInFlightRequests(1).build());
            List<CompletableFuture<Void>> fs = Collections.synchronizedList(new ArrayList<>());
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> odd = new AtomicReference<>();
            List<Thread> producers = new ArrayList<>();
            for (int p = 0; p < 4; p++) {
                long base = p * 1_000_000L;
                producers.add(new Thread(() -> {
                    long i = 0;
                    while (!stop.get()) {
                        try {
                            fs.add(w.write(s, row(base + i, 0)));
                        } catch (RuntimeException e) {
                            if (!(e instanceof dev.sluice.LimitExceededException)) {
                                odd.compareAndSet(null, e);
                            }
                        }
                        i++;
                        Thread.interrupted(); // clear, so the next write starts clean
                    }
                }));
            }
            producers.forEach(Thread::start);
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            while (System.nanoTime() < until) {
                producers.forEach(Thread::interrupt);
                Thread.sleep(3); // scenario timing: interrupts keep landing at varied points, not a wait
            }
            stop.set(true);
            for (Thread p : producers) {
                p.join(TimeUnit.SECONDS.toMillis(BOUND_S));
                assertFalse(p.isAlive());
            }
            w.close();
            Tally t = new Tally(BOUND_S);
            List<CompletableFuture<Void>> copy;
            synchronized (fs) {
                copy = new ArrayList<>(fs);
            }
            copy.forEach(f -> t.await(f, 1, v -> 1L));
            assertContract("batching/interrupted-producers", copy.size(), t, server.rowCount("interrupted_batching"));
            assertEquals(0, w.pendingRows());
            assertEquals(null, odd.get(), "write threw something other than LimitExceededException");
            assertTrue(db.shutdownGracefully(Duration.ofSeconds(10)));
        }
    }

    @Test
    void interruptingARegularWriterBlockedAtTheLimitLeaksNoBudget() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(opts(server).maxInFlightRequests(1)
                    .whenFull(WhenFull.Block).maxBlock(Duration.ofSeconds(5)).build());
            server.faults().latency(Duration.ofMillis(100));
            TableSchema s = schema("interrupted_regular");
            List<CompletableFuture<Result<WriteOk, Err>>> fs = Collections.synchronizedList(new ArrayList<>());
            AtomicLong sent = new AtomicLong();
            Thread producer = new Thread(() -> {
                for (int b = 0; b < 40; b++) {
                    try {
                        fs.add(db.write(table(s, b * 10L, 10, 0)));
                        sent.addAndGet(10);
                    } catch (RuntimeException e) {
                        // refused at the limit (interrupted): not sent
                    }
                    Thread.interrupted();
                }
            });
            producer.start();
            while (producer.isAlive()) {
                producer.interrupt();
                Thread.sleep(7); // scenario timing: interrupts keep landing at varied points, not a wait
            }
            Tally t = new Tally(BOUND_S);
            List<CompletableFuture<Result<WriteOk, Err>>> copy;
            synchronized (fs) {
                copy = new ArrayList<>(fs);
            }
            copy.forEach(f -> t.regular(f, 10));
            assertContract("regular/interrupted-at-limit", sent.get(), t, server.rowCount("interrupted_regular"));
            // the single request slot must be free again: a fail-fast write must be accepted now
            server.faults().reset();
            GreptimeDB probe = db;
            Result<WriteOk, Err> r = probe.write(table(schema("interrupted_regular_after"), 0, 5, 0))
                    .get(10, TimeUnit.SECONDS);
            assertTrue(r.isOk(), "a write after the interrupts: " + r);
            assertTrue(db.shutdownGracefully(Duration.ofSeconds(10)));
        }
    }
}
