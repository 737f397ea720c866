package dev.sluice.bulk.values;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.ServerAndClientAccess;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.DecimalType;
import dev.sluice.data.InvalidDataException;
import dev.sluice.data.RowAppender;
import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import dev.sluice.write.Compression;
import dev.sluice.write.Context;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Rows built with every setter of a bulk batch's typed appender (text as a String, a builder and a UTF-8 slice at any
 * offset of a larger array, bytes, booleans, longs into integer, float, decimal, date, time and timestamp columns,
 * doubles, decimals, instants, generic values, nulls, columns by name, a column set twice, columns left unset), mixed
 * with {@code addRow}, with refused setters, a row ended without its time index, and a row still open when the batch
 * is sent (dropped): stored cell for cell as the regular path stores the same values.
 */
class EveryRowAppenderSetterStoresWhatTheRegularPathStoresForTheSameValuesTest {
    static TableSchema schema(String table) {
        return TableSchema.newBuilder(table)
                .addTag("host", DataType.String)
                .addField("s", DataType.String)
                .addField("b", DataType.Binary)
                .addField("flag", DataType.Bool)
                .addField("i8", DataType.Int8)
                .addField("i64", DataType.Int64)
                .addField("u64", DataType.UInt64)
                .addField("f32", DataType.Float32)
                .addField("f64", DataType.Float64)
                .addColumn("dec", SemanticType.Field, DataType.Decimal128, new DecimalType(10, 2))
                .addField("day", DataType.Date)
                .addField("at", DataType.TimestampNanosecond)
                .addField("clock", DataType.TimeMicrosecond)
                .addTimestamp("ts", DataType.TimestampMillisecond)
                .build();
    }

    static final String[] TEXTS = {"", "a", "é", "abcdefghijklmnop", "abcdefghijklmnopq", "漢字😀", "x".repeat(70),
        "host-01", "ab\u0000cd"};

    @ParameterizedTest
    @EnumSource(value = Compression.class, names = {"None", "Zstd"})
    void storedAsTheRegularPathStoresTheSameValues(Compression compression) throws Exception {
        String bulk = "appender_bulk_" + compression.name().toLowerCase();
        String regular = "appender_regular_" + compression.name().toLowerCase();
        TableSchema schema = schema(bulk);
        List<Object[]> expected = new ArrayList<>();
        Random rnd = new Random(7);
        byte[] arena = new byte[4096];
        try (var sc = ServerAndClientAccess.start()) {
            try (BulkStreamWriter w = sc.db().bulkStreamWriter(schema, BulkWrite.Config.newBuilder().build(),
                    Context.newBuilder().compression(compression).build())) {
                TableBufferRoot batch = w.tableBufferRoot(2);
                RowAppender a = batch.appender();
                BulkRows.Sent sent = new BulkRows.Sent();
                long ts = 1_700_000_000_000L;
                for (int i = 0; i < 700; i++) {
                    Object[] row = new Object[14];
                    row[13] = ts++;
                    String text = TEXTS[rnd.nextInt(TEXTS.length)];
                    if (i % 10 == 9) { // the same values through addRow
                        row[0] = "host-01";
                        row[1] = text;
                        row[4] = 5L;
                        batch.addRow(row);
                        expected.add(row);
                    } else {
                        row[0] = i % 7 == 0 ? null : "host-01";
                        if (row[0] != null) {
                            a.setString(a.columnIndex("host"), (String) row[0]);
                        }
                        switch (i % 3) {
                            case 0 -> a.setString(1, text);
                            case 1 -> a.setString(1, new StringBuilder(text));
                            default -> {
                                byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
                                int at = i % 2 == 0 ? arena.length - utf8.length : rnd.nextInt(arena.length - utf8.length);
                                Arrays.fill(arena, (byte) 'Z');
                                System.arraycopy(utf8, 0, arena, at, utf8.length);
                                a.setUtf8(1, arena, at, utf8.length);
                            }
                        }
                        row[1] = text;
                        if (i % 4 != 0) {
                            byte[] bytes = new byte[i % 20];
                            rnd.nextBytes(bytes);
                            a.setBytes(2, bytes);
                            row[2] = bytes;
                        }
                        if (i % 5 != 1) {
                            a.setBoolean(3, i % 2 == 0);
                            row[3] = i % 2 == 0;
                        }
                        a.setLong(4, i % 256 - 128);
                        row[4] = (long) (i % 256 - 128);
                        a.setLong(5, Long.MIN_VALUE + i).setLong(5, Long.MAX_VALUE - i); // set twice: the last kept
                        row[5] = Long.MAX_VALUE - i;
                        if (i % 6 == 0) {
                            a.setValue(6, BigInteger.TWO.pow(64).subtract(BigInteger.valueOf(i + 1)));
                            row[6] = BigInteger.TWO.pow(64).subtract(BigInteger.valueOf(i + 1));
                        } else {
                            a.setLong(6, i);
                            row[6] = BigInteger.valueOf(i);
                        }
                        if (i % 2 == 0) {
                            a.setLong(7, i);
                            row[7] = (float) i;
                        } else {
                            a.setDouble(7, i / 3.0);
                            row[7] = (float) (i / 3.0);
                        }
                        a.setDouble(8, i / 7.0);
                        if (i % 8 == 0) {
                            a.setNull(8); // a value, then null: null kept
                            row[8] = null;
                        } else {
                            row[8] = i / 7.0;
                        }
                        if (i % 3 == 0) {
                            a.setDecimal(9, BigDecimal.valueOf(i, 2));
                        } else {
                            a.setLong(9, i);
                        }
                        row[9] = i % 3 == 0 ? BigDecimal.valueOf(i, 2) : BigDecimal.valueOf(i);
                        a.setNull(10).setLong(10, i); // null, then a value: the value kept
                        row[10] = LocalDate.ofEpochDay(i);
                        if (i % 2 == 0) {
                            a.setTimestamp(11, Instant.ofEpochSecond(i, 123_456_789));
                            row[11] = Instant.ofEpochSecond(i, 123_456_789);
                        } else {
                            a.setLong(11, i * 1_000_000_007L);
                            row[11] = i * 1_000_000_007L;
                        }
                        // clock (12) left unset: NULL
                        a.setLong(13, (Long) row[13]);
                        a.endRow();
                        expected.add(row);
                    }
                    if (i % 50 == 3) {
                        // Refused setters drop the row being built; the next row starts afresh.
                        a.setString(0, "refused-row").setString(1, "refused-text-value");
                        InvalidDataException e = assertThrows(InvalidDataException.class,
                                () -> a.setTimestamp(4, Instant.EPOCH));
                        assertEquals("i8", e.column());
                        a.setString(1, "x");
                        assertThrows(InvalidDataException.class, () -> a.setBoolean(5, true));
                        a.setString(1, "y");
                        assertThrows(InvalidDataException.class,
                                () -> a.setUtf8(1, new byte[] {(byte) 0xC3}, 0, 1));
                        a.setString(1, "z");
                        assertThrows(IndexOutOfBoundsException.class, () -> a.setUtf8(1, arena, arena.length - 2, 3));
                        a.setString(1, "w");
                        assertThrows(IndexOutOfBoundsException.class, () -> a.setLong(14, 1));
                        a.setString(1, "no time index");
                        InvalidDataException noTs = assertThrows(InvalidDataException.class, a::endRow);
                        assertEquals("ts", noTs.column());
                    }
                    if (i % 97 == 96) {
                        int rows = batch.rowCount();
                        a.setString(1, "left open").setLong(13, 1L); // still open: dropped with the send
                        sent.send(w, rows);
                    }
                }
                sent.send(w, batch.rowCount());
                sent.assertAllAcknowledged();
            }
            BulkRows.writeRegular(sc.db(), schema(regular), expected);
            BulkRows.assertSameRows(sc.server(), regular, bulk);
            assertEquals(expected.size(), sc.server().rows(bulk).size());
        }
    }
}
