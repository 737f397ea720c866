package dev.sluice.internal.write;

import dev.sluice.data.DataType;
import dev.sluice.internal.wire.ColumnDataType;
import dev.sluice.internal.wire.SemanticType;

/** The protocol's enum for each column type and role the client writes. */
public final class WireTypes {
    private WireTypes() {
    }

    /**
     * Maps a column type to GreptimeDB's {@code ColumnDataType}.
     *
     * @param t the type
     * @return its protocol enum
     */
    public static ColumnDataType of(DataType t) {
        switch (t) {
            case Bool: return ColumnDataType.BOOLEAN;
            case Int8: return ColumnDataType.INT8;
            case Int16: return ColumnDataType.INT16;
            case Int32: return ColumnDataType.INT32;
            case Int64: return ColumnDataType.INT64;
            case UInt8: return ColumnDataType.UINT8;
            case UInt16: return ColumnDataType.UINT16;
            case UInt32: return ColumnDataType.UINT32;
            case UInt64: return ColumnDataType.UINT64;
            case Float32: return ColumnDataType.FLOAT32;
            case Float64: return ColumnDataType.FLOAT64;
            case Binary: return ColumnDataType.BINARY;
            case String: return ColumnDataType.STRING;
            case Date: return ColumnDataType.DATE;
            case TimestampSecond: return ColumnDataType.TIMESTAMP_SECOND;
            case TimestampMillisecond: return ColumnDataType.TIMESTAMP_MILLISECOND;
            case TimestampMicrosecond: return ColumnDataType.TIMESTAMP_MICROSECOND;
            case TimestampNanosecond: return ColumnDataType.TIMESTAMP_NANOSECOND;
            case TimeSecond: return ColumnDataType.TIME_SECOND;
            case TimeMillisecond: return ColumnDataType.TIME_MILLISECOND;
            case TimeMicrosecond: return ColumnDataType.TIME_MICROSECOND;
            case TimeNanosecond: return ColumnDataType.TIME_NANOSECOND;
            case Decimal128: return ColumnDataType.DECIMAL128;
            case Json: return ColumnDataType.JSON;
            case Vector: return ColumnDataType.VECTOR;
            default: throw new IllegalArgumentException("no protocol type for " + t);
        }
    }

    /**
     * Maps a column role to GreptimeDB's {@code SemanticType}.
     *
     * @param s the role
     * @return its protocol enum
     */
    public static SemanticType of(dev.sluice.data.SemanticType s) {
        switch (s) {
            case Tag: return SemanticType.TAG;
            case Field: return SemanticType.FIELD;
            case Timestamp: return SemanticType.TIMESTAMP;
            default: throw new IllegalArgumentException("no protocol role for " + s);
        }
    }
}
