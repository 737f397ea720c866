package dev.sluice.bulk.values;

import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.ServerAndClientAccess;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.RowAppender;
import dev.sluice.data.TableSchema;
import dev.sluice.write.Compression;
import dev.sluice.write.Context;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Every type the bulk path carries, each column given values of every Java class it accepts (a Float, Integer,
 * Short, Byte or Long for a Float64 column, a BigInteger for Int64, an Instant, Date, OffsetDateTime or integral
 * count for a timestamp, a StringBuilder or CharBuffer for text, a ByteBuffer for bytes...), mixed row by row with
 * the column's usual class and with nulls in the first row, the last row and every row of some columns, through
 * {@code addRow} and the typed appender: stored cell for cell as the regular path stores the same rows.
 */
class ValuesOfEveryAcceptedJavaClassAreStoredAsTheRegularPathStoresThemTest {
    static final List<DataType> TYPES = EveryTypeWithNullsAndEmptiesIsStoredUnderEveryCompressionTest.TYPES;

    static TableSchema schema(String table) {
        TableSchema.Builder b = EveryTypeWithNullsAndEmptiesIsStoredUnderEveryCompressionTest.everyType(table);
        b.addField("never_long", DataType.Int64).addField("never_text", DataType.String)
                .addField("never_double", DataType.Float64);
        return b.addTimestamp("ts", DataType.TimestampNanosecond).build();
    }

    /** Values a column of the type accepts, of every class it accepts. */
    static Object[] accepted(DataType t) {
        long nanos = 1_700_000_000_123_456_789L;
        Instant instant = Instant.ofEpochSecond(0, nanos);
        return switch (t) {
            case Bool -> new Object[] {true, false, Boolean.TRUE};
            case Int8 -> new Object[] {(byte) -128, (short) 127, 5, 7L, -1L};
            case Int16 -> new Object[] {Short.MIN_VALUE, (byte) 1, 32_767, -3L};
            case Int32 -> new Object[] {Integer.MIN_VALUE, Integer.MAX_VALUE, (short) -1, 42L, (byte) 9};
            case Int64 -> new Object[] {Long.MIN_VALUE, Long.MAX_VALUE, 5, (short) 3, (byte) 2,
                BigInteger.valueOf(Long.MIN_VALUE), BigInteger.ONE, 0L};
            case UInt8 -> new Object[] {0, 255, (short) 255, 200L, (byte) 1};
            case UInt16 -> new Object[] {65_535, 0L, (short) 7};
            case UInt32 -> new Object[] {4_294_967_295L, 0, (short) 7, Integer.MAX_VALUE};
            case UInt64 -> new Object[] {BigInteger.TWO.pow(64).subtract(BigInteger.ONE), Long.MAX_VALUE, 0, 1L,
                BigInteger.TWO.pow(63)};
            case Float32 -> new Object[] {Float.NaN, -0.0f, Float.MAX_VALUE, 1.5, 3, Long.MAX_VALUE,
                Double.MIN_VALUE, Float.NEGATIVE_INFINITY, (short) 2, (byte) -2};
            case Float64 -> new Object[] {Double.NaN, -0.0, Double.MAX_VALUE, 1.5f, 7, Long.MIN_VALUE,
                Double.NEGATIVE_INFINITY, Double.MIN_VALUE, 0.1, (short) 1, (byte) 1, Float.NaN};
            case Binary -> new Object[] {new byte[0], new byte[] {1, 2, 3}, ByteBuffer.wrap(new byte[] {9, 8, 7, 6}),
                "bytes".repeat(10).getBytes()};
            case String -> new Object[] {"x", new StringBuilder("yy"), CharBuffer.wrap("zz-é"), "", "abcdefghijklmnopq",
                new StringBuilder("abcdefghijklmnop")};
            case Date -> new Object[] {LocalDate.of(1, 1, 1), 0, (short) -1, 5L, LocalDate.of(9999, 12, 31),
                (byte) 3};
            case TimestampSecond, TimestampMillisecond, TimestampMicrosecond, TimestampNanosecond -> new Object[] {
                instant, java.util.Date.from(instant), OffsetDateTime.ofInstant(instant, ZoneOffset.ofHours(5)),
                ZonedDateTime.ofInstant(instant, ZoneOffset.UTC), 1_700_000_000L, 17, (short) -5,
                Instant.ofEpochSecond(-1, 1), Instant.EPOCH};
            case TimeSecond, TimeMillisecond, TimeMicrosecond, TimeNanosecond -> new Object[] {LocalTime.MAX,
                LocalTime.MIDNIGHT, 0L, 5, (short) 6, LocalTime.of(12, 34, 56, 789_012_345)};
            case Decimal128 -> new Object[] {new BigDecimal("1.5"), BigInteger.TEN, 7, 8L, (short) -9,
                new BigDecimal("-99999999999999999.999"), new BigDecimal("99999999999999999.999"),
                new BigDecimal("0.001"), new BigDecimal("1E+3")};
            default -> throw new IllegalArgumentException(t.toString());
        };
    }

    static List<Object[]> rows(int count, long seed) {
        Random rnd = new Random(seed);
        List<Object[]> rows = new ArrayList<>();
        int width = TYPES.size() + 5;
        for (int i = 0; i < count; i++) {
            Object[] row = new Object[width];
            boolean edge = i == 0 || i == count - 1;
            row[0] = edge ? null : "t" + (i % 7);
            for (int k = 0; k < TYPES.size(); k++) {
                Object[] values = accepted(TYPES.get(k));
                row[k + 1] = edge || rnd.nextInt(5) == 0 ? null : values[rnd.nextInt(values.length)];
            }
            // never_long, never_text, never_double stay null in every row
            long nanos = 1_600_000_000_000_000_000L + i * 1_000L;
            row[width - 1] = switch (i % 5) {
                case 0 -> nanos;
                case 1 -> Instant.ofEpochSecond(0, nanos);
                case 2 -> OffsetDateTime.ofInstant(Instant.ofEpochSecond(0, nanos), ZoneOffset.ofHours(-3));
                case 3 -> ZonedDateTime.ofInstant(Instant.ofEpochSecond(0, nanos), ZoneOffset.UTC);
                default -> i; // an Integer count of nanoseconds, distinct from the others
            };
            rows.add(row);
        }
        return rows;
    }

    @ParameterizedTest
    @CsvSource({"1, None, false", "7, None, true", "1000, None, true", "1001, Zstd, true", "999, Lz4, false",
        "2, Lz4, true"})
    void storedAsTheRegularPathStoresThem(int batchRows, Compression compression, boolean appender)
            throws Exception {
        try (var sc = ServerAndClientAccess.start()) {
            int count = batchRows <= 7 ? 120 : 2 * batchRows + 3;
            List<Object[]> rows = rows(count, batchRows + 17L * compression.ordinal());
            String c = compression.name().toLowerCase() + "_" + batchRows;
            String bulk = "classes_bulk_" + c;
            try (BulkStreamWriter w = sc.db().bulkStreamWriter(schema(bulk), BulkWrite.Config.newBuilder().build(),
                    Context.newBuilder().compression(compression).build())) {
                TableBufferRoot batch = w.tableBufferRoot(batchRows);
                BulkRows.Sent sent = new BulkRows.Sent();
                for (int i = 0; i < rows.size(); i++) {
                    Object[] row = rows.get(i);
                    if (appender && i % 3 == 1) {
                        RowAppender a = batch.appender();
                        for (int col = row.length - 1; col >= 0; col--) { // the time index first, text last
                            if (row[col] != null) {
                                a.setValue(col, row[col]);
                            } else if (col % 2 == 0) {
                                a.setNull(col); // the others left unset: NULL at endRow
                            }
                        }
                        a.endRow();
                    } else {
                        batch.addRow(row);
                    }
                    if (batch.rowCount() == batchRows) {
                        sent.send(w, batchRows);
                    }
                }
                if (batch.rowCount() > 0) {
                    sent.send(w, batch.rowCount());
                }
                sent.assertAllAcknowledged();
            }
            String regular = "classes_regular_" + c;
            BulkRows.writeRegular(sc.db(), schema(regular), rows);
            assertEquals(sc.server().schema(regular).columns(), sc.server().schema(bulk).columns());
            BulkRows.assertSameRows(sc.server(), regular, bulk);
        }
    }
}
