package dev.sluice.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.BatchWriteException;
import dev.sluice.BatchingWriter;
import dev.sluice.GreptimeDB;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import dev.sluice.write.RetryPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A batching writer with many more batches queued than it has in-flight slots, writing to a server that is stopped:
 * every batch, the ones queued behind those in flight included, fails by its own delivery deadline with an error
 * naming the endpoint, and a flush with a bound far beyond that deadline ends with the batches' failure rather than
 * running out its bound with rows still pending.
 */
class BatchesQueuedBehindAFailedSendOnEveryPathTest extends DeliveryUnderFaultsKit {
    private static final Duration SHORT_DELIVERY = Duration.ofSeconds(1);
    /**
     * Thirty delivery deadlines: a flush that ends by running it out means batches were left waiting past their
     * deadline, each behind the one before (two hundred batches failing one or two at a time take far longer).
     */
    private static final Duration FLUSH_BOUND = Duration.ofSeconds(30);
    private static final int BATCH_ROWS = 10;
    private static final int BATCHES = 200;

    @ParameterizedTest
    @EnumSource(BatchingWriter.Path.class)
    void everyQueuedBatchFailsByItsDeadlineAndFlushReportsIt(BatchingWriter.Path path) {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            TableSchema s = schema("queued_behind_failed_" + path.name().toLowerCase());
            createTable(server, s);
            RetryPolicy policy = RetryPolicy.newBuilder().deliveryTimeout(SHORT_DELIVERY).build();
            try (GreptimeDB db = GreptimeDB.create(opts(server).retryPolicy(policy)
                    .requestTimeout(Duration.ofSeconds(1)).build())) {
                server.stop();
                BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder().path(path)
                        .maxBatchRows(BATCH_ROWS).maxInFlightRequests(2).build(),
                        Context.newBuilder().retryPolicy(policy).build());
                List<CompletableFuture<Void>> batches = new ArrayList<>();
                for (long i = 0; i < (long) BATCH_ROWS * BATCHES; i++) {
                    CompletableFuture<Void> f = w.write(s, row(i, 0));
                    if (batches.isEmpty() || batches.get(batches.size() - 1) != f) {
                        batches.add(f);
                    }
                }
                assertEquals(BATCHES, batches.size(), "one future per batch");

                BatchWriteException flushed = assertThrows(BatchWriteException.class, () -> w.flushOrThrow(FLUSH_BOUND),
                        path + ": the flush ends with the batches' failure, not by running out its bound");
                assertNamesTheEndpoint(path + " flush", flushed.getMessage(), server);
                assertEquals(0, w.pendingRows(), path + ": rows left pending after the flush");
                for (int b = 0; b < batches.size(); b++) {
                    CompletableFuture<Void> f = batches.get(b);
                    assertTrue(f.isCompletedExceptionally(), path + ": batch " + b + " completed exceptionally");
                    CompletionException e = assertThrows(CompletionException.class, f::join);
                    assertNamesTheEndpoint(path + " batch " + b, e.getCause().getMessage(), server);
                }
                w.close();
            }
            server.resume();
            assertEquals(0, server.rowCount(s.tableName()), path + ": nothing stored while the server was stopped");
        }
    }

    private static void assertNamesTheEndpoint(String what, String message, GreptimeTestServer server) {
        assertTrue(message.contains(server.endpoint()), what + " names the endpoint " + server.endpoint() + ": "
                + message);
    }
}
