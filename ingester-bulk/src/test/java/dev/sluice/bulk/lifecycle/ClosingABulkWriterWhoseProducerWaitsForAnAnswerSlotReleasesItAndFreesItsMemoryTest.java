package dev.sluice.bulk.lifecycle;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Await;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.BulkWriteException;
import dev.sluice.bulk.NothingHeld;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Compression;
import dev.sluice.write.Context;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Behind a server that stores batches but never answers, a producer whose next {@code writeNext()} waits for an
 * answer slot (one batch in flight at most) is released by {@link BulkStreamWriter#close()} from another thread long
 * before the writer's 60-second wait for a slot: its batch and the unanswered one fail with a
 * {@link BulkWriteException}, and the client holds no bulk memory afterwards.
 */
class ClosingABulkWriterWhoseProducerWaitsForAnAnswerSlotReleasesItAndFreesItsMemoryTest {
    @ParameterizedTest
    @EnumSource(value = Compression.class, names = {"None", "Zstd"})
    void closeReleasesTheProducer(Compression compression) throws Exception {
        Duration bound = Duration.ofSeconds(30); // below the writer's own 60 s wait for a slot
        String table = "slot_wait_" + compression.name().toLowerCase();
        TableSchema schema = TableSchema.newBuilder(table).addTag("host", DataType.String)
                .addField("msg", DataType.String).addTimestamp("ts", DataType.TimestampMillisecond).build();
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            try {
                server.faults().bulkNeverAck(true);
                BulkStreamWriter w = db.bulkStreamWriter(schema,
                        BulkWrite.Config.newBuilder().maxInFlightRequests(1).build(),
                        Context.newBuilder().compression(compression).build());
                AtomicReference<CompletableFuture<Integer>> first = new AtomicReference<>();
                AtomicReference<Object> second = new AtomicReference<>();
                AtomicInteger calls = new AtomicInteger();
                Thread producer = new Thread(() -> {
                    TableBufferRoot batch = w.tableBufferRoot(10);
                    for (int i = 0; i < 10; i++) {
                        batch.addRow("h", "first-" + i, 1_700_000_000_000L + i);
                    }
                    first.set(w.writeNext());
                    for (int i = 10; i < 20; i++) {
                        batch.addRow("h", "second-" + i, 1_700_000_000_000L + i);
                    }
                    calls.incrementAndGet();
                    try {
                        second.set(w.writeNext());
                    } catch (Throwable t) {
                        second.set(t);
                    }
                }, "producer-" + table);
                producer.start();
                Await.until("the producer waits for an answer slot", bound,
                        () -> calls.get() == 1 && (producer.getState() == Thread.State.TIMED_WAITING
                                || producer.getState() == Thread.State.WAITING));
                CompletableFuture.runAsync(w::close).get(bound.toSeconds(), TimeUnit.SECONDS);
                producer.join(bound.toMillis());
                assertFalse(producer.isAlive(), "close released the producer");
                Object outcome = second.get();
                assertNotNull(outcome);
                if (outcome instanceof CompletableFuture<?> f) {
                    ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                            () -> f.get(bound.toSeconds(), TimeUnit.SECONDS));
                    assertTrue(e.getCause() instanceof BulkWriteException
                            || e.getCause() instanceof IllegalStateException, e.getCause()::toString);
                } else {
                    assertTrue(outcome instanceof IllegalStateException || outcome instanceof BulkWriteException,
                            outcome::toString);
                }
                ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                        () -> first.get().get(bound.toSeconds(), TimeUnit.SECONDS));
                assertTrue(e.getCause() instanceof BulkWriteException, e.getCause()::toString);
                NothingHeld.await(db, bound, true);
            } finally {
                db.shutdownNow();
            }
        }
    }
}
