package dev.sluice.fault;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.write.Context;
import dev.sluice.GreptimeDB;
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.StatusCode;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.testkit.GreptimeTestServer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A bulk writer without retries under faults reports every batch's outcome and leaks no memory.
 */
class BulkWithoutRetriesTest extends DefaultDeliveryKit {
    @Test
    void bulkWithoutRetriesReportsEveryBatchAndLeaksNoMemory() {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = client(server);
            try {
                assertTrue(db.createTable(METRICS, Context.newBuilder().build()).join().isOk());
                server.faults().failEvery(10, StatusCode.RateLimited, "rate limited");
                Context none = Context.newBuilder().retryPolicy(RetryPolicy.none()).build();
                List<CompletableFuture<Integer>> acks = new ArrayList<>();
                BulkStreamWriter w = db.bulkStreamWriter(METRICS,
                        BulkWrite.Config.newBuilder().maxInFlightRequests(5).build(), none);
                TableBufferRoot root = w.tableBufferRoot(BATCH);
                for (int b = 0; b < 100; b++) {
                    root.addTable(batch(b));
                    acks.add(w.writeNext());
                }
                long acked = 0;
                long failed = 0;
                for (CompletableFuture<Integer> a : acks) {
                    try {
                        acked += a.orTimeout(60, TimeUnit.SECONDS).join();
                    } catch (CompletionException e) {
                        failed += BATCH;
                    }
                }
                check("every 10th request rate limited, RetryPolicy.none()", Path.BULK,
                        new Outcome(100_000, acked, failed, null), server);
                assertTrue(failed > 0, "without retries the injected failure reaches the caller");
                assertDoesNotThrow(w::close, "close() after a failed stream releases every buffer");
            } finally {
                db.shutdownGracefully();
            }
        }
    }
}
