package dev.sluice.importer.internal.plan;

import dev.sluice.data.DataType;
import dev.sluice.data.DecimalType;
import dev.sluice.data.TableSchema;
import dev.sluice.importer.internal.source.ParquetSource;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Column type names: {@code --types} values, the server's DESC TABLE names, and SQL for CREATE TABLE. */
public final class TypeNames {
    private static final Pattern DECIMAL = Pattern.compile("(?i)decimal(?:128)?\\s*(?:\\(\\s*(\\d+)\\s*(?:,\\s*(\\d+)\\s*)?\\))?");
    private static final Pattern TIMESTAMP = Pattern.compile("(?i)timestamp\\s*\\(\\s*(\\d)\\s*\\)");

    private TypeNames() {
    }

    /**
     * Returns the types a source's file declares as column types.
     *
     * @param declared the types by source column (Parquet)
     * @return the same types by source column, in its order
     */
    public static java.util.Map<String, Type> of(java.util.Map<String, ParquetSource.Declared> declared) {
        java.util.Map<String, Type> out = new java.util.LinkedHashMap<>();
        declared.forEach((name, d) -> out.put(name, new Type(d.type(), d.decimal())));
        return out;
    }

    /**
     * A column type: the data type and, for decimals, precision and scale.
     *
     * @param type the data type
     * @param decimal precision and scale, or null
     */
    public record Type(DataType type, DecimalType decimal) {
        /**
         * Returns the SQL name GreptimeDB's CREATE TABLE takes.
         *
         * @return the SQL type
         */
        public String sql() {
            switch (type) {
                case Bool: return "BOOLEAN";
                case Int8: return "TINYINT";
                case Int16: return "SMALLINT";
                case Int32: return "INT";
                case Int64: return "BIGINT";
                case UInt8: return "TINYINT UNSIGNED";
                case UInt16: return "SMALLINT UNSIGNED";
                case UInt32: return "INT UNSIGNED";
                case UInt64: return "BIGINT UNSIGNED";
                case Float32: return "FLOAT";
                case Float64: return "DOUBLE";
                case String: return "STRING";
                case Binary: return "VARBINARY";
                case Date: return "DATE";
                case TimestampSecond: return "TIMESTAMP(0)";
                case TimestampMillisecond: return "TIMESTAMP(3)";
                case TimestampMicrosecond: return "TIMESTAMP(6)";
                case TimestampNanosecond: return "TIMESTAMP(9)";
                case TimeSecond: return "TIME(0)";
                case TimeMillisecond: return "TIME(3)";
                case TimeMicrosecond: return "TIME(6)";
                case TimeNanosecond: return "TIME(9)";
                case Decimal128: return "DECIMAL(" + decimal.precision() + ", " + decimal.scale() + ")";
                case Json: return "JSON";
                default: return type.name().toUpperCase(Locale.ROOT);
            }
        }

        @Override
        public String toString() {
            return type == DataType.Decimal128 ? "Decimal(" + decimal.precision() + ", " + decimal.scale() + ")" : type.name();
        }
    }

    /**
     * Parses a type name: a {@code DataType} name ({@code Int64}, {@code TimestampMillisecond}...), the server's
     * DESC TABLE name ({@code Boolean}, {@code Decimal(10, 2)}), or a SQL name ({@code BIGINT}, {@code DOUBLE},
     * {@code STRING}, {@code TIMESTAMP(3)}...).
     *
     * @param s the name
     * @return the type
     * @throws IllegalArgumentException for an unknown name
     */
    public static Type parse(String s) {
        String t = s.strip();
        Matcher dm = DECIMAL.matcher(t);
        if (dm.matches()) {
            int p = dm.group(1) == null ? 38 : Integer.parseInt(dm.group(1));
            int sc = dm.group(2) == null ? (dm.group(1) == null ? 10 : 0) : Integer.parseInt(dm.group(2));
            return new Type(DataType.Decimal128, new DecimalType(p, sc));
        }
        Matcher tm = TIMESTAMP.matcher(t);
        if (tm.matches()) {
            switch (tm.group(1)) {
                case "0": return new Type(DataType.TimestampSecond, null);
                case "3": return new Type(DataType.TimestampMillisecond, null);
                case "6": return new Type(DataType.TimestampMicrosecond, null);
                case "9": return new Type(DataType.TimestampNanosecond, null);
                default: break;
            }
        }
        for (DataType d : DataType.values()) {
            if (d.name().equalsIgnoreCase(t)) {
                return new Type(d, null);
            }
        }
        switch (t.toLowerCase(Locale.ROOT).replaceAll("\\s+", " ")) {
            case "boolean": case "bool": return new Type(DataType.Bool, null);
            case "tinyint": return new Type(DataType.Int8, null);
            case "smallint": return new Type(DataType.Int16, null);
            case "int": case "integer": return new Type(DataType.Int32, null);
            case "bigint": case "long": return new Type(DataType.Int64, null);
            case "tinyint unsigned": return new Type(DataType.UInt8, null);
            case "smallint unsigned": return new Type(DataType.UInt16, null);
            case "int unsigned": return new Type(DataType.UInt32, null);
            case "bigint unsigned": return new Type(DataType.UInt64, null);
            case "float": case "real": return new Type(DataType.Float32, null);
            case "double": return new Type(DataType.Float64, null);
            case "string": case "text": case "varchar": return new Type(DataType.String, null);
            case "varbinary": case "bytes": return new Type(DataType.Binary, null);
            case "timestamp": case "timestamp_ms": return new Type(DataType.TimestampMillisecond, null);
            case "timestamp_s": return new Type(DataType.TimestampSecond, null);
            case "timestamp_us": return new Type(DataType.TimestampMicrosecond, null);
            case "timestamp_ns": return new Type(DataType.TimestampNanosecond, null);
            default:
                throw new IllegalArgumentException("unknown type '" + s + "': use Int64, Float64, Boolean, String, Json,"
                        + " Date, TimestampSecond|Millisecond|Microsecond|Nanosecond, Decimal(p,s), Binary, or a SQL name"
                        + " (BIGINT, DOUBLE, STRING, TIMESTAMP(3)...)");
        }
    }

    /**
     * Returns a schema column's type.
     *
     * @param c the column
     * @return its type
     */
    public static Type of(TableSchema.Column c) {
        return new Type(c.dataType(), c.decimalType());
    }
}
