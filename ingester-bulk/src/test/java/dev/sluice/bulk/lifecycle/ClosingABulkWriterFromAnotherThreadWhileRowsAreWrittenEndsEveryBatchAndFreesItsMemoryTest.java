package dev.sluice.bulk.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.sluice.Await;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.BulkWriteException;
import dev.sluice.bulk.NothingHeld;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.RowAppender;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Compression;
import dev.sluice.write.Context;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A bulk writer closed from another thread while its producer adds rows (by {@code addRow} or the typed appender,
 * mid-batch or waiting for an answer slot) and sends batches: close returns, the producer's next call fails with
 * the writer's closed error (never another exception, never a crash), every batch future completes (with its rows,
 * then stored, or with a {@link BulkWriteException}), and the client holds no off-heap memory or budget afterwards.
 */
class ClosingABulkWriterFromAnotherThreadWhileRowsAreWrittenEndsEveryBatchAndFreesItsMemoryTest {
    private static final Duration BOUND = Duration.ofSeconds(60);

    static TableSchema schema(String table) {
        return TableSchema.newBuilder(table)
                .addTag("host", DataType.String)
                .addField("id", DataType.Int64)
                .addField("msg", DataType.String)
                .addField("value", DataType.Float64)
                .addTimestamp("ts", DataType.TimestampMillisecond)
                .build();
    }

    /** A batch sent, with the first id of its rows. */
    record Sent(long firstId, int rows, CompletableFuture<Integer> ack) {
    }

    @ParameterizedTest
    @CsvSource({
        "false, None, 8, 300", "true, None, 8, 300", "false, Zstd, 8, 1000", "true, Lz4, 8, 1000",
        "false, None, 1, 50", "true, None, 1, 50", "false, None, 8, 20000", "true, None, 8, 20000", "true, Gzip, 8, 300",
    })
    void closeEndsEveryBatchAndFreesTheMemory(boolean appender, Compression compression, int maxInFlight,
                                              int batchRows) throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            try {
                for (int closeAfter : new int[] {0, 1, 2, 5}) {
                    String table = "close_race_" + (appender ? "a" : "r") + "_" + compression.name().toLowerCase()
                            + "_" + maxInFlight + "_" + batchRows + "_" + closeAfter;
                    closeWhileWriting(server, db, table, appender, compression, maxInFlight, batchRows, closeAfter, 1);
                }
                NothingHeld.await(db, BOUND, true);
            } finally {
                db.shutdownNow();
            }
        }
    }

    @org.junit.jupiter.api.Test
    void closeAtManyPointsOfManySmallBatchesEndsEveryBatchAndFreesTheMemory() throws Exception {
        java.util.Random rnd = new java.util.Random(41);
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            try {
                for (int i = 0; i < 40; i++) {
                    int batchRows = 1 + rnd.nextInt(40);
                    closeWhileWriting(server, db, "close_points_" + i, i % 2 == 0,
                            i % 3 == 0 ? Compression.Zstd : Compression.None, 1 + rnd.nextInt(8), batchRows,
                            rnd.nextInt(6), rnd.nextInt(batchRows));
                }
                NothingHeld.await(db, BOUND, true);
            } finally {
                db.shutdownNow();
            }
        }
    }

    private static void closeWhileWriting(GreptimeTestServer server, GreptimeDB db, String table, boolean appender,
                                          Compression compression, int maxInFlight, int batchRows, int closeAfter,
                                          int rowsInto)
            throws Exception {
        BulkStreamWriter w = db.bulkStreamWriter(schema(table),
                BulkWrite.Config.newBuilder().maxInFlightRequests(maxInFlight).build(),
                Context.newBuilder().compression(compression).build());
        ConcurrentLinkedQueue<Sent> sent = new ConcurrentLinkedQueue<>();
        AtomicInteger rowsAdded = new AtomicInteger();
        AtomicReference<Throwable> ended = new AtomicReference<>();
        String host = "host-of-" + table.length(); // one object, repeated in every row
        String longText = "m".repeat(120);
        Thread producer = new Thread(() -> {
            long id = 0;
            try {
                TableBufferRoot batch = w.tableBufferRoot(batchRows);
                for (int b = 0; b < 100_000; b++) {
                    long first = id;
                    for (int i = 0; i < batchRows; i++, id++) {
                        String msg = id % 3 == 0 ? longText : id % 3 == 1 ? "short" : null;
                        if (appender) {
                            RowAppender a = batch.appender();
                            a.setString(0, host).setLong(1, id);
                            if (msg != null) {
                                a.setString(2, msg);
                            }
                            a.setDouble(3, id / 2.0).setLong(4, 1_700_000_000_000L + id).endRow();
                        } else {
                            batch.addRow(host, id, msg, id / 2.0, 1_700_000_000_000L + id);
                        }
                        rowsAdded.incrementAndGet();
                    }
                    CompletableFuture<Integer> ack = w.writeNext();
                    sent.add(new Sent(first, batchRows, ack));
                }
                ended.set(new AssertionError("the producer was never stopped by close"));
            } catch (Throwable t) {
                ended.set(t);
            }
        }, "producer-" + table);
        producer.start();
        Await.until("the producer sent " + closeAfter + " batches and " + rowsInto + " rows of the next",
                BOUND, () -> sent.size() >= closeAfter && rowsAdded.get() >= closeAfter * batchRows + rowsInto
                        || ended.get() != null);
        assertEquals(null, ended.get(), "the producer ran until close");
        CompletableFuture<Void> closing = CompletableFuture.runAsync(w::close);
        closing.get(BOUND.toSeconds(), TimeUnit.SECONDS);
        producer.join(BOUND.toMillis());
        assertFalse(producer.isAlive(), "the producer returned after close");
        Throwable t = ended.get();
        assertNotNull(t);
        if (!(t instanceof IllegalStateException || t instanceof BulkWriteException)) {
            throw new AssertionError("the producer ended with an unexpected exception", t);
        }
        Set<Long> acknowledged = new HashSet<>();
        for (Sent s : sent) {
            try {
                int rows = s.ack().get(BOUND.toSeconds(), TimeUnit.SECONDS);
                assertEquals(s.rows(), rows, "rows acknowledged for the batch from id " + s.firstId());
                for (long i = s.firstId(); i < s.firstId() + s.rows(); i++) {
                    acknowledged.add(i);
                }
            } catch (ExecutionException e) {
                assertTrue(e.getCause() instanceof BulkWriteException, () -> "batch from id " + s.firstId()
                        + " failed with " + e.getCause());
            } catch (java.util.concurrent.TimeoutException e) {
                fail("the batch from id " + s.firstId() + " was neither answered nor failed after close");
            }
        }
        if (!acknowledged.isEmpty()) {
            List<List<Object>> stored = server.columns(table, "id", "host", "msg");
            Set<Long> ids = new HashSet<>();
            for (int i = 0; i < stored.get(0).size(); i++) {
                long id = (Long) stored.get(0).get(i);
                ids.add(id);
                assertEquals(host, stored.get(1).get(i), "host of id " + id);
                String msg = id % 3 == 0 ? longText : id % 3 == 1 ? "short" : null;
                assertEquals(msg, stored.get(2).get(i), "msg of id " + id);
            }
            for (long id : acknowledged) {
                assertTrue(ids.contains(id), "acknowledged row " + id + " is stored");
            }
        }
        Await.until("the closed writer holds no memory", BOUND, () -> w.allocatedBytes() == 0);
    }
}
