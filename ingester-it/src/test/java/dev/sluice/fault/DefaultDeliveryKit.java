package dev.sluice.fault;

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
import dev.sluice.testkit.GreptimeTestServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;

/**
 * What the tests of delivery with the client's default settings share: the rows, the ways of writing and a tally of
 * their outcomes, and the checks. Counts come from outside the code under test: acknowledged and failed rows from the
 * futures' outcomes, stored rows from the testkit. Every scenario asserts {@code stored == acknowledged} and
 * {@code acknowledged + failed == sent}, and after each test that no client holds off-heap memory.
 */
abstract class DefaultDeliveryKit {
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

    /**
     * The ways of writing; each writes {@code batches} batches of {@link #BATCH} rows and tallies outcomes. The
     * batching writer has a regular and a bulk path only ({@link BatchingWriter.Path}): there is no batching over
     * streams to test.
     */
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

    /** Every client a test made, to check after it that none holds off-heap memory. */
    static final List<GreptimeDB> CLIENTS = new java.util.concurrent.CopyOnWriteArrayList<>();

    static GreptimeDB client(GreptimeTestServer server) {
        return registered(GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build()));
    }

    static GreptimeDB registered(GreptimeDB db) {
        CLIENTS.add(db);
        return db;
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
                        s = db.streamWriter(StreamWriter.Config.newBuilder().build(), Context.newBuilder().build());
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
                BulkWrite.Config cfg = BulkWrite.Config.newBuilder().maxInFlightRequests(5).build();
                try (BulkStreamWriter w = db.bulkStreamWriter(METRICS, cfg, Context.newBuilder().build())) {
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
                BatchingWriter.Config cfg = BatchingWriter.Config.newBuilder()
                        .path(path == Path.BATCHING_BULK ? BatchingWriter.Path.Bulk : BatchingWriter.Path.Regular)
                        .maxBatchRows(BATCH).build(); // the workload's batch size, so that faults hit many requests
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
            Thread.sleep(millis); // scenario timing for the callers (pacing producers), not a wait
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
        for (GreptimeDB db : CLIENTS) {
            assertEquals(0, db.stats().bulkAllocatedBytes(), "every bulk buffer was released");
        }
        CLIENTS.clear();
    }

    static void everyTenthRequestRateLimited(Path path) {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = client(server);
            try {
                if (path == Path.BULK || path == Path.BATCHING_BULK) {
                    assertTrue(db.createTable(METRICS, Context.newBuilder().build()).join().isOk());
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

    /** Stops the only server for ten seconds, then brings it back on the same port, while the path writes. */
    static void serverDownTenSeconds(Path path) {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = client(server);
            try {
                assertTrue(db.createTable(METRICS, Context.newBuilder().build()).join().isOk());
                Thread restarter = new Thread(() -> {
                    try {
                        Thread.sleep(10_000); // scenario timing: the outage lasts ten seconds, not a wait
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

    /**
     * Two servers, the client pointed at both; after a third of the batches the one that has stored more so far
     * (the one a bulk stream is on) is stopped for good.
     */
    static void oneOfTwoEndpointsKilled(Path path) {
        try (GreptimeTestServer a = GreptimeTestServer.start(); GreptimeTestServer b = GreptimeTestServer.start()) {
            for (GreptimeTestServer s : List.of(a, b)) {
                GreptimeDB one = client(s);
                try {
                    assertTrue(one.createTable(METRICS, Context.newBuilder().build()).join().isOk());
                } finally {
                    one.shutdownGracefully();
                }
            }
            GreptimeDB db = registered(GreptimeDB.create(GreptimeOptions.newBuilder(List.of(a.endpoint(), b.endpoint()), "public").build()));
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

    /**
     * One future of a write, in rows, with when it was handed over and when it completed (both nanoTime, or both on
     * the clock given).
     */
    record Tracked(Path path, long rows, long startedNanos, CompletableFuture<Long> acked, long[] doneNanos) {
        static Tracked of(Path path, long rows, long startedNanos, CompletableFuture<Long> acked) {
            return of(path, rows, startedNanos, acked, System::nanoTime);
        }

        static Tracked of(Path path, long rows, long startedNanos, CompletableFuture<Long> acked,
                          java.util.function.LongSupplier clock) {
            long[] done = {0};
            Tracked t = new Tracked(path, rows, startedNanos, acked, done);
            acked.whenComplete((v, e) -> done[0] = clock.getAsLong());
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
    static final Duration DELIVERY_DEADLINE = RetryPolicy.newBuilder().build().deliveryTimeout();

    static TableSchema metrics(String name) {
        TableSchema.Builder b = TableSchema.newBuilder(name);
        for (TableSchema.Column c : METRICS.columns()) {
            switch (c.semanticType()) {
                case Tag -> b.addTag(c.name(), c.dataType());
                case Field -> b.addField(c.name(), c.dataType());
                default -> b.addTimestamp(c.name(), c.dataType());
            }
        }
        return b.build();
    }

    static Table rows(TableSchema schema, long first, int count) {
        Table t = Table.from(schema, count);
        for (long i = first; i < first + count; i++) {
            t.addRow(row(i));
        }
        return t;
    }

    /** Whether a failure is the client refusing more work than its limits allow (and saying so). */
    static boolean isLimitError(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof dev.sluice.LimitExceededException) {
                return true;
            }
            if (c instanceof dev.sluice.write.WriteException w && w.err() != null && w.err().cause() != null
                    && isLimitError(w.err().cause())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Direct memory of this JVM: NIO's direct pool plus what the clients' Arrow allocators account (large Arrow
     * buffers come from malloc, which NIO's pool does not see).
     */
    static long directBytes() {
        long n = 0;
        for (java.lang.management.BufferPoolMXBean pool
                : java.lang.management.ManagementFactory.getPlatformMXBeans(java.lang.management.BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) {
                n += pool.getMemoryUsed();
            }
        }
        for (GreptimeDB db : CLIENTS) {
            n += db.stats().bulkAllocatedBytes();
        }
        return n;
    }

    /** Samples heap (right after a full GC) and direct memory in the background, keeping the peaks. */
    static final class MemoryPeaks implements AutoCloseable {
        final long heapBase;
        final long directBase;
        volatile long heapPeak;
        volatile long directPeak;
        volatile boolean stop;
        final Thread sampler;

        MemoryPeaks() {
            heapBase = heapAfterGc();
            directBase = directBytes();
            sampler = new Thread(() -> {
                for (int i = 0; !stop; i++) {
                    directPeak = Math.max(directPeak, directBytes());
                    if (i % 20 == 0) { // a full GC every 2 s: often enough for a peak that builds up over seconds
                        heapPeak = Math.max(heapPeak, heapAfterGc());
                    }
                    sleep(100);
                }
            }, "memory-sampler");
            sampler.setDaemon(true);
            sampler.start();
        }

        static long heapAfterGc() {
            System.gc();
            return java.lang.management.ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        }

        @Override
        public void close() throws InterruptedException {
            stop = true;
            sampler.join(10_000);
        }
    }

    /** What one path's producer saw: rows handed over, and each future with its rows. */
    static final class Load {
        final Path path;
        final TableSchema schema;
        final List<Tracked> futures = java.util.Collections.synchronizedList(new ArrayList<>());
        /** The next row number (rows are distinct per table, so the server's count is the rows delivered). */
        long next;
        long sent;
        long refused;
        long blockedNanos;
        long busyNanos;
        /** When the producer returned (its last call can block past the window). */
        long finishedNanos;
        String firstRefusal;

        Load(Path path) {
            this.path = path;
            this.schema = metrics("overload_" + path.name().toLowerCase(java.util.Locale.ROOT));
        }

        void refused(long rows, RuntimeException e) {
            if (!isLimitError(e)) {
                throw new AssertionError(path + ": a write was refused with something other than a limit error", e);
            }
            refused += rows;
            firstRefusal = firstRefusal != null ? firstRefusal : e.toString();
        }
    }

    /**
     * Producers on every path at once offer far more than a slowed server absorbs (each answer delayed by
     * {@link #OVERLOAD_LATENCY}), with the default budget. The server runs in its own JVM so that this JVM's
     * memory is the client's (and the producers'). Heap after GC and direct memory (NIO's direct pool, Arrow's
     * allocator) stay under the documented budget plus a stated margin; every future completes, acknowledged or
     * failed with a limit error; {@code stored == acknowledged} and {@code acknowledged + failed == sent} per path.
     * Each path's offered and absorbed rates are printed: the latency holds regular, bulk and batching writes back
     * by their in-flight caps, while streams (no cap but the byte budget, the latency applying once per stream)
     * absorb most of what one producer offers at this latency.
     *
     * @param paths the paths loaded at once
     */
    static void tenfoldOverload(Path... paths) throws Exception {
        GreptimeOptions defaults = GreptimeOptions.newBuilder("127.0.0.1:1", "public").build();
        long budget = defaults.maxInFlightBytes();
        try (TestkitProcess server = TestkitProcess.start("768m")) {
            GreptimeDB db = registered(GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(),
                    "public").build()));
            List<Load> loads = new ArrayList<>();
            for (Path p : paths) {
                loads.add(new Load(p));
            }
            try {
                for (Load l : loads) {
                    assertTrue(db.createTable(l.schema, Context.newBuilder().build()).join().isOk());
                }
                server.latency(OVERLOAD_LATENCY);
                long windowEnd;
                MemoryPeaks mem = new MemoryPeaks();
                long started = System.nanoTime();
                windowEnd = started + OVERLOAD_WINDOW.toNanos();
                List<Thread> producers = new ArrayList<>();
                for (Load l : loads) {
                    producers.add(new Thread(() -> {
                        produce(db, l, windowEnd);
                        l.finishedNanos = System.nanoTime();
                    }, "producer-" + l.path));
                }
                producers.forEach(Thread::start);
                for (Thread t : producers) {
                    t.join(OVERLOAD_WINDOW.toMillis() + 180_000);
                    assertTrue(!t.isAlive(), t.getName() + " finished");
                }
                long window = System.nanoTime() - started;
                long waitSeconds = DELIVERY_DEADLINE.toSeconds() + 60;
                java.util.Map<Path, long[]> outcome = new java.util.EnumMap<>(Path.class);
                List<String> errors = new ArrayList<>();
                for (Load l : loads) {
                    long acked = 0;
                    long failed = l.refused;
                    for (Tracked t : List.copyOf(l.futures)) {
                        List<String> errs = new ArrayList<>();
                        Long n = t.await(waitSeconds, errs);
                        if (n != null) {
                            acked += n;
                        } else {
                            failed += t.rows();
                            Throwable cause = t.acked().handle((v, e) -> e).join();
                            assertTrue(isLimitError(cause), l.path + ": a future failed with something other than a"
                                    + " limit error: " + cause);
                            errors.add(l.path + ": " + errs.get(0));
                        }
                    }
                    outcome.put(l.path, new long[] {acked, failed});
                }
                long drained = System.nanoTime() - started;
                mem.close();
                long heapGrowth = mem.heapPeak - mem.heapBase;
                // The batching writers' buffers are bounded in rows, not by the byte budget: their documented share
                // is maxBufferedRows rows each, at what a metrics row costs in a Table (measured, not assumed).
                long batchingWriters = loads.stream().filter(l -> l.path == Path.BATCHING_REGULAR
                        || l.path == Path.BATCHING_BULK).count();
                long rowBytes = tableHeapBytesPerRow();
                long buffers = batchingWriters * BatchingWriter.Config.newBuilder().build().maxBufferedRows() * rowBytes;
                // The budget counts encoded bytes, but regular and stream writes keep the Table behind them until
                // answered (to resend it), which takes more heap than its encoding: scale the budget by that ratio.
                long wireBytes = encodedBytesPerRow();
                double heapPerBudgetByte = Math.max(1.0, (double) rowBytes / wireBytes);
                long heapAllowed = (long) (budget * heapPerBudgetByte) + buffers + OVERLOAD_HEAP_MARGIN;
                long directGrowth = mem.directPeak - mem.directBase;
                long storedAll = 0;
                for (Load l : loads) {
                    long stored = server.rowCount(l.schema.tableName());
                    storedAll += stored;
                    long[] o = outcome.get(l.path);
                    // Offered: what the producer made per second of its own (unblocked) time; absorbed: stored per
                    // second until the path's last future completed.
                    long lastDone = started;
                    for (Tracked t : List.copyOf(l.futures)) {
                        lastDone = Math.max(lastDone, t.doneNanos()[0]);
                    }
                    double offered = l.sent / Math.max(1e-9, l.busyNanos / 1e9);
                    double absorbed = stored / Math.max(1e-9, (lastDone - started) / 1e9);
                    System.out.printf("[default-delivery] 10x overload / %s: sent=%d acked=%d stored=%d failed=%d"
                            + " (refused at the call %d); offered %.0f rows/s, absorbed %.0f rows/s (x%.1f), producer"
                            + " blocked %.0f%% of its %d s%s%n", l.path, l.sent, o[0], stored, o[1], l.refused, offered,
                            absorbed, offered / Math.max(1, absorbed),
                            100.0 * l.blockedNanos / Math.max(1, l.blockedNanos + l.busyNanos),
                            TimeUnit.NANOSECONDS.toSeconds(l.finishedNanos - started), l.firstRefusal != null ? " first refusal: " + l.firstRefusal : "");
                    assertEquals(o[0], stored, l.path + ": stored == acknowledged");
                    assertEquals(l.sent, o[0] + o[1], l.path + ": acknowledged + failed == sent");
                    assertTrue(o[0] > 0, l.path + ": the server absorbed some of it");
                }
                System.out.printf("[default-delivery] 10x overload / all paths: latency %d ms, window %d s, drained"
                        + " after %d s; stored %d rows (%.0f rows/s); heap after GC: base %d MiB, peak +%d MiB;"
                        + " direct: base %d MiB, peak +%d MiB; budget %d MiB, batching buffers %d MiB (%d B per row in a"
                        + " Table, %d B encoded), heap allowed +%d MiB%n", OVERLOAD_LATENCY.toMillis(),
                        TimeUnit.NANOSECONDS.toSeconds(window), TimeUnit.NANOSECONDS.toSeconds(drained), storedAll,
                        storedAll / (window / 1e9), mem.heapBase >> 20, heapGrowth >> 20, mem.directBase >> 20,
                        directGrowth >> 20, budget >> 20, buffers >> 20, rowBytes, wireBytes, heapAllowed >> 20);
                assertTrue(heapGrowth <= heapAllowed, "heap after GC grew by " + (heapGrowth >> 20)
                        + " MiB, over the budget of " + (budget >> 20) + " MiB (x" + String.format("%.2f", heapPerBudgetByte)
                        + " for the Tables held behind encoded bytes) plus the batching buffers' " + (buffers >> 20)
                        + " MiB plus a margin of " + (OVERLOAD_HEAP_MARGIN >> 20) + " MiB");
                assertTrue(directGrowth <= budget + OVERLOAD_DIRECT_MARGIN, "direct memory grew by "
                        + (directGrowth >> 20) + " MiB, over the budget of " + (budget >> 20) + " MiB plus a margin of "
                        + (OVERLOAD_DIRECT_MARGIN >> 20) + " MiB");
            } finally {
                db.shutdownGracefully();
            }
        }
    }

    /** How long the overload server delays every answer. */
    static final Duration OVERLOAD_LATENCY = Duration.ofSeconds(2);

    /** How long the producers offer load. */
    static final Duration OVERLOAD_WINDOW = Duration.ofSeconds(20);

    /**
     * Rows per regular write under overload: small requests, so that the client's cap of 1,024 regular requests in
     * flight (not the byte budget, which 1,024 requests of 1,000 metrics rows do not reach) holds the path back.
     */
    static final int OVERLOAD_REGULAR_ROWS = 10;

    /** Heap beyond the budget and the batching buffers: the producers' batches in hand, futures, calls' state. */
    static final long OVERLOAD_HEAP_MARGIN = 128L << 20;

    /**
     * What one metrics row takes on the wire in a row insert, encoded by protobuf's own generated messages (not the
     * client's encoder): 1,000 rows, their values only (the schema travels once per request).
     */
    static long encodedBytesPerRow() {
        dev.sluice.internal.wire.Rows.Builder rows = dev.sluice.internal.wire.Rows.newBuilder();
        int n = 1_000;
        for (long i = 0; i < n; i++) {
            Object[] r = row(i);
            dev.sluice.internal.wire.Row.Builder b = dev.sluice.internal.wire.Row.newBuilder();
            for (int c = 0; c < 4; c++) {
                b.addValues(dev.sluice.internal.wire.Value.newBuilder().setStringValue((String) r[c]));
            }
            for (int c = 4; c < 9; c++) {
                b.addValues(dev.sluice.internal.wire.Value.newBuilder().setF64Value((Double) r[c]));
            }
            b.addValues(dev.sluice.internal.wire.Value.newBuilder().setTimestampMillisecondValue((Long) r[9]));
            rows.addRows(b);
        }
        return Math.max(1, rows.build().getSerializedSize() / n);
    }

    /** What one metrics row costs on the heap in a {@link Table}: measured after GC on 200,000 rows. */
    static long tableHeapBytesPerRow() {
        int n = 200_000;
        long before = MemoryPeaks.heapAfterGc();
        Table t = rows(METRICS, 0, n);
        long after = MemoryPeaks.heapAfterGc();
        java.lang.ref.Reference.reachabilityFence(t);
        return Math.max(1, (after - before) / n);
    }

    /** Direct memory beyond the byte budget: the transport's cache of released buffers (a quarter of max direct). */
    static final long OVERLOAD_DIRECT_MARGIN = 320L << 20;

    /** One path's producer: hands over batches as fast as the client takes them until the window ends. */
    static void produce(GreptimeDB db, Load l, long windowEnd) {
        switch (l.path) {
            case REGULAR -> {
                while (System.nanoTime() < windowEnd) {
                    long t0 = System.nanoTime();
                    Table t = rows(l.schema, l.next, OVERLOAD_REGULAR_ROWS);
                    l.next += OVERLOAD_REGULAR_ROWS;
                    long t1 = System.nanoTime();
                    CompletableFuture<Result<WriteOk, Err>> f = db.write(t);
                    l.futures.add(Tracked.of(l.path, OVERLOAD_REGULAR_ROWS, t1, rowsOf(f)));
                    l.sent += OVERLOAD_REGULAR_ROWS;
                    account(l, t0, t1, System.nanoTime());
                }
            }
            case STREAM -> {
                StreamWriter<Table, WriteOk> s = null;
                int inStream = 0;
                long streamStart = 0;
                while (System.nanoTime() < windowEnd) {
                    long t0 = System.nanoTime();
                    Table t = rows(l.schema, l.next, BATCH);
                    l.next += BATCH;
                    long t1 = System.nanoTime();
                    if (s == null) {
                        s = db.streamWriter(StreamWriter.Config.newBuilder().build(), Context.newBuilder().build());
                        streamStart = t1;
                    }
                    l.sent += BATCH;
                    try {
                        s.write(t);
                        inStream++;
                    } catch (dev.sluice.StreamWriteException e) {
                        l.refused(BATCH, e);
                    }
                    if (inStream == STREAM_BATCHES || System.nanoTime() >= windowEnd) {
                        long rows = (long) inStream * BATCH;
                        l.futures.add(Tracked.of(l.path, rows, streamStart,
                                s.completed().thenApply(ok -> (long) ok.affectedRows())));
                        s = null;
                        inStream = 0;
                    }
                    account(l, t0, t1, System.nanoTime());
                }
                if (s != null) {
                    l.futures.add(Tracked.of(l.path, (long) inStream * BATCH, streamStart,
                            s.completed().thenApply(ok -> (long) ok.affectedRows())));
                }
            }
            case BULK -> {
                try (BulkStreamWriter w = db.bulkStreamWriter(l.schema, BulkWrite.Config.newBuilder().build(),
                        Context.newBuilder().build())) {
                    TableBufferRoot root = w.tableBufferRoot(BATCH);
                    while (System.nanoTime() < windowEnd) {
                        long t0 = System.nanoTime();
                        Table t = rows(l.schema, l.next, BATCH);
                        l.next += BATCH;
                        long t1 = System.nanoTime();
                        l.sent += BATCH;
                        try {
                            root.addTable(t);
                            l.futures.add(Tracked.of(l.path, BATCH, t1, w.writeNext().thenApply(n -> (long) n)));
                        } catch (RuntimeException e) {
                            l.refused(BATCH, e);
                        }
                        account(l, t0, t1, System.nanoTime());
                    }
                    for (Tracked t : List.copyOf(l.futures)) {
                        t.await(DELIVERY_DEADLINE.toSeconds() + 60, new ArrayList<>());
                    }
                    try {
                        w.completed();
                    } catch (RuntimeException e) {
                        // each batch's future carries its own outcome
                    }
                }
            }
            case BATCHING_REGULAR, BATCHING_BULK -> {
                BatchingWriter.Config cfg = BatchingWriter.Config.newBuilder().path(
                        l.path == Path.BATCHING_BULK ? BatchingWriter.Path.Bulk : BatchingWriter.Path.Regular).build();
                try (BatchingWriter w = db.batchingWriter(cfg)) {
                    while (System.nanoTime() < windowEnd) {
                        long b = l.next / BATCH;
                        l.next += BATCH;
                        long t0 = System.nanoTime();
                        long blocked = 0;
                        CompletableFuture<Void> last = null;
                        long rows = 0;
                        for (long i = b * BATCH; i < (b + 1) * BATCH; i++) {
                            Object[] r = row(i);
                            long c0 = System.nanoTime();
                            CompletableFuture<Void> f;
                            l.sent++;
                            try {
                                f = w.write(l.schema, r);
                            } catch (dev.sluice.LimitExceededException e) {
                                l.refused(1, e);
                                blocked += System.nanoTime() - c0;
                                continue;
                            }
                            blocked += System.nanoTime() - c0;
                            // Rows of one batch share one future: track each future once, with its rows.
                            if (f != last && last != null) {
                                long n = rows;
                                l.futures.add(Tracked.of(l.path, n, c0, last.thenApply(v -> n)));
                                rows = 0;
                            }
                            last = f;
                            rows++;
                        }
                        if (last != null) {
                            long n = rows;
                            l.futures.add(Tracked.of(l.path, n, t0, last.thenApply(v -> n)));
                        }
                        long end = System.nanoTime();
                        l.blockedNanos += blocked;
                        l.busyNanos += end - t0 - blocked;
                    }
                    // Every batch completes by itself (its delivery deadline) before close(), which would fail what
                    // is still buffered after its own wait.
                    for (Tracked t : List.copyOf(l.futures)) {
                        t.await(DELIVERY_DEADLINE.toSeconds() + 120, new ArrayList<>());
                    }
                }
            }
            default -> throw new IllegalArgumentException(l.path.toString());
        }
    }

    static void account(Load l, long t0, long t1, long t2) {
        l.busyNanos += t1 - t0;
        l.blockedNanos += t2 - t1;
    }

}
