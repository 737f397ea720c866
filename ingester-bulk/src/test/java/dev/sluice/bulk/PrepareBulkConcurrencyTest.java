package dev.sluice.bulk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code GreptimeDB.prepareBulk()} under concurrency, in a JVM of its own (so the first writers really load Arrow's
 * classes while other threads prepare): many threads preparing at once, preparing while writers open and write (every
 * row stored with its values), preparing while the client shuts down (no hang, nothing but the documented
 * IllegalStateException, no memory left), and preparing again and again (the client's bulk memory returns to where it
 * was).
 */
class PrepareBulkConcurrencyTest {
    private static final long DEADLINE_SECONDS = 60;
    private GreptimeTestServer server;
    private GreptimeDB db;
    private ExecutorService pool;

    @BeforeEach
    void start() {
        server = GreptimeTestServer.start();
        db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
        pool = Executors.newCachedThreadPool();
    }

    @AfterEach
    void stop() throws InterruptedException {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(DEADLINE_SECONDS, TimeUnit.SECONDS), "test threads ended");
        db.shutdownNow();
        server.close();
    }

    private static TableSchema schema(String name) {
        return TableSchema.newBuilder(name).addTag("host", DataType.String).addField("n", DataType.Int64)
                .addField("msg", DataType.String).addField("v", DataType.Float64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
    }

    private static Object[] row(int writer, int i) {
        return new Object[] {"w" + writer + "h" + (i % 5), (long) writer * 1_000_000L + i,
            i % 7 == 0 ? null : "m" + writer + "-" + i, i * 0.25, 1_700_000_000_000L + i};
    }

    private static boolean isShutDownRefusal(Throwable t) {
        return t instanceof IllegalStateException && t.getMessage() != null && t.getMessage().contains("shut down");
    }

    @Test
    void prepareFromManyThreadsAtOnceSucceedsEverywhereAndKeepsNoMemory() throws Exception {
        long before = db.stats().bulkAllocatedBytes();
        int threads = 8;
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Integer>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            done.add(pool.submit(() -> {
                go.await();
                for (int i = 0; i < 25; i++) {
                    db.prepareBulk();
                }
                return 25;
            }));
        }
        go.countDown();
        for (Future<Integer> f : done) {
            assertEquals(25, f.get(DEADLINE_SECONDS, TimeUnit.SECONDS));
        }
        assertEquals(before, db.stats().bulkAllocatedBytes(), "off-heap bytes after concurrent prepares");
        assertTrue(server.tables().isEmpty(), "tables: " + server.tables());
    }

    @Test
    void prepareRacingTheFirstWritersLosesNoRowAndNoValue() throws Exception {
        int writers = 3;
        int batches = 4;
        int perBatch = 700;
        CountDownLatch go = new CountDownLatch(1);
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicInteger prepares = new AtomicInteger();
        List<Future<?>> preparers = new ArrayList<>();
        for (int p = 0; p < 2; p++) {
            preparers.add(pool.submit(() -> {
                go.await();
                do {
                    db.prepareBulk();
                    prepares.incrementAndGet();
                } while (writing.get());
                return null;
            }));
        }
        List<Future<Long>> written = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            int writer = w;
            written.add(pool.submit(() -> {
                go.await();
                try (BulkStreamWriter bw = db.bulkStreamWriter(schema("raced_" + writer))) {
                    TableBufferRoot root = bw.tableBufferRoot(64);
                    int i = 0;
                    for (int b = 0; b < batches; b++) {
                        for (int r = 0; r < perBatch; r++) {
                            root.addRow(row(writer, i++));
                        }
                        assertEquals(perBatch, bw.writeNext().get(DEADLINE_SECONDS, TimeUnit.SECONDS));
                    }
                    return bw.completed();
                }
            }));
        }
        go.countDown();
        try {
            for (Future<Long> f : written) {
                assertEquals((long) batches * perBatch, f.get(DEADLINE_SECONDS, TimeUnit.SECONDS));
            }
        } finally {
            writing.set(false);
        }
        for (Future<?> f : preparers) {
            f.get(DEADLINE_SECONDS, TimeUnit.SECONDS);
        }
        assertTrue(prepares.get() >= 2);
        for (int w = 0; w < writers; w++) {
            List<Map<String, Object>> rows = server.rows("raced_" + w);
            assertEquals(batches * perBatch, rows.size(), "rows of writer " + w);
            for (Map<String, Object> r : rows) {
                int i = (int) ((Long) r.get("ts") - 1_700_000_000_000L);
                Object[] e = row(w, i);
                assertEquals(e[0], r.get("host"), "host of row " + i);
                assertEquals(e[1], r.get("n"), "n of row " + i);
                assertEquals(e[2], r.get("msg"), "msg of row " + i);
                assertEquals(e[3], r.get("v"), "v of row " + i);
            }
        }
        assertEquals(0, db.stats().bulkAllocatedBytes(), "off-heap bytes after writers closed");
    }

    @Test
    void preparingAgainAndAgainReturnsTheBulkMemoryToItsLevel() throws Exception {
        // A writer first, so the client's memory and its reuse cache exist.
        try (BulkStreamWriter w = db.bulkStreamWriter(schema("warm"))) {
            TableBufferRoot root = w.tableBufferRoot(16);
            for (int i = 0; i < 100; i++) {
                root.addRow(row(0, i));
            }
            assertEquals(100, w.writeNext().get(DEADLINE_SECONDS, TimeUnit.SECONDS));
            w.completed();
        }
        long level = db.stats().bulkAllocatedBytes();
        for (int i = 0; i < 200; i++) {
            db.prepareBulk();
            assertEquals(level, db.stats().bulkAllocatedBytes(), "off-heap bytes after prepare " + i);
        }
        // And with a writer open and holding a filled batch.
        try (BulkStreamWriter w = db.bulkStreamWriter(schema("open"))) {
            TableBufferRoot root = w.tableBufferRoot(16);
            for (int i = 0; i < 50; i++) {
                root.addRow(row(1, i));
            }
            long held = db.stats().bulkAllocatedBytes();
            for (int i = 0; i < 50; i++) {
                db.prepareBulk();
            }
            assertEquals(held, db.stats().bulkAllocatedBytes(), "off-heap bytes with a writer open");
            assertEquals(50, w.writeNext().get(DEADLINE_SECONDS, TimeUnit.SECONDS));
            assertEquals(50, w.completed());
        }
        assertEquals(level, db.stats().bulkAllocatedBytes(), "off-heap bytes after the second writer");
        assertEquals(50, server.rowCount("open"));
    }

    @Test
    void prepareRacingShutdownNowEndsWithNothingButTheDocumentedRefusal() throws Exception {
        raceShutdown(true);
    }

    @Test
    void prepareRacingShutdownGracefullyEndsWithNothingButTheDocumentedRefusal() throws Exception {
        raceShutdown(false);
    }

    private void raceShutdown(boolean now) throws Exception {
        for (int round = 0; round < 15; round++) {
            GreptimeDB client = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            List<Throwable> unexpected = Collections.synchronizedList(new ArrayList<>());
            CountDownLatch started = new CountDownLatch(3);
            List<Future<?>> threads = new ArrayList<>();
            for (int t = 0; t < 3; t++) {
                threads.add(pool.submit(() -> {
                    started.countDown();
                    while (!Thread.currentThread().isInterrupted()) {
                        try {
                            client.prepareBulk();
                        } catch (Throwable e) {
                            if (!isShutDownRefusal(e)) {
                                unexpected.add(e);
                            }
                            return null;
                        }
                    }
                    return null;
                }));
            }
            // A writer with a batch under way as well.
            BulkStreamWriter w = client.bulkStreamWriter(schema("shut_" + (now ? "now_" : "graceful_") + round));
            TableBufferRoot root = w.tableBufferRoot(16);
            for (int i = 0; i < 200; i++) {
                root.addRow(row(round, i));
            }
            var pending = w.writeNext();
            assertTrue(started.await(DEADLINE_SECONDS, TimeUnit.SECONDS));
            if (now) {
                client.shutdownNow();
            } else {
                client.shutdownGracefully(java.time.Duration.ofSeconds(20));
            }
            for (Future<?> f : threads) {
                f.get(DEADLINE_SECONDS, TimeUnit.SECONDS); // every preparing thread saw the refusal and ended
            }
            try {
                pending.get(DEADLINE_SECONDS, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException expectedWhenShutDownNow) {
                // a batch cancelled by the shutdown fails; it must not hang
            }
            try {
                w.close();
            } catch (RuntimeException closedAfterShutdown) {
                // closing a writer whose client is shut down may report the failure
            }
            assertEquals(List.of(), unexpected, "round " + round + ": errors other than the shut-down refusal");
            IllegalStateException after = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                    client::prepareBulk);
            assertTrue(after.getMessage().contains("shut down"), after.getMessage());
            assertEquals(0, client.stats().bulkAllocatedBytes(), "round " + round + ": off-heap bytes after shutdown");
        }
    }
}
