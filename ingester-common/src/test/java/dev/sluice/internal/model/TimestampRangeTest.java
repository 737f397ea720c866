package dev.sluice.internal.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sluice.data.DataType;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Instants convert to each timestamp unit over the unit's whole range, including just above its minimum. */
class TimestampRangeTest {
    @Test
    void nanosecondTimestampsAcceptEveryInstantDownToTheSmallestLong() {
        Instant min = Instant.parse("1677-09-21T00:12:43.145224192Z");
        assertEquals(Long.MIN_VALUE, Coercion.toLong(DataType.TimestampNanosecond, min));
        assertEquals(Long.MIN_VALUE + 1, Coercion.toLong(DataType.TimestampNanosecond, min.plusNanos(1)));
        // The whole second that used to overflow before the nanos were added.
        Instant inside = Instant.parse("1677-09-21T00:12:43.999999999Z");
        assertEquals(Math.addExact(Long.MIN_VALUE, 854_775_807L), Coercion.toLong(DataType.TimestampNanosecond, inside));
        assertEquals(-9_223_372_036_000_000_000L,
                Coercion.toLong(DataType.TimestampNanosecond, Instant.parse("1677-09-21T00:12:44Z")));
        assertEquals(Long.MAX_VALUE,
                Coercion.toLong(DataType.TimestampNanosecond, Instant.parse("2262-04-11T23:47:16.854775807Z")));
    }

    @Test
    void instantsOutsideTheNanosecondRangeAreRefused() {
        Instant below = Instant.parse("1677-09-21T00:12:43.145224191Z");
        assertThrows(Coercion.Rejection.class, () -> Coercion.toLong(DataType.TimestampNanosecond, below));
        Instant above = Instant.parse("2262-04-11T23:47:16.854775808Z");
        assertThrows(Coercion.Rejection.class, () -> Coercion.toLong(DataType.TimestampNanosecond, above));
    }

    @Test
    void negativeInstantsWithAFractionRoundTowardTheirSecondInEveryUnit() {
        Instant t = Instant.parse("1969-12-31T23:59:58.123456789Z");
        assertEquals(-1_876_543_211L, Coercion.toLong(DataType.TimestampNanosecond, t));
        assertEquals(-1_876_544L, Coercion.toLong(DataType.TimestampMicrosecond, t));
        assertEquals(-1_877L, Coercion.toLong(DataType.TimestampMillisecond, t));
        assertEquals(-2L, Coercion.toLong(DataType.TimestampSecond, t));
    }
}
