package dev.sluice.bulk.batching;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sluice.BatchingWriter;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.StatusCode;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A long-running batching writer on the bulk path (a collector, a connector) meets a transient failure: a rate limit
 * under a no-retry policy, or an outage longer than the delivery deadline. The batches caught in it fail (their
 * futures say so); once the server is healthy again, the rows written to the same table afterwards are stored, as on
 * the regular path, instead of failing with the old error for the rest of the writer's life.
 */
class ATableOnTheBulkPathRecoversAfterATransientFailureTest {
    static final TableSchema SCHEMA = TableSchema.newBuilder("transient").addTag("host", DataType.String)
            .addField("v", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();

    @Test
    void afterARateLimitWithoutRetries() throws Exception {
        run(RetryPolicy.none(), (server, failing) -> {
            server.faults().failBulkBatch(1, StatusCode.RateLimited, "slow down");
            failing.run();
        });
    }

    @Test
    void afterAnOutageLongerThanTheDeliveryDeadline() throws Exception {
        run(RetryPolicy.newBuilder().deliveryTimeout(Duration.ofSeconds(2)).backoff(Duration.ofMillis(50),
                Duration.ofMillis(200)).build(), (server, failing) -> {
                    server.stop();
                    failing.run();
                    server.resume();
                });
    }

    interface Fault {
        void around(GreptimeTestServer server, ThrowingRunnable failing) throws Exception;
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    private static void run(RetryPolicy policy, Fault fault) throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            try (BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder().path(BatchingWriter.Path.Bulk)
                    .maxBatchRows(100).build(), Context.newBuilder().retryPolicy(policy).build())) {
                CompletableFuture<Void> first = null;
                for (int i = 0; i < 100; i++) {
                    first = w.write(SCHEMA, "h", i * 0.5, (long) i);
                }
                first.get(60, TimeUnit.SECONDS);
                fault.around(server, () -> {
                    CompletableFuture<Void> caught = null;
                    for (int i = 100; i < 200; i++) {
                        caught = w.write(SCHEMA, "h", i * 0.5, (long) i);
                    }
                    CompletableFuture<Void> c = caught;
                    assertThrows(ExecutionException.class, () -> c.get(2, TimeUnit.MINUTES));
                });
                CompletableFuture<Void> later = null;
                for (int i = 200; i < 300; i++) {
                    later = w.write(SCHEMA, "h", i * 0.5, (long) i);
                }
                try {
                    later.get(2, TimeUnit.MINUTES);
                } catch (ExecutionException e) {
                    throw new AssertionError("rows written once the server was healthy again were not stored: "
                            + e.getCause(), e.getCause());
                }
                long stored = server.rowCount("transient");
                assertEquals(true, stored >= 200, "stored: " + stored);
            } finally {
                db.shutdownNow();
            }
        }
    }
}
