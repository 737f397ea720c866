package dev.sluice.internal.bulk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.internal.send.ManualTime;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A stream that fails for good ends its writer's engine, and the failure then settles the batches it lost. A batch
 * the producer writes in between is refused by the ended engine before the failure has settled anything: its future
 * still fails after those of the earlier batches, so that a caller sees every batch's outcome in batch order.
 */
class ABatchRefusedWhileAFailureIsSettledFailsAfterTheBatchesThatFailureLostTest {

    @Test
    void theRefusedBatchFailsAfterTheBatchesTheFailureLost() throws Exception {
        List<ABatchGoesToTheTransportInsideItsWriteNextTest.StalledCall> calls = new CopyOnWriteArrayList<>();
        List<Integer> outcomes = new CopyOnWriteArrayList<>();
        ExecutorService producer = Executors.newSingleThreadExecutor();
        AtomicReference<Runnable> whenEnded = new AtomicReference<>(() -> {
        });
        BulkEngineWriter writer = ABatchGoesToTheTransportInsideItsWriteNextTest.stalledWriter(
                new ABatchGoesToTheTransportInsideItsWriteNextTest.FixedSizeCodec(), new ManualTime(), calls,
                () -> whenEnded.get().run());
        try {
            TableBufferRoot rows = writer.tableBufferRoot(10);
            List<CompletableFuture<Integer>> futures = new ArrayList<>();
            for (int b = 1; b <= 3; b++) {
                rows.addRow("h", (long) b);
                int batch = b;
                CompletableFuture<Integer> f = writer.writeNext();
                f.whenComplete((n, e) -> outcomes.add(batch));
                futures.add(f);
            }
            // The engine tells the endpoint how the call ended after it ended and before the failure settles the
            // batches it lost: the producer writes batch 4 right then.
            whenEnded.set(() -> {
                Future<?> written = producer.submit(() -> {
                    rows.addRow("h", 4L);
                    CompletableFuture<Integer> f = writer.writeNext();
                    f.whenComplete((n, e) -> outcomes.add(4));
                    futures.add(f);
                });
                try {
                    written.get(10, TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new AssertionError("batch 4's writeNext() did not return", e);
                }
            });
            calls.get(0).end(Status.INVALID_ARGUMENT.withDescription("refused for the test"));
            for (CompletableFuture<Integer> f : futures) {
                f.handle((n, e) -> n).get(10, TimeUnit.SECONDS);
                assertTrue(f.isCompletedExceptionally(), "every batch failed: " + futures);
            }
            assertEquals(4, futures.size(), "batch 4 was written");
            assertEquals(List.of(1, 2, 3, 4), outcomes, "the order the batches' futures completed in");
        } finally {
            producer.shutdownNow();
            writer.close();
        }
    }
}
