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
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Three text columns written by a random mix of {@code addRow}, typed appender rows (text as String, builder or UTF-8
 * slice, a column set twice, a null over a value), rows refused at a later column, rows cancelled, tables copied in,
 * and sends at random points, with values drawn from a small pool of objects (so the same object often follows
 * itself) and fresh copies of them: every stored cell holds what the row that was kept wrote.
 */
class TextColumnsUnderRandomMixesOfRowsRefusalsCancelsAndSendsHoldWhatWasWrittenTest {
    static final String[] POOL = {"", "a", "host-1", "abcdefghijklmnop", "abcdefghijklmnopq", "é", "ééé",
        "漢字", "😀x", "\uD800", "x".repeat(40), "y".repeat(64), "z".repeat(100), "abcdefghijklmno", "\u0080"};

    static TableSchema schema(String table) {
        return TableSchema.newBuilder(table).addTag("host", DataType.String).addField("a", DataType.String)
                .addField("b", DataType.String).addField("n", DataType.Int8)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
    }

    static Object pick(Random rnd, String[] pool) {
        int k = rnd.nextInt(20);
        if (k < 12) {
            return pool[rnd.nextInt(pool.length)];
        }
        if (k < 15) {
            return new String(pool[rnd.nextInt(pool.length)].toCharArray());
        }
        if (k < 17) {
            return null;
        }
        return pool[rnd.nextInt(3)];
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8})
    void everyCellHoldsWhatTheKeptRowWrote(int seed) throws Exception {
        Random rnd = new Random(seed);
        Compression compression = Compression.values()[seed % Compression.values().length];
        String table = "text_mix_" + seed;
        List<Object[]> kept = new ArrayList<>();
        byte[] arena = new byte[512];
        try (var sc = ServerAndClientAccess.start()) {
            try (BulkStreamWriter w = sc.db().bulkStreamWriter(schema(table), BulkWrite.Config.newBuilder().build(),
                    Context.newBuilder().compression(compression).build())) {
                TableBufferRoot batch = w.tableBufferRoot(1 + rnd.nextInt(8));
                RowAppender ap = batch.appender();
                BulkRows.Sent sent = new BulkRows.Sent();
                long ts = 1_700_000_000_000L;
                Object[] last = {null, null, null};
                for (int op = 0; op < 6000; op++) {
                    Object[] v = new Object[3];
                    for (int c = 0; c < 3; c++) {
                        v[c] = rnd.nextInt(3) == 0 ? last[c] : pick(rnd, POOL); // often the very object before
                    }
                    int kind = rnd.nextInt(12);
                    if (kind < 4) {
                        Object[] row = {v[0], v[1], v[2], 1L, ts++};
                        batch.addRow(row);
                        kept.add(row);
                        System.arraycopy(v, 0, last, 0, 3);
                    } else if (kind < 6) {
                        Object[] row = {v[0], v[1], v[2], 1000, ts};
                        InvalidDataException e = assertThrows(InvalidDataException.class, () -> batch.addRow(row));
                        assertEquals("n", e.column());
                        System.arraycopy(v, 0, last, 0, 3);
                    } else if (kind < 9) {
                        Object[] row = {v[0], v[1], v[2], 1L, ts++};
                        for (int c = 0; c < 3; c++) {
                            boolean touched = rnd.nextInt(4) == 0;
                            if (touched) { // something else first, then the value
                                Object other = pick(rnd, POOL);
                                if (other == null) {
                                    ap.setNull(c);
                                } else {
                                    ap.setString(c, (String) other);
                                }
                            }
                            Object x = v[c];
                            if (x == null) {
                                if (touched || rnd.nextBoolean()) { // else left unset: NULL at endRow
                                    ap.setNull(c);
                                }
                            } else {
                                switch (rnd.nextInt(3)) {
                                    case 0 -> ap.setString(c, (String) x);
                                    case 1 -> ap.setString(c, new StringBuilder((String) x));
                                    default -> {
                                        byte[] utf8 = ((String) x).getBytes(StandardCharsets.UTF_8);
                                        int at = rnd.nextInt(arena.length - utf8.length + 1);
                                        java.util.Arrays.fill(arena, (byte) 'Q');
                                        System.arraycopy(utf8, 0, arena, at, utf8.length);
                                        ap.setUtf8(c, arena, at, utf8.length);
                                        row[c] = BulkRows.stored((String) x);
                                    }
                                }
                            }
                        }
                        ap.setLong(3, 1).setLong(4, (Long) row[4]);
                        if (rnd.nextInt(5) == 0) {
                            ap.cancelRow();
                            ts--;
                        } else {
                            ap.endRow();
                            kept.add(row);
                        }
                        System.arraycopy(v, 0, last, 0, 3);
                    } else if (kind < 10) {
                        Table t = Table.from(schema(table));
                        int n = 1 + rnd.nextInt(4);
                        for (int i = 0; i < n; i++) {
                            Object[] row = {pick(rnd, POOL), pick(rnd, POOL), pick(rnd, POOL), 1L, ts++};
                            t.addRow(row);
                            kept.add(row);
                        }
                        batch.addTable(t);
                    } else if (batch.rowCount() > 0) {
                        sent.send(w, batch.rowCount());
                    }
                }
                sent.send(w, batch.rowCount());
                sent.assertAllAcknowledged();
            }
            List<Map<String, Object>> stored = sc.server().rows(table);
            assertEquals(kept.size(), stored.size());
            String[] names = {"host", "a", "b"};
            for (int i = 0; i < kept.size(); i++) {
                for (int c = 0; c < 3; c++) {
                    Object e = kept.get(i)[c];
                    assertEquals(e == null ? null : BulkRows.stored((CharSequence) e), stored.get(i).get(names[c]),
                            "row " + i + " column " + names[c]);
                }
                assertEquals(kept.get(i)[4], stored.get(i).get("ts"), "row " + i + " ts");
            }
        }
    }
}
