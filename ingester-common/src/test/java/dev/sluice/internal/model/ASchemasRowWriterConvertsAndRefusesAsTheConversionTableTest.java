package dev.sluice.internal.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.sluice.data.DataType;
import dev.sluice.data.InvalidDataException;
import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A schema's {@link RowWriter} (each column's common class worked out once) stores, converts and refuses every
 * value of every scalar type exactly as the conversion table's path ({@code RowWriter.write(schema, ...)}) does:
 * the same calls on the sinks with the same values, or the same refusal naming the same column and row.
 */
class ASchemasRowWriterConvertsAndRefusesAsTheConversionTableTest {
    private static final DataType[] TYPES = {DataType.Bool, DataType.Int8, DataType.Int16, DataType.Int32,
        DataType.Int64, DataType.UInt8, DataType.UInt16, DataType.UInt32, DataType.UInt64, DataType.Float32,
        DataType.Float64, DataType.Binary, DataType.String, DataType.Date, DataType.TimeSecond,
        DataType.TimeMillisecond, DataType.TimeMicrosecond, DataType.TimeNanosecond, DataType.Json};
    private static final DataType[] TIMESTAMPS = {DataType.TimestampSecond, DataType.TimestampMillisecond,
        DataType.TimestampMicrosecond, DataType.TimestampNanosecond};
    private static final Object[] VALUES = {null, 1.5, -0.0, Double.NaN, Double.MAX_VALUE, 2.5f, Float.NaN, 7, 7L,
        Long.MIN_VALUE, Long.MAX_VALUE, -1L, 300L, (short) 3, (byte) 4, BigInteger.TEN, BigInteger.ONE.shiftLeft(64),
        new BigDecimal("1.25"), "web-1", "", "{\"a\":1}", "not json", new StringBuilder("sb"), true,
        new byte[] {1, 2}, Instant.ofEpochSecond(1, 500), LocalDate.of(2024, 1, 2), LocalTime.of(1, 2, 3),
        Map.of("k", 1), List.of(1, 2), new Object()};

    /** Keeps every call a writer makes, as text. */
    private static final class Recording implements ColumnSink {
        final List<String> calls = new ArrayList<>();

        @Override
        public void setNull(int row) {
            calls.add("null " + row);
        }

        @Override
        public void setLong(int row, long value) {
            calls.add("long " + row + " " + value);
        }

        @Override
        public void setDouble(int row, double value) {
            calls.add("double " + row + " " + Double.doubleToRawLongBits(value));
        }

        @Override
        public void setBool(int row, boolean value) {
            calls.add("bool " + row + " " + value);
        }

        @Override
        public void setText(int row, String text) {
            calls.add("text " + row + " " + text);
        }

        @Override
        public void setUtf8(int row, byte[] utf8, int offset, int length) {
            calls.add("utf8 " + row + " " + Arrays.toString(Arrays.copyOfRange(utf8, offset, offset + length)));
        }

        @Override
        public void setBytes(int row, byte[] value) {
            calls.add("bytes " + row + " " + Arrays.toString(value));
        }

        @Override
        public void setDecimal(int row, long hi, long lo) {
            calls.add("decimal " + row + " " + hi + " " + lo);
        }
    }

    /** The sinks' calls, then the refusal's column, row and message, or "stored". */
    private static String outcome(TableSchema schema, Object[] row, boolean perSchema) {
        Recording[] sinks = new Recording[schema.columnCount()];
        for (int c = 0; c < sinks.length; c++) {
            sinks[c] = new Recording();
        }
        String end;
        try {
            if (perSchema) {
                RowWriter.of(schema).write(sinks, 3, row);
            } else {
                RowWriter.write(schema, sinks, 3, row);
            }
            end = "stored";
        } catch (InvalidDataException e) {
            end = "refused " + e.column() + " " + e.row() + " " + e.getMessage();
        }
        StringBuilder b = new StringBuilder();
        for (Recording s : sinks) {
            b.append(s.calls).append(' ');
        }
        return b.append(end).toString();
    }

    @Test
    void everyValueInEveryColumnTypeIsStoredOrRefusedAlikeByBothPaths() {
        int refused = 0;
        int stored = 0;
        for (DataType ts : TIMESTAMPS) {
            for (DataType type : TYPES) {
                TableSchema schema = TableSchema.newBuilder("t").addColumn("v", SemanticType.Field, type)
                        .addTimestamp("ts", ts).build();
                for (Object v : VALUES) {
                    for (Object t : VALUES) {
                        Object[] row = {v, t};
                        String general = outcome(schema, row, false);
                        assertEquals(general, outcome(schema, row, true), type + " " + v + ", " + ts + " " + t);
                        if (general.endsWith("stored")) {
                            stored++;
                        } else {
                            refused++;
                        }
                    }
                }
            }
        }
        assertFalse(stored == 0 || refused == 0, stored + " stored, " + refused + " refused");
    }

    @Test
    void aRowOfTheWrongLengthOrNoRowIsRefusedAlikeByBothPaths() {
        TableSchema schema = TableSchema.newBuilder("t").addTag("host", DataType.String)
                .addField("cpu", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();
        for (Object[] row : new Object[][] {null, {}, {"a", 1.0}, {"a", 1.0, 1L, 2L}}) {
            assertEquals(outcome(schema, row, false), outcome(schema, row, true), Arrays.toString(row));
        }
    }

    @Test
    void aRowRefusedHalfWayLeavesTheSameValuesInTheSinksAsTheConversionTablesPath() {
        TableSchema schema = TableSchema.newBuilder("t").addTag("host", DataType.String)
                .addField("cpu", DataType.Float64).addField("n", DataType.Int64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        Object[] row = {"web-1", 0.5, "seven", 1L};
        String general = outcome(schema, row, false);
        assertEquals(general, outcome(schema, row, true));
        assertEquals(true, general.contains("refused n 3"), general);
    }
}
