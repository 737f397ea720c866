package dev.sluice.bulk.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Await;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.FiveRowBatches;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.metrics.MetricsSink;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import dev.sluice.write.StatusCode;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A bulk writer fails for good when the server refuses its third batch, and its producer goes on writing: every
 * batch whose future fails, the ones in flight when the refusal came and the ones written after it, is counted by
 * {@code failedBatches()} and reported once to the client's {@link MetricsSink} as a failure, so a dashboard shows
 * as many failed bulk writes as the writer counts.
 */
class EveryFailedBulkBatchIsReportedAsAFailureToTheMetricsSinkTest {
    private static final Duration BOUND = Duration.ofSeconds(30);
    private static final String TABLE = "failures_metered";

    /** Counts bulk failures. */
    static final class FailureCounter implements MetricsSink {
        final AtomicLong failures = new AtomicLong();

        @Override
        public void failure(String path, int code, String grpcCode) {
            if ("bulk".equals(path)) {
                failures.incrementAndGet();
            }
        }
    }

    @Test
    void theSinkSeesAsManyFailuresAsTheWriterCounts() throws Exception {
        TableSchema schema = TableSchema.newBuilder(TABLE).addTag("host", DataType.String)
                .addField("v", DataType.Int64).addTimestamp("ts", DataType.TimestampMillisecond).build();
        FailureCounter sink = new FailureCounter();
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").metrics(sink)
                    .build());
            try {
                assertTrue(db.write(Table.from(schema).addRow("setup", 0L, 0L)).get(30, TimeUnit.SECONDS).isOk());
                server.faults().failBulkBatch(3, StatusCode.InvalidArguments, "refused for good");
                try (BulkStreamWriter w = db.bulkStreamWriter(schema, BulkWrite.Config.newBuilder()
                        .createTable(false).build(), Context.newBuilder().build())) {
                    List<CompletableFuture<Integer>> acks = FiveRowBatches.writeAndAwait(w, 6, BOUND);
                    TableBufferRoot batch = w.tableBufferRoot(8);
                    long ts = 31; // after the six batches' rows
                    for (int b = 0; b < 3; b++) {
                        for (int i = 0; i < 5; i++, ts++) {
                            batch.addRow("h", ts, ts);
                        }
                        CompletableFuture<Integer> late = w.writeNext();
                        Await.until("the late batch is answered", BOUND, late::isDone);
                        assertTrue(late.isCompletedExceptionally(), "a batch written after the failure fails");
                        acks.add(late);
                    }
                    long failedFutures = acks.stream().filter(CompletableFuture::isCompletedExceptionally).count();
                    assertEquals(failedFutures, w.failedBatches(), "the writer counts every failed future");
                    Await.happensWithin(Duration.ofSeconds(5), () -> sink.failures.get() == w.failedBatches());
                    assertEquals(w.failedBatches(), sink.failures.get(), "failures reported to the metrics sink");
                }
            } finally {
                db.shutdownNow();
            }
        }
    }
}
