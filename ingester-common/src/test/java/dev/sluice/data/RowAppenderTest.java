package dev.sluice.data;

import dev.sluice.internal.model.ArrayColumn;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import org.junit.jupiter.api.Test;

/** The typed appender stores what addRow stores and refuses what addRow refuses, naming table, column and row. */
class RowAppenderTest {
    static final TableSchema ALL = TableSchema.newBuilder("all")
            .addTag("host", DataType.String)
            .addField("b", DataType.Bool).addField("i8", DataType.Int8).addField("u32", DataType.UInt32)
            .addField("i64", DataType.Int64).addField("f32", DataType.Float32).addField("f64", DataType.Float64)
            .addField("bin", DataType.Binary).addField("j", DataType.Json).addField("d", DataType.Date)
            .addField("t", DataType.TimeMillisecond)
            .addColumn("dec", SemanticType.Field, DataType.Decimal128, new DecimalType(10, 2))
            .addTimestamp("ts", DataType.TimestampNanosecond).build();

    static void assertSameColumns(Table a, Table b) {
        assertEquals(a.rowCount(), b.rowCount());
        for (int c = 0; c < a.schema().columnCount(); c++) {
            ColumnVector x = a.column(c);
            ColumnVector y = b.column(c);
            DataType t = x.dataType();
            for (int r = 0; r < a.rowCount(); r++) {
                String where = a.schema().column(c).name() + " row " + r;
                assertEquals(x.isNull(r), y.isNull(r), where);
                if (x.isNull(r)) {
                    continue;
                }
                if (t.isLongBacked()) {
                    assertEquals(x.getLong(r), y.getLong(r), where);
                } else if (t.isDoubleBacked()) {
                    assertEquals(x.getDouble(r), y.getDouble(r), where);
                } else if (t == DataType.Bool) {
                    assertEquals(x.getBool(r), y.getBool(r), where);
                } else if (t == DataType.Decimal128) {
                    assertEquals(((ArrayColumn) x).getDecimalHigh(r), ((ArrayColumn) y).getDecimalHigh(r), where);
                    assertEquals(((ArrayColumn) x).getDecimalLow(r), ((ArrayColumn) y).getDecimalLow(r), where);
                } else {
                    assertArrayEquals(x.getBytes(r), y.getBytes(r), where);
                }
            }
        }
    }

    @Test
    void typedRowsEqualTheSameRowsAddedAsObjects() {
        Instant ts = Instant.parse("2024-01-01T00:00:00.123456789Z");
        Table boxed = Table.from(ALL).addRow("h1", true, (byte) -5, 4_000_000_000L, Long.MIN_VALUE, 1.5f, 2.25,
                new byte[] {1, 2}, "{\"a\":1}", LocalDate.of(2024, 2, 29), LocalTime.of(12, 0, 1), new BigDecimal("12.34"), ts);
        boxed.addRow("h2", null, null, null, null, null, null, null, null, null, null, null, ts.plusNanos(1));
        Table typed = Table.from(ALL);
        RowAppender a = typed.appender();
        a.setString(0, "h1").setBoolean(1, true).setLong(2, -5).setLong(3, 4_000_000_000L).setLong(4, Long.MIN_VALUE)
                .setDouble(5, 1.5).setDouble(6, 2.25).setBytes(7, new byte[] {1, 2}).setString(8, "{\"a\":1}")
                .setLong(9, LocalDate.of(2024, 2, 29).toEpochDay()).setValue(10, LocalTime.of(12, 0, 1))
                .setDecimal(11, new BigDecimal("12.34")).setTimestamp(12, ts).endRow();
        a.setString(a.columnIndex("host"), "h2").setLong(a.columnIndex("ts"), 1_704_067_200_123_456_790L).endRow();
        assertSameColumns(boxed, typed);
    }

    @Test
    void aValueThatDoesNotFitNamesTableColumnAndRowAndKeepsEarlierRows() {
        Table t = Table.from(ALL);
        RowAppender a = t.appender();
        a.setString(0, "ok").setLong(12, 1L).endRow();
        InvalidDataException e = assertThrows(InvalidDataException.class, () -> a.setString(0, "bad").setLong(2, 300));
        assertTrue(e.getMessage().contains("all") && e.getMessage().contains("i8") && e.getMessage().contains("1"),
                e.getMessage());
        assertTrue(e.getMessage().contains("outside the Int8 range"), e.getMessage());
        assertEquals(1, t.rowCount(), "the refused row was dropped, the earlier one kept");
        a.setString(0, "next").setLong(12, 2L).endRow();
        assertEquals(2, t.rowCount());
        assertEquals("next", t.column(0).getString(1));
        assertTrue(t.column(2).isNull(1), "nothing of the dropped row leaks into the next");
    }

    @Test
    void wrongTypesAndAMissingTimeIndexAreRefused() {
        Table t = Table.from(ALL);
        RowAppender a = t.appender();
        assertThrows(InvalidDataException.class, () -> a.setDouble(0, 1.0));
        assertThrows(InvalidDataException.class, () -> a.setString(6, "x"));
        assertThrows(InvalidDataException.class, () -> a.setString(8, "{not json"));
        assertThrows(InvalidDataException.class, () -> a.setLong(5, 1L << 62).setDouble(5, 1e300));
        assertThrows(InvalidDataException.class, () -> a.setNull(12));
        InvalidDataException e = assertThrows(InvalidDataException.class, () -> a.setString(0, "h").endRow());
        assertTrue(e.getMessage().contains("ts"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> a.columnIndex("nope"));
        assertEquals(0, t.rowCount());
    }

    @Test
    void aCompletedTableRefusesTypedRows() {
        Table t = Table.from(ALL);
        t.complete();
        assertThrows(InvalidDataException.class, () -> t.appender().setString(0, "h"));
    }
}
