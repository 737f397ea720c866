package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.data.DataType;
import dev.sluice.data.InvalidDataException;
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

class BatchingWriterTest {
    @RegisterExtension
    static final TestkitClient KIT = new TestkitClient(GreptimeTestServer.builder().requestLogCapacity(100_000),
            o -> o.defaultTimeout(Duration.ofSeconds(5)));

    static TableSchema schema(String name) {
        return TableSchema.newBuilder(name).addTag("writer", DataType.Int32).addField("v", DataType.Float64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
    }



    @BeforeEach
    void clear() {
        KIT.server().clear();
    }

    @Test
    void aLoneRowIsFlushedByTheTimerWithinTheInterval() throws Exception {
        BatchingWriter.Config cfg = BatchingWriter.Config.defaults().withFlushInterval(Duration.ofMillis(200));
        try (BatchingWriter w = KIT.db().batchingWriter(cfg)) {
            long start = System.nanoTime();
            CompletableFuture<Void> f = w.write(schema("lone"), 1, 1.0, 1L);
            f.get(5, TimeUnit.SECONDS);
            long ms = (System.nanoTime() - start) / 1_000_000;
            // Nothing but the timer flushes before close; the bound leaves room for a loaded CI machine.
            assertTrue(ms < 1_500, "acknowledged after " + ms + " ms");
            RecordedRequest r = KIT.server().takeRequest(Duration.ofSeconds(1));
            while (r != null && r.kind().equals("health")) {
                r = KIT.server().takeRequest(Duration.ofSeconds(1)); // the client's background health checks
            }
            assertEquals(1, r.rows());
            assertEquals(1, KIT.server().rowCount("lone"));
        }
    }

    @Test
    void eightThreadsOfSingleRowWritesAreStoredExactlyOnceInLargeBatches() throws Exception {
        List<TableSchema> tables = List.of(schema("t0"), schema("t1"), schema("t2"));
        int perThread = 100_000;
        Set<CompletableFuture<Void>> futures = ConcurrentHashMap.newKeySet();
        try (BatchingWriter w = KIT.db().batchingWriter(BatchingWriter.Config.defaults())) {
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
        BatchingWriter.Config cfg = BatchingWriter.Config.defaults().withMaxBatchRows(10)
                .withBuffer(20, Duration.ofMillis(300)).withFlushInterval(Duration.ofMillis(20));
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

    @Test
    void closeWithPendingRowsStoresThemAll() {
        BatchingWriter w = KIT.db().batchingWriter(BatchingWriter.Config.defaults().withFlushInterval(Duration.ofSeconds(30)));
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
        GreptimeDB dead = GreptimeDB.create(GreptimeOptions.newBuilder(new String[] {"127.0.0.1:1"}, "public")
                .defaultTimeout(Duration.ofSeconds(2)).build());
        try {
            BatchingWriter w = dead.batchingWriter(BatchingWriter.Config.defaults().withFlushInterval(Duration.ofSeconds(30)));
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
        try (BatchingWriter w = KIT.db().batchingWriter(BatchingWriter.Config.defaults())) {
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
        try (BatchingWriter w = KIT.db().batchingWriter(BatchingWriter.Config.defaults())) {
            w.write(schema("grow"), 1, 1.0, 1L);
            w.write(wider, 2, 2.0, "new", 2L);
            assertTrue(w.flush(Duration.ofSeconds(5)));
        }
        assertEquals(2, KIT.server().rowCount("grow"));
        assertEquals(4, KIT.server().schema("grow").columnCount());
    }

    @Test
    void theBulkPathStoresTheSameRows() {
        try (BatchingWriter w = KIT.db().batchingWriter(BatchingWriter.Config.defaults().withPath(BatchingWriter.Path.Bulk)
                .withMaxBatchRows(1_000))) {
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
