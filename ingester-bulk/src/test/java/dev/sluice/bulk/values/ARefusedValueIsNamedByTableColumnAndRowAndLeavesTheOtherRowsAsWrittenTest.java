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
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A value a column refuses (out of range, of a class the column does not take, a null time index, too many
 * fraction digits), through {@code addRow} or the typed appender, throws an {@link InvalidDataException} naming the
 * table, the column and the row's index in the batch; the rows around it, including one written over what the
 * refused row had set (values, nulls and text), are stored cell for cell as the regular path stores them.
 */
class ARefusedValueIsNamedByTableColumnAndRowAndLeavesTheOtherRowsAsWrittenTest {
    static TableSchema schema(String table) {
        return TableSchema.newBuilder(table)
                .addTag("host", DataType.String)
                .addField("i8", DataType.Int8)
                .addField("u8", DataType.UInt8)
                .addField("i64", DataType.Int64)
                .addField("u64", DataType.UInt64)
                .addField("f32", DataType.Float32)
                .addField("f64", DataType.Float64)
                .addField("text", DataType.String)
                .addField("bytes", DataType.Binary)
                .addField("flag", DataType.Bool)
                .addField("day", DataType.Date)
                .addField("at", DataType.TimestampMicrosecond)
                .addField("clock", DataType.TimeMillisecond)
                .addColumn("money", SemanticType.Field, DataType.Decimal128, new DecimalType(10, 2))
                .addTimestamp("ts", DataType.TimestampMillisecond)
                .build();
    }

    static final String[] NAMES = {"host", "i8", "u8", "i64", "u64", "f32", "f64", "text", "bytes", "flag", "day",
        "at", "clock", "money", "ts"};

    /** Column index and a value it refuses. */
    static final Object[][] REFUSALS = {
        {1, 128}, {1, 1.0}, {1, "1"}, {2, -1}, {2, 256L}, {3, BigInteger.TWO.pow(63)}, {3, 1.5}, {3, "5"},
        {4, -1L}, {4, BigInteger.TWO.pow(64)}, {5, 1e300}, {5, BigDecimal.ONE}, {6, "1.0"}, {6, BigDecimal.ONE},
        {7, 5}, {7, new byte[] {65}}, {8, "text"}, {9, 1}, {9, "true"}, {10, Instant.EPOCH},
        {10, LocalDateTime.of(2020, 1, 1, 0, 0)}, {10, 3_000_000_000L}, {11, LocalDateTime.of(2020, 1, 1, 0, 0)},
        {11, "2020-01-01T00:00:00Z"}, {12, Instant.EPOCH}, {13, 1.5}, {13, new BigDecimal("1.005")},
        {13, new BigDecimal("123456789.1")}, {14, null}, {14, "now"}, {0, 7}, {12, Instant.MAX},
        {11, Instant.MAX},
    };

    static Object[] good(long i) {
        boolean nulls = i % 2 == 0;
        return new Object[] {"h" + (i % 3), nulls ? null : (int) (i % 100), 200, i * 1_000_000_007L,
            nulls ? null : BigInteger.valueOf(i), (float) i / 3, nulls ? null : i / 7.0, "text-" + i,
            nulls ? null : new byte[] {(byte) i}, i % 3 == 0, LocalDate.ofEpochDay(i), Instant.ofEpochSecond(i, 1000),
            LocalTime.ofSecondOfDay(i % 86_400), nulls ? null : new BigDecimal(i).movePointLeft(2),
            1_700_000_000_000L + i};
    }

    /** A row that holds good values, nulls and new text up to the refused column. */
    static Object[] refused(Object[] refusal, long i) {
        Object[] row = good(i + 1_000_000);
        for (int c = 0; c < row.length - 1; c++) {
            if (c % 3 == 1) {
                row[c] = null;
            }
        }
        row[(int) refusal[0]] = refusal[1];
        return row;
    }

    @ParameterizedTest
    @CsvSource({"None, false", "None, true", "Zstd, true", "Lz4, false"})
    void refusedValuesAreNamedAndTheOtherRowsStored(Compression compression, boolean appender) throws Exception {
        String suffix = compression.name().toLowerCase() + (appender ? "_appender" : "_rows");
        String bulk = "refusals_bulk_" + suffix;
        List<Object[]> stored = new ArrayList<>();
        try (var sc = ServerAndClientAccess.start()) {
            try (BulkStreamWriter w = sc.db().bulkStreamWriter(schema(bulk), BulkWrite.Config.newBuilder().build(),
                    Context.newBuilder().compression(compression).build())) {
                TableBufferRoot batch = w.tableBufferRoot(4);
                BulkRows.Sent sent = new BulkRows.Sent();
                long i = 0;
                for (int round = 0; round < 3; round++) {
                    for (Object[] refusal : REFUSALS) {
                        Object[] row = good(i++);
                        add(batch, row, appender);
                        stored.add(row);
                        int at = batch.rowCount();
                        Object[] bad = refused(refusal, i);
                        InvalidDataException e = assertThrows(InvalidDataException.class,
                                () -> add(batch, bad, appender), () -> "refusal of " + BulkRows.describe(refusal));
                        assertEquals(bulk, e.table(), e::getMessage);
                        assertEquals(NAMES[(int) refusal[0]], e.column(), e::getMessage);
                        assertEquals(at, e.row(), e::getMessage);
                        assertEquals(at, batch.rowCount(), "the refused row is not added");
                        Object[] after = good(i++);
                        add(batch, after, appender);
                        stored.add(after);
                        if (round == 1 && batch.rowCount() >= 5) {
                            sent.send(w, batch.rowCount());
                        }
                    }
                    sent.send(w, batch.rowCount());
                }
                sent.assertAllAcknowledged();
                assertEquals(stored.size(), w.completed());
            }
            String regular = "refusals_regular_" + suffix;
            BulkRows.writeRegular(sc.db(), schema(regular), stored);
            BulkRows.assertSameRows(sc.server(), regular, bulk);
            assertEquals(stored.size(), sc.server().rows(bulk).size());
        }
    }

    static void add(TableBufferRoot batch, Object[] row, boolean appender) {
        if (!appender) {
            batch.addRow(row);
            return;
        }
        RowAppender a = batch.appender();
        for (int c = 0; c < row.length; c++) {
            if (row[c] == null) {
                a.setNull(c);
            } else {
                a.setValue(c, row[c]);
            }
        }
        a.endRow();
    }
}
