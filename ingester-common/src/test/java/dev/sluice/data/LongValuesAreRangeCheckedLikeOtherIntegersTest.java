package dev.sluice.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * A {@code Long} value is accepted, stored and refused as the same number given as an {@code Integer} (or a
 * {@code BigInteger} beyond the int range) is: every integral and date column keeps its range and its message.
 */
class LongValuesAreRangeCheckedLikeOtherIntegersTest {
    private static Table oneColumn(DataType type) {
        return Table.from(TableSchema.newBuilder("longs").addField("v", type)
                .addTimestamp("ts", DataType.TimestampMillisecond).build());
    }

    private static void storedAsIs(DataType type, long value) {
        Table t = oneColumn(type).addRow(value, 1L);
        assertEquals(value, t.column(0).getLong(0), type + " keeps " + value);
    }

    private static void refusedLikeABox(DataType type, long value, Object sameAsBox, String message) {
        InvalidDataException asLong = assertThrows(InvalidDataException.class, () -> oneColumn(type).addRow(value, 1L));
        InvalidDataException asBox = assertThrows(InvalidDataException.class, () -> oneColumn(type).addRow(sameAsBox, 1L));
        assertTrue(asLong.getMessage().contains(message), () -> "'" + asLong.getMessage() + "' should say '" + message + "'");
        assertEquals(asBox.getMessage(), asLong.getMessage(), type + ": a Long and " + sameAsBox.getClass().getSimpleName()
                + " " + sameAsBox + " are refused alike");
        assertEquals("v", asLong.column());
    }

    @Test
    void narrowIntegersAndDatesKeepTheirRangesForLongValues() {
        Object[][] ranges = {
            {DataType.Int8, -128L, 127L},
            {DataType.Int16, -32_768L, 32_767L},
            {DataType.UInt8, 0L, 255L},
            {DataType.UInt16, 0L, 65_535L},
        };
        for (Object[] r : ranges) {
            DataType type = (DataType) r[0];
            long min = (Long) r[1];
            long max = (Long) r[2];
            storedAsIs(type, min);
            storedAsIs(type, max);
            refusedLikeABox(type, max + 1, (int) (max + 1),
                    (max + 1) + " is outside the " + type + " range " + min + ".." + max);
            refusedLikeABox(type, min - 1, (int) (min - 1),
                    (min - 1) + " is outside the " + type + " range " + min + ".." + max);
        }
        storedAsIs(DataType.Int32, Integer.MIN_VALUE);
        storedAsIs(DataType.Int32, Integer.MAX_VALUE);
        InvalidDataException int32 = assertThrows(InvalidDataException.class,
                () -> oneColumn(DataType.Int32).addRow(Integer.MAX_VALUE + 1L, 1L));
        assertTrue(int32.getMessage().contains((Integer.MAX_VALUE + 1L) + " is outside the Int32 range"), int32::getMessage);
        storedAsIs(DataType.UInt32, 4_294_967_295L);
        refusedLikeABox(DataType.UInt32, -1L, -1, "-1 is outside the UInt32 range 0..4294967295");
        storedAsIs(DataType.Date, Integer.MIN_VALUE);
        storedAsIs(DataType.Date, Integer.MAX_VALUE);
        InvalidDataException date = assertThrows(InvalidDataException.class,
                () -> oneColumn(DataType.Date).addRow(Integer.MAX_VALUE + 1L, 1L));
        assertTrue(date.getMessage().contains((Integer.MAX_VALUE + 1L) + " is outside the Date range"), date::getMessage);
    }

    @Test
    void wideIntegersTimestampsAndTimesTakeEveryLongTheyTookBefore() {
        for (long v : new long[] {Long.MIN_VALUE, -1L, 0L, Long.MAX_VALUE}) {
            storedAsIs(DataType.Int64, v);
            storedAsIs(DataType.TimestampSecond, v);
            storedAsIs(DataType.TimestampMillisecond, v);
            storedAsIs(DataType.TimestampMicrosecond, v);
            storedAsIs(DataType.TimestampNanosecond, v);
        }
        storedAsIs(DataType.UInt64, Long.MAX_VALUE);
        storedAsIs(DataType.TimeMillisecond, 86_399_999L);
        storedAsIs(DataType.TimeNanosecond, 86_399_999_999_999L);
        refusedLikeABox(DataType.UInt64, -1L, -1, "-1 is negative; UInt64 takes 0..2^64-1");
    }
}
