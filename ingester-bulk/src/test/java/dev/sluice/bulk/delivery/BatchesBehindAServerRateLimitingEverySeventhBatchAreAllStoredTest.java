package dev.sluice.bulk.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.StatusCode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A server that rate limits one bulk batch in seven (retryable) and is otherwise healthy: every batch must be stored
 * within its delivery deadline (20 s, for 60 small batches that take a few seconds), whatever the writer's pipeline
 * depth and however late the answers come. The server answers the batches before a refused one ahead of its error, so
 * each resent round stores at least those; a writer that made no progress between refusals would fail healthy
 * batches at the deadline.
 */
class BatchesBehindAServerRateLimitingEverySeventhBatchAreAllStoredTest {
    static final TableSchema SCHEMA = TableSchema.newBuilder("seventh_limited").addTag("host", DataType.String)
            .addField("v", DataType.Int64).addTimestamp("ts", DataType.TimestampMillisecond).build();

    @ParameterizedTest(name = "maxInFlightRequests={0}, answers delayed {1} ms")
    @CsvSource({"8, 0", "31, 0", "8, 20", "31, 20"})
    void everyBatchIsStored(int inFlight, long ackDelayMillis) throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                    .retryPolicy(RetryPolicy.newBuilder().deliveryTimeout(Duration.ofSeconds(20)).build()).build());
            try {
                assertEquals(true, db.createTable(SCHEMA, Context.newBuilder().build()).join().isOk());
                server.faults().bulkAckDelay(Duration.ofMillis(ackDelayMillis));
                server.faults().failEvery(7, StatusCode.RateLimited, "slow down");
                List<CompletableFuture<Integer>> futures = new ArrayList<>();
                long ts = 0;
                try (BulkStreamWriter w = db.bulkStreamWriter(SCHEMA,
                        BulkWrite.Config.newBuilder().maxInFlightRequests(inFlight).createTable(false).build(),
                        Context.newBuilder().build())) {
                    TableBufferRoot batch = w.tableBufferRoot(8);
                    for (int b = 1; b <= 60; b++) {
                        for (int r = 0; r < 10; r++) {
                            batch.addRow("h", (long) b, ts++);
                        }
                        futures.add(w.writeNext());
                    }
                    int failed = 0;
                    Throwable first = null;
                    for (CompletableFuture<Integer> f : futures) {
                        try {
                            f.get(5, TimeUnit.MINUTES);
                        } catch (ExecutionException e) {
                            failed++;
                            first = first == null ? e.getCause() : first;
                        }
                    }
                    assertEquals(0, failed, "batches failed although the server took six in seven: " + first
                            + "; stream reopenings: " + w.replays());
                }
                assertEquals(600, server.rowCount("seventh_limited"));
            } finally {
                db.shutdownNow();
            }
        }
    }
}
