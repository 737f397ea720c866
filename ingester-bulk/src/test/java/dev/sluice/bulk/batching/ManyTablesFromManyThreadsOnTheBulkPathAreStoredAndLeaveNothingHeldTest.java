package dev.sluice.bulk.batching;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Await;
import dev.sluice.BatchingWriter;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import dev.sluice.write.StatusCode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A batching writer on the bulk path fed by eight threads writing into 150 tables at once, with every 25th bulk batch
 * rate limited: every row is stored exactly once with its own values, every batch future succeeds, and after close
 * the client holds no bulk memory and no byte budget.
 */
class ManyTablesFromManyThreadsOnTheBulkPathAreStoredAndLeaveNothingHeldTest {
    static final int TABLES = 150;
    static final int THREADS = 8;
    static final int ROWS_PER_THREAD_PER_TABLE = 40;

    @Test
    void everyRowIsStoredOnceAndNothingIsHeld() throws Exception {
        List<TableSchema> schemas = new ArrayList<>();
        for (int t = 0; t < TABLES; t++) {
            schemas.add(TableSchema.newBuilder("many_" + t).addTag("writer", DataType.String)
                    .addField("msg", DataType.String).addField("n", DataType.Int64)
                    .addTimestamp("ts", DataType.TimestampMillisecond).build());
        }
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            ExecutorService pool = Executors.newFixedThreadPool(THREADS);
            try {
                server.faults().failEvery(25, StatusCode.RateLimited, "too many requests");
                List<CompletableFuture<Void>> futures = java.util.Collections.synchronizedList(new ArrayList<>());
                try (BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder().path(BatchingWriter.Path.Bulk)
                        .maxBatchRows(64).build(), Context.newBuilder().build())) {
                    List<Future<?>> producers = new ArrayList<>();
                    for (int p = 0; p < THREADS; p++) {
                        int writer = p;
                        producers.add(pool.submit(() -> {
                            for (int r = 0; r < ROWS_PER_THREAD_PER_TABLE; r++) {
                                for (int t = 0; t < TABLES; t++) {
                                    long ts = (long) writer * 1_000_000 + r;
                                    futures.add(w.write(schemas.get(t), "w" + writer, "t" + t + " r" + r + " w" + writer,
                                            (long) t * r, ts));
                                }
                            }
                        }));
                    }
                    for (Future<?> p : producers) {
                        p.get(5, TimeUnit.MINUTES);
                    }
                    assertTrue(w.flush(Duration.ofMinutes(2)), "every row acknowledged");
                }
                for (CompletableFuture<Void> f : futures) {
                    f.get(60, TimeUnit.SECONDS);
                }
                for (int t = 0; t < TABLES; t++) {
                    List<Map<String, Object>> rows = server.rows("many_" + t);
                    assertEquals(THREADS * ROWS_PER_THREAD_PER_TABLE, rows.size(), "rows of many_" + t);
                    for (Map<String, Object> row : rows) {
                        long ts = (Long) row.get("ts");
                        long writer = ts / 1_000_000;
                        long r = ts % 1_000_000;
                        assertEquals("w" + writer, row.get("writer"));
                        assertEquals("t" + t + " r" + r + " w" + writer, row.get("msg"));
                        assertEquals((long) t * r, row.get("n"));
                    }
                }
                Await.until("the bulk memory is released", Duration.ofSeconds(60),
                        () -> db.stats().bulkAllocatedBytes() == 0);
                dev.sluice.bulk.NothingHeld.await(db, Duration.ofSeconds(60), false);
            } finally {
                pool.shutdownNow();
                db.shutdownNow();
            }
        }
    }
}
