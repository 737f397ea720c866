package dev.sluice.fault;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import dev.sluice.testkit.GreptimeTestServer;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The production fault scenarios: each checks that what was acknowledged is what is stored, and that nothing
 * is lost silently. Each prints its figures.
 */
class FaultToleranceTest {
    static final TableSchema CPU = TableSchema.newBuilder("cpu").addTag("host", DataType.String)
            .addField("usage", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();

    static Table rows(long first, int n) {
        Table t = Table.from(CPU, n);
        for (long i = first; i < first + n; i++) {
            t.addRow("h" + (i % 10), (double) i, i);
        }
        return t;
    }

    static GreptimeOptions.Builder options(String... endpoints) {
        return GreptimeOptions.newBuilder(java.util.List.of(endpoints), "public").requestTimeout(Duration.ofSeconds(5))
                .healthCheckInterval(Duration.ofMillis(200))
                .retryPolicy(RetryPolicy.newBuilder().maxAttempts(8).backoff(Duration.ofMillis(5), Duration.ofMillis(200)).build());
    }

    static void report(String scenario, Object... figures) {
        StringBuilder sb = new StringBuilder("[fault] ").append(scenario);
        for (int i = 0; i < figures.length; i += 2) {
            sb.append(i == 0 ? ": " : ", ").append(figures[i]).append('=').append(figures[i + 1]);
        }
        System.out.println(sb);
    }

    @Test
    void everyTenthRequestRateLimitedLosesNothingOnTheRegularPath() {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            server.faults().failEvery(10, StatusCode.RateLimited, "rate limited");
            GreptimeDB db = GreptimeDB.create(options(server.endpoint()).build());
            try {
                List<CompletableFuture<Result<WriteOk, Err>>> writes = new ArrayList<>();
                for (int b = 0; b < 100; b++) {
                    writes.add(db.write(rows(b * 1_000L, 1_000)));
                }
                long acked = 0;
                for (CompletableFuture<Result<WriteOk, Err>> w : writes) {
                    Result<WriteOk, Err> r = w.join();
                    assertTrue(r.isOk(), r::toString);
                    acked += r.getOk().affectedRows();
                }
                long retries = db.stats().retries();
                report("1 regular", "sent", 100_000, "acked", acked, "stored", server.rowCount("cpu"), "failed", 0,
                        "retries", retries, "injected", server.faults().injectedCount());
                assertEquals(100_000, acked);
                assertEquals(100_000, server.rowCount("cpu"));
                assertTrue(retries >= 10, "retries " + retries);
            } finally {
                db.shutdownGracefully();
            }
        }
    }

    @Test
    void everyTenthBatchRateLimitedLosesNothingOnTheBulkPath() {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(options(server.endpoint()).build());
            BulkWrite.Config cfg = BulkWrite.Config.newBuilder().maxInFlightRequests(4).requestTimeout(Duration.ofMillis(10_000)).build();
            try (BulkStreamWriter w = db.bulkStreamWriter(CPU, cfg, Context.newBuilder().build())) {
                server.faults().failEvery(10, StatusCode.RateLimited, "rate limited");
                TableBufferRoot root = w.tableBufferRoot(1_000);
                List<CompletableFuture<Integer>> acks = new ArrayList<>();
                for (int b = 0; b < 100; b++) {
                    root.addTable(rows(b * 1_000L, 1_000));
                    acks.add(w.writeNext());
                }
                long acked = 0;
                for (CompletableFuture<Integer> a : acks) {
                    acked += a.join();
                }
                w.completed();
                report("1 bulk", "sent", 100_000, "acked", acked, "stored", server.rowCount("cpu"), "failed",
                        w.failedBatches(), "replays", w.replays(), "injected", server.faults().injectedCount());
                assertEquals(100_000, acked);
                assertEquals(100_000, server.rowCount("cpu"));
                assertTrue(w.replays() >= 9, "replays " + w.replays());
            } finally {
                db.shutdownGracefully();
            }
            assertEquals(0, db.stats().bulkAllocatedBytes(), "every bulk buffer was released");
        }
    }

    @Test
    void killingOneOfTwoServersMidRunMovesWritesToTheOther() {
        try (GreptimeTestServer a = GreptimeTestServer.start(); GreptimeTestServer b = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(options(a.endpoint(), b.endpoint()).build());
            long acked = 0;
            long failedRows = 0;
            try {
                for (int i = 0; i < 200; i++) {
                    if (i == 60) {
                        a.stop();
                    }
                    Result<WriteOk, Err> r = db.write(rows(i * 500L, 500)).join();
                    if (r.isOk()) {
                        acked += r.getOk().affectedRows();
                    } else {
                        failedRows += 500;
                        assertNotNull(r.getErr().message(), "a failure says why");
                    }
                }
                long stored = a.rowCount("cpu") + b.rowCount("cpu");
                report("2 failover", "sent", 100_000, "acked", acked, "stored", stored, "failed", failedRows,
                        "retries", db.stats().retries(), "onA", a.rowCount("cpu"), "onB", b.rowCount("cpu"),
                        "available", db.stats().availableEndpoints());
                assertEquals(acked, stored, "every acknowledged row is stored");
                assertEquals(100_000, acked + failedRows);
                assertEquals(0, failedRows, "with one server up, retries carry every write to it");
                assertTrue(b.rowCount("cpu") > 70_000);
            } finally {
                db.shutdownGracefully();
            }
        }
    }

    @Test
    void restartingTheOnlyServerOnItsPortIsSurvived() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(options(server.endpoint())
                    .retryPolicy(RetryPolicy.newBuilder().maxAttempts(20).backoff(Duration.ofMillis(20), Duration.ofMillis(200)).build())
                    .build());
            long acked = 0;
            try {
                for (int i = 0; i < 100; i++) {
                    if (i == 40) {
                        server.stop();
                        Thread restart = new Thread(() -> {
                            try {
                                Thread.sleep(300); // scenario timing: the outage's length, not a wait
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                            server.resume();
                        });
                        restart.start();
                    }
                    Result<WriteOk, Err> r = db.write(rows(i * 1_000L, 1_000)).join();
                    assertTrue(r.isOk(), r::toString);
                    acked += r.getOk().affectedRows();
                }
                report("3 restart", "sent", 100_000, "acked", acked, "stored", server.rowCount("cpu"), "failed", 0,
                        "retries", db.stats().retries());
                assertEquals(100_000, acked);
                assertEquals(100_000, server.rowCount("cpu"));
                assertTrue(db.stats().retries() > 0);
            } finally {
                db.shutdownGracefully();
            }
        }
    }

    @Test
    void aServerThatNeverAnswersFailsEveryFutureByItsDeadline() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            // the table is made with default timeouts: on a loaded machine a first write may take longer than 300 ms
            GreptimeDB setup = GreptimeDB.create(options(server.endpoint()).build());
            assertTrue(setup.write(rows(0, 1)).join().isOk(), "the table exists before the server goes silent");
            setup.shutdownGracefully();
            GreptimeDB db = GreptimeDB.create(options(server.endpoint()).requestTimeout(Duration.ofMillis(300))
                    .retryPolicy(RetryPolicy.newBuilder().deliveryTimeout(Duration.ofSeconds(1)).build()).build());
            server.faults().neverRespond(true).bulkNeverAck(true);
            long start = System.nanoTime();
            List<CompletableFuture<Result<WriteOk, Err>>> writes = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                writes.add(db.write(rows(i, 1)));
            }
            StreamWriter<Table, WriteOk> stream = db.streamWriter();
            stream.write(rows(0, 1));
            CompletableFuture<WriteOk> streamDone = stream.completed();
            BulkStreamWriter bulk = db.bulkStreamWriter(CPU, BulkWrite.Config.newBuilder().requestTimeout(Duration.ofMillis(500))
                    .createTable(false).build(), Context.newBuilder().build());
            bulk.tableBufferRoot(1).addRow("h", 1.0, 1L);
            CompletableFuture<Integer> bulkAck = bulk.writeNext();
            // Every future ends, failed, without an answer: the bounds are how long a loaded machine may take to run
            // the 300 ms and 1 s deadlines, reached only if a future is left hanging.
            int failed = 0;
            for (CompletableFuture<Result<WriteOk, Err>> w : writes) {
                Result<WriteOk, Err> r = w.get(60, TimeUnit.SECONDS);
                assertFalse(r.isOk());
                failed++;
            }
            assertTrue(streamDone.handle((v, t) -> t != null).get(60, TimeUnit.SECONDS));
            assertTrue(bulkAck.handle((v, t) -> t != null).get(60, TimeUnit.SECONDS));
            long ms = (System.nanoTime() - start) / 1_000_000;
            bulk.close();
            db.shutdownNow();
            // the client's threads end shortly after shutdownNow returns: wait for them, up to a bound
            long threadsDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            // (the documented process-wide memory sweeper is not the client's)
            List<Thread> alive;
            while (!(alive = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().startsWith("sluice-") && t.isAlive() && !t.getName().startsWith("sluice-callback")
                            && !t.getName().contains("sweeper"))
                    .toList()).isEmpty() && System.nanoTime() < threadsDeadline) {
                for (Thread t : alive) { // returns as soon as the thread has ended, or at the deadline
                    t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(threadsDeadline - System.nanoTime())));
                }
            }
            List<String> left = alive.stream().map(Thread::getName).toList();
            long stuck = left.size();
            report("4 never answers", "sent", 22, "acked", 0, "failed", failed + 2, "ms", ms, "threadsLeft", stuck);
            assertEquals(List.of(), left, "no client thread left after shutdown");
        }
    }

    @Test
    void tenfoldOverloadStaysWithinTheMemoryBudgetAndLosesNothing() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.builder().retainRows(false).start()) {
            server.faults().latency(Duration.ofMillis(20));
            long budget = 8L << 20;
            GreptimeDB db = GreptimeDB.create(options(server.endpoint()).maxInFlightBytes(budget)
                    .whenFull(dev.sluice.write.WhenFull.Block).maxBlock(Duration.ofSeconds(30)).build());
            AtomicLong sent = new AtomicLong();
            AtomicLong acked = new AtomicLong();
            AtomicLong failed = new AtomicLong();
            AtomicLong maxBytes = new AtomicLong();
            AtomicLong maxHeap = new AtomicLong();
            long heapBase = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
            List<Thread> producers = new ArrayList<>();
            List<CompletableFuture<?>> all = java.util.Collections.synchronizedList(new ArrayList<>());
            for (int p = 0; p < 4; p++) {
                int id = p;
                Thread t = new Thread(() -> {
                    for (int i = 0; i < 150; i++) {
                        Table table = rows((id * 1_000L + i) * 2_000, 2_000);
                        sent.addAndGet(2_000);
                        all.add(db.write(table).whenComplete((r, e) -> {
                            if (r != null && r.isOk()) {
                                acked.addAndGet(2_000);
                            } else {
                                failed.addAndGet(2_000);
                            }
                        }));
                        maxBytes.accumulateAndGet(db.stats().bytesInFlight(), Math::max);
                        maxHeap.accumulateAndGet(ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed(), Math::max);
                    }
                });
                producers.add(t);
                t.start();
            }
            for (Thread t : producers) {
                t.join();
            }
            CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0])).get(120, TimeUnit.SECONDS);
            report("5 overload", "sent", sent.get(), "acked", acked.get(), "failed", failed.get(),
                    "stored", server.rowCount("cpu"), "maxBytesInFlight", maxBytes.get(), "budget", budget,
                    "heapGrowthMiB", (maxHeap.get() - heapBase) >> 20);
            assertEquals(sent.get(), acked.get() + failed.get());
            // Nothing acknowledged is lost. A request that timed out on a loaded machine (5 s) may have been stored
            // and is resent (the table is not in append mode): a server deduplicates such copies by key, this one
            // only counts rows, so each resend may add one request's rows and nothing else may.
            long stored = server.rowCount("cpu");
            long retries = db.stats().retries();
            assertTrue(stored >= acked.get(), "stored " + stored + " of " + acked.get() + " acknowledged rows");
            assertTrue(stored <= acked.get() + 2_000 * retries, "stored " + stored + " rows for " + acked.get()
                    + " acknowledged and " + retries + " resent requests of 2,000 rows");
            assertTrue(maxBytes.get() <= budget, "in flight " + maxBytes.get());
            db.shutdownGracefully();
        }
    }
}
