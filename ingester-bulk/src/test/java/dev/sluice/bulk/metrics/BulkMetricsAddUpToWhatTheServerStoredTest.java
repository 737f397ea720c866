package dev.sluice.bulk.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Await;
import dev.sluice.BatchingWriter;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.metrics.MetricsSink;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import dev.sluice.write.StatusCode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * What the client reports to its {@link MetricsSink} about bulk writes adds up: acknowledged rows per table equal the
 * rows the testkit stored through each writer (a bulk writer's and a batching writer's bulk path), each batch that
 * failed for good is one failure, a stream broken by a rate limit and resent is at least one retry, each answered batch
 * has one latency, and the in-flight gauges read zero once everything is answered.
 */
class BulkMetricsAddUpToWhatTheServerStoredTest {
    static final class Recording implements MetricsSink {
        final Map<String, AtomicLong> rows = new ConcurrentHashMap<>();
        final AtomicLong failures = new AtomicLong();
        final AtomicLong retries = new AtomicLong();
        final AtomicLong latencies = new AtomicLong();
        final Map<String, Supplier<Number>> gauges = new ConcurrentHashMap<>();

        @Override
        public void rows(String path, String table, long n) {
            rows.computeIfAbsent(path + "/" + table, k -> new AtomicLong()).addAndGet(n);
        }

        @Override
        public void failure(String path, int code, String grpcCode) {
            if (path.equals("bulk")) {
                failures.incrementAndGet();
            }
        }

        @Override
        public void retry(String path) {
            if (path.equals("bulk")) {
                retries.incrementAndGet();
            }
        }

        @Override
        public void latency(String path, long nanos) {
            if (path.equals("bulk")) {
                latencies.incrementAndGet();
            }
        }

        @Override
        public void gauge(String name, String description, Supplier<Number> value) {
            gauges.put(name, value);
        }

        long rowsOf(String key) {
            AtomicLong n = rows.get(key);
            return n == null ? 0 : n.get();
        }
    }

    static final TableSchema DIRECT = TableSchema.newBuilder("metered_direct").addTag("host", DataType.String)
            .addField("v", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();
    static final TableSchema BATCHED = TableSchema.newBuilder("metered_batched").addTag("host", DataType.String)
            .addField("v", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();

    @Test
    void theFiguresAddUp() throws Exception {
        Recording sink = new Recording();
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").metrics(sink).build());
            try {
                for (TableSchema s : List.of(DIRECT, BATCHED)) {
                    assertTrue(db.createTable(s, Context.newBuilder().build()).get(60, TimeUnit.SECONDS).isOk());
                }
                server.faults().failBulkBatch(4, StatusCode.RateLimited, "slow down");
                long acked = 0;
                int answered = 0;
                try (BulkStreamWriter w = db.bulkStreamWriter(DIRECT,
                        BulkWrite.Config.newBuilder().createTable(false).build(), Context.newBuilder().build())) {
                    TableBufferRoot batch = w.tableBufferRoot(10);
                    List<CompletableFuture<Integer>> futures = new ArrayList<>();
                    long ts = 0;
                    for (int b = 0; b < 10; b++) {
                        for (int i = 0; i <= b; i++) {
                            batch.addRow("h", 1.0, ts++);
                        }
                        futures.add(w.writeNext());
                    }
                    for (CompletableFuture<Integer> f : futures) {
                        acked += f.get(120, TimeUnit.SECONDS);
                        answered++;
                    }
                    assertEquals(acked, w.completed());
                }
                server.faults().reset();
                server.faults().failBulkBatch(1, StatusCode.InvalidArguments, "Invalid argument: refused");
                try (BulkStreamWriter w = db.bulkStreamWriter(DIRECT,
                        BulkWrite.Config.newBuilder().createTable(false).build(), Context.newBuilder().build())) {
                    TableBufferRoot batch = w.tableBufferRoot(10);
                    for (int i = 0; i < 5; i++) {
                        batch.addRow("h", 2.0, 1_000L + i);
                    }
                    CompletableFuture<Integer> refused = w.writeNext();
                    try {
                        refused.get(120, TimeUnit.SECONDS);
                    } catch (ExecutionException expected) {
                        // the failure is what this part measures
                    }
                }
                server.faults().reset();
                try (BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder().path(BatchingWriter.Path.Bulk)
                        .maxBatchRows(50).build(), Context.newBuilder().build())) {
                    for (long i = 0; i < 500; i++) {
                        w.write(BATCHED, "h", 3.0, i);
                    }
                    w.flushOrThrow(Duration.ofMinutes(2));
                }
                assertEquals(server.rowCount("metered_direct"), acked, "the futures' rows are the stored rows");
                assertEquals(server.rowCount("metered_direct"), sink.rowsOf("bulk/metered_direct"), "rows: " + sink.rows);
                assertEquals(server.rowCount("metered_batched"), sink.rowsOf("bulk/metered_batched"), "rows: " + sink.rows);
                assertEquals(1, sink.failures.get(), "one batch failed for good");
                assertTrue(sink.retries.get() >= 1, "the rate-limited stream was resent");
                assertTrue(sink.latencies.get() >= answered + 10, "a latency per answered batch: " + sink.latencies);
                Await.until("the in-flight gauges read zero", Duration.ofSeconds(60), () -> {
                    for (Map.Entry<String, Supplier<Number>> g : sink.gauges.entrySet()) {
                        if (g.getKey().contains("inflight") && g.getValue().get().longValue() != 0) {
                            return false;
                        }
                    }
                    return true;
                });
            } finally {
                db.shutdownNow();
            }
        }
    }
}
