package dev.sluice.bulk.values;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.GreptimeDB;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Compression;
import dev.sluice.write.Context;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Writes rows through a bulk writer batch by batch, and compares what the testkit stored cell for cell. */
final class BulkRows {
    private BulkRows() {
    }

    /** The batches a test sends, with the rows each holds, checked against their answers once all are sent. */
    static final class Sent {
        private final List<Integer> rows = new ArrayList<>();
        private final List<CompletableFuture<Integer>> answers = new ArrayList<>();

        /** Sends the writer's batch, which holds {@code rows} rows. */
        void send(BulkStreamWriter w, int rows) {
            this.rows.add(rows);
            answers.add(w.writeNext());
        }

        /** Waits for every batch's answer (at most 120 s each) and checks each acknowledged its own row count. */
        void assertAllAcknowledged() throws Exception {
            for (int i = 0; i < answers.size(); i++) {
                assertEquals(rows.get(i), answers.get(i).get(120, TimeUnit.SECONDS), "rows acknowledged for batch " + i);
            }
        }
    }

    /**
     * Writes the rows through one bulk writer in batches of {@code batchRows}, checks every batch's acknowledged
     * row count, and returns once the writer is closed.
     */
    static void writeInBatches(GreptimeDB db, TableSchema schema, List<Object[]> rows, int batchRows,
                               Compression compression) throws Exception {
        try (BulkStreamWriter w = db.bulkStreamWriter(schema, BulkWrite.Config.newBuilder().build(),
                Context.newBuilder().compression(compression).build())) {
            TableBufferRoot batch = w.tableBufferRoot(batchRows);
            BulkRows.Sent sent = new BulkRows.Sent();
            for (Object[] row : rows) {
                batch.addRow(row);
                if (batch.rowCount() == batchRows) {
                    sent.send(w, batchRows);
                }
            }
            if (batch.rowCount() > 0) {
                sent.send(w, batch.rowCount());
            }
            sent.assertAllAcknowledged();
            assertEquals(rows.size(), w.completed());
        }
    }

    /** Writes the rows through the regular path, as one table. */
    static void writeRegular(GreptimeDB db, TableSchema schema, List<Object[]> rows) throws Exception {
        Table t = Table.from(schema);
        rows.forEach(t::addRow);
        var result = db.write(t).get(120, TimeUnit.SECONDS);
        assertTrue(result.isOk(), () -> "regular write: " + result);
    }

    /** Asserts the two tables hold the same rows, cell for cell, in the same order. */
    static void assertSameRows(GreptimeTestServer server, String expectedTable, String actualTable) {
        List<Map<String, Object>> expected = server.rows(expectedTable);
        List<Map<String, Object>> actual = server.rows(actualTable);
        assertEquals(expected.size(), actual.size(), "rows stored");
        for (int i = 0; i < expected.size(); i++) {
            for (Map.Entry<String, Object> e : expected.get(i).entrySet()) {
                assertCell(e.getValue(), actual.get(i).get(e.getKey()), "row " + i + " column " + e.getKey());
            }
        }
    }

    static void assertCell(Object expected, Object actual, String where) {
        if (expected instanceof byte[] bytes) {
            assertTrue(actual instanceof byte[], where + ": " + actual);
            assertArrayEquals(bytes, (byte[]) actual, where);
        } else if (expected instanceof Float f) {
            assertEquals(Float.floatToRawIntBits(f), Float.floatToRawIntBits((Float) actual), where + ": " + actual);
        } else if (expected instanceof Double d) {
            assertEquals(Double.doubleToRawLongBits(d), Double.doubleToRawLongBits((Double) actual),
                    where + ": " + actual);
        } else {
            assertEquals(expected, actual, where);
        }
    }

    /** The text the server holds for a value: its UTF-8 bytes, read back (an unpaired surrogate reads '?'). */
    static String stored(CharSequence text) {
        return new String(text.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8),
                java.nio.charset.StandardCharsets.UTF_8);
    }

    static String describe(Object[] row) {
        return Arrays.deepToString(row);
    }
}
