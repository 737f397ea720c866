package dev.sluice.fault;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.BatchingWriter;
import dev.sluice.write.Context;
import dev.sluice.data.DataType;
import dev.sluice.write.Err;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.write.Result;
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.StatusCode;
import dev.sluice.StreamWriter;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.write.WriteOk;
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
    void batchingOverBulkSurvivesTheOnlyServerDownForTenSeconds() {
        serverDownTenSeconds(Path.BATCHING_BULK);
    }

    /** Two servers, the client pointed at both; one is stopped for good after a third of the batches. */
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
                Outcome o = write(db, path, 30, a::stop);
                long stored = a.rowCount("metrics") + b.rowCount("metrics");
                System.out.printf("[default-delivery] one of two endpoints killed / %s: sent=%d acked=%d stored=%d"
                        + " (killed %d, survivor %d) failed=%d%s%n", path, o.sent(), o.acked(), stored,
                        a.rowCount("metrics"), b.rowCount("metrics"), o.failed(),
                        o.firstError() != null ? " first error: " + o.firstError() : "");
                assertEquals(o.sent(), o.acked() + o.failed(), "acknowledged + failed == sent");
                assertTrue(stored >= o.acked(), "every acknowledged row is stored on one of the servers");
                assertEquals(30_000, o.acked(), "the surviving endpoint took every write: " + o.firstError());
                assertTrue(b.rowCount("metrics") > 0, "writes moved to the survivor");
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
