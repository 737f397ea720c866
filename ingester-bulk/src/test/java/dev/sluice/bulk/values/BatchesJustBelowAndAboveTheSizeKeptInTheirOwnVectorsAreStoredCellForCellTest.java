package dev.sluice.bulk.values;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.NothingHeld;
import dev.sluice.bulk.ServerAndClientAccess;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.write.Compression;
import dev.sluice.write.Context;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Batches of 1,000 rows whose IPC bodies are a few bytes below, exactly at and a few bytes above 4 MiB (the size from
 * which a batch is sent from its own vectors and the next rows go to fresh ones; smaller ones are packed into one
 * buffer and the vectors refilled), one after the other on one writer: every row is stored cell for cell, and the
 * client holds no bulk memory once the writer is closed.
 */
class BatchesJustBelowAndAboveTheSizeKeptInTheirOwnVectorsAreStoredCellForCellTest {
    static final int ROWS = 1000;
    /**
     * The body of a batch of these 1,000 rows besides the text bytes of {@code msg}: for {@code host} (one byte a row)
     * and {@code msg}, 128 bytes of validity and 4,008 of offsets each, 1,000 of host text; for {@code ts}, 128 of
     * validity and 8,000 of values.
     */
    static final int FIXED = 128 + 4008 + 1000 + 128 + 4008 + 128 + 8000;
    static final int KEPT = 4 << 20;

    static TableSchema schema(String table) {
        return TableSchema.newBuilder(table).addTag("host", DataType.String).addField("msg", DataType.String)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
    }

    /** Text whose bytes add up to {@code total} over the batch's rows. */
    static List<String> texts(int batch, int total) {
        List<String> out = new ArrayList<>();
        int base = total / ROWS;
        int extra = total % ROWS;
        for (int r = 0; r < ROWS; r++) {
            int length = base + (r < extra ? 1 : 0);
            String head = batch + ":" + r + ":";
            out.add(head + String.valueOf((char) ('a' + r % 26)).repeat(length - head.length()));
        }
        return out;
    }

    @ParameterizedTest
    @EnumSource(value = Compression.class, names = {"None", "Gzip"})
    void everyRowIsStored(Compression compression) throws Exception {
        int[] bodies = {KEPT - 16, KEPT - 8, KEPT, KEPT - 8, KEPT + 8, KEPT - 16, KEPT + 16, KEPT - 8, KEPT};
        String table = "around_kept_" + compression.name().toLowerCase();
        List<String> expected = new ArrayList<>();
        try (var sc = ServerAndClientAccess.start()) {
            try (BulkStreamWriter w = sc.db().bulkStreamWriter(schema(table), BulkWrite.Config.newBuilder().build(),
                    Context.newBuilder().compression(compression).build())) {
                TableBufferRoot batch = w.tableBufferRoot(ROWS);
                List<CompletableFuture<Integer>> acks = new ArrayList<>();
                long ts = 1_700_000_000_000L;
                for (int b = 0; b < bodies.length; b++) {
                    // A text total that pads to the body wanted (a total one byte over a multiple of 8 pads up).
                    int text = bodies[b] - FIXED - (b % 2 == 0 ? 0 : 7);
                    for (String s : texts(b, text)) {
                        batch.addRow("h", s, ts++);
                        expected.add(s);
                    }
                    acks.add(w.writeNext());
                }
                for (int i = 0; i < acks.size(); i++) {
                    assertEquals(ROWS, acks.get(i).get(120, TimeUnit.SECONDS), "batch " + i);
                }
            }
            NothingHeld.await(sc.db(), Duration.ofSeconds(60), true);
            List<List<Object>> stored = sc.server().columns(table, "host", "msg", "ts");
            assertEquals(expected.size(), stored.get(1).size());
            for (int i = 0; i < expected.size(); i++) {
                assertEquals("h", stored.get(0).get(i), "host of row " + i);
                assertEquals(expected.get(i), stored.get(1).get(i), "msg of row " + i);
                assertEquals(1_700_000_000_000L + i, stored.get(2).get(i), "ts of row " + i);
            }
        }
    }
}
