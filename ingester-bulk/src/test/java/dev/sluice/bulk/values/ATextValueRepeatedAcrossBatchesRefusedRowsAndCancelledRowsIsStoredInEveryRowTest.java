package dev.sluice.bulk.values;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.ServerAndClientAccess;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.InvalidDataException;
import dev.sluice.data.RowAppender;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.write.Compression;
import dev.sluice.write.Context;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The same {@code String} object given to a text column row after row is stored in every row that takes it: right
 * after a batch boundary (a small batch, whose vectors are refilled, and a batch over 4 MiB, after which the rows
 * go to fresh vectors), after a row refused at a later column and one refused after writing another value, after a
 * row the appender cancelled (with text or UTF-8 bytes set), after a null, through {@code addRow}, the typed
 * appender and {@code addTable} mixed. Short ASCII, longer ASCII, non-ASCII and empty values alike.
 */
class ATextValueRepeatedAcrossBatchesRefusedRowsAndCancelledRowsIsStoredInEveryRowTest {
    static TableSchema schema(String table) {
        return TableSchema.newBuilder(table)
                .addTag("host", DataType.String)
                .addField("msg", DataType.String)
                .addField("n", DataType.Int8)
                .addField("big", DataType.String)
                .addTimestamp("ts", DataType.TimestampMillisecond)
                .build();
    }

    /** What the test expects stored, row by row, and the writer it goes through. */
    private static final class Rows {
        final List<Object[]> expected = new ArrayList<>();
        final BulkStreamWriter writer;
        final TableBufferRoot batch;
        final List<CompletableFuture<Integer>> acks = new ArrayList<>();
        final List<Integer> sizes = new ArrayList<>();
        long ts = 1_700_000_000_000L;

        Rows(BulkStreamWriter writer) {
            this.writer = writer;
            this.batch = writer.tableBufferRoot(16);
        }

        void add(Object host, Object msg, Object big) {
            Object[] row = {host, msg, 1L, big, ts++};
            batch.addRow(row);
            expected.add(row);
        }

        void refusedAtN(Object host, Object msg) {
            int at = batch.rowCount();
            InvalidDataException e = assertThrows(InvalidDataException.class,
                    () -> batch.addRow(host, msg, 1000, null, ts));
            assertEquals("n", e.column());
            assertEquals(at, e.row());
        }

        void append(String host, String msg) {
            RowAppender a = batch.appender();
            a.setString(0, host).setString(1, msg).setLong(2, 1).setLong(4, ts);
            a.endRow();
            expected.add(new Object[] {host, msg, 1L, null, ts++});
        }

        void send() {
            sizes.add(batch.rowCount());
            acks.add(writer.writeNext());
        }

        void awaitAll() throws Exception {
            for (int i = 0; i < acks.size(); i++) {
                assertEquals(sizes.get(i), acks.get(i).get(120, TimeUnit.SECONDS), "batch " + i);
            }
        }
    }

    @ParameterizedTest
    @CsvSource({
        "tag-repeated, None", "tag-repeated, Lz4", "abcdefghijklmnop, None", "a, Zstd", "'', None",
        "a-longer-ascii-value-of-forty-characters, None", "é-repeated, None", "漢字😀, Lz4",
        "sixteen-chars-é!, None",
    })
    void theRepeatedValueIsStoredInEveryRow(String value, Compression compression) throws Exception {
        String v = new String(value.toCharArray()); // an object of this test's own, not an interned literal
        String other = "zz-other";
        String table = "repeated_" + Integer.toHexString(value.hashCode()) + "_" + compression.name().toLowerCase();
        try (var sc = ServerAndClientAccess.start()) {
            Rows r;
            try (BulkStreamWriter w = sc.db().bulkStreamWriter(schema(table), BulkWrite.Config.newBuilder().build(),
                    Context.newBuilder().compression(compression).build())) {
                r = new Rows(w);
                for (int i = 0; i < 5; i++) {
                    r.add(v, v, null);
                }
                r.send();
                r.add(v, v, null); // first row after a small batch
                r.add(v, v, null);
                r.refusedAtN(v, v);
                r.add(v, v, null); // the row the refused one had written
                r.refusedAtN(other, other);
                r.add(v, v, null); // over a refused row that wrote another value
                r.batch.appender().setString(0, v).setString(1, v).cancelRow();
                r.add(v, v, null);
                r.batch.appender().setString(0, other).setUtf8(1, other.getBytes(StandardCharsets.UTF_8), 0,
                        other.length()).cancelRow();
                r.add(v, v, null);
                r.append(v, v);
                r.add(v, v, null);
                r.add(v, null, null);
                r.add(v, v, null);
                r.add(null, v, null);
                r.append(v, v);
                Table t = Table.from(schema(table));
                for (int i = 0; i < 3; i++) {
                    Object[] row = {v, v, 1L, null, r.ts++};
                    t.addRow(row);
                    r.expected.add(row);
                }
                r.batch.addTable(t);
                r.add(v, v, null); // after rows copied from a table as UTF-8
                r.send();
                // A batch over 4 MiB: sent from its own memory, the next rows go to fresh vectors.
                String big = "x".repeat(1000);
                for (int i = 0; i < 5000; i++) {
                    r.add(v, v, i % 2 == 0 ? big : new String(big.toCharArray()));
                }
                r.send();
                r.add(v, v, null); // first row on fresh vectors
                r.add(v, v, null);
                r.send();
                for (int b = 0; b < 20; b++) { // many small batches: the packing buffer reused
                    for (int i = 0; i <= b; i++) {
                        r.add(v, v, null);
                    }
                    r.send();
                }
                r.awaitAll();
                assertEquals(r.expected.size(), w.completed());
            }
            List<Map<String, Object>> stored = sc.server().rows(table);
            assertEquals(r.expected.size(), stored.size());
            String[] names = {"host", "msg", "n", "big", "ts"};
            for (int i = 0; i < stored.size(); i++) {
                for (int c = 0; c < names.length; c++) {
                    Object e = r.expected.get(i)[c];
                    if (e instanceof CharSequence s) {
                        e = BulkRows.stored(s);
                    }
                    assertEquals(e, stored.get(i).get(names[c]), "row " + i + " column " + names[c]);
                }
            }
        }
    }
}
