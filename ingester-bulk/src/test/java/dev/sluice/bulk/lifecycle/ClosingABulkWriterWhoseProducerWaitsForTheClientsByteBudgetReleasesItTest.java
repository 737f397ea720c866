package dev.sluice.bulk.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.Faults;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A producer whose {@code writeNext()} waits for room in the client's byte budget (held by another writer's batch
 * whose answer the server holds) is released by {@link BulkStreamWriter#close()} from another thread, as a producer
 * waiting for an answer slot is: long before the client's {@code maxBlock} and the writer's {@code requestTimeout},
 * its batch fails with the writer's closed error, and the closed writer holds no memory.
 */
class ClosingABulkWriterWhoseProducerWaitsForTheClientsByteBudgetReleasesItTest {
    private static final Duration BOUND = Duration.ofSeconds(20); // far below maxBlock and requestTimeout below
    private static final String LINE = "x".repeat(1_000);

    static TableSchema schema(String table) {
        return TableSchema.newBuilder(table).addTag("host", DataType.String).addField("msg", DataType.String)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
    }

    @Test
    void closeReleasesTheProducerAndFreesTheMemory() throws Exception {
        String holderTable = "budget_wait_holder";
        String takerTable = "budget_wait_taker";
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public")
                    .maxInFlightBytes(1L << 20).maxBlock(Await.BEYOND_THE_HANG_GUARD).build());
            try {
                for (String t : new String[] {holderTable, takerTable}) {
                    assertTrue(db.write(Table.from(schema(t)).addRow("setup", "s", 0L)).get(30, TimeUnit.SECONDS)
                            .isOk());
                }
                server.faults().hold(Faults.HoldPoint.BEFORE_ANSWER, r -> r.tables().contains(holderTable));
                BulkWrite.Config config = BulkWrite.Config.newBuilder().createTable(false)
                        .requestTimeout(Await.BEYOND_THE_HANG_GUARD).build();
                try (BulkStreamWriter holder = db.bulkStreamWriter(schema(holderTable), config,
                        Context.newBuilder().build())) {
                    TableBufferRoot held = holder.tableBufferRoot(800);
                    for (int i = 1; i <= 800; i++) {
                        held.addRow("h", LINE, (long) i);
                    }
                    CompletableFuture<Integer> heldAck = holder.writeNext();
                    server.faults().awaitHeld(1, BOUND);

                    BulkStreamWriter taker = db.bulkStreamWriter(schema(takerTable), config,
                            Context.newBuilder().build());
                    AtomicInteger calls = new AtomicInteger();
                    AtomicReference<Object> outcome = new AtomicReference<>();
                    Thread producer = new Thread(() -> {
                        try {
                            TableBufferRoot batch = taker.tableBufferRoot(400);
                            for (int i = 1; i <= 400; i++) {
                                batch.addRow("h", LINE, (long) i);
                            }
                            calls.incrementAndGet();
                            outcome.set(taker.writeNext());
                        } catch (Throwable t) {
                            outcome.set(t);
                        }
                    }, "producer-" + takerTable);
                    producer.setDaemon(true);
                    producer.start();
                    Await.until("the producer waits for room in the byte budget", BOUND,
                            () -> calls.get() == 1 && (producer.getState() == Thread.State.TIMED_WAITING
                                    || producer.getState() == Thread.State.WAITING));
                    CompletableFuture<Void> closing = CompletableFuture.runAsync(taker::close);
                    producer.join(BOUND.toMillis());
                    assertFalse(producer.isAlive(), () -> "close released the producer waiting for the byte budget"
                            + " (close" + (closing.isDone() ? " returned" : " has not returned either") + ", producer "
                            + producer.getState() + ")");
                    closing.get(BOUND.toSeconds(), TimeUnit.SECONDS);
                    Object o = outcome.get();
                    assertNotNull(o);
                    Throwable failure = o instanceof CompletableFuture<?> f ? failureOf(f) : (Throwable) o;
                    assertTrue(failure instanceof BulkWriteException || failure instanceof IllegalStateException,
                            "the waiting batch fails with the writer's closed error: " + failure);
                    Await.until("the closed writer holds no memory", BOUND, () -> taker.allocatedBytes() == 0);

                    server.faults().release();
                    assertEquals(800, heldAck.get(BOUND.toSeconds(), TimeUnit.SECONDS));
                    assertEquals(800, holder.completed());
                }
                assertEquals(1, server.rowCount(takerTable), "only the setup row: the closed writer sent nothing");
                NothingHeld.await(db, BOUND, true);
            } finally {
                server.faults().reset();
                db.shutdownNow();
            }
        }
    }

    private static Throwable failureOf(CompletableFuture<?> f) throws Exception {
        try {
            return new AssertionError("stored " + f.get(BOUND.toSeconds(), TimeUnit.SECONDS));
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }
}
