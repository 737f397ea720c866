package dev.sluice.bulk.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.BulkWriteException;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.bulk.threads.ThreadRecordingSink;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.metrics.MetricsSink;
import dev.sluice.testkit.Faults;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import dev.sluice.write.RetryPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A server that takes bulk batches and never answers them (it stores them without answering, holds them unstored or
 * stored, or hangs the whole stream) cannot leave a batch future pending: each batch fails once its request timeout
 * and delivery deadline have passed, and {@code completed()} reports the failure. The failures reach the caller as
 * answers do: the futures' dependents and the metrics sink run on the client's callback threads, the dependents in
 * the order the batches were written; and the error names the setting that bounded the wait.
 */
class BatchesTheServerNeverAnswersFailAtTheirDeadlineOnCallbackThreadsInOrderTest {
    private static final TableSchema SCHEMA = TableSchema.newBuilder("never_answered").addTag("host", DataType.String)
            .addField("v", DataType.Int64).addTimestamp("ts", DataType.TimestampMillisecond).build();
    private static final String TRANSPORT_THREADS = "sluice-grpc-io-";
    private static final String CALLBACK_THREADS = "sluice-callback-";
    private static final int BATCHES = 16;

    /** The ways a server goes silent on a bulk stream. */
    enum Silence {
        STORES_WITHOUT_ANSWERING(f -> f.bulkNeverAck(true)),
        HOLDS_BATCHES_UNSTORED(f -> f.hold(Faults.HoldPoint.BEFORE_STORE)),
        HOLDS_ANSWERS_OF_STORED_BATCHES(f -> f.hold(Faults.HoldPoint.BEFORE_ANSWER)),
        HANGS(f -> f.neverRespond(true));

        final Consumer<Faults> apply;

        Silence(Consumer<Faults> apply) {
            this.apply = apply;
        }
    }

    /** What the caller saw: each batch's error, where and in which order the dependents ran, where the sink ran. */
    private record Seen(List<Throwable> errors, List<String> dependents, Set<String> sink) {
    }

    @ParameterizedTest(name = "a server that {0}")
    @EnumSource(Silence.class)
    void everyBatchFailsAndCompletedThrowsWithNothingRunOnTheTransport(Silence silence) throws Exception {
        Seen seen = failEveryBatch(silence);
        for (String d : seen.dependents()) {
            assertFalse(d.contains(" on " + TRANSPORT_THREADS), "a dependent ran " + d);
        }
        for (String s : seen.sink()) {
            assertFalse(s.contains(" on " + TRANSPORT_THREADS), "the metrics sink ran " + s);
        }
    }

    @ParameterizedTest(name = "a server that {0}")
    @EnumSource(Silence.class)
    void theDependentsOfTheFailedBatchesRunInBatchOrder(Silence silence) throws Exception {
        List<String> order = failEveryBatch(silence).dependents();
        for (int b = 0; b < BATCHES; b++) {
            assertTrue(order.get(b).startsWith(b + " on "), "dependents ran out of batch order: " + order);
        }
    }

    @ParameterizedTest(name = "a server that {0}")
    @EnumSource(value = Silence.class, names = {"STORES_WITHOUT_ANSWERING", "HANGS"})
    void theMetricsSinkHearsOfTheFailuresOnCallbackThreads(Silence silence) throws Exception {
        Set<String> sink = failEveryBatch(silence).sink();
        assertTrue(sink.stream().anyMatch(s -> s.startsWith("failure on ")), sink::toString);
        for (String s : sink) {
            assertTrue(s.contains(" on " + CALLBACK_THREADS), "the metrics sink ran " + s + "; all: " + sink);
        }
    }

    /**
     * The error of a batch never answered names the setting that bounded the wait ({@code requestTimeout} of
     * {@code BulkWrite.Config}, or the retry policy's {@code deliveryTimeout}), so that the user knows what to raise
     * when the server is merely slow.
     */
    @ParameterizedTest(name = "a server that {0}")
    @EnumSource(value = Silence.class, names = "STORES_WITHOUT_ANSWERING")
    void theErrorOfABatchNeverAnsweredNamesTheSettingThatBoundedItsWait(Silence silence) throws Exception {
        for (Throwable error : failEveryBatch(silence).errors()) {
            String message = String.valueOf(error.getMessage()).toLowerCase(Locale.ROOT);
            assertTrue(message.contains("requesttimeout") || message.contains("deliverytimeout"),
                    "a batch failed without naming the setting that bounded its wait: " + error);
        }
    }

    /** Writes the batches to a silent server and checks that each one fails; returns what the caller saw. */
    private static Seen failEveryBatch(Silence silence) throws Exception {
        ThreadRecordingSink sink = new ThreadRecordingSink();
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").metrics(sink)
                    .build());
            try {
                assertTrue(db.createTable(SCHEMA, Context.newBuilder().build()).join().isOk());
                silence.apply.accept(server.faults());
                List<CompletableFuture<Integer>> futures = new ArrayList<>();
                List<String> order = new ArrayList<>();
                List<CompletableFuture<?>> dependents = new ArrayList<>();
                List<Throwable> errors = new ArrayList<>();
                RetryPolicy policy = RetryPolicy.newBuilder().maxAttempts(2)
                        .deliveryTimeout(Duration.ofSeconds(3)).build();
                BulkStreamWriter w = db.bulkStreamWriter(SCHEMA, BulkWrite.Config.newBuilder()
                        .maxInFlightRequests(BATCHES).requestTimeout(Duration.ofSeconds(1)).createTable(false).build(),
                        Context.newBuilder().retryPolicy(policy).build());
                try {
                    TableBufferRoot batch = w.tableBufferRoot(16);
                    long ts = 0;
                    for (int b = 0; b < BATCHES; b++) {
                        for (int r = 0; r < 3; r++) {
                            batch.addRow("h", (long) b, ts++);
                        }
                        CompletableFuture<Integer> f = w.writeNext();
                        futures.add(f);
                        int index = b;
                        // Attached before any answer or deadline can come: the batch cannot have failed yet.
                        dependents.add(f.handle((rows, error) -> {
                            synchronized (order) {
                                order.add(index + " on " + Thread.currentThread().getName());
                            }
                            return null;
                        }));
                    }
                    for (int b = 0; b < BATCHES; b++) {
                        CompletableFuture<Integer> f = futures.get(b);
                        ExecutionException e = assertThrows(ExecutionException.class,
                                () -> f.get(2, TimeUnit.MINUTES), "batch " + b + " did not fail");
                        assertTrue(e.getCause() instanceof BulkWriteException, e.getCause().toString());
                        errors.add(e.getCause());
                    }
                    for (CompletableFuture<?> d : dependents) {
                        d.get(1, TimeUnit.MINUTES);
                    }
                    assertEquals(BATCHES, w.failedBatches());
                    BulkWriteException end = assertThrows(BulkWriteException.class, w::completed);
                    assertNotNull(end.getMessage());
                } finally {
                    w.close();
                }
                synchronized (order) {
                    assertEquals(BATCHES, order.size(), order.toString());
                    return new Seen(errors, List.copyOf(order), Set.copyOf(sink.threads));
                }
            } finally {
                db.shutdownNow();
            }
        }
    }
}
