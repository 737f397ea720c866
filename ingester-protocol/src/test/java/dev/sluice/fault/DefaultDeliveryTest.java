package dev.sluice.fault;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.BatchingWriter;
import dev.sluice.Context;
import dev.sluice.DataType;
import dev.sluice.Err;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.Result;
import dev.sluice.RetryPolicy;
import dev.sluice.StatusCode;
import dev.sluice.StreamWriter;
import dev.sluice.Table;
import dev.sluice.TableSchema;
import dev.sluice.WriteOk;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.bulk.internal.ArrowSupport;
import dev.sluice.testkit.GreptimeTestServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Delivery with the client's default settings on every path, under faults a real deployment sees. Counts come
 * from outside the code under test: acknowledged and failed rows from the futures' outcomes, stored rows from
 * the testkit. Every scenario asserts {@code stored == acknowledged} and {@code acknowledged + failed == sent}.
 */
class DefaultDeliveryTest {
    static final TableSchema METRICS = TableSchema.newBuilder("metrics")
            .addTag("host", DataType.String).addTag("region", DataType.String)
            .addTag("datacenter", DataType.String).addTag("service", DataType.String)
            .addField("cpu", DataType.Float64).addField("memory", DataType.Float64)
            .addField("disk_util", DataType.Float64).addField("net_in", DataType.Float64)
            .addField("net_out", DataType.Float64)
            .addTimestamp("ts", DataType.TimestampMillisecond).build();
    static final int BATCH = 1_000;

    /** Batches per stream on the stream path: a stream is answered (and replayed) as a whole. */
    static final int STREAM_BATCHES = 5;

    /** The ways of writing; each writes {@code batches} batches of {@link #BATCH} rows and tallies outcomes. */
    enum Path { REGULAR, STREAM, BULK, BATCHING_REGULAR, BATCHING_BULK }

    /** What the futures said. */
    record Outcome(long sent, long acked, long failed, String firstError) {
    }

    static Object[] row(long i) {
        return new Object[] {"host_" + (i % 1_000), "region_" + (i % 5), "dc_" + (i % 10), "svc_" + (i % 20),
            (i % 100) * 1.0, (i % 97) * 1.0, (i % 89) * 1.0, i * 3.0, i * 7.0, 1_704_067_200_000L + i};
    }

    static Table batch(int b) {
        Table t = Table.from(METRICS, BATCH);
        for (long i = (long) b * BATCH; i < (long) (b + 1) * BATCH; i++) {
            t.addRow(row(i));
        }
        return t;
    }

    static GreptimeDB client(GreptimeTestServer server) {
        return GreptimeDB.create(GreptimeOptions.newBuilder(new String[] {server.endpoint()}, "public").build());
    }

    /** Writes the batches on one path with default settings; {@code during} runs after a third of them. */
    static Outcome write(GreptimeDB db, Path path, int batches, Runnable during) {
        long acked = 0;
        long failed = 0;
        String firstError = null;
        long sent = (long) batches * BATCH;
        switch (path) {
            case REGULAR -> {
                List<CompletableFuture<Result<WriteOk, Err>>> writes = new ArrayList<>();
                for (int b = 0; b < batches; b++) {
                    if (b == batches / 3) {
                        during.run();
                    }
                    writes.add(db.write(batch(b)));
                }
                for (CompletableFuture<Result<WriteOk, Err>> w : writes) {
                    Result<WriteOk, Err> r = w.orTimeout(200, TimeUnit.SECONDS).join();
                    if (r.isOk()) {
                        acked += r.getOk().affectedRows();
                    } else {
                        failed += BATCH;
                        firstError = firstError != null ? firstError : r.getErr().toString();
                    }
                }
            }
            case STREAM -> {
                List<CompletableFuture<WriteOk>> streams = new ArrayList<>();
                StreamWriter<Table, WriteOk> s = null;
                for (int b = 0; b < batches; b++) {
                    if (b == batches / 3) {
                        during.run();
                    }
                    if (s == null) {
                        s = db.streamWriter(0, Context.newDefault());
                    }
                    s.write(batch(b));
                    if ((b + 1) % STREAM_BATCHES == 0 || b == batches - 1) {
                        streams.add(s.completed());
                        s = null;
                    }
                }
                for (int i = 0; i < streams.size(); i++) {
                    long rows = (long) Math.min(STREAM_BATCHES, batches - i * STREAM_BATCHES) * BATCH;
                    try {
                        acked += streams.get(i).orTimeout(200, TimeUnit.SECONDS).join().affectedRows();
                    } catch (CompletionException e) {
                        failed += rows;
                        firstError = firstError != null ? firstError : e.getCause().toString();
                    }
                }
            }
            case BULK -> {
                List<CompletableFuture<Integer>> acks = new ArrayList<>();
                BulkWrite.Config cfg = BulkWrite.Config.newBuilder().maxRequestsInFlight(5).build();
                try (BulkStreamWriter w = db.bulkStreamWriter(METRICS, cfg, Context.newDefault())) {
                    TableBufferRoot root = w.tableBufferRoot(BATCH);
                    for (int b = 0; b < batches; b++) {
                        if (b == batches / 3) {
                            during.run();
                        }
                        root.addTable(batch(b));
                        acks.add(w.writeNext());
                    }
                    for (CompletableFuture<Integer> a : acks) {
                        try {
                            acked += a.orTimeout(200, TimeUnit.SECONDS).join();
                        } catch (CompletionException e) {
                            failed += BATCH;
                            firstError = firstError != null ? firstError : e.getCause().toString();
                        }
                    }
                    try {
                        w.completed();
                    } catch (RuntimeException e) {
                        firstError = firstError != null ? firstError : e.toString();
                    }
                }
            }
            case BATCHING_REGULAR, BATCHING_BULK -> {
                List<CompletableFuture<Void>> writes = new ArrayList<>();
                BatchingWriter.Config cfg = BatchingWriter.Config.defaults()
                        .withPath(path == Path.BATCHING_BULK ? BatchingWriter.Path.Bulk : BatchingWriter.Path.Regular)
                        .withMaxBatchRows(BATCH); // the workload's batch size, so that faults hit many requests
                try (BatchingWriter w = db.batchingWriter(cfg)) {
                    for (int b = 0; b < batches; b++) {
                        if (b == batches / 3) {
                            during.run();
                        }
                        for (long i = (long) b * BATCH; i < (long) (b + 1) * BATCH; i++) {
                            writes.add(w.write(METRICS, row(i)));
                        }
                    }
                    for (CompletableFuture<Void> f : writes) {
                        try {
                            f.orTimeout(200, TimeUnit.SECONDS).join();
                            acked++;
                        } catch (CompletionException e) {
                            failed++;
                            firstError = firstError != null ? firstError : e.getCause().toString();
                        }
                    }
                }
            }
            default -> throw new IllegalArgumentException(path.toString());
        }
        return new Outcome(sent, acked, failed, firstError);
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    static void check(String scenario, Path path, Outcome o, GreptimeTestServer server) {
        long stored = server.rowCount("metrics");
        System.out.printf("[default-delivery] %s / %s: sent=%d acked=%d stored=%d failed=%d injected=%d%s%n", scenario,
                path, o.sent(), o.acked(), stored, o.failed(), server.faults().injectedCount(),
                o.firstError() != null ? " first error: " + o.firstError() : "");
        assertEquals(o.acked(), stored, "stored == acknowledged");
        assertEquals(o.sent(), o.acked() + o.failed(), "acknowledged + failed == sent");
    }

    @AfterEach
    void noOffHeapLeft() {
        assertEquals(0, ArrowSupport.root().getAllocatedMemory(), "every bulk buffer was released");
    }

    private static void everyTenthRequestRateLimited(Path path) {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = client(server);
            try {
                if (path == Path.BULK || path == Path.BATCHING_BULK) {
                    assertTrue(db.createTable(METRICS, Context.newDefault()).join().isOk());
                }
                server.faults().failEvery(10, StatusCode.RateLimited, "rate limited");
                Outcome o = write(db, path, 100, () -> { });
                check("every 10th request rate limited", path, o, server);
                assertEquals(100_000, o.acked(), "with the defaults every row is stored: " + o.firstError());
                assertTrue(server.faults().injectedCount() >= 9, "faults were injected");
            } finally {
                db.shutdownGracefully();
            }
        }
    }

    @Test
    void regularStoresEveryRowWhenEveryTenthRequestIsRateLimited() {
        everyTenthRequestRateLimited(Path.REGULAR);
    }

    @Test
    void streamStoresEveryRowWhenEveryTenthRequestIsRateLimited() {
        everyTenthRequestRateLimited(Path.STREAM);
    }

    @Test
    void bulkStoresEveryRowWhenEveryTenthRequestIsRateLimited() {
        everyTenthRequestRateLimited(Path.BULK);
    }

    @Test
    void batchingOverRegularStoresEveryRowWhenEveryTenthRequestIsRateLimited() {
        everyTenthRequestRateLimited(Path.BATCHING_REGULAR);
    }

    @Test
    void batchingOverBulkStoresEveryRowWhenEveryTenthRequestIsRateLimited() {
        everyTenthRequestRateLimited(Path.BATCHING_BULK);
    }

    /** Stops the only server for ten seconds, then brings it back on the same port, while the path writes. */
    private static void serverDownTenSeconds(Path path) {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = client(server);
            try {
                assertTrue(db.createTable(METRICS, Context.newDefault()).join().isOk());
                Thread restarter = new Thread(() -> {
                    try {
                        Thread.sleep(10_000);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    server.resume();
                });
                Outcome o = write(db, path, 30, () -> {
                    server.stop();
                    restarter.start();
                });
                restarter.join(30_000);
                check("only server down 10 s", path, o, server);
                assertEquals(30_000, o.acked(), "no write within its deadline fails: " + o.firstError());
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            } finally {
                db.shutdownGracefully();
            }
        }
    }

    @Test
    void regularSurvivesTheOnlyServerDownForTenSeconds() {
        serverDownTenSeconds(Path.REGULAR);
    }

    @Test
    void streamSurvivesTheOnlyServerDownForTenSeconds() {
        serverDownTenSeconds(Path.STREAM);
    }

    @Test
    void bulkSurvivesTheOnlyServerDownForTenSeconds() {
        serverDownTenSeconds(Path.BULK);
    }

    @Test
    void batchingOverRegularSurvivesTheOnlyServerDownForTenSeconds() {
        serverDownTenSeconds(Path.BATCHING_REGULAR);
    }

    @Test
    void batchingOverBulkSurvivesTheOnlyServerDownForTenSeconds() {
        serverDownTenSeconds(Path.BATCHING_BULK);
    }

    /**
     * Two servers, the client pointed at both; after a third of the batches the one that has stored more so far
     * (the one a bulk stream is on) is stopped for good.
     */
    private static void oneOfTwoEndpointsKilled(Path path) {
        try (GreptimeTestServer a = GreptimeTestServer.start(); GreptimeTestServer b = GreptimeTestServer.start()) {
            for (GreptimeTestServer s : List.of(a, b)) {
                GreptimeDB one = client(s);
                try {
                    assertTrue(one.createTable(METRICS, Context.newDefault()).join().isOk());
                } finally {
                    one.shutdownGracefully();
                }
            }
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(
                    new String[] {a.endpoint(), b.endpoint()}, "public").build());
            try {
                GreptimeTestServer[] killed = new GreptimeTestServer[1];
                long[] survivorBefore = new long[1];
                Outcome o = write(db, path, 30, () -> {
                    // Wait (bounded) until something is stored, so that the endpoint in use is the one killed.
                    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                    while (a.rowCount("metrics") + b.rowCount("metrics") == 0 && System.nanoTime() < until) {
                        sleep(10);
                    }
                    killed[0] = a.rowCount("metrics") >= b.rowCount("metrics") ? a : b;
                    killed[0].stop();
                    survivorBefore[0] = (killed[0] == a ? b : a).rowCount("metrics");
                });
                GreptimeTestServer survivor = killed[0] == a ? b : a;
                long stored = a.rowCount("metrics") + b.rowCount("metrics");
                System.out.printf("[default-delivery] one of two endpoints killed / %s: sent=%d acked=%d stored=%d"
                        + " (killed %d, survivor %d of which %d after the kill) failed=%d%s%n", path, o.sent(), o.acked(),
                        stored, killed[0].rowCount("metrics"), survivor.rowCount("metrics"),
                        survivor.rowCount("metrics") - survivorBefore[0], o.failed(),
                        o.firstError() != null ? " first error: " + o.firstError() : "");
                assertEquals(o.sent(), o.acked() + o.failed(), "acknowledged + failed == sent");
                assertTrue(stored >= o.acked(), "every acknowledged row is stored on one of the servers");
                assertTrue(killed[0].rowCount("metrics") > 0, "the killed endpoint was in use before the kill");
                assertEquals(30_000, o.acked(), "the surviving endpoint took every write: " + o.firstError());
                assertTrue(survivor.rowCount("metrics") > survivorBefore[0], "writes moved to the survivor");
            } finally {
                db.shutdownGracefully();
            }
        }
    }

    @Test
    void regularMovesToTheSurvivorWhenOneOfTwoEndpointsIsKilled() {
        oneOfTwoEndpointsKilled(Path.REGULAR);
    }

    @Test
    void streamMovesToTheSurvivorWhenOneOfTwoEndpointsIsKilled() {
        oneOfTwoEndpointsKilled(Path.STREAM);
    }

    @Test
    void bulkMovesToTheSurvivorWhenOneOfTwoEndpointsIsKilled() {
        oneOfTwoEndpointsKilled(Path.BULK);
    }

    @Test
    void batchingOverRegularMovesToTheSurvivorWhenOneOfTwoEndpointsIsKilled() {
        oneOfTwoEndpointsKilled(Path.BATCHING_REGULAR);
    }

    @Test
    void batchingOverBulkMovesToTheSurvivorWhenOneOfTwoEndpointsIsKilled() {
        oneOfTwoEndpointsKilled(Path.BATCHING_BULK);
    }

    /** One future of a write, in rows, with when it was handed over and when it completed (both nanoTime). */
    record Tracked(Path path, long rows, long startedNanos, CompletableFuture<Long> acked, long[] doneNanos) {
        static Tracked of(Path path, long rows, long startedNanos, CompletableFuture<Long> acked) {
            long[] done = {0};
            Tracked t = new Tracked(path, rows, startedNanos, acked, done);
            acked.whenComplete((v, e) -> done[0] = System.nanoTime());
            return t;
        }

        /** Waits for the outcome: the rows acknowledged, or null when it failed (its error kept in {@code errors}). */
        Long await(long seconds, List<String> errors) {
            try {
                return acked.orTimeout(seconds, TimeUnit.SECONDS).join();
            } catch (CompletionException e) {
                Throwable cause = e.getCause() != null ? e.getCause() : e;
                if (cause instanceof java.util.concurrent.TimeoutException) {
                    throw new AssertionError(path + ": a future was still pending after " + seconds + " s", cause);
                }
                errors.add(cause.toString());
                return null;
            }
        }
    }

    static CompletableFuture<Long> rowsOf(CompletableFuture<Result<WriteOk, Err>> write) {
        return write.thenApply(r -> {
            if (!r.isOk()) {
                throw new CompletionException(new IllegalStateException(r.getErr().toString()));
            }
            return (long) r.getOk().affectedRows();
        });
    }

    /** The client's delivery deadline with the defaults: a write that cannot be delivered fails after it. */
    static final Duration DELIVERY_DEADLINE = RetryPolicy.defaults().deliveryTimeout();

    /**
     * A hung server: it accepts every write (regular requests, stream messages and bulk batches) and never answers
     * or stores any. Every path writes at once against it, so the suite waits one delivery deadline in all. Each
     * future must fail, not before the 2-minute delivery deadline (a hang shorter than that must not lose writes)
     * and not long after it (nothing is left pending). Rows written before the hang (the bulk writers' first
     * batches, opened while the server answered) are acknowledged and stored.
     */
    @Test
    void everyPathFailsEveryWriteAtItsDeliveryDeadlineWhenTheServerHangs() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = client(server);
            BulkStreamWriter bulk = null;
            BatchingWriter batchingRegular = null;
            BatchingWriter batchingBulk = null;
            try {
                assertTrue(db.createTable(METRICS, Context.newDefault()).join().isOk());
                // Opened while the server answers: a hang mid-run finds the bulk streams open and in use.
                List<Tracked> before = new ArrayList<>();
                bulk = db.bulkStreamWriter(METRICS, BulkWrite.Config.newBuilder().build(), Context.newDefault());
                TableBufferRoot root = bulk.tableBufferRoot(BATCH);
                root.addTable(batch(0));
                before.add(Tracked.of(Path.BULK, BATCH, System.nanoTime(), bulk.writeNext().thenApply(n -> (long) n)));
                BatchingWriter.Config cfg = BatchingWriter.Config.defaults().withMaxBatchRows(BATCH);
                batchingRegular = db.batchingWriter(cfg);
                batchingBulk = db.batchingWriter(cfg.withPath(BatchingWriter.Path.Bulk));
                before.add(Tracked.of(Path.BATCHING_BULK, BATCH, System.nanoTime(),
                        batchingBulk.write(batch(1)).thenApply(v -> (long) BATCH)));
                List<String> errors = new ArrayList<>();
                long ackedBefore = 0;
                for (Tracked t : before) {
                    Long n = t.await(60, errors);
                    assertTrue(n != null, "written before the hang: " + errors);
                    ackedBefore += n;
                }
                assertEquals(ackedBefore, server.rowCount("metrics"));

                server.faults().neverRespond(true);
                long hungAt = System.nanoTime();
                List<Tracked> tracked = java.util.Collections.synchronizedList(new ArrayList<>());
                BulkStreamWriter bulkWriter = bulk;
                BatchingWriter overRegular = batchingRegular;
                BatchingWriter overBulk = batchingBulk;
                // Fewer writes than each path's in-flight limit, so that every one is sent at once.
                List<Runnable> paths = List.of(
                    () -> {
                        for (int b = 10; b < 15; b++) {
                            long at = System.nanoTime();
                            tracked.add(Tracked.of(Path.REGULAR, BATCH, at, rowsOf(db.write(batch(b)))));
                        }
                    },
                    () -> {
                        for (int s0 = 20; s0 < 26; s0 += 3) {
                            long at = System.nanoTime();
                            StreamWriter<Table, WriteOk> st = db.streamWriter(0, Context.newDefault());
                            for (int b = s0; b < s0 + 3; b++) {
                                st.write(batch(b));
                            }
                            tracked.add(Tracked.of(Path.STREAM, 3L * BATCH, at,
                                    st.completed().thenApply(ok -> (long) ok.affectedRows())));
                        }
                    },
                    () -> {
                        for (int b = 30; b < 35; b++) {
                            root.addTable(batch(b));
                            long at = System.nanoTime();
                            tracked.add(Tracked.of(Path.BULK, BATCH, at, bulkWriter.writeNext().thenApply(n -> (long) n)));
                        }
                    },
                    () -> {
                        for (int b = 40; b < 43; b++) {
                            long at = System.nanoTime();
                            tracked.add(Tracked.of(Path.BATCHING_REGULAR, BATCH, at,
                                    overRegular.write(batch(b)).thenApply(v -> (long) BATCH)));
                        }
                    },
                    () -> {
                        for (int b = 50; b < 53; b++) {
                            long at = System.nanoTime();
                            tracked.add(Tracked.of(Path.BATCHING_BULK, BATCH, at,
                                    overBulk.write(batch(b)).thenApply(v -> (long) BATCH)));
                        }
                    });
                java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(paths.size());
                try {
                    List<CompletableFuture<Void>> writers = new ArrayList<>();
                    for (Runnable r : paths) {
                        writers.add(CompletableFuture.runAsync(r, pool));
                    }
                    CompletableFuture.allOf(writers.toArray(new CompletableFuture<?>[0])).get(60, TimeUnit.SECONDS);
                } finally {
                    pool.shutdownNow();
                }

                long deadlineNanos = DELIVERY_DEADLINE.toNanos();
                // Generous: a loaded machine completes futures late, never early.
                long marginNanos = TimeUnit.SECONDS.toNanos(45);
                long waitSeconds = TimeUnit.NANOSECONDS.toSeconds(deadlineNanos + marginNanos) + 30;
                java.util.Map<Path, long[]> table = new java.util.EnumMap<>(Path.class); // sent, acked, failed, min ms, max ms
                for (Tracked t : List.copyOf(tracked)) {
                    List<String> errs = new ArrayList<>();
                    Long n = t.await(waitSeconds, errs);
                    long[] row = table.computeIfAbsent(t.path(), p -> new long[] {0, 0, 0, Long.MAX_VALUE, 0});
                    row[0] += t.rows();
                    long tookMs = TimeUnit.NANOSECONDS.toMillis(t.doneNanos()[0] - t.startedNanos());
                    row[3] = Math.min(row[3], tookMs);
                    row[4] = Math.max(row[4], tookMs);
                    if (n != null) {
                        row[1] += n;
                    } else {
                        row[2] += t.rows();
                        errors.add(t.path() + ": " + errs.get(0));
                    }
                }
                long stored = server.rowCount("metrics") - ackedBefore;
                long sent = 0;
                long acked = 0;
                long failed = 0;
                for (java.util.Map.Entry<Path, long[]> e : table.entrySet()) {
                    long[] r = e.getValue();
                    sent += r[0];
                    acked += r[1];
                    failed += r[2];
                    System.out.printf("[default-delivery] server hung / %s: sent=%d acked=%d failed=%d, futures failed"
                            + " %d..%d ms after the write%n", e.getKey(), r[0], r[1], r[2], r[3], r[4]);
                }
                System.out.printf("[default-delivery] server hung / all paths: sent=%d acked=%d stored=%d failed=%d"
                        + " (plus %d rows acknowledged and stored before the hang) in %d s; first errors: %s%n", sent,
                        acked, stored, failed, ackedBefore, TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - hungAt),
                        errors.subList(0, Math.min(errors.size(), 5)));
                assertEquals(5, table.size(), "every path wrote");
                assertEquals(acked, stored, "stored == acknowledged");
                assertEquals(sent, acked + failed, "acknowledged + failed == sent");
                assertEquals(0, acked, "a hung server acknowledges nothing");
                for (Tracked t : tracked) {
                    long took = t.doneNanos()[0] - t.startedNanos();
                    assertTrue(took >= deadlineNanos - TimeUnit.SECONDS.toNanos(1), t.path() + ": failed after "
                            + TimeUnit.NANOSECONDS.toMillis(took) + " ms, before its delivery deadline of "
                            + DELIVERY_DEADLINE.toMillis() + " ms");
                    assertTrue(took <= deadlineNanos + marginNanos, t.path() + ": failed after "
                            + TimeUnit.NANOSECONDS.toMillis(took) + " ms, long after its delivery deadline");
                }
            } finally {
                server.faults().reset();
                for (AutoCloseable c : new AutoCloseable[] {bulk, batchingRegular, batchingBulk}) {
                    if (c != null) {
                        c.close();
                    }
                }
                db.shutdownGracefully();
            }
        }
    }

    @Test
    void bulkWithoutRetriesReportsEveryBatchAndLeaksNoMemory() {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = client(server);
            try {
                assertTrue(db.createTable(METRICS, Context.newDefault()).join().isOk());
                server.faults().failEvery(10, StatusCode.RateLimited, "rate limited");
                Context none = Context.newDefault().withRetryPolicy(RetryPolicy.none());
                List<CompletableFuture<Integer>> acks = new ArrayList<>();
                BulkStreamWriter w = db.bulkStreamWriter(METRICS,
                        BulkWrite.Config.newBuilder().maxRequestsInFlight(5).build(), none);
                TableBufferRoot root = w.tableBufferRoot(BATCH);
                for (int b = 0; b < 100; b++) {
                    root.addTable(batch(b));
                    acks.add(w.writeNext());
                }
                long acked = 0;
                long failed = 0;
                for (CompletableFuture<Integer> a : acks) {
                    try {
                        acked += a.orTimeout(60, TimeUnit.SECONDS).join();
                    } catch (CompletionException e) {
                        failed += BATCH;
                    }
                }
                check("every 10th request rate limited, RetryPolicy.none()", Path.BULK,
                        new Outcome(100_000, acked, failed, null), server);
                assertTrue(failed > 0, "without retries the injected failure reaches the caller");
                assertDoesNotThrow(w::close, "close() after a failed stream releases every buffer");
            } finally {
                db.shutdownGracefully();
            }
        }
    }

}
