package dev.sluice.zerocopy;

import static dev.sluice.zerocopy.ZcKit.ROWS;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Await;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.write.Compression;
import dev.sluice.write.Context;
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.StatusCode;
import java.time.Duration;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Large (Arrow-memory, zero-copy) bulk batches resent after server faults and broken streams: every future
 * completes once, and every stored byte is the byte written.
 */
// A guard against a hang, not a schedule: under load this work takes minutes.
@Timeout(600)
class ZeroCopyResendTest {
    static final Duration BOUND = Duration.ofSeconds(30);

    @ParameterizedTest
    @EnumSource(Compression.class)
    void largeBatchesResentAfterARateLimitedBatchAreStoredByteForByteWithEveryCompression(Compression compression) {
        int rows = ZcKit.rows(compression);
        try (ZcKit kit = new ZcKit()) {
            String table = "zc_resend_" + compression.name().toLowerCase();
            Context ctx = Context.newBuilder().compression(compression).retryPolicy(ZcKit.quick(6, BOUND)).build();
            kit.server.faults().failBulkBatch(2, StatusCode.RateLimited, "slow down");
            try (BulkStreamWriter w = kit.db.bulkStreamWriter(ZcKit.schema(table), ZcKit.config(Duration.ofSeconds(20), 4), ctx)) {
                TableBufferRoot batch = w.tableBufferRoot(rows);
                List<CompletableFuture<Integer>> acks = ZcKit.futures();
                for (int b = 0; b < 4; b++) {
                    ZcKit.fill(batch, (long) b * rows, rows);
                    acks.add(w.writeNext());
                }
                for (int b = 0; b < acks.size(); b++) {
                    assertEquals(rows, ZcKit.outcome("batch " + b, acks.get(b), BOUND), "batch " + b);
                }
                assertTrue(w.replays() >= 1, "the stream broke and was reopened");
                assertEquals(4L * rows, w.completed());
                assertDoesNotThrow(w::close);
                assertEquals(0, w.allocatedBytes());
            }
            ZcKit.assertStored(kit.server, table, ZcKit.range(0, 4L * rows), null);
            kit.assertNoLeak();
        }
    }

    @Test
    void everyThirdMessageFailingStillStoresEveryLargeBatchExactlyOnce() {
        try (ZcKit kit = new ZcKit()) {
            String table = "zc_every3";
            Context ctx = Context.newBuilder().retryPolicy(ZcKit.quick(20, BOUND)).build();
            kit.server.faults().failEvery(3, StatusCode.RateLimited, "slow down");
            int batches = 6;
            try (BulkStreamWriter w = kit.db.bulkStreamWriter(ZcKit.schema(table), ZcKit.config(Duration.ofSeconds(20), 3), ctx)) {
                TableBufferRoot batch = w.tableBufferRoot(ROWS);
                List<CompletableFuture<Integer>> acks = ZcKit.futures();
                for (int b = 0; b < batches; b++) {
                    ZcKit.fill(batch, (long) b * ROWS, ROWS);
                    acks.add(w.writeNext());
                }
                for (int b = 0; b < batches; b++) {
                    assertEquals(ROWS, ZcKit.outcome("batch " + b, acks.get(b), BOUND), "batch " + b);
                }
                assertEquals((long) batches * ROWS, w.completed());
                assertTrue(kit.server.faults().injectedCount() >= 1, "faults were injected");
            }
            ZcKit.assertStored(kit.server, table, ZcKit.range(0, (long) batches * ROWS), null);
            kit.assertNoLeak();
        }
    }

    @Test
    void serverRestartWhileLargeBatchesAreUnansweredResendsThemFromTheirOwnMemory() {
        try (ZcKit kit = new ZcKit()) {
            String table = "zc_restart";
            // no attempt cap: with 10-50 ms backoffs a count would be spent while the server is still stopping
            Context ctx = Context.newBuilder().retryPolicy(ZcKit.quick(Integer.MAX_VALUE, BOUND)).build();
            kit.server.faults().bulkAckDelay(Duration.ofMillis(1_500));
            int batches = 6;
            try (BulkStreamWriter w = kit.db.bulkStreamWriter(ZcKit.schema(table), ZcKit.config(Duration.ofSeconds(20), 4), ctx)) {
                TableBufferRoot batch = w.tableBufferRoot(ROWS);
                List<CompletableFuture<Integer>> acks = ZcKit.futures();
                for (int b = 0; b < 3; b++) {
                    ZcKit.fill(batch, (long) b * ROWS, ROWS);
                    acks.add(w.writeNext());
                }
                ZcKit.await("the 3 batches stored, unanswered", Duration.ofSeconds(30), () -> kit.stored(table) == 3L * ROWS);
                kit.server.restart();
                kit.server.faults().bulkAckDelay(Duration.ZERO);
                for (int b = 3; b < batches; b++) {
                    ZcKit.fill(batch, (long) b * ROWS, ROWS);
                    acks.add(w.writeNext());
                }
                for (int b = 0; b < batches; b++) {
                    assertEquals(ROWS, ZcKit.outcome("batch " + b, acks.get(b), BOUND), "batch " + b);
                }
                assertTrue(w.replays() >= 1, "the stream was reopened after the restart");
                assertEquals((long) batches * ROWS, w.completed());
            }
            ZcKit.assertStored(kit.server, table, ZcKit.range(0, (long) batches * ROWS), null);
            kit.assertNoLeak();
        }
    }

    @Test
    void serverStoppedAndResumedWithinTheDeadlineLosesNoLargeBatch() {
        try (ZcKit kit = new ZcKit()) {
            String table = "zc_stop_resume";
            Context ctx = Context.newBuilder().retryPolicy(
                    RetryPolicy.newBuilder().backoff(Duration.ofMillis(50), Duration.ofMillis(300)).deliveryTimeout(BOUND).build()).build();
            int batches = 5;
            // enough slots for every batch: a producer waiting for a slot here would keep the server stopped
            try (BulkStreamWriter w = kit.db.bulkStreamWriter(ZcKit.schema(table), ZcKit.config(Duration.ofSeconds(20), 8), ctx)) {
                TableBufferRoot batch = w.tableBufferRoot(ROWS);
                List<CompletableFuture<Integer>> acks = ZcKit.futures();
                ZcKit.fill(batch, 0, ROWS);
                acks.add(w.writeNext());
                kit.server.faults().bulkAckDelay(Duration.ofSeconds(2));
                ZcKit.fill(batch, ROWS, ROWS);
                acks.add(w.writeNext());
                ZcKit.await("the 2 batches stored", Duration.ofSeconds(30), () -> kit.stored(table) == 2L * ROWS);
                kit.server.stop();
                for (int b = 2; b < batches; b++) {
                    ZcKit.fill(batch, (long) b * ROWS, ROWS);
                    acks.add(w.writeNext());
                }
                ZcKit.await("the batches wait to be resent", Duration.ofSeconds(30), () -> w.replays() >= 1);
                kit.server.faults().bulkAckDelay(Duration.ZERO);
                kit.server.resume();
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
    void serverStoppedForGoodFailsEveryLargeBatchByItsDeadlineAndFreesAllMemory() {
        try (ZcKit kit = new ZcKit()) {
            String table = "zc_stop_forever";
            Context ctx = Context.newBuilder().retryPolicy(ZcKit.quick(Integer.MAX_VALUE, Duration.ofSeconds(4))).build();
            BulkStreamWriter w = kit.db.bulkStreamWriter(ZcKit.schema(table), ZcKit.config(Duration.ofSeconds(3), 4), ctx);
            TableBufferRoot batch = w.tableBufferRoot(ROWS);
            List<CompletableFuture<Integer>> acks = ZcKit.futures();
            kit.server.faults().bulkNeverAck(true);
            ZcKit.fill(batch, 0, ROWS);
            acks.add(w.writeNext());
            ZcKit.await("the batch stored, unanswered", Duration.ofSeconds(30), () -> kit.stored(table) == ROWS);
            kit.server.stop();
            for (int b = 1; b < 4; b++) {
                ZcKit.fill(batch, (long) b * ROWS, ROWS);
                acks.add(w.writeNext());
            }
            // unlimited attempts against a server that never comes back: only the 4 s deadline ends them, so each
            // batch failing at all (the wait is a hang guard) proves the deadline applies
            for (int b = 0; b < acks.size(); b++) {
                assertNull(ZcKit.outcome("batch " + b, acks.get(b), Await.HANG_GUARD), "batch " + b + " must fail");
            }
            assertEquals(4, w.failedBatches());
            assertDoesNotThrow(w::close);
            assertEquals(0, w.allocatedBytes());
            kit.assertNoLeak();
        }
    }

    @Test
    void retryPolicyNoneFailsTheBrokenLargeBatchAndItsFollowersButStoresTheAnsweredOnesExactly() {
        try (ZcKit kit = new ZcKit()) {
            String table = "zc_none";
            Context ctx = Context.newBuilder().retryPolicy(RetryPolicy.none()).build();
            kit.server.faults().failBulkBatch(3, StatusCode.RateLimited, "slow down");
            BitSet acked = new BitSet();
            BitSet written = new BitSet();
            int batches = 5;
            try (BulkStreamWriter w = kit.db.bulkStreamWriter(ZcKit.schema(table), ZcKit.config(Duration.ofSeconds(20), 1), ctx)) {
                TableBufferRoot batch = w.tableBufferRoot(ROWS);
                List<CompletableFuture<Integer>> acks = ZcKit.futures();
                for (int b = 0; b < batches; b++) {
                    ZcKit.fill(batch, (long) b * ROWS, ROWS);
                    written.set(b * ROWS, (b + 1) * ROWS);
                    acks.add(w.writeNext());
                }
                for (int b = 0; b < batches; b++) {
                    Integer r = ZcKit.outcome("batch " + b, acks.get(b), BOUND);
                    if (b < 2) {
                        assertEquals(ROWS, r, "batch " + b + " was answered before the fault");
                    } else if (b == 2) {
                        assertNull(r, "the failed batch is not resent under RetryPolicy.none()");
                    }
                    if (r != null) {
                        acked.set(b * ROWS, (b + 1) * ROWS);
                    }
                }
                assertEquals(0, w.replays(), "RetryPolicy.none() never reopens");
                assertDoesNotThrow(w::close);
                assertEquals(0, w.allocatedBytes());
            }
            BitSet stored = ZcKit.assertStored(kit.server, table, acked, written);
            assertTrue(!stored.intersects(ZcKit.range(2L * ROWS, 3L * ROWS)), "the failed batch stored nothing");
            kit.assertNoLeak();
        }
    }

    @Test
    void retryPolicyNoneKeepsNoMoreThanTheVectorsOnceEveryLargeBatchIsAnswered() {
        try (ZcKit kit = new ZcKit()) {
            String table = "zc_none_mem";
            Context ctx = Context.newBuilder().retryPolicy(RetryPolicy.none()).build();
            try (BulkStreamWriter w = kit.db.bulkStreamWriter(ZcKit.schema(table), ZcKit.config(Duration.ofSeconds(20), 4), ctx)) {
                TableBufferRoot batch = w.tableBufferRoot(ROWS);
                ZcKit.fill(batch, 0, ROWS);
                long oneBatch = w.allocatedBytes();
                assertTrue(oneBatch > 4L << 20, "a batch of " + oneBatch + " bytes is a large one");
                List<CompletableFuture<Integer>> acks = ZcKit.futures();
                acks.add(w.writeNext());
                for (int b = 1; b < 8; b++) {
                    ZcKit.fill(batch, (long) b * ROWS, ROWS);
                    acks.add(w.writeNext());
                }
                for (int b = 0; b < acks.size(); b++) {
                    assertEquals(ROWS, ZcKit.outcome("batch " + b, acks.get(b), BOUND));
                }
                // Sent and answered batches hold nothing any more: what remains is at most the vectors being filled
                // (and possibly a second set of them).
                ZcKit.await("answered batches freed (holds " + w.allocatedBytes() + ", one batch " + oneBatch + ")",
                        BOUND, () -> w.allocatedBytes() <= 2 * oneBatch + (1 << 20));
                assertEquals(8L * ROWS, w.completed());
            }
            ZcKit.assertStored(kit.server, table, ZcKit.range(0, 8L * ROWS), null);
            kit.assertNoLeak();
        }
    }

    @Test
    void batchesStraddlingTheFourMebibyteThresholdAreStoredExactlyThroughResends() {
        // Rows of about 4.1 KB: 990..1,045 rows span about 4.06 .. 4.29 MB, across the 4 MiB (4,194,304 bytes) line.
        int text = 0;
        int blob = 4_096;
        try (ZcKit kit = new ZcKit()) {
            String table = "zc_threshold";
            Context ctx = Context.newBuilder().retryPolicy(ZcKit.quick(30, BOUND)).build();
            kit.server.faults().failEvery(4, StatusCode.RateLimited, "slow down");
            BitSet written = new BitSet();
            long next = 0;
            try (BulkStreamWriter w = kit.db.bulkStreamWriter(ZcKit.schema(table), ZcKit.config(Duration.ofSeconds(20), 3), ctx)) {
                TableBufferRoot batch = w.tableBufferRoot(16);
                List<CompletableFuture<Integer>> acks = ZcKit.futures();
                List<Integer> sizes = new java.util.ArrayList<>();
                for (int rows = 990; rows <= 1_045; rows += 5) {
                    ZcKit.fill(batch, next, rows, text, blob);
                    written.set((int) next, (int) (next + rows));
                    next += rows;
                    sizes.add(rows);
                    acks.add(w.writeNext());
                    // a small batch between large ones: the vectors switch between kept and refilled
                    ZcKit.fill(batch, next, 7, text, blob);
                    written.set((int) next, (int) (next + 7));
                    next += 7;
                    sizes.add(7);
                    acks.add(w.writeNext());
                }
                for (int b = 0; b < acks.size(); b++) {
                    assertEquals(sizes.get(b), ZcKit.outcome("batch " + b, acks.get(b), BOUND), "batch " + b);
                }
                assertEquals(next, w.completed());
            }
            ZcKit.assertStored(kit.server, table, written, null, text, blob);
            kit.assertNoLeak();
        }
    }

    @Test
    void largeBatchesResentWhileLaterOnesAreBuiltNeverShareMemory() {
        // Unanswered large batches wait for a resend while new rows are written into fresh (possibly recycled)
        // buffers: a recycled buffer still referenced by a waiting batch would corrupt what is resent.
        try (ZcKit kit = new ZcKit()) {
            String table = "zc_recycle";
            Context ctx = Context.newBuilder().retryPolicy(ZcKit.quick(20, BOUND)).build();
            int batches = 10;
            try (BulkStreamWriter w = kit.db.bulkStreamWriter(ZcKit.schema(table), ZcKit.config(Duration.ofSeconds(20), 4), ctx)) {
                TableBufferRoot batch = w.tableBufferRoot(ROWS);
                List<CompletableFuture<Integer>> acks = ZcKit.futures();
                for (int b = 0; b < batches; b++) {
                    if (b % 3 == 1) {
                        kit.server.faults().failBulkBatch(2, StatusCode.RateLimited, "slow down");
                    }
                    // varying sizes so recycled buffers are refilled only in part
                    int rows = ROWS - (b % 4) * 300;
                    ZcKit.fill(batch, (long) b * ROWS, rows);
                    acks.add(w.writeNext());
                }
                BitSet must = new BitSet();
                for (int b = 0; b < batches; b++) {
                    int rows = ROWS - (b % 4) * 300;
                    assertEquals(rows, ZcKit.outcome("batch " + b, acks.get(b), BOUND), "batch " + b);
                    must.set(b * ROWS, b * ROWS + rows);
                }
                assertTrue(w.replays() >= 1, "streams were broken and reopened");
                w.completed();
                ZcKit.assertStored(kit.server, table, must, null);
            }
            kit.assertNoLeak();
        }
    }

    @Test
    void noAnswerWithinTimeoutPerMessageResendsLargeBatchesAndEachFutureCompletesOnce() {
        try (ZcKit kit = new ZcKit()) {
            String table = "zc_noack_timeout";
            // attempts without a count: on a busy machine more than a few may time out before the answers resume,
            // and the property is that each batch is resent and completes once, not how many tries that takes
            Context ctx = Context.newBuilder().retryPolicy(ZcKit.quick(Integer.MAX_VALUE, Await.HANG_GUARD)).build();
            kit.server.faults().bulkNeverAck(true);
            try (BulkStreamWriter w = kit.db.bulkStreamWriter(ZcKit.schema(table), ZcKit.config(Duration.ofMillis(1_500), 4), ctx)) {
                TableBufferRoot batch = w.tableBufferRoot(ROWS);
                List<CompletableFuture<Integer>> acks = ZcKit.futures();
                for (int b = 0; b < 3; b++) {
                    ZcKit.fill(batch, (long) b * ROWS, ROWS);
                    acks.add(w.writeNext());
                }
                ZcKit.await("a batch resent after its timeout", Duration.ofSeconds(30), () -> w.replays() >= 1);
                kit.server.faults().bulkNeverAck(false);
                for (int b = 0; b < acks.size(); b++) {
                    assertEquals(ROWS, ZcKit.outcome("batch " + b, acks.get(b), Await.HANG_GUARD), "batch " + b);
                }
                assertTrue(w.replays() >= 1, "timed-out stream reopened");
                assertEquals(3L * ROWS, w.completed());
                assertNotNull(acks);
            }
            // never-acked batches were stored by the server and resent; keys are unique so they overwrite
            ZcKit.assertStored(kit.server, table, ZcKit.range(0, 3L * ROWS), null);
            kit.assertNoLeak();
        }
    }

    @Test
    void largeBatchesCappedByASmallAllocatorAreCopiedAndStillStoredExactlyThroughResends() {
        try (ZcKit kit = new ZcKit()) {
            String table = "zc_small_alloc";
            Context ctx = Context.newBuilder().retryPolicy(ZcKit.quick(10, BOUND)).build();
            kit.server.faults().failBulkBatch(2, StatusCode.RateLimited, "slow down");
            BulkWrite.Config config = BulkWrite.Config.newBuilder().requestTimeout(Duration.ofSeconds(20))
                    .maxInFlightRequests(4).allocatorMaxAllocation(24L << 20).build();
            try (BulkStreamWriter w = kit.db.bulkStreamWriter(ZcKit.schema(table), config, ctx)) {
                TableBufferRoot batch = w.tableBufferRoot(ROWS);
                List<CompletableFuture<Integer>> acks = ZcKit.futures();
                for (int b = 0; b < 4; b++) {
                    ZcKit.fill(batch, (long) b * ROWS, ROWS);
                    acks.add(w.writeNext());
                    assertTrue(w.allocatedBytes() <= 24L << 20, "allocator cap respected: " + w.allocatedBytes());
                }
                for (int b = 0; b < acks.size(); b++) {
                    assertEquals(ROWS, ZcKit.outcome("batch " + b, acks.get(b), BOUND), "batch " + b);
                }
                assertEquals(4L * ROWS, w.completed());
            }
            ZcKit.assertStored(kit.server, table, ZcKit.range(0, 4L * ROWS), null);
            kit.assertNoLeak();
        }
    }
}
