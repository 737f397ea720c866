package dev.sluice.internal.write;

import dev.sluice.data.DataType;

/** Which {@code Value} oneof field carries each column type (JSON travels as {@code string_value}). */
public final class ValueFields {
    private ValueFields() {
    }

    /**
     * Returns the {@code greptime.v1.Value} field number for a column type.
     *
     * @param t the column type
     * @return the oneof field number
     */
    public static int of(DataType t) {
        switch (t) {
            case Bool: return 11;
            case Int8: return 1;
            case Int16: return 2;
            case Int32: return 3;
            case Int64: return 4;
            case UInt8: return 5;
            case UInt16: return 6;
            case UInt32: return 7;
            case UInt64: return 8;
            case Float32: return 9;
            case Float64: return 10;
            case Binary: case Vector: return 12;
            case String: case Json: return 13;
            case Date: return 14;
            case TimestampSecond: return 16;
            case TimestampMillisecond: return 17;
            case TimestampMicrosecond: return 18;
            case TimestampNanosecond: return 19;
            case TimeSecond: return 20;
            case TimeMillisecond: return 21;
            case TimeMicrosecond: return 22;
            case TimeNanosecond: return 23;
            case Decimal128: return 31;
            default: throw new IllegalStateException(t.toString());
        }
    }
}
