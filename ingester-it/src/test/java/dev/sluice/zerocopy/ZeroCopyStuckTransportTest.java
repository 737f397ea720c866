package dev.sluice.zerocopy;

import static dev.sluice.zerocopy.ZcKit.ROWS;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Await;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.write.Context;
import java.time.Duration;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Large batches whose buffers sit in the transport for long: the client talks through a proxy that stops reading
 * (so handed-off Arrow buffers stay queued in netty) or cuts connections mid-transfer.
 */
// A guard against a hang, not a schedule: under load this work takes minutes.
@Timeout(600)
class ZeroCopyStuckTransportTest {
    static final Duration BOUND = Duration.ofSeconds(30);

    static ZcKit proxied() {
        return new ZcKit(s -> s, o -> o.healthCheckInterval(Duration.ZERO), true);
    }

    @Test
    void closingWhileHandedOffBuffersAreStuckBehindAPeerThatStoppedReadingReleasesAllMemory() {
        try (ZcKit kit = proxied()) {
            String table = "zc_stuck_close";
            BulkStreamWriter w = kit.db.bulkStreamWriter(ZcKit.schema(table), ZcKit.config(Duration.ofSeconds(20), 4),
                    Context.newBuilder().retryPolicy(ZcKit.quick(3, BOUND)).build());
            TableBufferRoot batch = w.tableBufferRoot(ROWS);
            ZcKit.fill(batch, 0, ROWS);
            assertEquals(ROWS, ZcKit.outcome("warm-up", w.writeNext(), BOUND));
            kit.proxy.freeze(true);
            List<CompletableFuture<Integer>> acks = ZcKit.futures();
            BitSet written = ZcKit.range(0, ROWS);
            for (int b = 1; b < 4; b++) {
                ZcKit.fill(batch, (long) b * ROWS, ROWS);
                written.set(b * ROWS, (b + 1) * ROWS);
                acks.add(w.writeNext());
            }
            ZcKit.sleep(300); // no signal tells when netty holds the buffers: give it the time to take them
            long through = kit.proxy.forwarded.get();
            ZcKit.sleep(300);
            assertEquals(through, kit.proxy.forwarded.get(), "nothing gets through the frozen proxy");
            assertEquals(3, w.inFlight(), "the batches wait in the stuck transport");
            // the peer reads nothing until after close: close returning at all proves it does not wait on the peer
            Await.returns("close while the peer does not read", w::close);
            assertEquals(through, kit.proxy.forwarded.get(), "the peer was still not reading when close returned");
            for (int b = 0; b < acks.size(); b++) {
                assertNull(ZcKit.outcome("batch " + b, acks.get(b), BOUND), "batch " + b);
            }
            ZcKit.await("writer memory released while the peer still does not read (" + w.allocatedBytes() + ")",
                    BOUND, () -> w.allocatedBytes() == 0);
            kit.proxy.freeze(false);
            ZcKit.assertStored(kit.server, table, ZcKit.range(0, ROWS), written);
            kit.assertNoLeak();
        }
    }

    @Test
    void aPeerThatStopsReadingLongerThanTimeoutPerMessageGetsEveryLargeBatchResentExactly() {
        try (ZcKit kit = proxied()) {
            String table = "zc_stuck_resend";
            long peak = 0;
            long oneBatch;
            try (BulkStreamWriter w = kit.db.bulkStreamWriter(ZcKit.schema(table), ZcKit.config(Duration.ofMillis(1_500), 4),
                    Context.newBuilder().retryPolicy(ZcKit.quick(Integer.MAX_VALUE, BOUND)).build())) {
                TableBufferRoot batch = w.tableBufferRoot(ROWS);
                ZcKit.fill(batch, 0, ROWS);
                oneBatch = w.allocatedBytes();
                assertEquals(ROWS, ZcKit.outcome("warm-up", w.writeNext(), BOUND));
                kit.proxy.freeze(true);
                List<CompletableFuture<Integer>> acks = ZcKit.futures();
                for (int b = 1; b < 4; b++) {
                    ZcKit.fill(batch, (long) b * ROWS, ROWS);
                    acks.add(w.writeNext());
                }
                for (int i = 0; i < 40; i++) {
                    ZcKit.sleep(100);
                    peak = Math.max(peak, kit.db.stats().bulkAllocatedBytes());
                }
                kit.proxy.freeze(false);
                for (int b = 0; b < acks.size(); b++) {
                    assertEquals(ROWS, ZcKit.outcome("batch " + (b + 1), acks.get(b), BOUND), "batch " + (b + 1));
                }
                assertTrue(w.replays() >= 1, "timed-out streams were replaced");
                assertEquals(4L * ROWS, w.completed());
            }
            // resends go out from the batches' own memory: no copy per attempt
            assertTrue(peak <= 6 * oneBatch, "off-heap while stuck " + peak + ", one batch " + oneBatch);
            ZcKit.assertStored(kit.server, table, ZcKit.range(0, 4L * ROWS), null);
            kit.assertNoLeak();
        }
    }

    @Test
    void shutdownNowWhileHandedOffBuffersAreStuckFailsEveryLargeBatchAndFreesMemory() {
        ZcKit kit = proxied();
        try {
            String table = "zc_stuck_shutdown";
            BulkStreamWriter w = kit.db.bulkStreamWriter(ZcKit.schema(table), ZcKit.config(Duration.ofSeconds(20), 4),
                    Context.newBuilder().retryPolicy(ZcKit.quick(Integer.MAX_VALUE, BOUND)).build());
            TableBufferRoot batch = w.tableBufferRoot(ROWS);
            kit.proxy.freeze(true);
            List<CompletableFuture<Integer>> acks = ZcKit.futures();
            for (int b = 0; b < 3; b++) {
                ZcKit.fill(batch, (long) b * ROWS, ROWS);
                acks.add(w.writeNext());
            }
            ZcKit.sleep(300); // no signal tells when netty holds the buffers: give it the time to take them
            kit.db.shutdownNow();
            for (int b = 0; b < acks.size(); b++) {
                assertNull(ZcKit.outcome("batch " + b, acks.get(b), BOUND), "batch " + b);
            }
            assertDoesNotThrow(w::close);
            ZcKit.await("writer memory released (" + w.allocatedBytes() + ")", BOUND, () -> w.allocatedBytes() == 0);
            kit.assertNoLeak();
        } finally {
            kit.proxy.close();
            kit.server.close();
        }
    }

    @Test
    void connectionsCutWhileLargeBatchesAwaitTheirAnswersGetThemResentByteForByte() {
        try (ZcKit kit = proxied()) {
            String table = "zc_cut_unanswered";
            kit.server.faults().bulkAckDelay(Duration.ofMillis(700));
            int batches = 4;
            try (BulkStreamWriter w = kit.db.bulkStreamWriter(ZcKit.schema(table), ZcKit.config(Duration.ofSeconds(20), 8),
                    Context.newBuilder().retryPolicy(ZcKit.quick(Integer.MAX_VALUE, BOUND).toBuilder()
                            .backoff(Duration.ofMillis(20), Duration.ofMillis(100)).build()).build())) {
                TableBufferRoot batch = w.tableBufferRoot(ROWS);
                List<CompletableFuture<Integer>> acks = ZcKit.futures();
                for (int b = 0; b < batches; b++) {
                    ZcKit.fill(batch, (long) b * ROWS, ROWS);
                    acks.add(w.writeNext());
                }
                ZcKit.await("every batch transferred, not yet answered", Duration.ofSeconds(30),
                        () -> kit.stored(table) == (long) batches * ROWS);
                kit.proxy.cut();
                kit.server.faults().bulkAckDelay(Duration.ZERO);
                for (int b = 0; b < batches; b++) {
                    assertEquals(ROWS, ZcKit.outcome("batch " + b, acks.get(b), BOUND), "batch " + b);
                }
                assertTrue(w.replays() >= 1, "the cut stream was replaced");
                assertEquals((long) batches * ROWS, w.completed());
            }
            ZcKit.assertStored(kit.server, table, ZcKit.range(0, (long) batches * ROWS), null);
            kit.assertNoLeak();
        }
    }

    /**
     * Through {@link FreezableProxy}, large (8 MB, uncompressed, sent from Arrow memory) batches are written and the
     * connection is cut 5 ms after every second writeNext(), over 15 rounds: a cut mid-transfer ("UNKNOWN: Channel
     * closed but for unknown reason") is resent like any broken stream, never failed for good.
     */
    @Test
    void connectionsCutMidTransferGetLargeBatchesResentByteForByte() {
        try (ZcKit kit = proxied()) {
            String table = "zc_cut";
            BitSet must = new BitSet();
            for (int round = 0; round < 15; round++) {
                try (BulkStreamWriter w = kit.db.bulkStreamWriter(ZcKit.schema(table), ZcKit.config(Duration.ofSeconds(20), 8),
                        Context.newBuilder().retryPolicy(ZcKit.quick(Integer.MAX_VALUE, BOUND).toBuilder()
                                .backoff(Duration.ofMillis(20), Duration.ofMillis(100)).build()).build())) {
                    TableBufferRoot batch = w.tableBufferRoot(ROWS);
                    List<CompletableFuture<Integer>> acks = ZcKit.futures();
                    for (int b = 0; b < 4; b++) {
                        ZcKit.fill(batch, (long) (round * 4 + b) * ROWS, ROWS);
                        acks.add(w.writeNext());
                        if (b % 2 == 1) {
                            ZcKit.sleep(5);
                            kit.proxy.cut();
                        }
                    }
                    for (int b = 0; b < acks.size(); b++) {
                        CompletableFuture<Integer> a = acks.get(b);
                        Integer r = ZcKit.outcome("round " + round + " batch " + b, a, BOUND);
                        assertEquals(ROWS, r, "round " + round + " batch " + b + ": "
                                + a.handle((v, e) -> e == null ? "ok" : String.valueOf(e.getCause())).join());
                        must.set((round * 4 + b) * ROWS, (round * 4 + b + 1) * ROWS);
                    }
                    assertEquals(4L * ROWS, w.completed());
                }
            }
            ZcKit.assertStored(kit.server, table, must, null);
            kit.assertNoLeak();
        }
    }
}
