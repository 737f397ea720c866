package dev.sluice.delivery;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.sluice.BatchingWriter;
import dev.sluice.write.Context;
import dev.sluice.data.DataType;
import dev.sluice.write.Err;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.InvalidDataException;
import dev.sluice.write.Result;
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.StatusCode;
import dev.sluice.StreamWriter;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.write.WhenFull;
import dev.sluice.write.WriteOk;
import dev.sluice.write.WriteOp;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.testkit.GreptimeTestServer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The delivery contract of every write path under faults, aborts and races, through the public API and the
 * testkit only.
 * Every count is taken outside the code under test: futures' outcomes and the testkit's stored rows.
 * The contract: stored == acknowledged (or, where an abort makes outcomes ambiguous, acknowledged <= stored <= sent
 * with no duplicate), acknowledged + failed == sent, every future completes within a bound, nothing left pending,
 * no {@code sluice-} thread of the client left after shutdown, no off-heap memory left by a bulk writer.
 */
class DeliveryUnderFaultsTest {
    /** Generous bound for any future: the short delivery deadline plus an attempt plus CPU-load slack. */
    static final long BOUND_S = 40;
    static final Duration DELIVERY = Duration.ofSeconds(3);

    static TableSchema schema(String name) {
        return TableSchema.newBuilder(name)
                .addTag("host", DataType.String)
                .addField("v", DataType.Float64)
                .addField("note", DataType.String)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
    }

    static Object[] row(long i, int noteBytes) {
        return new Object[] {"h" + (i % 50), (double) i, noteBytes == 0 ? "n" : "x".repeat(noteBytes),
            1_704_067_200_000L + i};
    }

    static Table table(TableSchema s, long from, int rows, int noteBytes) {
        Table t = Table.from(s, rows);
        for (long i = from; i < from + rows; i++) {
            t.addRow(row(i, noteBytes));
        }
        return t;
    }

    static GreptimeOptions.Builder opts(GreptimeTestServer... servers) {
        String[] eps = new String[servers.length];
        for (int i = 0; i < servers.length; i++) {
            eps[i] = servers[i].endpoint();
        }
        return GreptimeOptions.newBuilder(java.util.List.of(eps), "public");
    }

    static RetryPolicy shortPolicy() {
        return RetryPolicy.newBuilder().deliveryTimeout(DELIVERY).build();
    }

    static GreptimeDB shortClient(GreptimeTestServer server) {
        return GreptimeDB.create(opts(server).retryPolicy(shortPolicy()).requestTimeout(Duration.ofSeconds(2)).build());
    }

    // ---------------------------------------------------------------------------------------------------- helpers

    /** Tallies outcomes of futures with one deadline for all of them; a future still pending at it fails the test. */
    static final class Tally {
        final long deadline;
        long acked;
        long failed;
        long pending;
        final List<Throwable> errors = new ArrayList<>();

        Tally(long boundSeconds) {
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(boundSeconds);
        }

        <T> void await(CompletableFuture<T> f, long rows, Function<T, Long> ackedRows) {
            try {
                T v = f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                acked += ackedRows.apply(v);
                failed += rows - ackedRows.apply(v);
            } catch (TimeoutException e) {
                pending += rows;
            } catch (ExecutionException e) {
                failed += rows;
                if (errors.size() < 5) {
                    errors.add(e.getCause());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }

        void regular(CompletableFuture<Result<WriteOk, Err>> f, long rows) {
            try {
                Result<WriteOk, Err> r = f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (r.isOk()) {
                    acked += r.getOk().affectedRows();
                    failed += rows - r.getOk().affectedRows();
                } else {
                    failed += rows;
                    if (errors.size() < 5) {
                        errors.add(new RuntimeException(r.getErr().toString()));
                    }
                }
            } catch (TimeoutException e) {
                pending += rows;
            } catch (ExecutionException e) {
                failed += rows;
                errors.add(e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }

        void assertNonePending(String what) {
            assertEquals(0, pending, what + ": rows whose future was still pending at the tally's deadline; errors "
                    + errors);
        }

        @Override
        public String toString() {
            return "acked=" + acked + " failed=" + failed + " pending=" + pending + " firstErrors=" + errors;
        }
    }

    /** The client's own threads alive now (the testkit's and the documented process-wide sweeper excluded). */
    static Set<Thread> clientThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith("sluice-"))
                .filter(t -> !t.getName().startsWith("sluice-testkit") && !t.getName().contains("sweeper"))
                .collect(Collectors.toSet());
    }

    static void assertNoNewClientThreads(Set<Thread> before) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        Set<Thread> left;
        while (true) {
            left = new HashSet<>(clientThreads());
            left.removeAll(before);
            if (left.isEmpty()) {
                return;
            }
            if (System.nanoTime() >= deadline) {
                break;
            }
            for (Thread t : left) { // each join returns as soon as its thread has ended, or at the deadline
                t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            }
        }
        fail("client threads still alive 15 s after shutdown: "
                + left.stream().map(t -> t.getName() + " " + t.getState()).collect(Collectors.toList()));
    }

    static void report(String name, long sent, Tally t, long stored) {
        System.out.printf("[adversarial] %s: sent=%d %s stored=%d%n", name, sent, t, stored);
    }

    static void assertContract(String name, long sent, Tally t, long stored) {
        report(name, sent, t, stored);
        t.assertNonePending(name);
        assertEquals(sent, t.acked + t.failed, name + ": acknowledged + failed == sent");
        assertEquals(t.acked, stored, name + ": stored == acknowledged");
    }

    /** For aborted work: what the server got may be committed although its future failed; never more than sent. */
    static void assertAbortContract(String name, long sent, Tally t, long stored) {
        report(name, sent, t, stored);
        t.assertNonePending(name);
        assertEquals(sent, t.acked + t.failed, name + ": acknowledged + failed == sent");
        assertTrue(stored >= t.acked && stored <= sent, name + ": acknowledged <= stored <= sent, stored=" + stored);
    }

    static void assertNoDuplicates(GreptimeTestServer server, String table) {
        List<Map<String, Object>> rows = server.rows(table);
        Set<List<Object>> keys = new HashSet<>();
        for (Map<String, Object> r : rows) {
            keys.add(List.of(String.valueOf(r.get("host")), String.valueOf(r.get("ts"))));
        }
        assertEquals(keys.size(), rows.size(), table + ": no row stored twice (append-mode table)");
    }

    // ------------------------------------------------------------------------------------ server down forever

    @Test
    void regularWritesToAServerDownForeverAllFailByTheirDeadline() throws Exception {
        Set<Thread> before = clientThreads();
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = shortClient(server);
            TableSchema s = schema("down_regular");
            server.stop();
            List<CompletableFuture<Result<WriteOk, Err>>> fs = new ArrayList<>();
            long start = System.nanoTime();
            for (int b = 0; b < 20; b++) {
                fs.add(db.write(table(s, b * 100L, 100, 0)));
            }
            Tally t = new Tally(BOUND_S);
            fs.forEach(f -> t.regular(f, 100));
            long took = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
            server.resume();
            assertContract("regular/down-forever", 2_000, t, server.rowCount("down_regular"));
            assertEquals(2_000, t.failed);
            assertTrue(took < 20, "failed within a bound near the 3 s delivery deadline, took " + took + " s");
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
            List<CompletableFuture<Integer>> acks = new ArrayList<>();
            long sent = 0;
            BulkStreamWriter w = db.bulkStreamWriter(s, BulkWrite.Config.newBuilder().maxInFlightRequests(4)
                    .requestTimeout(java.time.Duration.ofMillis(1_000)).build(), Context.newBuilder().build());
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
            long closeStart = System.nanoTime();
            w.close();
            long closeTook = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - closeStart);
            server.resume();
            assertContract("batching-" + path + "/down-forever", 1_000, t, server.rowCount(s.tableName()));
            assertEquals(0, w.pendingRows(), "pendingRows after close");
            assertTrue(closeTook < 20, "close took " + closeTook + " s");
            assertTrue(db.shutdownGracefully(Duration.ofSeconds(10)));
        }
        assertNoNewClientThreads(before);
    }

    // ------------------------------------------------------------------------------------------ shutdownNow

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
            GreptimeDB db = GreptimeDB.create(opts(server).build());
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
            long start = System.nanoTime();
            db.shutdownNow();
            long took = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
            Tally t = new Tally(15);
            fs.forEach(f -> t.await(f, 1, v -> 1L));
            assertAbortContract("batching-" + path + "/shutdownNow", 1_000, t, server.rowCount(s.tableName()) - 1);
            assertEquals(0, w.pendingRows(), "pendingRows after shutdownNow");
            assertTrue(took < 15, "shutdownNow took " + took + " s");
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

    // ------------------------------------------------------------------------------------- bulk, odd moments

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
            assertContract("regular/tiny-budget", rsent, rt, server.rowCount("tiny_regular"));
            // bulk
            long ksent = 0;
            List<CompletableFuture<Integer>> acks = new ArrayList<>();
            try (BulkStreamWriter w = db.bulkStreamWriter(ks, BulkWrite.Config.newBuilder().maxInFlightRequests(4)
                    .build(), Context.newBuilder().build())) {
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

    // ------------------------------------------------------------------------------ concurrency under faults

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

    private static void closeRaceRound(GreptimeTestServer server, GreptimeDB db, BatchingWriter.Path path, int round)
            throws Exception {
        TableSchema s = schema("race_" + path + "_" + round);
        BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder().path(path)
                .maxBatchRows(50).flushInterval(Duration.ofMillis(5)).build());
        List<CompletableFuture<Void>> fs = Collections.synchronizedList(new ArrayList<>());
        AtomicLong refused = new AtomicLong();
        List<Thread> producers = new ArrayList<>();
        CountDownLatch go = new CountDownLatch(1);
        for (int p = 0; p < 6; p++) {
            long base = p * 1_000_000L;
            producers.add(new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (long i = 0; i < 2_000; i++) {
                    try {
                        fs.add(w.write(s, row(base + i, 0)));
                    } catch (IllegalStateException e) {
                        refused.incrementAndGet();
                        return;
                    }
                }
            }));
        }
        producers.forEach(Thread::start);
        go.countDown();
        int written = (round % 5) * 200; // close lands after a different number of rows each round
        Kit.await(written + " rows written", Duration.ofSeconds(BOUND_S),
                () -> fs.size() >= written || producers.stream().noneMatch(Thread::isAlive));
        w.close();
        for (Thread p : producers) {
            p.join(TimeUnit.SECONDS.toMillis(BOUND_S));
            assertFalse(p.isAlive());
        }
        Tally t = new Tally(BOUND_S);
        List<CompletableFuture<Void>> copy;
        synchronized (fs) {
            copy = new ArrayList<>(fs);
        }
        copy.forEach(f -> t.await(f, 1, v -> 1L));
        // rows per (host, ts) key: every row has its own ts, so stored counts rows
        long stored = server.tables().contains(s.tableName()) ? server.rowCount(s.tableName()) : 0;
        assertContract("batching-" + path + "/close-race round " + round, copy.size(), t, stored);
        assertEquals(0, w.pendingRows(), "pendingRows after close, round " + round);
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
                            Thread.sleep(10_000);
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
                Thread.sleep(200);
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

    // ---------------------------------------------------------------------------------------- append mode

    @Test
    void appendModeRegularWritesTimingOutAreNeverStoredTwice() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(opts(server).requestTimeout(Duration.ofSeconds(1))
                    .retryPolicy(RetryPolicy.newBuilder().deliveryTimeout(Duration.ofSeconds(6)).build()).build());
            Context append = Context.newBuilder().hint("append_mode", "true").build();
            TableSchema s = schema("append_regular");
            db.write(List.of(table(s, -10, 10, 0)), WriteOp.Insert, append).get(BOUND_S, TimeUnit.SECONDS);
            server.faults().latency(Duration.ofMillis(1_500));
            List<CompletableFuture<Result<WriteOk, Err>>> fs = new ArrayList<>();
            for (int b = 0; b < 8; b++) {
                fs.add(db.write(List.of(table(s, b * 100L, 100, 0)), WriteOp.Insert, append));
            }
            Tally t = new Tally(BOUND_S);
            fs.forEach(f -> t.regular(f, 100));
            server.faults().reset();
            Thread.sleep(2_000); // late commits land
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
            server.faults().bulkAckDelay(Duration.ofMillis(1_200));
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
            server.faults().reset();
            Thread.sleep(2_000);
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
                Thread.sleep(100);
            }
            Tally t = new Tally(BOUND_S);
            t.await(w.completed(), sent, ok -> (long) ok.affectedRows());
            Thread.sleep(500);
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

    // ---------------------------------------------------------------------------------- interrupts, cancels

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
                Thread.sleep(3);
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
                Thread.sleep(7);
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

    // -------------------------------------------------------------------------------- values and sizes

    @Test
    void timestampNanosecondTakesItsWholeRangeAndRefusesOneNanosecondBeyond() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(opts(server).build());
            TableSchema s = TableSchema.newBuilder("ts_nanos").addTag("k", DataType.String)
                    .addTimestamp("ts", DataType.TimestampNanosecond).build();
            Instant min = Instant.ofEpochSecond(0, Long.MIN_VALUE);
            Instant max = Instant.ofEpochSecond(0, Long.MAX_VALUE);
            Table t = Table.from(s, 4);
            t.addRow("min", min);
            t.addRow("min+0.5s", min.plusMillis(500)); // inside the window the issue found refused
            t.addRow("max", max);
            t.addRow("zero", Instant.EPOCH);
            Result<WriteOk, Err> r = db.write(t).get(BOUND_S, TimeUnit.SECONDS);
            assertTrue(r.isOk(), String.valueOf(r));
            assertEquals(4, server.rowCount("ts_nanos"));
            Table bad = Table.from(s, 1);
            assertThrows(InvalidDataException.class, () -> bad.addRow("below", min.minusNanos(1)));
            assertThrows(InvalidDataException.class, () -> bad.addRow("above", max.plusNanos(1)));
            for (Map<String, Object> row : server.rows("ts_nanos")) {
                System.out.println("[adversarial] ts_nanos stored " + row);
            }
            assertTrue(db.shutdownGracefully(Duration.ofSeconds(10)));
        }
    }

    @Test
    void oversizedRegularWriteIsSplitAndFullyStoredEvenWhenEveryOtherPartFails() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(opts(server).maxMessageSize(256 * 1024)
                    .retryPolicy(RetryPolicy.newBuilder().deliveryTimeout(Duration.ofSeconds(30)).build()).build());
            TableSchema s1 = schema("split_a");
            TableSchema s2 = schema("split_b");
            server.faults().failEvery(2, StatusCode.RateLimited, "rate limited");
            Table a = table(s1, 0, 5_000, 300); // ~1.6 MB
            Table b = table(s2, 0, 50, 0);      // a small second table in the same write
            Result<WriteOk, Err> r = db.write(a, b).get(60, TimeUnit.SECONDS);
            server.faults().reset();
            System.out.printf("[adversarial] split: result=%s stored a=%d b=%d requests=%d%n", r,
                    server.rowCount("split_a"), server.rowCount("split_b"), server.requestCount());
            assertTrue(r.isOk(), String.valueOf(r));
            assertEquals(5_050, r.getOk().affectedRows());
            assertEquals(5_000, server.rowCount("split_a"));
            assertEquals(50, server.rowCount("split_b"));
            assertTrue(db.shutdownGracefully(Duration.ofSeconds(10)));
        }
    }

    @Test
    void oversizedRegularWriteWhosePartFailsForGoodReportsExactlyWhatWasStored() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(opts(server).maxMessageSize(256 * 1024)
                    .retryPolicy(RetryPolicy.none()).build());
            TableSchema s = schema("split_fail");
            db.write(table(s, -1, 1, 0)).get(BOUND_S, TimeUnit.SECONDS); // create the table first
            server.clear();
            server.faults().failEvery(3, StatusCode.RateLimited, "rate limited");
            Result<WriteOk, Err> r = db.write(table(s, 0, 5_000, 300)).get(60, TimeUnit.SECONDS);
            server.faults().reset();
            long stored = server.rowCount("split_fail"); // clear() forgot the creating row
            System.out.printf("[adversarial] split-fail: result=%s stored=%d%n", r, stored);
            assertFalse(r.isOk(), "some part failed for good under RetryPolicy.none()");
            assertTrue(stored > 0 && stored < 5_000, "some parts stored: " + stored);
            assertTrue(r.getErr().message().contains(Long.toString(stored)),
                    "the Err names what the other parts stored (" + stored + "): " + r.getErr());
            assertTrue(db.shutdownGracefully(Duration.ofSeconds(10)));
        }
    }

    // ------------------------------------------------------------------------------------- second round

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
            long start = System.nanoTime();
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
            long took = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
            System.out.printf("[adversarial] hung server: regular %s | stream %s | bulk %s | took %d s%n", rt, st, kt, took);
            rt.assertNonePending("regular/hung");
            st.assertNonePending("stream/hung");
            kt.assertNonePending("bulk/hung");
            assertEquals(500, rt.failed);
            assertEquals(100, st.failed);
            assertEquals(300, kt.failed + kt.acked);
            assertTrue(took < 25, "every path failed near its 3 s delivery deadline (plus one 2 s attempt), took " + took);
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
            // the default 2 min delivery deadline, but a 2 s default timeout that close() documents as its flush wait
            GreptimeDB db = GreptimeDB.create(opts(server).requestTimeout(Duration.ofSeconds(2)).build());
            TableSchema s = schema("close_down_batching");
            BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder().maxBatchRows(100).build());
            w.write(s, row(-1, 0)).get(BOUND_S, TimeUnit.SECONDS);
            server.stop();
            List<CompletableFuture<Void>> fs = new ArrayList<>();
            for (long i = 0; i < 500; i++) {
                fs.add(w.write(s, row(i, 0)));
            }
            long start = System.nanoTime();
            w.close();
            long took = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
            Tally t = new Tally(10);
            fs.forEach(f -> t.await(f, 1, v -> 1L));
            server.resume();
            assertContract("batching/close-against-down-server", 500, t, server.rowCount(s.tableName()) - 1);
            assertEquals(0, w.pendingRows());
            assertTrue(took < 20, "close took " + took + " s");
            db.shutdownNow();
        }
    }

    @Test
    void closingABulkWriterWhoseProducerWaitsForAnAnswerSlotReleasesTheProducer() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(opts(server).build());
            TableSchema s = schema("bulk_slot_wait_close");
            BulkStreamWriter w = db.bulkStreamWriter(s, BulkWrite.Config.newBuilder().maxInFlightRequests(1).build(),
                    Context.newBuilder().build()); // Block, 60 s slot wait by default
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
            long start = System.nanoTime();
            AtomicReference<Throwable> closeError = new AtomicReference<>();
            try {
                w.close();
            } catch (Throwable e) {
                closeError.set(e);
            }
            producer.join(TimeUnit.SECONDS.toMillis(BOUND_S));
            long took = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
            assertFalse(producer.isAlive(), "producer still waiting for a slot after close");
            assertTrue(took < 10, "the producer was released " + took + " s after close");
            assertEquals(null, closeError.get(), "close() threw");
            Tally t = new Tally(BOUND_S);
            List<CompletableFuture<Integer>> copy;
            synchronized (acks) {
                copy = new ArrayList<>(acks);
            }
            copy.forEach(a -> t.await(a, 100, n -> (long) n));
            System.out.println("[adversarial] bulk/slot-wait-close: producer saw " + seen.get() + " took " + took);
            assertAbortContract("bulk/slot-wait-close", copy.size() * 100L, t, server.rowCount(s.tableName()));
            assertEquals(0, w.allocatedBytes());
            db.shutdownNow();
        }
    }

    // -------------------------------------------------------------------------------------- third round

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

    @Test
    void batchingFlushAgainstAHungServerIsBoundedAndCloseFailsTheRest() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(opts(server).requestTimeout(Duration.ofSeconds(2)).build());
            TableSchema s = schema("flush_hung");
            BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder().maxBatchRows(100).build());
            w.write(s, row(-1, 0)).get(BOUND_S, TimeUnit.SECONDS);
            server.faults().neverRespond(true);
            List<CompletableFuture<Void>> fs = new ArrayList<>();
            for (long i = 0; i < 300; i++) {
                fs.add(w.write(s, row(i, 0)));
            }
            long start = System.nanoTime();
            boolean flushed;
            try {
                flushed = w.flush(Duration.ofSeconds(1));
            } catch (dev.sluice.LimitExceededException e) {
                flushed = false;
            }
            long flushTook = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertFalse(flushed);
            assertTrue(flushTook < 10_000, "flush(1 s) took " + flushTook + " ms");
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
    void shutdownNowReleasesProducersBlockedOnEveryLimit() throws Exception {
        Set<Thread> before = clientThreads();
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(opts(server).maxInFlightRequests(1)
                    .whenFull(WhenFull.Block).maxBlock(Duration.ofSeconds(60)).build());
            TableSchema ks = schema("blocked_bulk");
            TableSchema bs = schema("blocked_batching");
            TableSchema rs = schema("blocked_regular");
            BulkStreamWriter kw = db.bulkStreamWriter(ks, BulkWrite.Config.newBuilder().maxInFlightRequests(1).build(),
                    Context.newBuilder().build());
            BatchingWriter bw = db.batchingWriter(BatchingWriter.Config.newBuilder().maxBatchRows(10)
                    .maxInFlightRequests(1).maxBufferedRows(20).maxBlock(Duration.ofSeconds(60)).build());
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
            long start = System.nanoTime();
            db.shutdownNow();
            for (Thread p : producers) {
                p.join(TimeUnit.SECONDS.toMillis(BOUND_S));
            }
            long took = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
            List<String> stuck = producers.stream().filter(Thread::isAlive).map(Thread::getName).toList();
            assertTrue(stuck.isEmpty(), "producers still blocked " + took + " s after shutdownNow: " + stuck);
            assertTrue(took < 15, "producers released " + took + " s after shutdownNow");
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
}
