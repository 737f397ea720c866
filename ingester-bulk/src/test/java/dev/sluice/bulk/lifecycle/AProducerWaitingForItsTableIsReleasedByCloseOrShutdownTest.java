package dev.sluice.bulk.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;

/**
 * A bulk writer opens at once and creates its table in the background; its first {@code writeNext()} waits for the
 * creation. When the server does not answer the creation, closing the writer or shutting the client down from another
 * thread must release that producer (its batch failed, not pending) and leave no budget or memory held, instead of
 * the producer waiting out the client's request timeout (here longer than the hang guard).
 */
class AProducerWaitingForItsTableIsReleasedByCloseOrShutdownTest {
    static final TableSchema SCHEMA = TableSchema.newBuilder("creation_unanswered").addTag("host", DataType.String)
            .addField("v", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();

    @Test
    void closingTheWriterReleasesTheProducer() throws Exception {
        run((db, w) -> w.close());
    }

    @Test
    void shutdownNowReleasesTheProducer() throws Exception {
        run((db, w) -> db.shutdownNow());
    }

    @Test
    void aGracefulShutdownReleasesTheProducer() throws Exception {
        run((db, w) -> db.shutdownGracefully(Duration.ofSeconds(1)));
    }

    private static void run(BiConsumer<GreptimeDB, BulkStreamWriter> release) throws Exception {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                    .requestTimeout(Await.BEYOND_THE_HANG_GUARD).build());
            try {
                server.faults().neverRespond(true);
                BulkStreamWriter w = Await.returns("opening the writer", () -> db.bulkStreamWriter(SCHEMA,
                        BulkWrite.Config.newBuilder().build(), Context.newBuilder().build()));
                TableBufferRoot batch = w.tableBufferRoot(10);
                for (int i = 0; i < 10; i++) {
                    batch.addRow("h", i * 0.5, (long) i);
                }
                AtomicReference<CompletableFuture<Integer>> sent = new AtomicReference<>();
                AtomicReference<Throwable> thrown = new AtomicReference<>();
                Thread producer = new Thread(() -> {
                    try {
                        sent.set(w.writeNext());
                    } catch (Throwable t) {
                        thrown.set(t);
                    }
                }, "producer");
                producer.start();
                Await.until("the producer waits in writeNext", Duration.ofSeconds(60),
                        () -> producer.getState() == Thread.State.WAITING
                                || producer.getState() == Thread.State.TIMED_WAITING);
                Await.returns("releasing the writer", () -> release.accept(db, w));
                Await.returns("the producer comes back", () -> producer.join());
                if (thrown.get() == null) {
                    CompletableFuture<Integer> f = sent.get();
                    Await.until("the batch's future completes", Await.HANG_GUARD, f::isDone);
                    try {
                        f.get(0, TimeUnit.SECONDS);
                        throw new AssertionError("a batch whose table was never created was acknowledged");
                    } catch (ExecutionException expected) {
                        assertTrue(String.valueOf(expected.getCause().getMessage()).contains("creation_unanswered"),
                                "the failure names the table: " + expected.getCause());
                    }
                }
                w.close();
                assertEquals(0, w.allocatedBytes(), "the writer holds no memory");
                if (!Await.happensWithin(Duration.ofSeconds(60), () -> db.stats().bytesInFlight() == 0)) {
                    throw new AssertionError("the client's byte budget is not given back: " + db.stats()
                            + "; the producer " + (thrown.get() != null ? "threw " + thrown.get()
                                : "got a future done=" + sent.get().isDone() + " " + sent.get()));
                }
                Await.until("the bulk memory is released", Duration.ofSeconds(60),
                        () -> db.stats().bulkAllocatedBytes() == 0);
            } finally {
                db.shutdownNow();
            }
        }
    }
}
