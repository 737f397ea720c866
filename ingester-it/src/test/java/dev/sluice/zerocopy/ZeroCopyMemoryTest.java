package dev.sluice.zerocopy;

import static dev.sluice.zerocopy.ZcKit.ROWS;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Await;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWriteException;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.write.Compression;
import dev.sluice.write.Context;
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.StatusCode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Off-heap memory of large bulk batches stays bounded and returns to zero; oversized batches fail cleanly. */
// A guard against a hang, not a schedule: under load this work takes minutes.
@Timeout(600)
class ZeroCopyMemoryTest {
    static final Duration BOUND = Duration.ofSeconds(30);

    @Test
    void repeatedOpenWriteCloseCyclesReturnOffHeapMemoryToZeroEveryTime() {
        try (ZcKit kit = new ZcKit()) {
            String table = "zc_cycles";
            BitSet acked = new BitSet();
            BitSet written = new BitSet();
            long id = 0;
            for (int cycle = 0; cycle < 12; cycle++) {
                Compression c = Compression.values()[cycle % Compression.values().length];
                int rows = ZcKit.rows(c);
                Context ctx = Context.newBuilder().compression(c)
                        .retryPolicy(cycle % 3 == 2 ? RetryPolicy.none() : ZcKit.quick(3, BOUND)).build();
                BulkStreamWriter w = kit.db.bulkStreamWriter(ZcKit.schema(table), ZcKit.config(Duration.ofSeconds(10), 2), ctx);
                TableBufferRoot batch = w.tableBufferRoot(rows);
                ZcKit.fill(batch, id, rows);
                written.set((int) id, (int) id + rows);
                CompletableFuture<Integer> f = w.writeNext();
                long first = id;
                id += rows;
                if (cycle % 2 == 0) {
                    assertEquals(rows, ZcKit.outcome("cycle " + cycle, f, BOUND), "cycle " + cycle);
                    w.completed();
                }
                assertDoesNotThrow(w::close, "cycle " + cycle);
                Integer r = ZcKit.outcome("cycle " + cycle, f, BOUND);
                if (r != null) {
                    acked.set((int) first, (int) first + rows);
                }
                assertEquals(0, w.allocatedBytes(), "cycle " + cycle + " writer memory");
                assertEquals(0, kit.db.stats().bulkAllocatedBytes(), "cycle " + cycle + " client memory");
                assertEquals(0, kit.db.stats().bytesInFlight(), "cycle " + cycle + " byte budget given back");
            }
            ZcKit.assertStored(kit.server, table, acked, written);
            kit.assertNoLeak();
        }
    }

    @Test
    void offHeapMemoryStaysBoundedBehindASlowServer() {
        try (ZcKit kit = new ZcKit()) {
            String table = "zc_bounded";
            kit.server.faults().bulkAckDelay(Duration.ofMillis(250));
            int inFlight = 3;
            long peak = 0;
            long oneBatch;
            int batches = 12;
            try (BulkStreamWriter w = kit.db.bulkStreamWriter(ZcKit.schema(table), ZcKit.config(Duration.ofSeconds(20), inFlight),
                    Context.newBuilder().retryPolicy(ZcKit.quick(3, BOUND)).build())) {
                TableBufferRoot batch = w.tableBufferRoot(ROWS);
                ZcKit.fill(batch, 0, ROWS);
                oneBatch = w.allocatedBytes();
                List<CompletableFuture<Integer>> acks = ZcKit.futures();
                acks.add(w.writeNext());
                for (int b = 1; b < batches; b++) {
                    ZcKit.fill(batch, (long) b * ROWS, ROWS);
                    peak = Math.max(peak, kit.db.stats().bulkAllocatedBytes());
                    acks.add(w.writeNext());
                    peak = Math.max(peak, kit.db.stats().bulkAllocatedBytes());
                }
                for (int b = 0; b < batches; b++) {
                    assertEquals(ROWS, ZcKit.outcome("batch " + b, acks.get(b), BOUND));
                }
                assertEquals((long) batches * ROWS, w.completed());
                assertTrue(kit.server.bulkMaxUnanswered() <= inFlight, "unanswered " + kit.server.bulkMaxUnanswered());
            }
            // unanswered batches plus the one being filled, and some slack for a transport still writing one
            long limit = (inFlight + 3) * oneBatch;
            assertTrue(peak <= limit, "peak off-heap " + peak + " > " + limit + " (one batch " + oneBatch + ")");
            ZcKit.assertStored(kit.server, table, ZcKit.range(0, (long) batches * ROWS), null);
            kit.assertNoLeak();
        }
    }

    @Test
    void aSmallClientByteBudgetLimitsUnansweredLargeBatchesAndIsGivenBackInFull() {
        try (ZcKit kit = new ZcKit(o -> o.maxInFlightBytes(12L << 20))) {
            String table = "zc_budget";
            kit.server.faults().bulkAckDelay(Duration.ofMillis(200));
            int batches = 6;
            try (BulkStreamWriter w = kit.db.bulkStreamWriter(ZcKit.schema(table), ZcKit.config(Duration.ofSeconds(20), 8),
                    Context.newBuilder().retryPolicy(ZcKit.quick(3, BOUND)).build())) {
                TableBufferRoot batch = w.tableBufferRoot(ROWS);
                List<CompletableFuture<Integer>> acks = ZcKit.futures();
                for (int b = 0; b < batches; b++) {
                    ZcKit.fill(batch, (long) b * ROWS, ROWS);
                    acks.add(w.writeNext());
                    assertTrue(kit.db.stats().bytesInFlight() <= 16L << 20, "budget " + kit.db.stats().bytesInFlight());
                }
                for (int b = 0; b < batches; b++) {
                    assertEquals(ROWS, ZcKit.outcome("batch " + b, acks.get(b), BOUND));
                }
                assertEquals((long) batches * ROWS, w.completed());
                assertTrue(kit.server.bulkMaxUnanswered() <= 2, "8 MB batches in a 12 MiB budget: "
                        + kit.server.bulkMaxUnanswered() + " unanswered at once");
            }
            ZcKit.await("budget given back", BOUND, () -> kit.db.stats().bytesInFlight() == 0);
            ZcKit.assertStored(kit.server, table, ZcKit.range(0, (long) batches * ROWS), null);
            kit.assertNoLeak();
        }
    }

    @Test
    void manyWritersOnOneClientUnderFaultsStoreEveryRowExactlyAndReturnAllMemory() throws Exception {
        try (ZcKit kit = new ZcKit()) {
            kit.server.faults().failEvery(7, StatusCode.RateLimited, "slow down");
            int writers = 4;
            int batches = 3;
            ExecutorService pool = Executors.newFixedThreadPool(writers);
            List<Future<long[]>> results = new ArrayList<>();
            AtomicLong peak = new AtomicLong();
            for (int k = 0; k < writers; k++) {
                int writer = k;
                results.add(pool.submit(() -> {
                    Compression c = Compression.values()[writer % Compression.values().length];
                    int rows = ZcKit.rows(c);
                    try (BulkStreamWriter w = kit.db.bulkStreamWriter(ZcKit.schema("zc_many_" + writer),
                            ZcKit.config(Duration.ofSeconds(20), 2),
                            Context.newBuilder().compression(c).retryPolicy(ZcKit.quick(20, BOUND)).build())) {
                        TableBufferRoot batch = w.tableBufferRoot(rows);
                        List<CompletableFuture<Integer>> acks = ZcKit.futures();
                        for (int b = 0; b < batches; b++) {
                            ZcKit.fill(batch, (long) b * rows, rows);
                            acks.add(w.writeNext());
                            peak.accumulateAndGet(kit.db.stats().bulkAllocatedBytes(), Math::max);
                        }
                        for (int b = 0; b < batches; b++) {
                            assertEquals(rows, ZcKit.outcome("writer " + writer + " batch " + b, acks.get(b), BOUND));
                        }
                        return new long[] {w.completed(), w.replays()};
                    }
                }));
            }
            pool.shutdown();
            // hang guards only: each writer waits for its own batches' outcomes, one bound each
            for (int k = 0; k < writers; k++) {
                long rows = ZcKit.rows(Compression.values()[k % Compression.values().length]);
                assertEquals(batches * rows, results.get(k).get(Await.HANG_GUARD.toSeconds() * batches, TimeUnit.SECONDS)[0]);
            }
            assertTrue(pool.awaitTermination(Await.HANG_GUARD.toSeconds(), TimeUnit.SECONDS));
            for (int k = 0; k < writers; k++) {
                long rows = ZcKit.rows(Compression.values()[k % Compression.values().length]);
                ZcKit.assertStored(kit.server, "zc_many_" + k, ZcKit.range(0, batches * rows), null);
            }
            assertTrue(peak.get() > 0, "the writers used off-heap memory");
            kit.assertNoLeak();
        }
    }

    @Test
    void aLargeBatchOverTheServersMessageLimitFailsWithABulkWriteExceptionAndIsNotResentForever() {
        try (ZcKit kit = new ZcKit(s -> s.maxMessageBytes(6 << 20), o -> o)) {
            String table = "zc_server_limit";
            BitSet acked = new BitSet();
            try (BulkStreamWriter w = kit.db.bulkStreamWriter(ZcKit.schema(table), ZcKit.config(Duration.ofSeconds(10), 4),
                    // a delivery deadline beyond the wait for the outcome: a refusal retried until the deadline
                    // cannot complete within that wait
                    Context.newBuilder().retryPolicy(ZcKit.quick(Integer.MAX_VALUE, Duration.ofMinutes(10))).build())) {
                TableBufferRoot batch = w.tableBufferRoot(ROWS);
                // a small batch first (accepted), then one of about 8 MB (over the server's 6 MiB)
                ZcKit.fill(batch, 0, 500);
                CompletableFuture<Integer> small = w.writeNext();
                ZcKit.fill(batch, ROWS, ROWS);
                CompletableFuture<Integer> big = w.writeNext();
                assertEquals(500, ZcKit.outcome("small batch", small, BOUND));
                acked.set(0, 500);
                assertNull(ZcKit.outcome("oversized batch", big, BOUND), "an oversized batch cannot be stored");
                BulkWriteException e = assertThrowsBulk(w);
                assertTrue(e.getMessage() != null);
            }
            ZcKit.assertStored(kit.server, table, acked, null);
            kit.assertNoLeak();
        }
    }

    @Test
    void aLargeBatchOverTheClientsMaxMessageSizeIsStoredExactlyOrFailsCleanly() {
        try (ZcKit kit = new ZcKit(o -> o.maxMessageSize(2 << 20))) {
            String table = "zc_client_limit";
            BulkStreamWriter w = kit.db.bulkStreamWriter(ZcKit.schema(table), ZcKit.config(Duration.ofSeconds(10), 4),
                    Context.newBuilder().retryPolicy(ZcKit.quick(3, BOUND)).build());
            TableBufferRoot batch = w.tableBufferRoot(ROWS);
            ZcKit.fill(batch, 0, ROWS);
            CompletableFuture<Integer> big = w.writeNext();
            Integer r = ZcKit.outcome("batch over maxMessageSize", big, BOUND);
            System.out.println("zc: an 8 MB bulk batch with maxMessageSize 2 MiB -> " + (r != null ? "stored" : "failed: " + big.handle((v, e) -> e).join()));
            BitSet acked = r == null ? new BitSet() : ZcKit.range(0, ROWS);
            if (r != null) {
                assertEquals(ROWS, r);
            }
            assertDoesNotThrow(w::close);
            assertEquals(0, w.allocatedBytes());
            ZcKit.assertStored(kit.server, table, acked, null);
            kit.assertNoLeak();
        }
    }

    @Test
    void completedAfterLargeBatchesBehindADelayedAckWaitsForEveryAnswerWithinItsBound() {
        try (ZcKit kit = new ZcKit()) {
            String table = "zc_completed";
            kit.server.faults().bulkAckDelay(Duration.ofMillis(600));
            try (BulkStreamWriter w = kit.db.bulkStreamWriter(ZcKit.schema(table), ZcKit.config(Duration.ofSeconds(10), 4),
                    Context.newBuilder().retryPolicy(ZcKit.quick(3, BOUND)).build())) {
                TableBufferRoot batch = w.tableBufferRoot(ROWS);
                List<CompletableFuture<Integer>> acks = ZcKit.futures();
                for (int b = 0; b < 4; b++) {
                    ZcKit.fill(batch, (long) b * ROWS, ROWS);
                    acks.add(w.writeNext());
                }
                assertEquals(4L * ROWS, w.completed());
                for (CompletableFuture<Integer> a : acks) {
                    assertTrue(a.isDone(), "completed() returned with a batch still unanswered");
                    assertEquals(ROWS, a.join());
                }
                assertEquals(0, w.inFlight());
            }
            ZcKit.assertStored(kit.server, table, ZcKit.range(0, 4L * ROWS), null);
            kit.assertNoLeak();
        }
    }

    static BulkWriteException assertThrowsBulk(BulkStreamWriter w) {
        try {
            w.completed();
        } catch (BulkWriteException e) {
            return e;
        }
        throw new AssertionError("completed() must report the failed batch");
    }
}
