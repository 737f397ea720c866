package dev.sluice.zerocopy;

import static dev.sluice.zerocopy.ZcKit.ROWS;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.sluice.Await;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWriteException;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.write.Compression;
import dev.sluice.write.Context;
import dev.sluice.write.RetryPolicy;
import java.time.Duration;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Closing a bulk writer, or its client, while large batches are being built, sent or waited for: nothing is left
 * pending, nothing leaks, and whatever the server stored is exactly what was written.
 */
// A guard against a hang, not a schedule: under load this work takes minutes.
@Timeout(600)
class ZeroCopyCloseTest {
    static final Duration BOUND = Duration.ofSeconds(20);

    @ParameterizedTest
    @EnumSource(Compression.class)
    void closingRightAfterLargeBatchesAreHandedToTheTransportFailsOrAnswersEachAndLeaksNothing(Compression compression) {
        int rows = ZcKit.rows(compression);
        try (ZcKit kit = new ZcKit()) {
            String table = "zc_close_mid_" + compression.name().toLowerCase();
            Context ctx = Context.newBuilder().compression(compression).retryPolicy(ZcKit.quick(5, BOUND)).build();
            BitSet acked = new BitSet();
            BitSet written = new BitSet();
            long id = 0;
            for (int round = 0; round < 4; round++) {
                BulkStreamWriter w = kit.db.bulkStreamWriter(ZcKit.schema(table), ZcKit.config(Duration.ofSeconds(10), 4), ctx);
                TableBufferRoot batch = w.tableBufferRoot(rows);
                List<CompletableFuture<Integer>> acks = ZcKit.futures();
                List<long[]> ranges = new java.util.ArrayList<>();
                for (int b = 0; b < 3; b++) {
                    ZcKit.fill(batch, id, rows);
                    written.set((int) id, (int) id + rows);
                    ranges.add(new long[] {id, id + rows});
                    id += rows;
                    acks.add(w.writeNext());
                }
                assertDoesNotThrow(w::close, "close while the transport writes");
                assertEquals(0, w.allocatedBytes(), "round " + round + ": close released the writer's memory");
                for (int b = 0; b < acks.size(); b++) {
                    Integer r = ZcKit.outcome("round " + round + " batch " + b, acks.get(b), BOUND);
                    if (r != null) {
                        assertEquals(rows, r);
                        acked.set((int) ranges.get(b)[0], (int) ranges.get(b)[1]);
                    }
                }
                assertEquals(0, kit.db.stats().bulkAllocatedBytes(), "round " + round + ": client off-heap");
            }
            ZcKit.assertStored(kit.server, table, acked, written);
            kit.assertNoLeak();
        }
    }

    @Test
    void closeFromAnotherThreadReleasesAProducerBlockedInWriteNextForASlot() throws Exception {
        try (ZcKit kit = new ZcKit()) {
            String table = "zc_close_blocked";
            kit.server.faults().bulkNeverAck(true);
            // one slot and a long timeout: the producer's second writeNext() waits for the first answer
            BulkStreamWriter w = kit.db.bulkStreamWriter(ZcKit.schema(table), ZcKit.config(Duration.ofSeconds(25), 1),
                    Context.newBuilder().retryPolicy(ZcKit.quick(3, Duration.ofSeconds(40))).build());
            List<CompletableFuture<Integer>> acks = new CopyOnWriteArrayList<>();
            AtomicReference<Throwable> producerError = new AtomicReference<>();
            CountDownLatch second = new CountDownLatch(1);
            Thread producer = new Thread(() -> {
                try {
                    TableBufferRoot batch = w.tableBufferRoot(ROWS);
                    ZcKit.fill(batch, 0, ROWS);
                    acks.add(w.writeNext());
                    ZcKit.fill(batch, ROWS, ROWS);
                    second.countDown();
                    acks.add(w.writeNext());
                    ZcKit.fill(batch, 2L * ROWS, ROWS);
                    acks.add(w.writeNext());
                } catch (Throwable t) {
                    producerError.set(t);
                }
            }, "zc-producer");
            producer.start();
            assertTrue(second.await(15, TimeUnit.SECONDS), "producer filled its second batch");
            ZcKit.await("the producer waits in writeNext() for a slot", Duration.ofSeconds(30), () -> ZcKit.waitingIn(producer, "writeNext"));
            Await.returns("close while the producer waits for a slot", w::close);
            producer.join(Await.HANG_GUARD.toMillis()); // a hang guard: join returns once the producer is released
            assertFalse(producer.isAlive(), "the producer was released by close()");
            Throwable t = producerError.get();
            assertTrue(t == null || t instanceof IllegalStateException || t instanceof BulkWriteException,
                    "producer saw " + t);
            for (int b = 0; b < acks.size(); b++) {
                assertNull(ZcKit.outcome("batch " + b, acks.get(b), BOUND), "batch " + b + " was never answered");
            }
            ZcKit.await("writer memory released (" + w.allocatedBytes() + ")", BOUND, () -> w.allocatedBytes() == 0);
            kit.assertNoLeak();
        }
    }

    @Test
    void closeFromAnotherThreadWhileTheProducerAddsRowsStopsItAndReleasesEverything() throws Exception {
        try (ZcKit kit = new ZcKit()) {
            String table = "zc_close_filling";
            kit.server.faults().bulkAckDelay(Duration.ofMillis(200));
            BulkStreamWriter w = kit.db.bulkStreamWriter(ZcKit.schema(table), ZcKit.config(Duration.ofSeconds(10), 2),
                    Context.newBuilder().retryPolicy(ZcKit.quick(3, BOUND)).build());
            List<CompletableFuture<Integer>> acks = new CopyOnWriteArrayList<>();
            AtomicReference<Throwable> producerError = new AtomicReference<>();
            CountDownLatch started = new CountDownLatch(1);
            BitSet written = new BitSet();
            Thread producer = new Thread(() -> {
                try {
                    TableBufferRoot batch = w.tableBufferRoot(ROWS);
                    long id = 0;
                    for (int b = 0; b < 1_000; b++) {
                        for (int r = 0; r < ROWS; r++, id++) {
                            batch.addRow(ZcKit.host(id), ZcKit.text(id, ZcKit.TEXT), ZcKit.blob(id, ZcKit.BLOB), id, ZcKit.TS0 + id);
                            synchronized (written) {
                                written.set((int) id);
                            }
                            if (b == 1) {
                                started.countDown();
                            }
                        }
                        acks.add(w.writeNext());
                    }
                } catch (Throwable t) {
                    producerError.set(t);
                }
            }, "zc-filler");
            producer.start();
            assertTrue(started.await(15, TimeUnit.SECONDS));
            ZcKit.sleep(50);
            assertDoesNotThrow(w::close);
            producer.join(15_000);
            assertFalse(producer.isAlive(), "the producer stopped");
            Throwable t = producerError.get();
            assertTrue(t instanceof IllegalStateException || t instanceof BulkWriteException,
                    "the producer's next call after close failed with " + t);
            BitSet acked = new BitSet();
            for (int b = 0; b < acks.size(); b++) {
                Integer r = ZcKit.outcome("batch " + b, acks.get(b), BOUND);
                if (r != null) {
                    acked.set(b * ROWS, (b + 1) * ROWS);
                }
            }
            ZcKit.await("writer memory released (" + w.allocatedBytes() + ")", BOUND, () -> w.allocatedBytes() == 0);
            BitSet may;
            synchronized (written) {
                may = (BitSet) written.clone();
            }
            ZcKit.assertStored(kit.server, table, acked, may);
            kit.assertNoLeak();
        }
    }

    @Test
    void interruptingAProducerBlockedForASlotDoesNotHangAndLeaksNothing() throws Exception {
        try (ZcKit kit = new ZcKit()) {
            String table = "zc_interrupt";
            kit.server.faults().bulkNeverAck(true);
            BulkStreamWriter w = kit.db.bulkStreamWriter(ZcKit.schema(table), ZcKit.config(Duration.ofSeconds(25), 1),
                    Context.newBuilder().retryPolicy(ZcKit.quick(2, Duration.ofSeconds(40))).build());
            List<CompletableFuture<Integer>> acks = new CopyOnWriteArrayList<>();
            AtomicReference<Throwable> producerError = new AtomicReference<>();
            CountDownLatch second = new CountDownLatch(1);
            Thread producer = new Thread(() -> {
                try {
                    TableBufferRoot batch = w.tableBufferRoot(ROWS);
                    ZcKit.fill(batch, 0, ROWS);
                    acks.add(w.writeNext());
                    ZcKit.fill(batch, ROWS, ROWS);
                    second.countDown();
                    acks.add(w.writeNext());
                } catch (Throwable t) {
                    producerError.set(t);
                }
            }, "zc-interrupted");
            producer.start();
            assertTrue(second.await(15, TimeUnit.SECONDS));
            ZcKit.await("the producer waits in writeNext() for a slot", Duration.ofSeconds(30), () -> ZcKit.waitingIn(producer, "writeNext"));
            producer.interrupt();
            producer.join(5_000);
            assertFalse(producer.isAlive(), "an interrupted producer returns from writeNext()");
            assertEquals(2, acks.size() + (producerError.get() != null ? 1 : 0), "second writeNext returned or threw");
            assertDoesNotThrow(w::close);
            for (int b = 0; b < acks.size(); b++) {
                ZcKit.outcome("batch " + b, acks.get(b), BOUND);
            }
            ZcKit.await("writer memory released", BOUND, () -> w.allocatedBytes() == 0);
            kit.assertNoLeak();
        }
    }

    @Test
    void gracefulShutdownWithAnOpenWriterCompletesEveryLargeBatchAndLeavesNoMemory() {
        ZcKit kit = new ZcKit();
        try {
            String table = "zc_shutdown_graceful";
            kit.server.faults().bulkAckDelay(Duration.ofMillis(800));
            BulkStreamWriter w = kit.db.bulkStreamWriter(ZcKit.schema(table), ZcKit.config(Duration.ofSeconds(10), 4),
                    Context.newBuilder().retryPolicy(ZcKit.quick(3, BOUND)).build());
            TableBufferRoot batch = w.tableBufferRoot(ROWS);
            List<CompletableFuture<Integer>> acks = ZcKit.futures();
            BitSet written = new BitSet();
            for (int b = 0; b < 3; b++) {
                ZcKit.fill(batch, (long) b * ROWS, ROWS);
                written.set(b * ROWS, (b + 1) * ROWS);
                acks.add(w.writeNext());
            }
            Await.returns("a graceful shutdown of 5 s", () -> kit.db.shutdownGracefully(Duration.ofSeconds(5)));
            BitSet acked = new BitSet();
            for (int b = 0; b < acks.size(); b++) {
                if (ZcKit.outcome("batch " + b, acks.get(b), BOUND) != null) {
                    acked.set(b * ROWS, (b + 1) * ROWS);
                }
            }
            assertDoesNotThrow(w::close);
            assertEquals(0, w.allocatedBytes());
            ZcKit.assertStored(kit.server, table, acked, written);
            kit.assertNoLeak();
        } finally {
            kit.server.close();
        }
    }

    @Test
    void shutdownNowWithAHungServerFailsEveryLargeBatchPromptlyAndLeavesNoMemory() {
        ZcKit kit = new ZcKit();
        try {
            String table = "zc_shutdown_now";
            BulkStreamWriter w = kit.db.bulkStreamWriter(ZcKit.schema(table), ZcKit.config(Duration.ofSeconds(25), 4),
                    Context.newBuilder().retryPolicy(ZcKit.quick(Integer.MAX_VALUE, Duration.ofSeconds(60))).build());
            kit.server.faults().bulkNeverAck(true);
            TableBufferRoot batch = w.tableBufferRoot(ROWS);
            List<CompletableFuture<Integer>> acks = ZcKit.futures();
            for (int b = 0; b < 3; b++) {
                ZcKit.fill(batch, (long) b * ROWS, ROWS);
                acks.add(w.writeNext());
            }
            ZcKit.await("the 3 batches stored, unanswered", Duration.ofSeconds(30), () -> kit.stored(table) == 3L * ROWS);
            kit.db.shutdownNow();
            // "Writers still open fail": well before their 60 s delivery deadline
            for (int b = 0; b < acks.size(); b++) {
                assertNull(ZcKit.outcome("batch " + b, acks.get(b), BOUND), "batch " + b);
            }
            assertDoesNotThrow(w::close);
            assertEquals(0, w.allocatedBytes());
            kit.assertNoLeak();
        } finally {
            kit.server.close();
        }
    }

    @Test
    void clientCloseWhileAWriterIsOpenThenWriterCloseDoesNotThrowOrLeak() {
        // a short default timeout: close() is shutdownGracefully(defaultTimeout), and an open bulk writer holds it
        // for all of it (see gracefulShutdownWithAnIdleOpenBulkWriterReturnsWithoutWaitingOutItsTimeout)
        ZcKit kit = new ZcKit(o -> o.requestTimeout(Duration.ofSeconds(3)));
        try {
            String table = "zc_client_close";
            BulkStreamWriter w = kit.db.bulkStreamWriter(ZcKit.schema(table), ZcKit.config(Duration.ofSeconds(10), 4),
                    Context.newBuilder().retryPolicy(ZcKit.quick(3, BOUND)).build());
            TableBufferRoot batch = w.tableBufferRoot(ROWS);
            List<CompletableFuture<Integer>> acks = ZcKit.futures();
            for (int b = 0; b < 2; b++) {
                ZcKit.fill(batch, (long) b * ROWS, ROWS);
                acks.add(w.writeNext());
            }
            // rows half-built in the vectors when the client goes away
            ZcKit.fill(batch, 2L * ROWS, ROWS / 2);
            Await.returns("client close with a writer open", kit.db::close);
            BitSet acked = new BitSet();
            for (int b = 0; b < acks.size(); b++) {
                if (ZcKit.outcome("batch " + b, acks.get(b), BOUND) != null) {
                    acked.set(b * ROWS, (b + 1) * ROWS);
                }
            }
            assertDoesNotThrow(w::close);
            assertDoesNotThrow(w::close, "close is idempotent");
            assertEquals(0, w.allocatedBytes());
            ZcKit.assertStored(kit.server, table, acked, ZcKit.range(0, 2L * ROWS));
            kit.assertNoLeak();
        } finally {
            kit.server.close();
        }
    }

    @Test
    void writerUsedAfterCloseRefusesCleanlyAndHoldsNoMemory() {
        try (ZcKit kit = new ZcKit()) {
            BulkStreamWriter w = kit.db.bulkStreamWriter(ZcKit.schema("zc_after_close"), ZcKit.config(Duration.ofSeconds(10), 4),
                    Context.newBuilder().build());
            TableBufferRoot batch = w.tableBufferRoot(ROWS);
            ZcKit.fill(batch, 0, ROWS);
            CompletableFuture<Integer> first = w.writeNext();
            ZcKit.fill(batch, ROWS, ROWS);
            w.close();
            assertThrows(IllegalStateException.class, () -> batch.addRow(ZcKit.host(1), "x", new byte[1], 1L, ZcKit.TS0));
            assertThrows(IllegalStateException.class, w::writeNext);
            assertThrows(IllegalStateException.class, w::completed);
            Integer r = ZcKit.outcome("first batch", first, BOUND);
            if (r != null) {
                assertEquals(ROWS, r);
            }
            assertEquals(0, w.allocatedBytes());
            kit.assertNoLeak();
        }
    }

    @Test
    void closeWhileTheServerIsStoppedAndBatchesWaitToBeResentReturnsPromptlyAndLeaksNothing() {
        try (ZcKit kit = new ZcKit()) {
            String table = "zc_close_stopped";
            BulkStreamWriter w = kit.db.bulkStreamWriter(ZcKit.schema(table), ZcKit.config(Duration.ofSeconds(10), 4),
                    Context.newBuilder().retryPolicy(RetryPolicy.newBuilder().deliveryTimeout(Duration.ofMinutes(10))
                            .build()).build());
            TableBufferRoot batch = w.tableBufferRoot(ROWS);
            List<CompletableFuture<Integer>> acks = ZcKit.futures();
            kit.server.faults().bulkNeverAck(true);
            ZcKit.fill(batch, 0, ROWS);
            acks.add(w.writeNext());
            ZcKit.await("the first batch stored, unanswered", Duration.ofSeconds(30), () -> kit.stored(table) == ROWS);
            kit.server.stop();
            for (int b = 1; b < 3; b++) {
                ZcKit.fill(batch, (long) b * ROWS, ROWS);
                acks.add(w.writeNext());
            }
            ZcKit.await("the batches wait to be resent", Duration.ofSeconds(30), () -> w.replays() >= 1);
            // the server stays stopped and the delivery deadline is longer than the hang guard: close returning
            // proves it waits neither for the server nor for the deadline
            Await.returns("close while the batches wait to be resent", w::close);
            for (int b = 0; b < acks.size(); b++) {
                assertNull(ZcKit.outcome("batch " + b, acks.get(b), BOUND), "batch " + b);
            }
            assertEquals(0, w.allocatedBytes());
            kit.assertNoLeak();
        } catch (AssertionError e) {
            throw e;
        } catch (RuntimeException e) {
            fail(e);
        }
    }

    @Test
    void closeFromAnotherThreadWhileWriteNextCompressesALargeBatchLeavesNothingPendingOrLeaked() throws Exception {
        try (ZcKit kit = new ZcKit()) {
            String table = "zc_close_compressing";
            long[] delays = {0, 20, 60, 150};
            int rows = ZcKit.rows(Compression.Lz4);
            for (long delay : delays) {
                BulkStreamWriter w = kit.db.bulkStreamWriter(ZcKit.schema(table), ZcKit.config(Duration.ofSeconds(10), 4),
                        Context.newBuilder().compression(Compression.Lz4).retryPolicy(ZcKit.quick(3, BOUND)).build());
                TableBufferRoot batch = w.tableBufferRoot(rows);
                ZcKit.fill(batch, 0, rows);
                List<CompletableFuture<Integer>> acks = new CopyOnWriteArrayList<>();
                AtomicReference<Throwable> producerError = new AtomicReference<>();
                CountDownLatch entering = new CountDownLatch(1);
                Thread producer = new Thread(() -> {
                    try {
                        entering.countDown();
                        acks.add(w.writeNext()); // Lz4 of 4 MB runs on this thread
                        ZcKit.fill(batch, rows, rows);
                        acks.add(w.writeNext());
                    } catch (Throwable t) {
                        producerError.set(t);
                    }
                }, "zc-compressing");
                producer.start();
                assertTrue(entering.await(5, TimeUnit.SECONDS));
                ZcKit.sleep(delay);
                assertDoesNotThrow(w::close, "close at " + delay + " ms");
                // the producer returns (the bound, reached only if it hangs, leaves a loaded machine its 4 MB of Lz4)
                producer.join(120_000);
                assertFalse(producer.isAlive(), "producer returned (delay " + delay + ")");
                Throwable t = producerError.get();
                assertTrue(t == null || t instanceof IllegalStateException || t instanceof BulkWriteException,
                        "producer saw " + t);
                for (int b = 0; b < acks.size(); b++) {
                    ZcKit.outcome("delay " + delay + " batch " + b, acks.get(b), BOUND);
                }
                ZcKit.await("writer memory released (delay " + delay + ", " + w.allocatedBytes() + ")", BOUND,
                        () -> w.allocatedBytes() == 0);
            }
            ZcKit.assertStored(kit.server, table, new BitSet(), ZcKit.range(0, 2L * rows));
            kit.assertNoLeak();
        }
    }

    @Test
    void closeDuringAStormOfResendsCompletesEveryFutureAndLeaksNothing() {
        try (ZcKit kit = new ZcKit()) {
            String table = "zc_close_storm";
            kit.server.faults().failEvery(2, dev.sluice.write.StatusCode.RateLimited, "slow down");
            java.util.Random random = new java.util.Random(42);
            BitSet written = new BitSet();
            BitSet acked = new BitSet();
            long id = 0;
            for (int round = 0; round < 4; round++) {
                BulkStreamWriter w = kit.db.bulkStreamWriter(ZcKit.schema(table), ZcKit.config(Duration.ofSeconds(10), 4),
                        Context.newBuilder().retryPolicy(ZcKit.quick(Integer.MAX_VALUE, BOUND).toBuilder()
                                .backoff(Duration.ofMillis(5), Duration.ofMillis(30)).build()).build());
                TableBufferRoot batch = w.tableBufferRoot(ROWS);
                List<CompletableFuture<Integer>> acks = ZcKit.futures();
                List<long[]> ranges = new java.util.ArrayList<>();
                for (int b = 0; b < 3; b++) {
                    ZcKit.fill(batch, id, ROWS);
                    written.set((int) id, (int) id + ROWS);
                    ranges.add(new long[] {id, id + ROWS});
                    id += ROWS;
                    acks.add(w.writeNext());
                }
                ZcKit.sleep(20 + random.nextInt(300));
                assertDoesNotThrow(w::close);
                for (int b = 0; b < acks.size(); b++) {
                    Integer r = ZcKit.outcome("round " + round + " batch " + b, acks.get(b), BOUND);
                    if (r != null) {
                        assertEquals(ROWS, r);
                        acked.set((int) ranges.get(b)[0], (int) ranges.get(b)[1]);
                    }
                }
                ZcKit.await("round " + round + " memory released", BOUND, () -> w.allocatedBytes() == 0);
            }
            kit.server.faults().reset();
            ZcKit.assertStored(kit.server, table, acked, written);
            kit.assertNoLeak();
        }
    }

    /** A writer with one answered batch, its client shut down, the batch filled again: writeNext() refuses cleanly. */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(booleans = {true, false})
    void writeNextAfterTheClientIsShutDownFailsWithABulkWriteExceptionNotAGrpcError(boolean graceful) {
        ZcKit kit = new ZcKit();
        try {
            BulkStreamWriter w = kit.db.bulkStreamWriter(ZcKit.schema("zc_after_shutdown"), ZcKit.config(Duration.ofSeconds(10), 4),
                    Context.newBuilder().retryPolicy(ZcKit.quick(3, BOUND)).build());
            TableBufferRoot batch = w.tableBufferRoot(ROWS);
            ZcKit.fill(batch, 0, ROWS);
            assertEquals(ROWS, ZcKit.outcome("first batch", w.writeNext(), BOUND));
            if (graceful) {
                kit.db.shutdownGracefully(Duration.ofSeconds(2));
            } else {
                kit.db.shutdownNow();
            }
            ZcKit.fill(batch, ROWS, ROWS);
            CompletableFuture<Integer> late;
            try {
                late = w.writeNext();
            } catch (IllegalStateException refused) {
                late = null; // refused at once: acceptable
            } catch (RuntimeException e) {
                w.close();
                throw new AssertionError("writeNext() after shutdown threw " + e, e);
            }
            if (late != null) {
                assertNull(ZcKit.outcome("write after shutdown", late, BOUND), "a write after shutdown is not stored");
            }
            assertEquals(0, w.inFlight(), "nothing is left in flight");
            assertDoesNotThrow(w::close);
            assertEquals(0, w.allocatedBytes());
            kit.assertNoLeak();
        } finally {
            kit.server.close();
        }
    }

    /** A writer whose one batch was answered, then shutdownGracefully(60 s): nothing is in flight to wait for. */
    @Test
    void gracefulShutdownWithAnIdleOpenBulkWriterReturnsWithoutWaitingOutItsTimeout() {
        ZcKit kit = new ZcKit();
        try {
            BulkStreamWriter w = kit.db.bulkStreamWriter(ZcKit.schema("zc_idle_shutdown"), ZcKit.config(Duration.ofSeconds(10), 4),
                    Context.newBuilder().build());
            TableBufferRoot batch = w.tableBufferRoot(ROWS);
            ZcKit.fill(batch, 0, ROWS);
            assertEquals(ROWS, ZcKit.outcome("batch", w.writeNext(), BOUND));
            assertEquals(0, w.inFlight(), "nothing in flight");
            // a timeout longer than the hang guard: a shutdown that waited it out would fail the guard
            boolean clean = Await.returns("a graceful shutdown with nothing in flight",
                    () -> kit.db.shutdownGracefully(Duration.ofMinutes(10)));
            w.close();
            assertTrue(clean, "nothing was in flight, so the shutdown was clean");
            kit.assertNoLeak();
        } finally {
            kit.server.close();
        }
    }
}
