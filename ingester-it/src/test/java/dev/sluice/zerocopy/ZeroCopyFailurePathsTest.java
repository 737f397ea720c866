package dev.sluice.zerocopy;

import static dev.sluice.zerocopy.ZcKit.ROWS;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.BulkWriteException;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.write.Compression;
import dev.sluice.write.Context;
import dev.sluice.write.StatusCode;
import dev.sluice.write.WhenFull;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Less common paths of large bulk batches: rejected batches, append mode, short deadlines, memory caps. */
// A guard against a hang, not a schedule: under load this work takes minutes.
@Timeout(600)
class ZeroCopyFailurePathsTest {
    static final Duration BOUND = Duration.ofSeconds(30);

    @Test
    void aLargeBatchRefusedForWantOfASlotKeepsItsRowsAndTheNextWriteNextSendsThemOnce() {
        try (ZcKit kit = new ZcKit()) {
            String table = "zc_failfast";
            kit.server.faults().bulkAckDelay(Duration.ofMillis(700));
            BulkWrite.Config config = BulkWrite.Config.newBuilder().requestTimeout(Duration.ofSeconds(20))
                    .maxInFlightRequests(1).whenFull(WhenFull.FailFast).build();
            BitSet acked = new BitSet();
            try (BulkStreamWriter w = kit.db.bulkStreamWriter(ZcKit.schema(table), config,
                    Context.newBuilder().retryPolicy(ZcKit.quick(3, BOUND)).build())) {
                TableBufferRoot batch = w.tableBufferRoot(ROWS);
                ZcKit.fill(batch, 0, ROWS);
                CompletableFuture<Integer> first = w.writeNext();
                ZcKit.fill(batch, ROWS, ROWS);
                CompletableFuture<Integer> second = w.writeNext(); // the only slot is taken: refused at once
                assertTrue(second.isDone(), "FailFast answers at once");
                assertTrue(second.isCompletedExceptionally(), "the second batch was refused");
                assertEquals(ROWS, batch.rowCount(), "the refused batch keeps its rows: nothing was dropped");
                assertEquals(ROWS, ZcKit.outcome("first", first, BOUND));
                acked.set(0, ROWS);
                ZcKit.fill(batch, 2L * ROWS, ROWS / 2);
                assertEquals(ROWS + ROWS / 2, ZcKit.outcome("third", w.writeNext(), BOUND),
                        "the kept rows go with the next batch");
                acked.set(ROWS, 2 * ROWS + ROWS / 2);
                assertEquals(2L * ROWS + ROWS / 2, w.completed(), "no batch failed: the refusal dropped nothing");
            }
            BitSet stored = ZcKit.assertStored(kit.server, table, acked, null);
            assertEquals(acked, stored, "every row is stored once");
            kit.assertNoLeak();
        }
    }

    @Test
    void appendModeLargeBatchesBrokenByARestartAreNeverStoredTwice() {
        try (ZcKit kit = new ZcKit()) {
            String table = "zc_append";
            Context ctx = Context.newBuilder().hint("append_mode", "true").retryPolicy(ZcKit.quick(5, BOUND)).build();
            kit.server.faults().bulkAckDelay(Duration.ofMillis(800));
            BitSet acked = new BitSet();
            BitSet written = new BitSet();
            List<CompletableFuture<Integer>> acks = ZcKit.futures();
            try (BulkStreamWriter w = kit.db.bulkStreamWriter(ZcKit.schema(table), ZcKit.config(Duration.ofSeconds(20), 4), ctx)) {
                TableBufferRoot batch = w.tableBufferRoot(ROWS);
                for (int b = 0; b < 3; b++) {
                    ZcKit.fill(batch, (long) b * ROWS, ROWS);
                    written.set(b * ROWS, (b + 1) * ROWS);
                    acks.add(w.writeNext());
                }
                ZcKit.await("the 3 batches stored, unanswered", Duration.ofSeconds(30), () -> kit.stored(table) == 3L * ROWS);
                kit.server.restart();
                kit.server.faults().bulkAckDelay(Duration.ZERO);
                for (int b = 0; b < acks.size(); b++) {
                    Integer r = ZcKit.outcome("batch " + b, acks.get(b), BOUND);
                    if (r != null) {
                        assertEquals(ROWS, r);
                        acked.set(b * ROWS, (b + 1) * ROWS);
                    }
                }
            }
            // assertStored fails on any row stored twice
            ZcKit.assertStored(kit.server, table, acked, written);
            kit.assertNoLeak();
        }
    }

    @Test
    void timeoutsShorterThanTheServersAnswersFailEveryLargeBatchWithinItsBudgetAndFreeEverything() {
        try (ZcKit kit = new ZcKit()) {
            String table = "zc_short_timeout";
            kit.server.faults().latency(Duration.ofMillis(900));
            kit.server.faults().bulkAckDelay(Duration.ofMillis(900));
            BitSet acked = new BitSet();
            BitSet written = new BitSet();
            try (BulkStreamWriter w = kit.db.bulkStreamWriter(ZcKit.schema(table), ZcKit.config(Duration.ofMillis(300), 3),
                    Context.newBuilder().retryPolicy(ZcKit.quick(3, Duration.ofSeconds(10))).build())) {
                TableBufferRoot batch = w.tableBufferRoot(ROWS);
                List<CompletableFuture<Integer>> acks = ZcKit.futures();
                for (int b = 0; b < 3; b++) {
                    ZcKit.fill(batch, (long) b * ROWS, ROWS);
                    written.set(b * ROWS, (b + 1) * ROWS);
                    acks.add(w.writeNext());
                }
                for (int b = 0; b < acks.size(); b++) {
                    Integer r = ZcKit.outcome("batch " + b, acks.get(b), Duration.ofSeconds(20));
                    if (r != null) {
                        acked.set(b * ROWS, (b + 1) * ROWS);
                    }
                }
                assertTrue(w.failedBatches() > 0, "answers slower than the timeout fail batches");
                assertThrows(BulkWriteException.class, w::completed);
            }
            // the policy's budget is three attempts a batch: the server saw no more batches than that (the table's
            // creation, itself retried under the same slow answers, is not a batch)
            long sent = kit.server.requests().stream()
                    .filter(r -> r.kind().equals("bulk") && r.tables().contains(table)).count();
            assertTrue(sent <= 3L * 3, "at most three attempts for each of the three batches, the server saw " + sent);
            kit.server.faults().reset();
            ZcKit.assertStored(kit.server, table, acked, written);
            kit.assertNoLeak();
        }
    }

    @Test
    void restartsRightAfterEachHandOffResendLargeBatchesByteForByte() {
        try (ZcKit kit = new ZcKit()) {
            String table = "zc_restart_midtransfer";
            Context ctx = Context.newBuilder().retryPolicy(ZcKit.quick(Integer.MAX_VALUE, BOUND).toBuilder()
                    .backoff(Duration.ofMillis(20), Duration.ofMillis(100)).build()).build();
            int batches = 5;
            try (BulkStreamWriter w = kit.db.bulkStreamWriter(ZcKit.schema(table), ZcKit.config(Duration.ofSeconds(20), 8), ctx)) {
                TableBufferRoot batch = w.tableBufferRoot(ROWS);
                List<CompletableFuture<Integer>> acks = ZcKit.futures();
                for (int b = 0; b < batches; b++) {
                    ZcKit.fill(batch, (long) b * ROWS, ROWS);
                    acks.add(w.writeNext());
                    if (b % 2 == 0) {
                        kit.server.restart(); // most likely while the 8 MB are still on their way
                    }
                }
                for (int b = 0; b < batches; b++) {
                    assertEquals(ROWS, ZcKit.outcome("batch " + b, acks.get(b), BOUND), "batch " + b);
                }
                assertEquals((long) batches * ROWS, w.completed());
            }
            ZcKit.assertStored(kit.server, table, ZcKit.range(0, (long) batches * ROWS), null);
            kit.assertNoLeak();
        }
    }

    @Test
    void concurrentWritersOfVaryingLargeBatchesUnderFrequentFaultsStoreExactRows() throws Exception {
        try (ZcKit kit = new ZcKit()) {
            kit.server.faults().failEvery(3, StatusCode.RateLimited, "slow down");
            int writers = 3;
            int batches = 4;
            ExecutorService pool = Executors.newFixedThreadPool(writers);
            List<Future<BitSet>> results = new ArrayList<>();
            for (int k = 0; k < writers; k++) {
                int writer = k;
                results.add(pool.submit(() -> {
                    BitSet must = new BitSet();
                    Context ctx = Context.newBuilder().compression(writer == 1 ? Compression.Zstd : Compression.None)
                            .retryPolicy(ZcKit.quick(50, BOUND)).build();
                    try (BulkStreamWriter w = kit.db.bulkStreamWriter(ZcKit.schema("zc_conc_" + writer),
                            ZcKit.config(Duration.ofSeconds(20), 3), ctx)) {
                        TableBufferRoot batch = w.tableBufferRoot(64);
                        List<CompletableFuture<Integer>> acks = ZcKit.futures();
                        List<Integer> sizes = new ArrayList<>();
                        for (int b = 0; b < batches; b++) {
                            int rows = 1_100 + ((b * 7 + writer * 3) % 5) * 250; // about 4.5 .. 8.5 MB
                            ZcKit.fill(batch, (long) b * ROWS, rows);
                            must.set(b * ROWS, b * ROWS + rows);
                            sizes.add(rows);
                            acks.add(w.writeNext());
                        }
                        for (int b = 0; b < batches; b++) {
                            assertEquals(sizes.get(b), ZcKit.outcome("writer " + writer + " batch " + b, acks.get(b), BOUND));
                        }
                        w.completed();
                    }
                    return must;
                }));
            }
            pool.shutdown();
            for (int k = 0; k < writers; k++) {
                BitSet must = results.get(k).get(50, TimeUnit.SECONDS);
                ZcKit.assertStored(kit.server, "zc_conc_" + k, must, null);
            }
            assertTrue(pool.awaitTermination(5, TimeUnit.SECONDS));
            kit.assertNoLeak();
        }
    }

    @Test
    void aBatchGrowingPastTheAllocatorCapFailsCleanlyAndEarlierLargeBatchesStayIntact() {
        try (ZcKit kit = new ZcKit()) {
            String table = "zc_cap";
            BulkWrite.Config config = BulkWrite.Config.newBuilder().requestTimeout(Duration.ofSeconds(20))
                    .maxInFlightRequests(2).allocatorMaxAllocation(20L << 20).build();
            kit.server.faults().bulkAckDelay(Duration.ofMillis(500));
            BitSet acked = new BitSet();
            BitSet written = new BitSet();
            try (BulkStreamWriter w = kit.db.bulkStreamWriter(ZcKit.schema(table), config,
                    Context.newBuilder().retryPolicy(ZcKit.quick(3, BOUND)).build())) {
                TableBufferRoot batch = w.tableBufferRoot(ROWS);
                ZcKit.fill(batch, 0, 1_200); // about 5 MB: large, kept while unanswered
                written.set(0, 1_200);
                CompletableFuture<Integer> first = w.writeNext();
                RuntimeException failure = null;
                long id = ROWS;
                try {
                    for (; id < 10L * ROWS; id++) {
                        batch.addRow(ZcKit.host(id), ZcKit.text(id, ZcKit.TEXT), ZcKit.blob(id, ZcKit.BLOB), id, ZcKit.TS0 + id);
                    }
                } catch (RuntimeException e) {
                    failure = e;
                }
                assertNotNull(failure, "a batch over the cap is refused");
                assertTrue(failure instanceof BulkWriteException || failure.getCause() instanceof BulkWriteException
                        || String.valueOf(failure.getMessage()).contains(String.valueOf(20L << 20))
                        || String.valueOf(failure.getMessage()).toLowerCase().contains("alloc"),
                        "the error names the limit: " + failure);
                assertTrue(w.allocatedBytes() <= 20L << 20, "cap respected: " + w.allocatedBytes());
                Integer r = ZcKit.outcome("first", first, BOUND);
                assertEquals(1_200, r, "the batch sent before the overflow is answered");
                acked.set(0, 1_200);
                written.set(ROWS, (int) id);
            }
            ZcKit.assertStored(kit.server, table, acked, written);
            kit.assertNoLeak();
        }
    }

    @Test
    void aWriterCompletedAfterAFailedLargeBatchReportsItAndLaterWritesFailAtOnce() {
        try (ZcKit kit = new ZcKit()) {
            String table = "zc_failed_writer";
            kit.server.faults().failBulkBatch(2, StatusCode.InvalidArguments, "bad batch");
            BitSet acked = new BitSet();
            try (BulkStreamWriter w = kit.db.bulkStreamWriter(ZcKit.schema(table), ZcKit.config(Duration.ofSeconds(20), 1),
                    Context.newBuilder().retryPolicy(ZcKit.quick(5, BOUND)).build())) {
                TableBufferRoot batch = w.tableBufferRoot(ROWS);
                List<CompletableFuture<Integer>> acks = ZcKit.futures();
                for (int b = 0; b < 3; b++) {
                    ZcKit.fill(batch, (long) b * ROWS, ROWS);
                    acks.add(w.writeNext());
                }
                assertEquals(ROWS, ZcKit.outcome("batch 0", acks.get(0), BOUND));
                acked.set(0, ROWS);
                assertNull(ZcKit.outcome("batch 1", acks.get(1), BOUND), "a non-retryable error fails the batch");
                assertNull(ZcKit.outcome("batch 2", acks.get(2), BOUND), "and the writer");
                ZcKit.fill(batch, 3L * ROWS, ROWS);
                CompletableFuture<Integer> late = w.writeNext();
                assertTrue(late.isDone(), "a failed writer fails later batches at once");
                assertNull(ZcKit.outcome("late", late, BOUND));
                assertEquals(0, w.replays(), "a non-retryable error is not resent");
                assertThrows(BulkWriteException.class, w::completed);
                assertDoesNotThrow(w::close);
                assertEquals(0, w.allocatedBytes());
            }
            ZcKit.assertStored(kit.server, table, acked, null);
            kit.assertNoLeak();
        }
    }
}
