package dev.sluice.bulk.threads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.StatusCode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A bulk stream's answers are read on the transport's own threads, which also send the batches queued while answers
 * were awaited. Everything that runs the caller's code (a batch future's dependents, the metrics sink) still runs on
 * the client's callback threads, whether the batch was stored, refused or lost with its stream, so that a slow
 * callback never holds up the connection every writer of the client shares.
 */
class BulkCallersCodeNeverRunsOnTheTransportsThreadsTest {
    private static final TableSchema SCHEMA = TableSchema.newBuilder("caller_threads").addTag("host", DataType.String)
            .addField("v", DataType.Int64).addTimestamp("ts", DataType.TimestampMillisecond).build();
    /** What the client names the threads of its event loops. */
    private static final String TRANSPORT_THREADS = "sluice-grpc-io-";

    /** Writes 40 batches of 10 rows, each future's dependents registered before its batch can be answered. */
    private static List<String> writeBatches(GreptimeDB db, RetryPolicy policy) throws Exception {
        List<String> threads = new ArrayList<>();
        List<CompletableFuture<?>> dependents = new ArrayList<>();
        try (BulkStreamWriter w = db.bulkStreamWriter(SCHEMA,
                BulkWrite.Config.newBuilder().maxInFlightRequests(8).createTable(false).build(),
                Context.newBuilder().retryPolicy(policy).build())) {
            TableBufferRoot batch = w.tableBufferRoot(16);
            long ts = 0;
            for (int b = 0; b < 40; b++) {
                for (int r = 0; r < 10; r++) {
                    batch.addRow("h", (long) b, ts++);
                }
                CompletableFuture<Integer> f = w.writeNext();
                // Dependents of a future completed already run on this thread: only those attached before count.
                if (!f.isDone()) {
                    dependents.add(f.handle((rows, error) -> Thread.currentThread().getName()).thenAccept(
                            name -> {
                                synchronized (threads) {
                                    threads.add(name);
                                }
                            }));
                }
            }
            for (CompletableFuture<?> d : dependents) {
                d.get(1, TimeUnit.MINUTES);
            }
        } catch (RuntimeException endOfAFailedStream) {
            // close() reports the stream's failure; the futures' threads are what is checked
        }
        synchronized (threads) {
            return List.copyOf(threads);
        }
    }

    private static void assertNoneOnTheTransport(List<String> futureThreads, ThreadRecordingSink sink) {
        assertFalse(futureThreads.isEmpty(), "no future was attached to before its answer: nothing was checked");
        for (String name : futureThreads) {
            assertFalse(name.startsWith(TRANSPORT_THREADS), "a batch future's dependent ran on " + name);
        }
        assertFalse(sink.threads.isEmpty(), "the metrics sink heard nothing: nothing was checked");
        for (String seen : sink.threads) {
            assertFalse(seen.contains(" on " + TRANSPORT_THREADS), "the metrics sink ran " + seen);
        }
    }

    /** What a case does to the server before writing, and with which retry policy it writes. */
    private interface Faults {
        void apply(GreptimeTestServer server);
    }

    /**
     * Writes the batches to a fresh server (made faulty by {@code faults}) through a client reporting to {@code sink},
     * checks that no caller's code ran on a transport thread, and returns the server's row count.
     */
    private static long writeAndCheck(ThreadRecordingSink sink, Faults faults, RetryPolicy policy) throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").metrics(sink)
                    .build());
            try {
                assertTrue(db.createTable(SCHEMA, Context.newBuilder().build()).join().isOk());
                faults.apply(server);
                assertNoneOnTheTransport(writeBatches(db, policy), sink);
                return server.rowCount("caller_threads");
            } finally {
                db.shutdownNow();
            }
        }
    }

    @Test
    void storedBatchesCompleteTheirFuturesAndReportMetricsOnCallbackThreads() throws Exception {
        ThreadRecordingSink sink = new ThreadRecordingSink();
        assertEquals(400, writeAndCheck(sink, server -> {
        }, RetryPolicy.newBuilder().build()));
        assertTrue(sink.threads.stream().anyMatch(s -> s.startsWith("rows on ")), sink.threads::toString);
    }

    @Test
    void batchesRefusedForGoodFailTheirFuturesAndReportMetricsOnCallbackThreads() throws Exception {
        ThreadRecordingSink sink = new ThreadRecordingSink();
        writeAndCheck(sink, server -> {
            server.faults().bulkAckDelay(Duration.ofMillis(5));
            server.faults().failEvery(3, StatusCode.InvalidArguments, "refused for the test");
        }, RetryPolicy.newBuilder().build());
        assertTrue(sink.threads.stream().anyMatch(s -> s.startsWith("failure on ")), sink.threads::toString);
    }

    @Test
    void batchesLostWithABrokenStreamAndNotResentFailOnCallbackThreads() throws Exception {
        writeAndCheck(new ThreadRecordingSink(), server -> {
            server.faults().bulkAckDelay(Duration.ofMillis(5));
            server.faults().failEvery(4, StatusCode.StorageUnavailable, "storage away for the test");
        }, RetryPolicy.newBuilder().maxAttempts(1).build());
    }
}
