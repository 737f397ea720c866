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
import dev.sluice.data.TableSchema;
import dev.sluice.write.Compression;
import dev.sluice.write.Context;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Integer, float, boolean, date and timestamp columns given nulls and values in random order (runs of values before
 * a column's first null, runs of nulls, whole batches of either), through {@code addRow} and appender rows with
 * columns left unset, rows refused at the last column after writing nulls and values into the others, and sends at
 * random points: stored cell for cell as the regular path stores the kept rows.
 */
class NullsAndValuesUnderRandomMixesOfRowsRefusalsAndSendsAreStoredAsTheRegularPathStoresThemTest {
    static TableSchema schema(String table) {
        return TableSchema.newBuilder(table).addTag("host", DataType.String).addField("i64", DataType.Int64)
                .addField("f64", DataType.Float64).addField("flag", DataType.Bool).addField("i8", DataType.Int8)
                .addField("f32", DataType.Float32).addField("day", DataType.Date)
                .addField("at", DataType.TimestampMicrosecond).addField("u8", DataType.UInt8)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
    }

    static Object value(int c, Random rnd) {
        return switch (c) {
            case 0 -> "h" + rnd.nextInt(3);
            case 1 -> rnd.nextLong();
            case 2 -> rnd.nextDouble();
            case 3 -> rnd.nextBoolean();
            case 4 -> (long) (rnd.nextInt(256) - 128);
            case 5 -> (double) rnd.nextFloat();
            case 6 -> java.time.LocalDate.ofEpochDay(rnd.nextInt(100_000));
            case 7 -> rnd.nextLong() >>> 12;
            default -> (long) rnd.nextInt(256);
        };
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8})
    void storedAsTheRegularPathStoresThem(int seed) throws Exception {
        Random rnd = new Random(seed);
        Compression compression = Compression.values()[seed % Compression.values().length];
        String bulk = "nulls_mix_bulk_" + seed;
        String regular = "nulls_mix_regular_" + seed;
        List<Object[]> kept = new ArrayList<>();
        try (var sc = ServerAndClientAccess.start()) {
            try (BulkStreamWriter w = sc.db().bulkStreamWriter(schema(bulk), BulkWrite.Config.newBuilder().build(),
                    Context.newBuilder().compression(compression).build())) {
                TableBufferRoot batch = w.tableBufferRoot(1 + rnd.nextInt(16));
                RowAppender ap = batch.appender();
                BulkRows.Sent sent = new BulkRows.Sent();
                long ts = 1_700_000_000_000L;
                int[] nullOdds = new int[9];
                for (int op = 0; op < 5000; op++) {
                    if (op % 200 == 0) { // each column's chance of a null changes now and then: 0, some, all
                        for (int c = 0; c < 9; c++) {
                            int k = rnd.nextInt(4);
                            nullOdds[c] = k == 0 ? 0 : k == 1 ? 100 : 10 + rnd.nextInt(80);
                        }
                    }
                    Object[] row = new Object[10];
                    for (int c = 0; c < 9; c++) {
                        row[c] = rnd.nextInt(100) < nullOdds[c] ? null : value(c, rnd);
                    }
                    row[9] = ts;
                    int kind = rnd.nextInt(10);
                    if (kind < 4) {
                        batch.addRow(row);
                        kept.add(row);
                        ts++;
                    } else if (kind < 6) {
                        Object[] bad = row.clone();
                        bad[8] = 300L;
                        InvalidDataException e = assertThrows(InvalidDataException.class, () -> batch.addRow(bad));
                        assertEquals("u8", e.column());
                    } else if (kind < 9) {
                        for (int c = 0; c < 9; c++) {
                            if (row[c] != null) {
                                ap.setValue(c, row[c]);
                            } else if (rnd.nextBoolean()) {
                                ap.setNull(c);
                            }
                        }
                        ap.setLong(9, ts);
                        if (rnd.nextInt(6) == 0) {
                            ap.cancelRow();
                        } else {
                            ap.endRow();
                            kept.add(row);
                            ts++;
                        }
                    } else if (batch.rowCount() > 0) {
                        sent.send(w, batch.rowCount());
                    }
                }
                sent.send(w, batch.rowCount());
                sent.assertAllAcknowledged();
            }
            BulkRows.writeRegular(sc.db(), schema(regular), kept);
            BulkRows.assertSameRows(sc.server(), regular, bulk);
            assertEquals(kept.size(), sc.server().rows(bulk).size());
        }
    }
}
