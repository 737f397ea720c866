package dev.sluice.bulk.compression;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Compression;
import dev.sluice.write.Context;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Bulk batches sent with {@link Compression#Lz4} are stored cell for cell, whatever their buffers hold: megabytes of
 * highly repetitive text (long matches, the case LZ4 compresses most) next to random bytes (which do not compress
 * and are sent as they are) and an empty string. The test server decodes the LZ4 frames with its own decoder.
 */
class Lz4BulkBatchesAreStoredCellForCellTest {
    private static final TableSchema LOGS = TableSchema.newBuilder("lz4_logs").addTag("host", DataType.String)
            .addField("msg", DataType.String).addField("blob", DataType.Binary)
            .addTimestamp("ts", DataType.TimestampMillisecond).build();
    private static final int ROWS = 512;

    @Test
    void repetitiveTextAndRandomBytesCompressedWithLz4AreStoredCellForCell() {
        SplittableRandom random = new SplittableRandom(42);
        String[] msgs = new String[ROWS];
        byte[][] blobs = new byte[ROWS][];
        for (int i = 0; i < ROWS; i++) {
            // 4 KiB of a 4-letter alphabet in long runs: 2 MiB of text in the batch's value buffer.
            msgs[i] = i == 7 ? "" : "abcd".repeat(1024 - 3) + String.format("%012d", i);
            blobs[i] = new byte[256];
            random.nextBytes(blobs[i]);
        }
        try (GreptimeTestServer server = GreptimeTestServer.start();
             GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
             BulkStreamWriter w = db.bulkStreamWriter(LOGS,
                     BulkWrite.Config.newBuilder().requestTimeout(Duration.ofSeconds(60)).build(),
                     Context.newBuilder().compression(Compression.Lz4).build())) {
            TableBufferRoot batch = w.tableBufferRoot(ROWS);
            for (int i = 0; i < ROWS; i++) {
                batch.addRow("host-" + (i % 3), msgs[i], blobs[i], (long) i);
            }
            assertEquals(ROWS, w.writeNext().join());

            List<Map<String, Object>> stored = server.rows("lz4_logs");
            assertEquals(ROWS, stored.size());
            for (Map<String, Object> row : stored) {
                int i = (int) (long) (Long) row.get("ts");
                assertEquals("host-" + (i % 3), row.get("host"), "host of row " + i);
                assertEquals(msgs[i], row.get("msg"), "msg of row " + i);
                assertArrayEquals(blobs[i], (byte[]) row.get("blob"), "blob of row " + i);
            }
        }
    }
}
