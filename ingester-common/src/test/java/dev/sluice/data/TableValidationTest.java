package dev.sluice.data;

import dev.sluice.internal.model.ArrayColumn;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Date;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TableValidationTest {
    static final TableSchema CPU = TableSchema.newBuilder("cpu").addTag("host", DataType.String)
            .addField("usage", DataType.Float64).addField("cores", DataType.Int32)
            .addTimestamp("ts", DataType.TimestampMillisecond).build();

    static InvalidDataException rejects(Runnable r) {
        return assertThrows(InvalidDataException.class, r::run);
    }

    static void assertMessage(InvalidDataException e, String... parts) {
        for (String p : parts) {
            assertTrue(e.getMessage().contains(p), () -> "'" + e.getMessage() + "' should contain '" + p + "'");
        }
    }

    @Test
    void wrongArityNamesTableAndRow() {
        Table t = Table.from(CPU).addRow("a", 1.0, 4, 1L);
        InvalidDataException e = rejects(() -> t.addRow("a", 1.0, 1L));
        assertMessage(e, "table 'cpu'", "row 1", "has 3 values but the schema has 4 columns");
        assertEquals(1, e.row());
        assertEquals(1, t.rowCount(), "the bad row was not added");
    }

    @Test
    void wrongJavaTypeNamesTableColumnRowAndAcceptedTypes() {
        Table t = Table.from(CPU);
        InvalidDataException e = rejects(() -> t.addRow("a", "high", 4, 1L));
        assertMessage(e, "table 'cpu'", "column 'usage'", "row 0", "java.lang.String", "Float64", "Double");
        assertEquals("usage", e.column());
        assertEquals("cpu", e.table());
    }

    @Test
    void nullTimeIndexIsRejected() {
        assertMessage(rejects(() -> Table.from(CPU).addRow("a", 1.0, 4, null)), "column 'ts'", "time index cannot be null");
    }

    @Test
    void failedRowLeavesEarlierRowsIntact() {
        Table t = Table.from(CPU).addRow("a", 1.0, 4, 1L).addRow("b", 2.0, 8, 2L);
        rejects(() -> t.addRow("c", 3.0, "x", 3L));
        t.addRow("d", 4.0, null, 4L);
        assertEquals(3, t.rowCount());
        assertEquals("b", t.column(0).getString(1));
        assertEquals("d", t.column(0).getString(2));
        assertEquals(4.0, t.column(1).getDouble(2));
        assertTrue(t.column(2).isNull(2));
        assertEquals(8, t.column(2).getLong(1));
    }

    @Test
    void writingAfterCompleteIsRejected() {
        Table t = Table.from(CPU).addRow("a", 1.0, 4, 1L).complete();
        assertMessage(rejects(() -> t.addRow("b", 1.0, 4, 2L)), "table 'cpu'", "completed");
    }

    @Test
    void duplicateColumnNamesAreRejected() {
        assertMessage(rejects(() -> TableSchema.newBuilder("t").addField("a", DataType.Int32).addField("a", DataType.Int64)
                .addTimestamp("ts", DataType.TimestampSecond).build()), "table 't'", "column 'a'", "duplicate");
    }

    @Test
    void emptyColumnNamesAreRejected() {
        assertMessage(rejects(() -> TableSchema.newBuilder("t").addField("", DataType.Int32)
                .addTimestamp("ts", DataType.TimestampSecond).build()), "table 't'", "empty name");
    }

    @Test
    void reservedColumnNamesAreRejected() {
        assertMessage(rejects(() -> TableSchema.newBuilder("t").addField("__sequence", DataType.Int32)
                .addTimestamp("ts", DataType.TimestampSecond).build()), "column '__sequence'", "reserved");
    }

    @Test
    void invalidTableNamesAreRejected() {
        assertMessage(rejects(() -> TableSchema.newBuilder("1bad name").addTimestamp("ts", DataType.TimestampSecond).build()),
                "table '1bad name'", "invalid table name");
    }

    @Test
    void schemaNeedsExactlyOneTimestamp() {
        assertMessage(rejects(() -> TableSchema.newBuilder("t").addField("a", DataType.Int32).build()),
                "table 't'", "no timestamp column");
        assertMessage(rejects(() -> TableSchema.newBuilder("t").addTimestamp("a", DataType.TimestampSecond)
                .addTimestamp("b", DataType.TimestampSecond).build()), "column 'b'", "second timestamp column");
    }

    @Test
    void timestampColumnMustHaveATimestampType() {
        assertMessage(rejects(() -> TableSchema.newBuilder("t").addTimestamp("ts", DataType.Int64).build()),
                "column 'ts'", "must be a timestamp type");
    }

    @Test
    void integerRangesAreCheckedNotTruncated() {
        TableSchema s = TableSchema.newBuilder("ints").addField("i8", DataType.Int8).addField("u32", DataType.UInt32)
                .addField("u64", DataType.UInt64).addTimestamp("ts", DataType.TimestampSecond).build();
        assertMessage(rejects(() -> Table.from(s).addRow(128, 0, 0, 1L)), "column 'i8'", "128 is outside the Int8 range");
        assertMessage(rejects(() -> Table.from(s).addRow(0, -1, 0, 1L)), "column 'u32'", "outside");
        assertMessage(rejects(() -> Table.from(s).addRow(0, 0, -1L, 1L)), "column 'u64'", "negative");
        assertMessage(rejects(() -> Table.from(s).addRow(0, 0, BigInteger.ONE.shiftLeft(64), 1L)), "column 'u64'", "outside");
        assertMessage(rejects(() -> Table.from(s).addRow(1.5, 0, 0, 1L)), "column 'i8'", "java.lang.Double");
        Table ok = Table.from(s).addRow((byte) -128, 4_294_967_295L, new BigInteger("18446744073709551615"), 1L);
        assertEquals(-1L, ok.column(2).getLong(0), "UInt64 max is held as its bit pattern");
    }

    @Test
    void decimalsAreNeverRounded() {
        TableSchema s = TableSchema.newBuilder("dec").addColumn("d", SemanticType.Field, DataType.Decimal128,
                new DecimalType(5, 2)).addTimestamp("ts", DataType.TimestampSecond).build();
        assertMessage(rejects(() -> Table.from(s).addRow(new BigDecimal("1.234"), 1L)), "column 'd'", "more than 2 fraction digits");
        assertMessage(rejects(() -> Table.from(s).addRow(new BigDecimal("1234.5"), 1L)), "more than 5 digits");
        assertMessage(rejects(() -> Table.from(s).addRow(1.5, 1L)), "java.lang.Double", "BigDecimal");
        Table t = Table.from(s).addRow(new BigDecimal("-999.99"), 1L).addRow(7, 2L);
        assertEquals(-1L, ((ArrayColumn) t.column(0)).getDecimalHigh(0));
        assertEquals(-99_999L, ((ArrayColumn) t.column(0)).getDecimalLow(0));
        assertEquals(700L, ((ArrayColumn) t.column(0)).getDecimalLow(1));
        assertEquals(new BigDecimal("-999.99"), t.column(0).getDecimal(0), "read back with the column's scale");
        assertEquals(new BigDecimal("7.00"), t.column(0).getDecimal(1));
    }

    @Test
    void decimalsOfTheDefaultTypeReadBackWithScaleTen() {
        TableSchema s = TableSchema.newBuilder("dec").addField("d", DataType.Decimal128)
                .addTimestamp("ts", DataType.TimestampSecond).build();
        Table t = Table.from(s).addRow(new BigDecimal("-12345678901234567890.5"), 1L);
        assertEquals(new BigDecimal("-12345678901234567890.5000000000"), t.column(0).getDecimal(0));
    }

    @Test
    void decimalTypeBoundsAreChecked() {
        assertThrows(IllegalArgumentException.class, () -> new DecimalType(39, 0));
        assertThrows(IllegalArgumentException.class, () -> new DecimalType(10, 11));
    }

    @Test
    void jsonTakesMapsListsAndValidText() {
        TableSchema s = TableSchema.newBuilder("j").addField("j", DataType.Json).addTimestamp("ts", DataType.TimestampSecond).build();
        Table t = Table.from(s).addRow(Map.of("a", List.of(1, 2.5, "x\"y", true)), 1L).addRow(" [1, {\"b\": null}] ", 2L);
        assertEquals("{\"a\":[1,2.5,\"x\\\"y\",true]}", t.column(0).getString(0));
        assertMessage(rejects(() -> Table.from(s).addRow("{\"a\":", 1L)), "column 'j'", "not valid JSON");
        assertMessage(rejects(() -> Table.from(s).addRow("{} x", 1L)), "not valid JSON");
        assertMessage(rejects(() -> Table.from(s).addRow(42, 1L)), "java.lang.Integer", "Map, List");
    }

    @Test
    void javaTimeTypesAreConvertedToTheColumnUnit() {
        TableSchema s = TableSchema.newBuilder("times").addField("d", DataType.Date)
                .addField("t_us", DataType.TimeMicrosecond).addField("ts_s", DataType.TimestampSecond)
                .addField("ts_ns", DataType.TimestampNanosecond).addTimestamp("ts", DataType.TimestampMillisecond).build();
        Instant i = Instant.parse("2024-01-01T00:00:01.234567891Z");
        Table t = Table.from(s).addRow(LocalDate.of(1970, 1, 2), LocalTime.of(0, 0, 1, 5_000), i, i, Date.from(i))
                .addRow(-1, 7L, OffsetDateTime.of(1969, 12, 31, 23, 59, 59, 500_000_000, ZoneOffset.UTC), -5L,
                        OffsetDateTime.of(2024, 1, 1, 8, 0, 0, 0, ZoneOffset.ofHours(8)));
        assertEquals(1, t.column(0).getLong(0));
        assertEquals(1_000_005, t.column(1).getLong(0));
        assertEquals(1_704_067_201L, t.column(2).getLong(0));
        assertEquals(1_704_067_201_234_567_891L, t.column(3).getLong(0));
        assertEquals(1_704_067_201_234L, t.column(4).getLong(0));
        assertEquals(-1, t.column(0).getLong(1));
        assertEquals(-1L, t.column(2).getLong(1), "pre-1970 instants round down to the unit");
        assertEquals(1_704_067_200_000L, t.column(4).getLong(1));
        assertMessage(rejects(() -> Table.from(s).addRow(null, null, null, Instant.parse("3000-01-01T00:00:00Z"), 1L)),
                "column 'ts_ns'", "does not fit");
    }

    @Test
    void binaryTakesByteArraysAndByteBuffersWithoutMovingThem() {
        TableSchema s = TableSchema.newBuilder("bin").addField("b", DataType.Binary).addTimestamp("ts", DataType.TimestampSecond).build();
        ByteBuffer buf = ByteBuffer.wrap(new byte[] {1, 2, 3, 4});
        buf.position(1);
        Table t = Table.from(s).addRow(buf, 1L);
        assertEquals(1, buf.position());
        assertEquals(3, t.column(0).getBytes(0).length);
    }

    @Test
    void boxedAndPrimitiveNumbersWidenIntoWiderColumns() {
        TableSchema s = TableSchema.newBuilder("w").addField("i64", DataType.Int64).addField("f64", DataType.Float64)
                .addField("f32", DataType.Float32).addTimestamp("ts", DataType.TimestampSecond).build();
        Table t = Table.from(s).addRow((short) 3, 7, 2.5, 1).addRow(Integer.valueOf(1), 1.5f, 1e10, 2);
        assertEquals(3, t.column(0).getLong(0));
        assertEquals(7.0, t.column(1).getDouble(0));
        assertEquals(1e10f, (float) t.column(2).getDouble(1));
        assertMessage(rejects(() -> Table.from(s).addRow(1, 1, 1e300, 1)), "column 'f32'", "outside the Float32 range");
    }

    @Test
    void repeatedStringInstancesShareOneUtf8CopyAndEqualTextsStayCorrect() {
        String host = "host-é-1";
        Table t = Table.from(CPU).addRow(host, 1.0, 1, 1L).addRow(host, 2.0, 2, 2L)
                .addRow(new String("host-é-1".toCharArray()), 3.0, 3, 3L).addRow("other", 4.0, 4, 4L);
        assertTrue(t.column(0).getBytes(0) == t.column(0).getBytes(1), "the same instance is encoded once");
        assertEquals(host, t.column(0).getString(2));
        assertEquals("other", t.column(0).getString(3));
        assertEquals(9, t.column(0).getBytes(0).length, "8 characters, é taking two bytes");
    }

    @Test
    void tablesGrowPastTheirInitialCapacity() {
        Table t = Table.from(CPU, 1);
        for (int i = 0; i < 10_000; i++) {
            t.addRow("h" + i, (double) i, i % 2 == 0 ? null : i, (long) i);
        }
        assertEquals(10_000, t.rowCount());
        assertEquals("h9999", t.column(0).getString(9_999));
        assertTrue(t.column(2).isNull(9_998));
        assertEquals(9_999, t.column(2).getLong(9_999));
    }
}
