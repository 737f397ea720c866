package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.BulkWriteException;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.DecimalType;
import dev.sluice.data.InvalidDataException;
import dev.sluice.data.RowAppender;
import dev.sluice.data.SemanticType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.internal.send.ManualTime;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Compression;
import dev.sluice.write.Context;
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.StatusCode;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

@SharesJvm
class BulkWriteTest extends BulkTestkitTest {

    static final BulkWrite.Config CONFIG = BulkWrite.Config.newBuilder().requestTimeout(Duration.ofMillis(10_000)).build();

    static TableSchema allTypes(String name) {
        TableSchema.Builder b = TableSchema.newBuilder(name).addTag("tag", DataType.String);
        for (DataType t : DataType.values()) {
            if (t == DataType.Json || t == DataType.Vector) {
                continue; // refused by bulk writers (see the refusal tests)
            }
            if (t == DataType.Decimal128) {
                b.addColumn("c_" + t, SemanticType.Field, t, new DecimalType(38, 4));
            } else {
                b.addField("c_" + t, t);
            }
        }
        return b.addTimestamp("ts", DataType.TimestampMillisecond).build();
    }

    static List<Object[]> allTypeRows() {
        List<Object[]> rows = new ArrayList<>();
        rows.add(new Object[] {"min", false, Byte.MIN_VALUE, Short.MIN_VALUE, Integer.MIN_VALUE, Long.MIN_VALUE, 0, 0, 0L,
            BigInteger.ZERO, -Float.MAX_VALUE, Double.NEGATIVE_INFINITY, new byte[0], "", LocalDate.of(1900, 1, 1),
            -1L, -1L, -1L, Instant.parse("1969-01-01T00:00:00Z"), LocalTime.MIDNIGHT, 0, 0L, 0L,
            new BigDecimal("-9999999999999999999999999999999999.9999"), -86_400_000L});
        rows.add(new Object[] {"max", true, Byte.MAX_VALUE, Short.MAX_VALUE, Integer.MAX_VALUE, Long.MAX_VALUE, 255, 65_535,
            4_294_967_295L, new BigInteger("18446744073709551615"), Float.NaN, Double.POSITIVE_INFINITY,
            new byte[] {1, 2, 3}, "héllo ✓ 日本語 🚀", LocalDate.of(9999, 12, 31), Long.MAX_VALUE, Long.MAX_VALUE,
            Long.MAX_VALUE, Long.MAX_VALUE, LocalTime.of(23, 59, 59), 86_399_999, 86_399_999_999L, LocalTime.MAX,
            // the time index at the last millisecond whose one-day partition GreptimeDB can hold
            new BigDecimal("9999999999999999999999999999999999.9999"), 9_223_372_036_828_799_999L});
        Object[] nulls = new Object[25];
        nulls[0] = "nulls";
        nulls[24] = 0L;
        rows.add(nulls);
        return rows;
    }

    @Test
    void everyTypeRoundTripsAndMatchesTheRegularPath() {
        TableSchema viaBulk = allTypes("via_bulk");
        TableSchema viaRegular = allTypes("via_regular");
        try (BulkStreamWriter w = db.bulkStreamWriter(viaBulk, CONFIG, Context.newBuilder().build())) {
            TableBufferRoot batch = w.tableBufferRoot(4);
            for (Object[] row : allTypeRows()) {
                batch.addRow(row);
            }
            assertEquals(3, w.writeNext().join());
            assertEquals(3, w.completed());
        }
        Table t = Table.from(viaRegular);
        allTypeRows().forEach(t::addRow);
        assertTrue(db.write(t).join().isOk());
        List<Map<String, Object>> bulkRows = server.rows("via_bulk");
        List<Map<String, Object>> regularRows = server.rows("via_regular");
        assertEquals(3, bulkRows.size());
        assertEquals(server.schema("via_regular").columns(), server.schema("via_bulk").columns());
        for (int i = 0; i < 3; i++) {
            for (String col : regularRows.get(i).keySet()) {
                Object a = bulkRows.get(i).get(col);
                Object b = regularRows.get(i).get(col);
                if (a instanceof byte[]) {
                    assertTrue(Arrays.equals((byte[]) a, (byte[]) b), col);
                } else {
                    assertEquals(b, a, "row " + i + " column " + col);
                }
            }
        }
        assertEquals(new BigDecimal("9999999999999999999999999999999999.9999"), bulkRows.get(1).get("c_Decimal128"));
        assertEquals("héllo ✓ 日本語 🚀", bulkRows.get(1).get("c_String"));
    }

    @Test
    void refilledBatchesCarryNoValueOrNullOfAnEarlierBatch() {
        // Batches alternate between the two vector sets; every set is refilled with other nulls and shorter text.
        TableSchema viaBulk = allTypes("refill_bulk");
        TableSchema viaRegular = allTypes("refill_regular");
        List<List<Object[]>> batches = new ArrayList<>();
        for (int b = 0; b < 5; b++) {
            List<Object[]> rows = new ArrayList<>();
            List<Object[]> base = allTypeRows();
            for (int r = 0; r < base.size() - b % 2; r++) {
                Object[] row = base.get((r + b) % base.size()).clone();
                row[0] = "b" + b + "r" + r;
                rows.add(row);
            }
            batches.add(rows);
        }
        try (BulkStreamWriter w = db.bulkStreamWriter(viaBulk, CONFIG, Context.newBuilder().build())) {
            TableBufferRoot batch = w.tableBufferRoot(2);
            for (List<Object[]> rows : batches) {
                rows.forEach(batch::addRow);
                assertEquals(rows.size(), w.writeNext().join());
            }
            w.completed();
        }
        for (List<Object[]> rows : batches) {
            Table t = Table.from(viaRegular);
            rows.forEach(t::addRow);
            assertTrue(db.write(t).join().isOk());
        }
        List<Map<String, Object>> bulkRows = server.rows("refill_bulk");
        List<Map<String, Object>> regularRows = server.rows("refill_regular");
        assertEquals(13, bulkRows.size());
        assertEquals(regularRows.size(), bulkRows.size());
        for (int i = 0; i < bulkRows.size(); i++) {
            for (String col : regularRows.get(i).keySet()) {
                Object a = bulkRows.get(i).get(col);
                Object b = regularRows.get(i).get(col);
                if (a instanceof byte[]) {
                    assertTrue(Arrays.equals((byte[]) a, (byte[]) b), "row " + i + " column " + col);
                } else {
                    assertEquals(b, a, "row " + i + " column " + col);
                }
            }
        }
    }

    @Test
    void vectorsGrowFromOneRowAndARejectedRowLeavesNoTrace() {
        TableSchema schema = TableSchema.newBuilder("grow").addTag("host", DataType.String)
                .addField("msg", DataType.String).addField("n", DataType.Int32).addField("v", DataType.Float64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        List<Object[]> expected = new ArrayList<>();
        try (BulkStreamWriter w = db.bulkStreamWriter(schema, CONFIG, Context.newBuilder().build())) {
            TableBufferRoot batch = w.tableBufferRoot(1);
            for (int i = 0; i < 3_000; i++) {
                if (i == 1_500) {
                    Object[] bad = {"h", "x".repeat(10_000), 1, "not a number", (long) i};
                    assertThrows(InvalidDataException.class, () -> batch.addRow(bad));
                }
                Object[] row = {"h" + (i % 7), i % 5 == 0 ? null : "m".repeat(i % 300) + i, i % 3 == 0 ? null : i,
                    i % 4 == 0 ? null : i * 0.5, (long) i};
                batch.addRow(row);
                expected.add(row);
            }
            assertEquals(3_000, w.writeNext().join());
            w.completed();
        }
        List<Map<String, Object>> stored = server.rows("grow");
        assertEquals(3_000, stored.size());
        for (Map<String, Object> r : stored) {
            Object[] e = expected.get((int) (long) (Long) r.get("ts"));
            assertEquals(e[0], r.get("host"));
            assertEquals(e[1], r.get("msg"));
            assertEquals(e[2] == null ? null : (long) (int) (Integer) e[2], r.get("n"));
            assertEquals(e[3], r.get("v"));
        }
    }

    static final TableSchema LOGS = TableSchema.newBuilder("bulk_logs").addTag("host", DataType.String)
            .addField("msg", DataType.String).addField("v", DataType.Float64)
            .addTimestamp("ts", DataType.TimestampMillisecond).build();

    static long writeBatches(BulkStreamWriter w, int batches, int rows) {
        List<CompletableFuture<Integer>> acks = new ArrayList<>();
        TableBufferRoot batch = w.tableBufferRoot(rows);
        for (int b = 0; b < batches; b++) {
            for (int r = 0; r < rows; r++) {
                long i = (long) b * rows + r;
                batch.addRow("host-" + (i % 13), "message number " + i + " with some repeated text text text", i * 0.25, i);
            }
            acks.add(w.writeNext());
        }
        long total = 0;
        for (CompletableFuture<Integer> a : acks) {
            total += a.join();
        }
        return total;
    }

    @Test
    void typedAppenderRowsAreStoredLikeAddRowRowsAcrossBothVectorSets() {
        TableSchema typed = TableSchema.newBuilder("typed_bulk").addTag("host", DataType.String)
                .addField("msg", DataType.String).addField("v", DataType.Float64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        try (BulkStreamWriter a = db.bulkStreamWriter(typed, CONFIG, Context.newBuilder().build());
             BulkStreamWriter b = db.bulkStreamWriter(LOGS, CONFIG, Context.newBuilder().build())) {
            TableBufferRoot ra = a.tableBufferRoot(8);
            TableBufferRoot rb = b.tableBufferRoot(8);
            RowAppender app = ra.appender();
            for (int batch = 0; batch < 4; batch++) {
                for (int i = 0; i < 20; i++) {
                    long ts = batch * 100L + i;
                    String msg = i % 3 == 0 ? null : "m" + ts;
                    app.setString(0, "h" + (i % 4)).setString(1, msg).setDouble(2, ts * 0.5).setLong(3, ts).endRow();
                    rb.addRow("h" + (i % 4), msg, ts * 0.5, ts);
                }
                app.setString(0, "dropped"); // a row still being built when the batch is sent is dropped
                assertEquals(20, a.writeNext().join());
                assertEquals(20, b.writeNext().join());
            }
            assertEquals(80, a.completed());
            assertEquals(80, b.completed());
        }
        assertEquals(server.rows("bulk_logs"), server.rows("typed_bulk"));
    }

    @Test
    void compressionNoneZstdAndLz4StoreIdenticalData() {
        List<List<Map<String, Object>>> stored = new ArrayList<>();
        for (Compression c : List.of(Compression.None, Compression.Zstd, Compression.Lz4, Compression.Gzip)) {
            server.clear();
            try (BulkStreamWriter w = db.bulkStreamWriter(LOGS, CONFIG, Context.newBuilder().compression(c).build())) {
                assertEquals(5_000, writeBatches(w, 5, 1_000));
                assertEquals(5_000, w.completed());
            }
            stored.add(server.rows("bulk_logs"));
        }
        assertEquals(5_000, stored.get(0).size());
        for (int i = 1; i < stored.size(); i++) {
            assertEquals(stored.get(0), stored.get(i));
        }
    }

    @Test
    void inFlightBatchesNeverExceedTheLimitAndWriteNextBlocks() {
        server.faults().bulkAckDelay(Duration.ofMillis(100));
        BulkWrite.Config cfg = BulkWrite.Config.newBuilder().maxInFlightRequests(3).requestTimeout(Duration.ofMillis(10_000)).build();
        try (BulkStreamWriter w = db.bulkStreamWriter(LOGS, cfg, Context.newBuilder().build())) {
            long start = System.nanoTime();
            assertEquals(10 * 50, writeBatches(w, 10, 50));
            long elapsedMs = (System.nanoTime() - start) / 1_000_000;
            assertTrue(elapsedMs >= 300, "10 batches, 3 in flight, 100 ms per answer: writeNext must have waited; took " + elapsedMs);
            assertEquals(500, w.completed());
        }
        assertTrue(server.bulkMaxUnanswered() <= 3, "server saw " + server.bulkMaxUnanswered() + " unanswered");
        assertTrue(server.bulkMaxUnanswered() >= 2, "the delay should let batches pile up: " + server.bulkMaxUnanswered());
        assertEquals(500, server.rowCount("bulk_logs"));
    }

    /**
     * On a manual clock (the client's test hook): the 500 ms timeout of a withheld batch passes only when the test
     * moves the clock, so a slow machine cannot make it fire before the second batch is sent.
     */
    @Test
    void withoutRetriesWithheldAnswersFailByTheTimeoutAndCompletedReturnsInTime() {
        server.faults().bulkNeverAck(true);
        ManualTime time = new ManualTime();
        GreptimeDB manual = ManualTimeClients.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build(),
                time);
        BulkWrite.Config cfg = BulkWrite.Config.newBuilder().maxInFlightRequests(4).requestTimeout(Duration.ofMillis(500)).build();
        Context noRetry = Context.newBuilder().retryPolicy(RetryPolicy.none()).build();
        try (BulkStreamWriter w = manual.bulkStreamWriter(LOGS, cfg, noRetry)) {
            TableBufferRoot batch = w.tableBufferRoot(10);
            batch.addRow("h", "m", 1.0, 1L);
            CompletableFuture<Integer> first = w.writeNext();
            batch.addRow("h", "m", 2.0, 2L);
            CompletableFuture<Integer> second = w.writeNext();
            time.advanceUntil(second, Duration.ofMillis(5));
            CompletionException e = assertThrows(CompletionException.class, first::join);
            assertTrue(e.getCause() instanceof BulkWriteException);
            assertTrue(e.getCause().getMessage().contains("no answer within 500 ms"), e.getCause().getMessage());
            assertThrows(CompletionException.class, second::join);
            batch.addRow("h", "m", 3.0, 3L);
            CompletableFuture<Integer> later = w.writeNext();
            assertTrue(later.isCompletedExceptionally(), "after the stream failed, later batches fail fast");
            // completed() returns once every batch has failed (it does not wait out a longer bound of its own)
            assertThrows(BulkWriteException.class, w::completed);
            assertEquals(3, w.failedBatches());
        } finally {
            server.faults().reset();
            manual.shutdownNow();
        }
    }

    /**
     * On a manual clock (the client's test hook): every attempt waits exactly its 300 ms timeout and every backoff
     * exactly its draw, however slow the machine, so the batch is resent on new streams until its 2 s delivery
     * deadline and fails at that deadline, not before and not an attempt later.
     */
    @Test
    void withRetriesWithheldAnswersAreResentUntilTheDeliveryDeadlineThenFail() {
        server.faults().bulkNeverAck(true);
        ManualTime time = new ManualTime();
        GreptimeDB manual = ManualTimeClients.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build(),
                time);
        BulkWrite.Config cfg = BulkWrite.Config.newBuilder().maxInFlightRequests(4).requestTimeout(Duration.ofMillis(300)).build();
        Context ctx = Context.newBuilder().retryPolicy(RetryPolicy.newBuilder()
                .backoff(Duration.ofMillis(10), Duration.ofMillis(50)).deliveryTimeout(Duration.ofSeconds(2)).build()).build();
        try (BulkStreamWriter w = manual.bulkStreamWriter(LOGS, cfg, ctx)) {
            w.tableBufferRoot(10).addRow("h", "m", 1.0, 1L);
            long start = time.getAsLong();
            CompletableFuture<Integer> first = w.writeNext();
            // The clock moves only while the writer waits on a timer of it (a sent batch's timeout, a reopening's
            // backoff), never while a stream opens or a batch is on its way.
            while (!first.isDone()) {
                Await.until("the bulk writer waits on a timer or has ended the batch", Duration.ofSeconds(60),
                        () -> time.scheduled() > 0 || first.isDone());
                time.advance(Duration.ofMillis(5));
            }
            long elapsedMs = (time.getAsLong() - start) / 1_000_000;
            CompletionException e = assertThrows(CompletionException.class, first::join);
            assertTrue(e.getCause().getMessage().contains("no answer within 300 ms"), e.getCause().getMessage());
            assertTrue(w.replays() >= 2, "the batch was resent on new streams before its deadline: " + w.replays());
            assertTrue(elapsedMs >= 2_000, "failed at its 2 s delivery deadline, not before: " + elapsedMs + " ms");
            assertTrue(elapsedMs <= 2_000 + 300, "failed at its 2 s delivery deadline, not an attempt later: "
                    + elapsedMs + " ms on the clock");
        } finally {
            server.faults().reset();
            manual.shutdownNow();
        }
    }

    @Test
    void aRetryableFailureIsResentOnANewStreamAndEveryBatchIsStoredOnce() {
        server.faults().failBulkBatch(3, StatusCode.RateLimited, "slow down");
        try (BulkStreamWriter w = db.bulkStreamWriter(LOGS, CONFIG, Context.newBuilder().build())) {
            TableBufferRoot batch = w.tableBufferRoot(10);
            List<CompletableFuture<Integer>> acks = new ArrayList<>();
            for (int b = 0; b < 5; b++) {
                batch.addRow("h", "m", 1.0, (long) b);
                acks.add(w.writeNext());
            }
            for (CompletableFuture<Integer> a : acks) {
                assertEquals(1, a.join());
            }
            assertEquals(5, w.completed());
            assertEquals(1, w.replays());
            assertEquals(5, w.ackedBatches());
        }
        assertEquals(5, server.rowCount("bulk_logs"));
    }

    /**
     * A batch kept for a resend stays in the Arrow memory it was built in: sending it costs no heap copy of its
     * bytes (a 65,536-row log batch is ~150 MB; the writer used to copy each one to the heap until answered).
     */
    @Test
    void aBatchKeptForResendingIsNotCopiedToTheHeap() {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        String text = "z".repeat(1_000);
        try (BulkStreamWriter w = db.bulkStreamWriter(LOGS, CONFIG, Context.newBuilder().build())) {
            TableBufferRoot batch = w.tableBufferRoot(8_000);
            long worst = 0;
            for (int b = 0; b < 4; b++) {
                for (int i = 0; i < 8_000; i++) {
                    batch.addRow("h" + (i % 10), text, 1.0, (long) (b * 8_000 + i));
                }
                long before = threads.getCurrentThreadAllocatedBytes();
                CompletableFuture<Integer> ack = w.writeNext();
                worst = Math.max(worst, threads.getCurrentThreadAllocatedBytes() - before);
                assertEquals(8_000, ack.join());
            }
            w.completed();
            // Each batch is ~8 MB of text; what writeNext allocates on the heap is bookkeeping, not the batch.
            assertTrue(worst < 1_000_000, "writeNext allocated " + worst + " heap bytes for an ~8 MB batch");
        }
        assertEquals(32_000, server.rowCount("bulk_logs"));
    }

    /**
     * The batches kept for a resend are not touched by the rows added after them: a stream broken at the third of
     * six batches resends the unanswered ones with exactly the values they had, while later batches were filled.
     * Large batches (over 4 MiB) are kept in their Arrow memory, small ones as heap copies: both are checked.
     */
    @Test
    void resentBatchesCarryTheirOwnValuesAfterLaterBatchesWereFilled() {
        resendAndCheckEveryValue("");
        server.clear();
        resendAndCheckEveryValue(" ".repeat(9_000)); // 500 rows of ~9 KB: each batch stays in Arrow memory
    }

    private void resendAndCheckEveryValue(String pad) {
        server.faults().failBulkBatch(3, StatusCode.RateLimited, "slow down");
        try (BulkStreamWriter w = db.bulkStreamWriter(LOGS, CONFIG, Context.newBuilder().build())) {
            TableBufferRoot batch = w.tableBufferRoot(100);
            List<CompletableFuture<Integer>> acks = new ArrayList<>();
            for (int b = 0; b < 6; b++) {
                for (int i = 0; i < 500; i++) {
                    batch.addRow("host-" + b, (i % 7 == 0) ? null : "batch " + b + " row " + i + pad, b + i / 1000.0,
                            (long) (b * 1_000 + i));
                }
                acks.add(w.writeNext());
            }
            for (CompletableFuture<Integer> a : acks) {
                assertEquals(500, a.join());
            }
            w.completed();
            assertTrue(w.replays() >= 1, "the stream was reopened");
        } finally {
            server.faults().reset();
        }
        List<Map<String, Object>> rows = server.rows("bulk_logs");
        assertEquals(3_000, rows.size());
        for (Map<String, Object> r : rows) {
            long ts = ((Number) r.get("ts")).longValue();
            int b = (int) (ts / 1_000);
            int i = (int) (ts % 1_000);
            assertEquals("host-" + b, r.get("host"), "row " + ts);
            assertEquals(i % 7 == 0 ? null : "batch " + b + " row " + i + pad, r.get("msg"), "row " + ts);
            assertEquals(b + i / 1000.0, ((Number) r.get("v")).doubleValue(), 0.0, "row " + ts);
        }
    }

    /** With no room for fresh vectors under the cap, batches go as heap copies, and a resend still stores all. */
    @Test
    void underATightCapHeapCopiesAreResentAfterARetryableFailure() {
        server.faults().failBulkBatch(2, StatusCode.RateLimited, "slow down");
        BulkWrite.Config capped = BulkWrite.Config.newBuilder().allocatorMaxAllocation(4L << 20).build();
        String big = "y".repeat(20_000);
        try (BulkStreamWriter w = db.bulkStreamWriter(LOGS, capped, Context.newBuilder().build())) {
            TableBufferRoot batch = w.tableBufferRoot(1_000);
            List<CompletableFuture<Integer>> acks = new ArrayList<>();
            for (int b = 0; b < 4; b++) {
                for (int i = 0; i < 100; i++) {
                    batch.addRow("h" + b, big, 1.0, (long) (b * 100 + i));
                }
                acks.add(w.writeNext());
                assertTrue(w.allocatedBytes() <= 4L << 20);
            }
            for (CompletableFuture<Integer> a : acks) {
                assertEquals(100, a.join());
            }
            w.completed();
            assertTrue(w.replays() >= 1, "the stream was reopened");
        } finally {
            server.faults().reset();
        }
        List<Map<String, Object>> rows = server.rows("bulk_logs");
        assertEquals(400, rows.size());
        assertTrue(rows.stream().allMatch(r -> big.equals(r.get("msg"))));
    }

    @Test
    void withoutRetriesAFailedBatchEndsTheStreamKeepingEarlierBatches() {
        server.faults().failBulkBatch(3, StatusCode.RateLimited, "slow down");
        Context noRetry = Context.newBuilder().retryPolicy(RetryPolicy.none()).build();
        try (BulkStreamWriter w = db.bulkStreamWriter(LOGS, CONFIG, noRetry)) {
            TableBufferRoot batch = w.tableBufferRoot(10);
            List<CompletableFuture<Integer>> acks = new ArrayList<>();
            for (int b = 0; b < 3; b++) {
                batch.addRow("h", "m", 1.0, (long) b);
                acks.add(w.writeNext());
            }
            assertEquals(1, acks.get(0).join());
            assertEquals(1, acks.get(1).join());
            CompletionException e = assertThrows(CompletionException.class, () -> acks.get(2).join());
            BulkWriteException bwe = (BulkWriteException) e.getCause();
            assertEquals(6001, bwe.err().code());
            assertTrue(bwe.err().retryable());
            assertThrows(BulkWriteException.class, w::completed);
            assertEquals(2, w.ackedBatches());
        }
        assertEquals(2, server.rowCount("bulk_logs"));
    }

    @Test
    void aMissingTableIsNotFoundWhenCreationIsOff() {
        BulkWrite.Config noCreate = BulkWrite.Config.newBuilder().createTable(false).requestTimeout(Duration.ofMillis(5_000)).build();
        try (BulkStreamWriter w = db.bulkStreamWriter(LOGS, noCreate, Context.newBuilder().build())) {
            w.tableBufferRoot(1).addRow("h", "m", 1.0, 1L);
            CompletionException e = assertThrows(CompletionException.class, () -> w.writeNext().join());
            BulkWriteException bwe = (BulkWriteException) e.getCause();
            assertEquals(4001, bwe.err().code());
        }
    }

    @Test
    void autoCreateFromArrowMetadataWhenTheServerAllowsIt() {
        try (GreptimeTestServer enterprise = GreptimeTestServer.builder().allowBulkAutoCreate(true).start()) {
            GreptimeDB other = GreptimeDB.create(GreptimeOptions.newBuilder(enterprise.endpoint(), "public").build());
            try (BulkStreamWriter w = other.bulkStreamWriter(LOGS,
                    BulkWrite.Config.newBuilder().createTable(false).build(), Context.newBuilder().build())) {
                w.tableBufferRoot(1).addRow("h", "m", 1.0, 1L);
                assertEquals(1, w.writeNext().join());
                w.completed();
            } finally {
                other.shutdownGracefully();
            }
            assertEquals(LOGS.columns(), enterprise.schema("bulk_logs").columns());
        }
    }

    @Test
    void theTableIsCreatedWithOptionsFromTheContext() {
        try (BulkStreamWriter w = db.bulkStreamWriter(LOGS, CONFIG, Context.newBuilder().hint("ttl", "7d").build())) {
            w.tableBufferRoot(1).addRow("h", "m", 1.0, 1L);
            w.writeNext().join();
            w.completed();
        }
        assertEquals("7days", server.tableOptions("public", "bulk_logs").get("ttl"), "the server stores ttl normalised");
        assertTrue(server.requests().stream().anyMatch(r -> r.kind().equals("ddl")));
    }

    @Test
    void badRowsAreRejectedWithTheSameMessagesAsTables() {
        try (BulkStreamWriter w = db.bulkStreamWriter(LOGS, CONFIG, Context.newBuilder().build())) {
            TableBufferRoot batch = w.tableBufferRoot(4);
            batch.addRow("a", "m", 1.0, 1L);
            InvalidDataException e = assertThrows(InvalidDataException.class, () -> batch.addRow("b", "m", "x", 2L));
            assertTrue(e.getMessage().contains("table 'bulk_logs', column 'v', row 1"), e.getMessage());
            assertThrows(InvalidDataException.class, () -> batch.addRow("b", "m", 1.0, null));
            batch.addRow("c", null, null, 3L);
            assertEquals(2, w.writeNext().join());
            w.completed();
        }
        List<Map<String, Object>> rows = server.rows("bulk_logs");
        assertEquals("c", rows.get(1).get("host"));
        assertEquals(null, rows.get(1).get("msg"));
    }

    @Test
    void exceedingTheAllocatorCapIsAClearErrorNotAnOutOfMemoryError() {
        BulkWrite.Config tiny = BulkWrite.Config.newBuilder().allocatorMaxAllocation(256 * 1024).build();
        try (BulkStreamWriter w = db.bulkStreamWriter(LOGS, tiny, Context.newBuilder().build())) {
            TableBufferRoot batch = w.tableBufferRoot(16);
            String big = "x".repeat(10_000);
            BulkWriteException e = assertThrows(BulkWriteException.class, () -> {
                for (int i = 0; i < 1_000; i++) {
                    batch.addRow("h", big, 1.0, (long) i);
                }
            });
            assertTrue(e.getMessage().contains("allocatorMaxAllocation (262144 bytes)"), e.getMessage());
        }
    }

    @Test
    void aCapWithRoomForOneBatchOnlyStillWritesEveryBatch() {
        BulkWrite.Config capped = BulkWrite.Config.newBuilder().allocatorMaxAllocation(4L << 20).build();
        String big = "y".repeat(20_000);
        try (BulkStreamWriter w = db.bulkStreamWriter(LOGS, capped, Context.newBuilder().build())) {
            // Room for 1,000 rows of 20 KB would be 20 MB, far over the cap: the text grows only as far as the 100
            // rows sent need (2 MB), and a second set of vectors does not fit next to it, so batches go as copies.
            TableBufferRoot batch = w.tableBufferRoot(1_000);
            for (int b = 0; b < 3; b++) {
                for (int i = 0; i < 100; i++) {
                    batch.addRow("h", big, 1.0, (long) (b * 100 + i));
                }
                assertEquals(100, w.writeNext().join());
                assertTrue(w.allocatedBytes() <= 4L << 20);
            }
            w.completed();
        }
        List<Map<String, Object>> rows = server.rows("bulk_logs");
        assertEquals(300, rows.size());
        assertTrue(rows.stream().allMatch(r -> big.equals(r.get("msg"))));
    }

    @Test
    void configurationLimitsAreChecked() {
        assertThrows(IllegalArgumentException.class, () -> BulkWrite.Config.newBuilder().maxInFlightRequests(32));
        TableSchema json = TableSchema.newBuilder("j").addField("j", DataType.Json)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> db.bulkStreamWriter(json, BulkWrite.Config.newBuilder().createTable(false).build(), Context.newBuilder().build()));
        assertTrue(e.getMessage().contains("GreptimeDB.write()"), e.getMessage());
    }

    @Test
    void aBulkWriterRefusedForItsJsonColumnCreatesNoTable() {
        TableSchema json = TableSchema.newBuilder("refused_json").addField("j", DataType.Json)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> db.bulkStreamWriter(json, BulkWrite.Config.newBuilder().build(), Context.newBuilder().build()));
        assertTrue(e.getMessage().contains("'j'"), e.getMessage());
        assertTrue(!server.tables().contains("refused_json"), "the refusal comes before the create-table DDL");
    }

    @Test
    void closingWithoutCompletingFailsPendingBatchesAndFreesMemory() {
        server.faults().bulkNeverAck(true);
        BulkStreamWriter w = db.bulkStreamWriter(LOGS, CONFIG, Context.newBuilder().build());
        w.tableBufferRoot(100).addRow("h", "m", 1.0, 1L);
        CompletableFuture<Integer> f = w.writeNext();
        assertTrue(w.allocatedBytes() > 0);
        w.close();
        assertThrows(CompletionException.class, () -> f.orTimeout(Await.HANG_GUARD.toSeconds(), TimeUnit.SECONDS).join());
        server.faults().reset();
    }
}
