package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.data.DataType;
import dev.sluice.data.InvalidDataException;
import dev.sluice.data.RowAppender;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.RecordedRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@SharesJvm
class BatchingWriterTest {
    @RegisterExtension
    static final TestkitClient KIT = new TestkitClient(GreptimeTestServer.builder().requestLogCapacity(100_000),
            o -> o.requestTimeout(Duration.ofSeconds(5)));

    static TableSchema schema(String name) {
        return TableSchema.newBuilder(name).addTag("writer", DataType.Int32).addField("v", DataType.Float64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
    }



    @BeforeEach
    void clear() {
        KIT.server().clear();
    }

    @Test
    void aLoneRowIsFlushedByTheTimerWhileTheWriterIsOpen() throws Exception {
        BatchingWriter.Config cfg = BatchingWriter.Config.newBuilder().flushInterval(Duration.ofMillis(200)).build();
        try (BatchingWriter w = KIT.db().batchingWriter(cfg)) {
            CompletableFuture<Void> f = w.write(schema("lone"), 1, 1.0, 1L);
            // The row fills no batch and the writer is neither flushed nor closed: only the timer can send it. The
            // bound is how long a loaded machine may take, reached only if the timer never flushes.
            f.get(60, TimeUnit.SECONDS);
            RecordedRequest r = KIT.server().takeRequest(Duration.ofSeconds(30));
            while (r != null && r.kind().equals("health")) {
                r = KIT.server().takeRequest(Duration.ofSeconds(30)); // the client's background health checks
            }
            assertEquals(1, r.rows());
            assertEquals(1, KIT.server().rowCount("lone"));
        }
    }

    /** Typed rows: the same values as addRow rows, stored the same; a bad one is refused and leaves no trace. */
    @Test
    void typedRowsAreStoredLikeObjectRowsAndABadOneLeavesNoTrace() throws Exception {
        TableSchema s = TableSchema.newBuilder("typed").addTag("host", DataType.String).addField("v", DataType.Float64)
                .addField("n", DataType.Int8).addTimestamp("ts", DataType.TimestampMillisecond).build();
        int host = s.indexOf("host");
        int v = s.indexOf("v");
        int n = s.indexOf("n");
        int ts = s.indexOf("ts");
        try (BatchingWriter w = KIT.db().batchingWriter(BatchingWriter.Config.newBuilder().build())) {
            List<CompletableFuture<Void>> acks = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                int row = i;
                if (i % 2 == 0) {
                    acks.add(w.write(s, r -> r.setString(host, "h" + row).setDouble(v, row / 2.0).setLong(n, row % 100)
                            .setLong(ts, row)));
                } else {
                    acks.add(w.write(s, "h" + row, row / 2.0, row % 100, (long) row));
                }
            }
            InvalidDataException bad = assertThrows(InvalidDataException.class,
                    () -> w.write(s, r -> r.setString(host, "bad").setDouble(v, 1.0).setLong(n, 1_000).setLong(ts, 999L)));
            assertTrue(bad.getMessage().contains("typed") && bad.getMessage().contains("'n'"), bad.getMessage());
            assertThrows(InvalidDataException.class, () -> w.write(s, r -> r.setString(host, "no time index")));
            assertThrows(IllegalStateException.class, () -> w.write(s, r -> r.setLong(ts, 5L).endRow()));
            for (CompletableFuture<Void> a : acks) {
                a.get(10, TimeUnit.SECONDS);
            }
            assertEquals(100, w.ackedRows());
            assertEquals(0, w.pendingRows());
        }
        List<java.util.Map<String, Object>> rows = KIT.server().rows("typed");
        assertEquals(100, rows.size());
        for (java.util.Map<String, Object> r : rows) {
            long t = ((Number) r.get("ts")).longValue();
            assertEquals("h" + t, r.get("host"));
            assertEquals(t / 2.0, ((Number) r.get("v")).doubleValue(), 0.0);
            assertEquals(t % 100, ((Number) r.get("n")).longValue());
        }
    }

    /**
     * The typed form allocates no Object[] and boxes nothing: what a row costs the caller's thread is the column
     * data it adds to the batch (5 columns, 8 bytes a cell) and little else.
     */
    @Test
    void typedRowsCostTheirColumnDataWithoutArraysOrBoxes() throws Exception {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        TableSchema s = TableSchema.newBuilder("typed_alloc").addTag("host", DataType.String)
                .addField("a", DataType.Float64).addField("b", DataType.Float64).addField("c", DataType.Float64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        String[] hosts = {"host-1", "host-2", "host-3"};
        // Batches of 1,000 rows: each batch's columns are allocated once at that size (no growth), so what differs
        // between the two forms is what each row costs on top of the column data.
        BatchingWriter.Config cfg = BatchingWriter.Config.newBuilder().maxBatchRows(1_000)
                .flushInterval(Duration.ofSeconds(30)).build();
        long typed;
        long objects;
        try (BatchingWriter w = KIT.db().batchingWriter(cfg)) {
            long[] at = new long[1];
            java.util.function.Consumer<RowAppender> row = r -> r.setString(0, hosts[(int) (at[0] % 3)])
                    .setDouble(1, at[0] * 0.5).setDouble(2, at[0] * 0.25).setDouble(3, at[0] * 0.125).setLong(4, at[0]);
            for (at[0] = 0; at[0] < 20_000; at[0]++) {
                w.write(s, row); // warm-up: the batch's columns grow to their size
            }
            long before = threads.getCurrentThreadAllocatedBytes();
            for (at[0] = 20_000; at[0] < 70_000; at[0]++) {
                w.write(s, row);
            }
            typed = threads.getCurrentThreadAllocatedBytes() - before;
            before = threads.getCurrentThreadAllocatedBytes();
            for (long i = 70_000; i < 120_000; i++) {
                w.write(s, hosts[(int) (i % 3)], i * 0.5, i * 0.25, i * 0.125, i);
            }
            objects = threads.getCurrentThreadAllocatedBytes() - before;
            assertTrue(w.flush(Duration.ofSeconds(20)));
        }
        assertEquals(120_000, KIT.server().rowCount("typed_alloc"));
        String said = "typed " + typed / 50_000 + " B/row, Object... " + objects / 50_000 + " B/row";
        assertTrue(typed < 80 * 50_000, "column data (~48 B/row) and little else: " + said);
        // An Object[5] is 40 bytes and three Doubles and a Long 64 more.
        assertTrue(objects - typed > 64 * 50_000, "the Object... form costs an array and boxes more: " + said);
    }

    @Test
    void eightThreadsOfSingleRowWritesAreStoredExactlyOnceInLargeBatches() throws Exception {
        List<TableSchema> tables = List.of(schema("t0"), schema("t1"), schema("t2"));
        int perThread = 100_000;
        Set<CompletableFuture<Void>> futures = ConcurrentHashMap.newKeySet();
        try (BatchingWriter w = KIT.db().batchingWriter(BatchingWriter.Config.newBuilder().build())) {
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int id = t;
                Thread th = new Thread(() -> {
                    CompletableFuture<Void> last = null;
                    for (int i = 0; i < perThread; i++) {
                        CompletableFuture<Void> f = w.write(tables.get(i % 3), id, (double) i, (long) i);
                        if (f != last) {
                            futures.add(f);
                            last = f;
                        }
                    }
                });
                threads.add(th);
                th.start();
            }
            for (Thread th : threads) {
                th.join();
            }
            assertTrue(w.flush(Duration.ofSeconds(30)));
            assertEquals(800_000, w.ackedRows());
            assertEquals(0, w.pendingRows());
        }
        for (CompletableFuture<Void> f : futures) {
            assertTrue(f.isDone() && !f.isCompletedExceptionally());
        }
        long stored = 0;
        for (TableSchema s : tables) {
            stored += KIT.server().rowCount(s.tableName());
        }
        assertEquals(800_000, stored, "every row stored exactly once (keys are unique per writer and row)");
        List<RecordedRequest> writes = KIT.server().requests().stream().filter(r -> r.kind().equals("insert")).toList();
        double mean = writes.stream().mapToInt(RecordedRequest::rows).average().orElse(0);
        assertTrue(mean >= 1_000, "mean batch " + mean + " rows over " + writes.size() + " requests");
    }

    @Test
    void aFullBufferBlocksThenTimesOutWithAClearError() {
        KIT.server().faults().neverRespond(true);
        BatchingWriter.Config cfg = BatchingWriter.Config.newBuilder().maxBatchRows(10)
                .maxBufferedRows(20).maxBlock(Duration.ofMillis(300)).flushInterval(Duration.ofMillis(20)).build();
        BatchingWriter w = KIT.db().batchingWriter(cfg);
        try {
            for (int i = 0; i < 20; i++) {
                w.write(schema("full"), 1, 1.0, (long) i);
            }
            long start = System.nanoTime();
            LimitExceededException e = assertThrows(LimitExceededException.class,
                    () -> w.write(schema("full"), 1, 1.0, 99L));
            long ms = (System.nanoTime() - start) / 1_000_000;
            assertTrue(ms >= 250, "waited " + ms + " ms");
            assertTrue(e.getMessage().contains("maxBufferedRows") || e.getMessage().contains("buffer of 20 rows"), e.getMessage());
        } finally {
            KIT.server().faults().reset();
            w.close();
        }
        assertEquals(20, w.failedRows() + w.ackedRows(), "every buffered row was settled, none dropped");
    }

    /**
     * orderedPerTable: two one-row batches of the same row (same tag and time index), both sendable at once
     * (four in flight), the first request failing retryably once. The client retries the first batch; the
     * second must not overtake it, so the row ends with the later value (last write wins). A batch of another
     * table is not held back by them.
     */
    @Test
    void orderedPerTableARetriedBatchNeverLandsAfterALaterBatchOfItsTable() throws Exception {
        TableSchema s = schema("ordered");
        BatchingWriter.Config cfg = BatchingWriter.Config.newBuilder().maxBatchRows(1).maxInFlightRequests(4)
                .flushInterval(Duration.ofMillis(20)).orderedPerTable(true).build();
        try (BatchingWriter w = KIT.db().batchingWriter(cfg)) {
            w.write(s, 0, 0.0, 1L).get(30, TimeUnit.SECONDS); // creates the table: the fault below hits a data write
            KIT.server().faults().failNext(1, dev.sluice.write.StatusCode.StorageUnavailable, "busy once");
            CompletableFuture<Void> first = w.write(s, 7, 1.0, 5L);
            CompletableFuture<Void> second = w.write(s, 7, 2.0, 5L);
            CompletableFuture<Void> other = w.write(schema("ordered_other"), 1, 3.0, 5L);
            CompletableFuture.allOf(first, second, other).get(30, TimeUnit.SECONDS);
        } finally {
            KIT.server().faults().reset();
        }
        Object v = null;
        for (java.util.Map<String, Object> r : KIT.server().rows("ordered")) {
            if (r.get("writer") instanceof Number n && n.intValue() == 7) {
                v = r.get("v");
            }
        }
        assertEquals(2.0, v, "the later write of the row wins");
        assertEquals(1, KIT.server().rowCount("ordered_other"));
    }

    /**
     * A buffer full of open batches that no size limit seals (rows spread over two tables, each under a batch)
     * is sent when a writer has to wait for room, not after the flush interval: with a 60 s interval and a 10 s
     * buffer wait, the 150 writes all succeed and every row is stored.
     */
    @Test
    void aFullBufferOfOpenBatchesIsSentRatherThanWaitingForTheFlushInterval() throws Exception {
        BatchingWriter.Config cfg = BatchingWriter.Config.newBuilder().maxBatchRows(100)
                .maxBufferedRows(100).maxBlock(Duration.ofSeconds(10)).flushInterval(Duration.ofSeconds(60)).build();
        try (BatchingWriter w = KIT.db().batchingWriter(cfg)) {
            List<CompletableFuture<Void>> acks = new ArrayList<>();
            for (int i = 0; i < 150; i++) {
                acks.add(w.write(schema(i % 2 == 0 ? "even" : "odd"), 1, 1.0, (long) i));
            }
            assertTrue(w.flush(Duration.ofSeconds(30)));
            for (CompletableFuture<Void> f : acks) {
                assertTrue(f.isDone() && !f.isCompletedExceptionally());
            }
        }
        assertEquals(75, KIT.server().rowCount("even"));
        assertEquals(75, KIT.server().rowCount("odd"));
    }

    @Test
    void closeWithPendingRowsStoresThemAll() {
        BatchingWriter w = KIT.db().batchingWriter(BatchingWriter.Config.newBuilder().flushInterval(Duration.ofSeconds(30)).build());
        List<CompletableFuture<Void>> fs = new ArrayList<>();
        for (int i = 0; i < 2_500; i++) {
            fs.add(w.write(schema("pending"), i % 4, 1.0, (long) i));
        }
        w.close();
        assertEquals(2_500, KIT.server().rowCount("pending"));
        assertTrue(fs.stream().allMatch(f -> f.isDone() && !f.isCompletedExceptionally()));
    }

    @Test
    void closeOnADeadServerFailsEveryPendingRow() {
        GreptimeDB dead = GreptimeDB.create(GreptimeOptions.newBuilder("127.0.0.1:1", "public")
                .requestTimeout(Duration.ofSeconds(2)).build());
        try {
            BatchingWriter w = dead.batchingWriter(BatchingWriter.Config.newBuilder().flushInterval(Duration.ofSeconds(30)).build());
            List<CompletableFuture<Void>> fs = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                fs.add(w.write(schema("dead"), 1, 1.0, (long) i));
            }
            w.close();
            for (CompletableFuture<Void> f : fs) {
                CompletionException e = assertThrows(CompletionException.class, f::join);
                assertTrue(e.getCause() instanceof BatchWriteException, e.toString());
            }
            assertEquals(100, w.failedRows());
            assertEquals(0, w.pendingRows());
        } finally {
            dead.shutdownGracefully();
        }
    }

    @Test
    void badRowsThrowOnTheCallerAndAreNotBuffered() {
        try (BatchingWriter w = KIT.db().batchingWriter(BatchingWriter.Config.newBuilder().build())) {
            assertThrows(InvalidDataException.class, () -> w.write(schema("bad"), "x", 1.0, 1L));
            w.write(schema("bad"), 1, 1.0, 1L);
            assertEquals(1, w.pendingRows());
            assertTrue(w.flush(Duration.ofSeconds(5)));
        }
        assertEquals(1, KIT.server().rowCount("bad"));
    }

    @Test
    void aGrowingSchemaAddsColumns() {
        TableSchema wider = TableSchema.newBuilder("grow").addTag("writer", DataType.Int32).addField("v", DataType.Float64)
                .addField("extra", DataType.String).addTimestamp("ts", DataType.TimestampMillisecond).build();
        try (BatchingWriter w = KIT.db().batchingWriter(BatchingWriter.Config.newBuilder().build())) {
            w.write(schema("grow"), 1, 1.0, 1L);
            w.write(wider, 2, 2.0, "new", 2L);
            assertTrue(w.flush(Duration.ofSeconds(5)));
        }
        assertEquals(2, KIT.server().rowCount("grow"));
        assertEquals(4, KIT.server().schema("grow").columnCount());
    }

    @Test
    void theBulkPathStoresTheSameRows() {
        try (BatchingWriter w = KIT.db().batchingWriter(BatchingWriter.Config.newBuilder().path(BatchingWriter.Path.Bulk)
                .maxBatchRows(1_000).build())) {
            for (int i = 0; i < 5_500; i++) {
                w.write(schema("bulk_batched"), i % 7, (double) i, (long) i);
            }
            assertTrue(w.flush(Duration.ofSeconds(10)));
            assertEquals(5_500, w.ackedRows());
        }
        assertEquals(5_500, KIT.server().rowCount("bulk_batched"));
        assertFalse(KIT.server().requests().stream().noneMatch(r -> r.kind().equals("bulk")));
    }
}
