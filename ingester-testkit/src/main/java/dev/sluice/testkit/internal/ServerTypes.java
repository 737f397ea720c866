package dev.sluice.testkit.internal;

import com.google.gson.JsonParseException;
import com.google.gson.Strictness;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import dev.sluice.data.DataType;
import dev.sluice.data.DecimalType;
import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import dev.sluice.internal.wire.ColumnDataType;
import dev.sluice.internal.wire.Value;
import java.io.IOException;
import java.io.StringReader;
import java.math.BigInteger;
import java.util.Map;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * The testkit's own reading of GreptimeDB's column types, written from the protocol (the server's public
 * source and its answers), sharing nothing with the client's encoders: which {@code Value} case a column takes, which
 * Arrow type a bulk column must have, how the server names types in its error texts, and how it converts the
 * values it is sent.
 */
public final class ServerTypes {
    /** Arrow field metadata key naming a column's role, read by servers that create tables from a DoPut stream. */
    static final String SEMANTIC_TYPE_KEY = "greptime:semantic_type";
    /** Arrow field metadata key marking JSON columns ({@code Json}). */
    static final String TYPE_KEY = "greptime:type";

    private ServerTypes() {
    }

    /**
     * The {@code Value} oneof case the server accepts for a column type (JSON only as {@code string_value}).
     *
     * @param t the column type
     * @return the case
     */
    public static Value.ValueDataCase valueCase(DataType t) {
        switch (t) {
            case Bool: return Value.ValueDataCase.BOOL_VALUE;
            case Int8: return Value.ValueDataCase.I8_VALUE;
            case Int16: return Value.ValueDataCase.I16_VALUE;
            case Int32: return Value.ValueDataCase.I32_VALUE;
            case Int64: return Value.ValueDataCase.I64_VALUE;
            case UInt8: return Value.ValueDataCase.U8_VALUE;
            case UInt16: return Value.ValueDataCase.U16_VALUE;
            case UInt32: return Value.ValueDataCase.U32_VALUE;
            case UInt64: return Value.ValueDataCase.U64_VALUE;
            case Float32: return Value.ValueDataCase.F32_VALUE;
            case Float64: return Value.ValueDataCase.F64_VALUE;
            // A VECTOR value travels as binary_value: src/mito2/src/request.rs (proto_value_type_match lets a
            // Vector column take a Binary value) and src/api/src/helper.rs (values_with_capacity: binary_values).
            case Binary: case Vector: return Value.ValueDataCase.BINARY_VALUE;
            case String: case Json: return Value.ValueDataCase.STRING_VALUE;
            case Date: return Value.ValueDataCase.DATE_VALUE;
            case TimestampSecond: return Value.ValueDataCase.TIMESTAMP_SECOND_VALUE;
            case TimestampMillisecond: return Value.ValueDataCase.TIMESTAMP_MILLISECOND_VALUE;
            case TimestampMicrosecond: return Value.ValueDataCase.TIMESTAMP_MICROSECOND_VALUE;
            case TimestampNanosecond: return Value.ValueDataCase.TIMESTAMP_NANOSECOND_VALUE;
            case TimeSecond: return Value.ValueDataCase.TIME_SECOND_VALUE;
            case TimeMillisecond: return Value.ValueDataCase.TIME_MILLISECOND_VALUE;
            case TimeMicrosecond: return Value.ValueDataCase.TIME_MICROSECOND_VALUE;
            case TimeNanosecond: return Value.ValueDataCase.TIME_NANOSECOND_VALUE;
            case Decimal128: return Value.ValueDataCase.DECIMAL128_VALUE;
            default: throw new IllegalStateException(t.toString());
        }
    }

    /**
     * The Arrow type a DoPut batch must use for a table column (GreptimeDB's
     * {@code src/datatypes/src/data_type.rs}; JSON columns are Binary, as the server stores JSONB in a binary vector:
     * {@code src/datatypes/src/types/json_type.rs}).
     *
     * @param c the table column
     * @return the Arrow type
     */
    public static ArrowType arrowType(TableSchema.Column c) {
        switch (c.dataType()) {
            case Bool: return ArrowType.Bool.INSTANCE;
            case Int8: return new ArrowType.Int(8, true);
            case Int16: return new ArrowType.Int(16, true);
            case Int32: return new ArrowType.Int(32, true);
            case Int64: return new ArrowType.Int(64, true);
            case UInt8: return new ArrowType.Int(8, false);
            case UInt16: return new ArrowType.Int(16, false);
            case UInt32: return new ArrowType.Int(32, false);
            case UInt64: return new ArrowType.Int(64, false);
            case Float32: return new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
            case Float64: return new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
            case String: return ArrowType.Utf8.INSTANCE;
            // A vector is Binary in Arrow too (VectorType::as_arrow_type, src/datatypes/src/types/vector_type.rs).
            case Binary: case Json: case Vector: return ArrowType.Binary.INSTANCE;
            case Date: return new ArrowType.Date(DateUnit.DAY);
            case TimestampSecond: return new ArrowType.Timestamp(TimeUnit.SECOND, null);
            case TimestampMillisecond: return new ArrowType.Timestamp(TimeUnit.MILLISECOND, null);
            case TimestampMicrosecond: return new ArrowType.Timestamp(TimeUnit.MICROSECOND, null);
            case TimestampNanosecond: return new ArrowType.Timestamp(TimeUnit.NANOSECOND, null);
            case TimeSecond: return new ArrowType.Time(TimeUnit.SECOND, 32);
            case TimeMillisecond: return new ArrowType.Time(TimeUnit.MILLISECOND, 32);
            case TimeMicrosecond: return new ArrowType.Time(TimeUnit.MICROSECOND, 64);
            case TimeNanosecond: return new ArrowType.Time(TimeUnit.NANOSECOND, 64);
            case Decimal128: return new ArrowType.Decimal(c.decimalType().precision(), c.decimalType().scale(), 128);
            default: throw new IllegalStateException(c.dataType().toString());
        }
    }

    /**
     * How arrow-rs prints an Arrow type in the server's "column types must match schema types" error
     * ({@code Utf8}, {@code Int64}, {@code Timestamp(Millisecond, None)}, {@code Decimal128(38, 10)}).
     *
     * @param t the Arrow type
     * @return the server's spelling
     */
    public static String arrowTypeName(ArrowType t) {
        if (t instanceof ArrowType.Int) {
            ArrowType.Int i = (ArrowType.Int) t;
            return (i.getIsSigned() ? "Int" : "UInt") + i.getBitWidth();
        }
        if (t instanceof ArrowType.FloatingPoint) {
            switch (((ArrowType.FloatingPoint) t).getPrecision()) {
                case HALF: return "Float16";
                case SINGLE: return "Float32";
                default: return "Float64";
            }
        }
        if (t instanceof ArrowType.Timestamp) {
            ArrowType.Timestamp ts = (ArrowType.Timestamp) t;
            return "Timestamp(" + unit(ts.getUnit()) + ", "
                    + (ts.getTimezone() == null ? "None" : "Some(\"" + ts.getTimezone() + "\")") + ")";
        }
        if (t instanceof ArrowType.Time) {
            ArrowType.Time tt = (ArrowType.Time) t;
            return "Time" + tt.getBitWidth() + "(" + unit(tt.getUnit()) + ")";
        }
        if (t instanceof ArrowType.Decimal) {
            ArrowType.Decimal d = (ArrowType.Decimal) t;
            return "Decimal" + d.getBitWidth() + "(" + d.getPrecision() + ", " + d.getScale() + ")";
        }
        if (t instanceof ArrowType.Date) {
            return ((ArrowType.Date) t).getUnit() == DateUnit.DAY ? "Date32" : "Date64";
        }
        if (t instanceof ArrowType.Bool) {
            return "Boolean";
        }
        if (t instanceof ArrowType.Utf8) {
            return "Utf8";
        }
        if (t instanceof ArrowType.LargeUtf8) {
            return "LargeUtf8";
        }
        if (t instanceof ArrowType.Binary) {
            return "Binary";
        }
        if (t instanceof ArrowType.LargeBinary) {
            return "LargeBinary";
        }
        return t.toString();
    }

    private static String unit(TimeUnit u) {
        switch (u) {
            case SECOND: return "Second";
            case MILLISECOND: return "Millisecond";
            case MICROSECOND: return "Microsecond";
            default: return "Nanosecond";
        }
    }

    /**
     * How the server prints a table column's type in its region-request errors: the Rust debug form of its
     * {@code ConcreteDataType} (for example {@code String(StringType { size_type: Utf8 })},
     * {@code Timestamp(Millisecond(TimestampMillisecondType))},
     * {@code Decimal128(Decimal128Type { precision: 38, scale: 10 })}); see
     * {@code src/datatypes/src/data_type.rs} and {@code src/datatypes/src/types/*.rs}.
     *
     * @param c the table column
     * @return the server's spelling
     */
    public static String serverTypeName(TableSchema.Column c) {
        DataType t = c.dataType();
        switch (t) {
            case Bool: return "Boolean(BooleanType)";
            case Int8: case Int16: case Int32: case Int64:
            case UInt8: case UInt16: case UInt32: case UInt64:
            case Float32: case Float64:
                return t + "(" + t + "Type)";
            case Binary: return "Binary(BinaryType)";
            case String: return "String(StringType { size_type: Utf8 })";
            case Json: return "Json(JsonType { format: Jsonb })";
            case Date: return "Date(DateType)";
            case TimestampSecond: return "Timestamp(Second(TimestampSecondType))";
            case TimestampMillisecond: return "Timestamp(Millisecond(TimestampMillisecondType))";
            case TimestampMicrosecond: return "Timestamp(Microsecond(TimestampMicrosecondType))";
            case TimestampNanosecond: return "Timestamp(Nanosecond(TimestampNanosecondType))";
            case TimeSecond: return "Time(Second(TimeSecondType))";
            case TimeMillisecond: return "Time(Millisecond(TimeMillisecondType))";
            case TimeMicrosecond: return "Time(Microsecond(TimeMicrosecondType))";
            case TimeNanosecond: return "Time(Nanosecond(TimeNanosecondType))";
            case Decimal128:
                return "Decimal128(Decimal128Type { precision: " + c.decimalType().precision() + ", scale: "
                        + c.decimalType().scale() + " })";
            case Vector: return "Vector(VectorType { dim: " + c.vectorType().dim() + " })";
            default: return t.toString();
        }
    }

    /**
     * How the server prints a requested wire type: the proto enum name and number, {@code INT64(4)}.
     *
     * @param wireNumber the {@code ColumnDataType} number
     * @return the server's spelling
     */
    public static String wireName(int wireNumber) {
        ColumnDataType t = ColumnDataType.forNumber(wireNumber);
        return (t == null ? "UNKNOWN" : t.name()) + "(" + wireNumber + ")";
    }

    /**
     * How Rust prints a {@code ColumnDataType} with {@code {:?}}: prost names the variants in upper camel case from
     * the proto names ({@code INT64} is {@code Int64}, {@code UINT8} is {@code Uint8}, {@code TIMESTAMP_SECOND} is
     * {@code TimestampSecond}).
     *
     * @param wireNumber the {@code ColumnDataType} number
     * @return the Debug spelling
     */
    public static String protoDebugName(int wireNumber) {
        ColumnDataType t = ColumnDataType.forNumber(wireNumber);
        if (t == null || t == ColumnDataType.UNRECOGNIZED) {
            return "Unknown";
        }
        StringBuilder out = new StringBuilder();
        for (String part : t.name().split("_")) {
            if (!part.isEmpty()) {
                out.append(part.charAt(0)).append(part.substring(1).toLowerCase(java.util.Locale.ROOT));
            }
        }
        return out.toString();
    }

    /**
     * The {@code ColumnDataType} a {@code Value} case stands for, as mito's {@code proto_value_type}
     * (src/mito2/src/request.rs) maps it, printed with Rust's Debug ({@link #protoDebugName}).
     *
     * @param kase the value's case
     * @return the type's Debug spelling
     */
    public static String valueCaseTypeName(Value.ValueDataCase kase) {
        String name = kase.name();
        if (name.endsWith("_VALUE")) {
            name = name.substring(0, name.length() - "_VALUE".length());
        }
        switch (name) {
            case "BOOL": name = "BOOLEAN"; break;
            case "I8": case "I16": case "I32": case "I64": name = "INT" + name.substring(1); break;
            case "U8": case "U16": case "U32": case "U64": name = "UINT" + name.substring(1); break;
            case "F32": case "F64": name = "FLOAT" + name.substring(1); break;
            default: break;
        }
        try {
            return protoDebugName(ColumnDataType.valueOf(name).getNumber());
        } catch (IllegalArgumentException notAType) {
            return kase.name();
        }
    }

    /**
     * How the server prints a requested semantic type: {@code TAG(0)}, {@code FIELD(1)}, {@code TIMESTAMP(2)}.
     *
     * @param s the semantic type
     * @return the server's spelling
     */
    public static String wireName(SemanticType s) {
        switch (s) {
            case Tag: return "TAG(0)";
            case Field: return "FIELD(1)";
            default: return "TIMESTAMP(2)";
        }
    }

    /**
     * Rebuilds the unscaled 128-bit value from its two signed 64-bit halves (two's complement, {@code hi} on top).
     *
     * @param hi the upper 64 bits
     * @param lo the lower 64 bits
     * @return the unscaled value
     */
    public static BigInteger unscaled(long hi, long lo) {
        return BigInteger.valueOf(hi).shiftLeft(64).add(new BigInteger(Long.toUnsignedString(lo)));
    }

    /**
     * Reads a stored VECTOR value: {@code dim} float32s, little-endian ({@code src/datatypes/src/types/vector_type.rs},
     * {@code vector_type_value_to_string} reads them with {@code f32::from_le_bytes}).
     *
     * @param bytes the stored bytes
     * @param dim the column's dimension
     * @return the elements, or null when the byte count is not {@code 4 * dim}
     */
    public static float[] vectorElements(byte[] bytes, int dim) {
        if (bytes.length != (long) dim * Float.BYTES) {
            return null;
        }
        float[] out = new float[dim];
        java.nio.ByteBuffer.wrap(bytes).order(java.nio.ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(out);
        return out;
    }

    /**
     * How the server prints a VECTOR value in query results: {@code [1,2.5,-3]}, each element as Rust prints an
     * {@code f32} (shortest round-trip digits, no exponent, {@code NaN}, {@code inf}, {@code -inf}, {@code -0});
     * see {@code vector_type_value_to_string} in {@code src/datatypes/src/types/vector_type.rs}.
     *
     * @param elements the elements
     * @return the text
     */
    public static String vectorText(float[] elements) {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < elements.length; i++) {
            if (i > 0) {
                sb.append(',');
            }
            float f = elements[i];
            if (Float.isNaN(f)) {
                sb.append("NaN");
            } else if (Float.isInfinite(f)) {
                sb.append(f > 0 ? "inf" : "-inf");
            } else if (f == 0f) {
                sb.append(Float.floatToRawIntBits(f) < 0 ? "-0" : "0");
            } else {
                sb.append(new java.math.BigDecimal(Float.toString(f)).stripTrailingZeros().toPlainString());
            }
        }
        return sb.append(']').toString();
    }

    /**
     * Tells whether a text is one complete, strictly valid JSON document (as serde_json/jsonb would parse it).
     *
     * @param text the text
     * @return true when valid
     */
    public static boolean isJson(String text) {
        try (JsonReader r = new JsonReader(new StringReader(text))) {
            r.setStrictness(Strictness.STRICT);
            if (r.peek() == JsonToken.END_DOCUMENT) {
                return false;
            }
            r.skipValue();
            return r.peek() == JsonToken.END_DOCUMENT;
        } catch (IOException | JsonParseException | IllegalStateException e) {
            return false;
        }
    }

    /**
     * Reads a column from an Arrow field carrying GreptimeDB's metadata, for servers that create a missing table
     * from a DoPut stream.
     *
     * @param f the field
     * @return the column, or null when the field has no such metadata or no column type fits its Arrow type
     */
    public static TableSchema.Column columnOf(Field f) {
        Map<String, String> md = f.getMetadata();
        String role = md.get(SEMANTIC_TYPE_KEY);
        SemanticType semantic = "tag".equals(role) ? SemanticType.Tag : "field".equals(role) ? SemanticType.Field
                : "timestamp".equals(role) ? SemanticType.Timestamp : null;
        if (semantic == null) {
            return null;
        }
        if (f.getType() instanceof ArrowType.Decimal) {
            ArrowType.Decimal d = (ArrowType.Decimal) f.getType();
            return new TableSchema.Column(f.getName(), semantic, DataType.Decimal128,
                    new DecimalType(d.getPrecision(), d.getScale()));
        }
        boolean json = "Json".equals(md.get(TYPE_KEY));
        for (DataType t : DataType.values()) {
            if (t == DataType.Decimal128 || t == DataType.Vector || (t == DataType.Json) != json && (t == DataType.Json || t == DataType.Binary)) {
                continue;
            }
            TableSchema.Column c = new TableSchema.Column(f.getName(), semantic, t, null);
            if (arrowType(c).equals(f.getType())) {
                return c;
            }
        }
        return null;
    }

    /**
     * The {@code ColumnDataType} number of a column type, found by the protocol's own enum names (common.proto in
     * GreptimeTeam/greptime-proto): {@code TimestampMillisecond} is {@code TIMESTAMP_MILLISECOND}, {@code Bool} is
     * {@code BOOLEAN}.
     *
     * @param t the type
     * @return its protocol number
     */
    public static int wireNumber(DataType t) {
        String name = t == DataType.Bool ? "BOOLEAN"
                : t.name().replaceAll("([a-z0-9])([A-Z])", "$1_$2").toUpperCase(java.util.Locale.ROOT);
        return ColumnDataType.valueOf(name).getNumber();
    }

    /**
     * The column type a write may create for a {@code ColumnDataType} number.
     *
     * @param wire the protocol number
     * @return the type
     * @throws IllegalArgumentException for a number no write can create
     */
    public static DataType dataType(int wire) {
        for (DataType t : DataType.values()) {
            if (wireNumber(t) == wire) {
                return t;
            }
        }
        throw new IllegalArgumentException("column data type " + wire + " cannot be created by a write");
    }
}
