package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.write.Context;
import dev.sluice.write.StatusCode;
import dev.sluice.write.Compression;
import dev.sluice.write.RetryPolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Bulk batches of 4 MiB and more are sent from the Arrow memory they were built in, their large buffers handed to
 * the transport: each row stored is the row written, through resends, gRPC compression and no-retry sends, and
 * no memory is left behind, also when the writer is closed while the transport is still writing.
 */
class LargeBulkBatchTest extends DefaultTestkitTest {
    static final int ROWS = 2_000; // about 8 MB a batch: over the 4 MiB from which a batch stays in Arrow memory
    static final BulkWrite.Config CONFIG = BulkWrite.Config.newBuilder().requestTimeout(Duration.ofSeconds(20))
            .maxInFlightRequests(4).build();
    static final RetryPolicy QUICK = RetryPolicy.newBuilder().maxAttempts(5)
            .backoff(Duration.ofMillis(10), Duration.ofMillis(50)).deliveryTimeout(Duration.ofSeconds(30)).build();

    @BeforeEach
    void clear() {
        server.clear();
        server.faults().reset();
    }

    @AfterEach
    void noOffHeapLeft() {
        server.faults().reset();
        assertEquals(0, db.stats().bulkAllocatedBytes(), "every bulk buffer was released");
    }

    static TableSchema schema(String name) {
        return TableSchema.newBuilder(name).addTag("host", DataType.String).addField("message", DataType.String)
                .addField("n", DataType.Int64).addTimestamp("ts", DataType.TimestampMillisecond).build();
    }

    /** A 4,000-character message that differs at both ends from every other row's. */
    static String message(long i) {
        String s = Long.toString(i * 2_654_435_761L, 36);
        StringBuilder b = new StringBuilder(4_000).append(s).append(':');
        while (b.length() < 3_990) {
            b.append((char) ('a' + (b.length() + i) % 26));
        }
        return b.append(':').append(s).toString();
    }

    static void fill(TableBufferRoot batch, long first, int rows) {
        for (long i = first; i < first + rows; i++) {
            batch.addRow("host-" + (i % 7), message(i), i * 31, 1_700_000_000_000L + i);
        }
    }

    /** Every row of the table, checked value by value against what was written. */
    static void assertStored(String table, long rows) {
        List<Map<String, Object>> stored = server.rows(table);
        assertEquals(rows, stored.size());
        boolean[] seen = new boolean[(int) rows];
        for (Map<String, Object> r : stored) {
            long i = ((Number) r.get("n")).longValue() / 31;
            assertEquals("host-" + (i % 7), r.get("host"), "row " + i);
            assertEquals(message(i), r.get("message"), "row " + i);
            Object ts = r.get("ts");
            long millis = ts instanceof Instant at ? at.toEpochMilli() : ((Number) ts).longValue();
            assertEquals(1_700_000_000_000L + i, millis, "row " + i);
            seen[(int) i] = true;
        }
        for (int i = 0; i < rows; i++) {
            assertTrue(seen[i], "row " + i + " stored");
        }
    }

    static int join(CompletableFuture<Integer> f) {
        return f.orTimeout(60, TimeUnit.SECONDS).join();
    }

    @Test
    void largeBatchesResentAfterABrokenStreamAreStoredExactlyFromTheirOwnMemory() {
        TableSchema schema = schema("large_resent");
        try (BulkStreamWriter w = db.bulkStreamWriter(schema, CONFIG, Context.newBuilder().retryPolicy(QUICK).build())) {
            TableBufferRoot batch = w.tableBufferRoot(ROWS);
            List<CompletableFuture<Integer>> acks = new ArrayList<>();
            server.faults().failBulkBatch(2, StatusCode.RateLimited, "slow down");
            for (int b = 0; b < 4; b++) {
                fill(batch, (long) b * ROWS, ROWS);
                acks.add(w.writeNext());
            }
            for (CompletableFuture<Integer> a : acks) {
                assertEquals(ROWS, join(a));
            }
            assertTrue(w.replays() >= 1, "the stream broke and was reopened");
            w.completed();
            assertDoesNotThrow(w::close);
            assertEquals(0, w.allocatedBytes());
        }
        assertStored("large_resent", 4L * ROWS);
    }

    /** Writes three large batches with the context's settings and checks every stored row. */
    static void writeThreeAndCheck(String table, Context ctx) {
        try (BulkStreamWriter w = db.bulkStreamWriter(schema(table), CONFIG, ctx)) {
            TableBufferRoot batch = w.tableBufferRoot(ROWS);
            List<CompletableFuture<Integer>> acks = new ArrayList<>();
            for (int b = 0; b < 3; b++) {
                fill(batch, (long) b * ROWS, ROWS);
                acks.add(w.writeNext());
            }
            acks.forEach(a -> assertEquals(ROWS, join(a)));
            w.completed();
        }
        assertStored(table, 3L * ROWS);
    }

    @Test
    void largeBatchesWithGrpcCompressionAreCopiedAndStoredExactly() {
        writeThreeAndCheck("large_gzip", Context.newBuilder().compression(Compression.Gzip).build());
    }

    @Test
    void largeBatchesWithoutRetriesAreStoredExactlyAndFreedOnceWritten() {
        writeThreeAndCheck("large_none", Context.newBuilder().retryPolicy(RetryPolicy.none()).build());
    }

    @Test
    void largeBatchesWithArrowCompressionAreStoredExactly() {
        writeThreeAndCheck("large_zstd", Context.newBuilder().compression(Compression.Zstd).build());
        writeThreeAndCheck("large_lz4", Context.newBuilder().compression(Compression.Lz4).build());
    }

    @Test
    void closingWhileTheTransportStillWritesLargeBatchesFailsThemAndLeavesNoMemory() {
        TableSchema schema = schema("large_closed");
        server.faults().bulkNeverAck(true);
        BulkStreamWriter w = db.bulkStreamWriter(schema, CONFIG, Context.newBuilder().build());
        TableBufferRoot batch = w.tableBufferRoot(ROWS);
        List<CompletableFuture<Integer>> acks = new ArrayList<>();
        for (int b = 0; b < 4; b++) {
            fill(batch, (long) b * ROWS, ROWS);
            acks.add(w.writeNext());
        }
        assertDoesNotThrow(w::close);
        assertEquals(0, w.allocatedBytes(), "close waited for the transport to drop what it was writing");
        for (CompletableFuture<Integer> a : acks) {
            CompletionException e = org.junit.jupiter.api.Assertions.assertThrows(CompletionException.class,
                    () -> join(a));
            assertTrue(e.getCause() instanceof dev.sluice.bulk.BulkWriteException, String.valueOf(e.getCause()));
        }
    }
}
