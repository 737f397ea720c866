package dev.sluice.bulk.lifecycle;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Await;
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
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A producer waits in {@code completed()} for answers a server that stores batches but stopped answering will not
 * send (the wait bounded far beyond the hang guard). Interrupting it (its task being cancelled) makes
 * {@code completed()} come back with an exception, the interrupt kept; closing the writer then fails the batch and
 * releases everything.
 */
class InterruptingAProducerWaitingInCompletedReleasesItTest {
    static final TableSchema SCHEMA = TableSchema.newBuilder("interrupted_completed").addTag("host", DataType.String)
            .addField("v", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();

    @Test
    void theInterruptEndsTheWait() throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                    .requestTimeout(Await.BEYOND_THE_HANG_GUARD)
                    .retryPolicy(RetryPolicy.newBuilder().deliveryTimeout(Await.BEYOND_THE_HANG_GUARD).build()).build());
            try {
                db.createTable(SCHEMA, Context.newBuilder().build()).get(60, TimeUnit.SECONDS);
                server.faults().bulkNeverAck(true);
                BulkStreamWriter w = db.bulkStreamWriter(SCHEMA,
                        BulkWrite.Config.newBuilder().createTable(false).requestTimeout(Await.BEYOND_THE_HANG_GUARD)
                                .build(), Context.newBuilder().build());
                TableBufferRoot batch = w.tableBufferRoot(10);
                for (int i = 0; i < 10; i++) {
                    batch.addRow("h", i * 1.0, (long) i);
                }
                CompletableFuture<Integer> f = w.writeNext();
                AtomicReference<Throwable> thrown = new AtomicReference<>();
                AtomicBoolean interruptKept = new AtomicBoolean();
                Thread producer = new Thread(() -> {
                    try {
                        w.completed();
                    } catch (Throwable t) {
                        thrown.set(t);
                        interruptKept.set(Thread.currentThread().isInterrupted());
                    }
                }, "producer");
                producer.start();
                Await.until("the producer waits in completed()", Duration.ofSeconds(60),
                        () -> producer.getState() == Thread.State.WAITING
                                || producer.getState() == Thread.State.TIMED_WAITING);
                producer.interrupt();
                Await.returns("completed() comes back", () -> producer.join());
                assertNotNull(thrown.get(), "completed() did not return as if every batch were answered");
                assertTrue(interruptKept.get(), "the interrupt is kept: " + thrown.get());
                w.close();
                Await.until("the batch's future completes", Duration.ofSeconds(60), f::isDone);
                assertTrue(f.isCompletedExceptionally());
                dev.sluice.bulk.NothingHeld.await(db, Duration.ofSeconds(60), true);
            } finally {
                db.shutdownNow();
            }
        }
    }
}
