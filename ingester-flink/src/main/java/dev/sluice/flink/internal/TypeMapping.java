package dev.sluice.flink.internal;

import dev.sluice.BatchingWriter;
import dev.sluice.data.DataType;
import dev.sluice.data.RowAppender;
import dev.sluice.flink.WritePath;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.MultisetType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;

/**
 * How Flink's logical types become GreptimeDB column types, and how a value of each is set on a row. The module's
 * README carries the same mapping as a table.
 */
public final class TypeMapping {
    private TypeMapping() {
    }

    /**
     * The GreptimeDB column type of a Flink type.
     *
     * @param column the column's name (for the message)
     * @param t the Flink type
     * @param path the write path
     * @param pathFromConnectionString the path was chosen by option 'connection' ({@code write_path}), not by option
     *     'write.path' (for the message's next step)
     * @return the column type
     * @throws IllegalArgumentException naming the column and type when GreptimeDB cannot hold it on this path
     */
    public static DataType columnType(String column, LogicalType t, WritePath path,
                                      boolean pathFromConnectionString) {
        DataType d = switch (t.getTypeRoot()) {
            case BOOLEAN -> DataType.Bool;
            case TINYINT -> DataType.Int8;
            case SMALLINT -> DataType.Int16;
            case INTEGER -> DataType.Int32;
            case BIGINT -> DataType.Int64;
            case FLOAT -> DataType.Float32;
            case DOUBLE -> DataType.Float64;
            case DECIMAL -> DataType.Decimal128;
            case CHAR, VARCHAR -> DataType.String;
            case BINARY, VARBINARY -> DataType.Binary;
            case DATE -> DataType.Date;
            case TIME_WITHOUT_TIME_ZONE -> ((TimeType) t).getPrecision() == 0 ? DataType.TimeSecond : DataType.TimeMillisecond;
            case TIMESTAMP_WITHOUT_TIME_ZONE -> timestampUnit(((TimestampType) t).getPrecision());
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE -> timestampUnit(((LocalZonedTimestampType) t).getPrecision());
            case ARRAY, MAP, MULTISET, ROW -> DataType.Json;
            default -> throw new IllegalArgumentException("column " + column + " has Flink type " + t
                    + ", which GreptimeDB cannot hold; cast it (e.g. to STRING) in the INSERT's SELECT");
        };
        if (!clientPath(path).carries(d)) {
            throw new IllegalArgumentException("column " + column + " has Flink type " + t + ", written as " + d
                    + (pathFromConnectionString
                    ? ", which the bulk path (write_path=bulk in option 'connection') cannot carry: set"
                            + " write_path=regular in option 'connection' for this table"
                    : ", which 'write.path'='bulk' cannot carry: use 'write.path'='regular' for this table"));
        }
        return d;
    }

    /**
     * The time unit for a fractional-second precision.
     *
     * @param precision 0..9
     * @return seconds for 0, milliseconds for 1..3, microseconds for 4..6, nanoseconds for 7..9
     */
    public static DataType timestampUnit(int precision) {
        if (precision == 0) {
            return DataType.TimestampSecond;
        } else if (precision <= 3) {
            return DataType.TimestampMillisecond;
        } else if (precision <= 6) {
            return DataType.TimestampMicrosecond;
        }
        return DataType.TimestampNanosecond;
    }

    /** Sets one non-null field of a Flink row on a GreptimeDB row. */
    @FunctionalInterface
    public interface Setter extends Serializable {
        /**
         * Sets the value.
         *
         * @param row the Flink row
         * @param pos the field's position
         * @param out the row being built
         * @param col the column's index
         */
        void set(RowData row, int pos, RowAppender out, int col);
    }

    /**
     * The setter for a Flink type.
     *
     * @param t the Flink type (accepted by {@link #columnType})
     * @return the setter
     */
    public static Setter setter(LogicalType t) {
        switch (t.getTypeRoot()) {
            case BOOLEAN:
                return (r, p, o, c) -> o.setBoolean(c, r.getBoolean(p));
            case TINYINT:
                return (r, p, o, c) -> o.setLong(c, r.getByte(p));
            case SMALLINT:
                return (r, p, o, c) -> o.setLong(c, r.getShort(p));
            case INTEGER:
                return (r, p, o, c) -> o.setLong(c, r.getInt(p));
            case BIGINT:
                return (r, p, o, c) -> o.setLong(c, r.getLong(p));
            case FLOAT:
                return (r, p, o, c) -> o.setDouble(c, r.getFloat(p));
            case DOUBLE:
                return (r, p, o, c) -> o.setDouble(c, r.getDouble(p));
            case DECIMAL: {
                DecimalType d = (DecimalType) t;
                int precision = d.getPrecision();
                int scale = d.getScale();
                return (r, p, o, c) -> o.setDecimal(c, r.getDecimal(p, precision, scale).toBigDecimal());
            }
            case CHAR:
            case VARCHAR:
                return (r, p, o, c) -> o.setString(c, r.getString(p).toString());
            case BINARY:
            case VARBINARY:
                return (r, p, o, c) -> o.setBytes(c, r.getBinary(p));
            case DATE:
                return (r, p, o, c) -> o.setLong(c, r.getInt(p));
            case TIME_WITHOUT_TIME_ZONE:
                return ((TimeType) t).getPrecision() == 0
                        ? (r, p, o, c) -> o.setLong(c, r.getInt(p) / 1000)
                        : (r, p, o, c) -> o.setLong(c, r.getInt(p));
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return timestampSetter(((TimestampType) t).getPrecision());
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return timestampSetter(((LocalZonedTimestampType) t).getPrecision());
            case ARRAY:
            case MAP:
            case MULTISET:
            case ROW: {
                JsonReader reader = jsonReader(t);
                return (r, p, o, c) -> o.setValue(c, reader.read(r, p));
            }
            default:
                throw new IllegalArgumentException("no GreptimeDB type for " + t);
        }
    }

    private static Setter timestampSetter(int precision) {
        if (precision == 0) {
            return (r, p, o, c) -> o.setLong(c, Math.floorDiv(r.getTimestamp(p, 0).getMillisecond(), 1000L));
        } else if (precision <= 3) {
            return (r, p, o, c) -> o.setLong(c, r.getTimestamp(p, precision).getMillisecond());
        } else if (precision <= 6) {
            return (r, p, o, c) -> {
                TimestampData ts = r.getTimestamp(p, precision);
                o.setLong(c, Math.addExact(Math.multiplyExact(ts.getMillisecond(), 1000L),
                        ts.getNanoOfMillisecond() / 1000));
            };
        }
        return (r, p, o, c) -> {
            TimestampData ts = r.getTimestamp(p, precision);
            long ms = ts.getMillisecond();
            int nanos = ts.getNanoOfMillisecond();
            long value;
            try {
                // Borrowing a millisecond keeps the product in range down to the int64 minimum,
                // 1677-09-21T00:12:43.145224192.
                value = ms < 0 && nanos > 0
                        ? Math.addExact(Math.multiplyExact(ms + 1, 1_000_000L), nanos - 1_000_000L)
                        : Math.addExact(Math.multiplyExact(ms, 1_000_000L), nanos);
            } catch (ArithmeticException e) {
                // Outside int64 nanoseconds: the client refuses the instant naming table, column, row and range.
                o.setTimestamp(c, ts.toInstant());
                throw new IllegalStateException("the client took " + ts + " for a nanosecond column", e);
            }
            o.setLong(c, value);
        };
    }

    /** Reads a nested value as a tree of maps, lists and scalars (written as JSON). */
    @FunctionalInterface
    interface JsonReader extends Serializable {
        Object read(RowData row, int pos);
    }

    /** Reads one element of an array. */
    @FunctionalInterface
    interface ElementReader extends Serializable {
        Object read(ArrayData array, int i);
    }

    private static JsonReader jsonReader(LogicalType t) {
        switch (t.getTypeRoot()) {
            case ARRAY: {
                ElementReader e = elementReader(((ArrayType) t).getElementType());
                return (r, p) -> list(r.getArray(p), e);
            }
            case MULTISET: {
                ElementReader k = elementReader(((MultisetType) t).getElementType());
                return (r, p) -> multiset(r.getMap(p), k);
            }
            case MAP: {
                MapType m = (MapType) t;
                ElementReader k = elementReader(m.getKeyType());
                ElementReader v = elementReader(m.getValueType());
                return (r, p) -> map(r.getMap(p), k, v);
            }
            case ROW: {
                RowType rt = (RowType) t;
                int n = rt.getFieldCount();
                List<String> names = rt.getFieldNames();
                return (r, p) -> rowTree(r.getRow(p, n), rt, names);
            }
            default:
                return scalarReader(t)::read;
        }
    }

    @FunctionalInterface
    interface ScalarReader extends Serializable {
        Object read(RowData row, int pos);
    }

    private static ScalarReader scalarReader(LogicalType t) {
        return switch (t.getTypeRoot()) {
            case CHAR, VARCHAR -> (r, p) -> r.getString(p).toString();
            case DECIMAL -> {
                DecimalType d = (DecimalType) t;
                yield (r, p) -> r.getDecimal(p, d.getPrecision(), d.getScale()).toBigDecimal();
            }
            case TIMESTAMP_WITHOUT_TIME_ZONE, TIMESTAMP_WITH_LOCAL_TIME_ZONE -> {
                int precision = t instanceof TimestampType ts ? ts.getPrecision()
                        : ((LocalZonedTimestampType) t).getPrecision();
                yield (r, p) -> r.getTimestamp(p, precision).toInstant().toString();
            }
            case DATE -> (r, p) -> java.time.LocalDate.ofEpochDay(r.getInt(p)).toString();
            case TIME_WITHOUT_TIME_ZONE -> (r, p) -> java.time.LocalTime.ofNanoOfDay(r.getInt(p) * 1_000_000L).toString();
            case BINARY, VARBINARY -> (r, p) -> java.util.Base64.getEncoder().encodeToString(r.getBinary(p));
            case ARRAY, MAP, MULTISET, ROW -> jsonReader(t)::read;
            default -> (r, p) -> String.valueOf(RowData.createFieldGetter(t, p).getFieldOrNull(r));
        };
    }

    private static ElementReader elementReader(LogicalType t) {
        ArrayData.ElementGetter g = ArrayData.createElementGetter(t);
        ElementReader raw = switch (t.getTypeRoot()) {
            case CHAR, VARCHAR -> (a, i) -> a.getString(i).toString();
            case DECIMAL -> (a, i) -> ((DecimalData) g.getElementOrNull(a, i)).toBigDecimal();
            case TIMESTAMP_WITHOUT_TIME_ZONE, TIMESTAMP_WITH_LOCAL_TIME_ZONE ->
                    (a, i) -> ((TimestampData) g.getElementOrNull(a, i)).toInstant().toString();
            case DATE -> (a, i) -> java.time.LocalDate.ofEpochDay(a.getInt(i)).toString();
            case TIME_WITHOUT_TIME_ZONE -> (a, i) -> java.time.LocalTime.ofNanoOfDay(a.getInt(i) * 1_000_000L).toString();
            case BINARY, VARBINARY -> (a, i) -> java.util.Base64.getEncoder().encodeToString(a.getBinary(i));
            case ARRAY -> {
                ElementReader e = elementReader(((ArrayType) t).getElementType());
                yield (a, i) -> list(a.getArray(i), e);
            }
            case MULTISET -> {
                ElementReader k = elementReader(((MultisetType) t).getElementType());
                yield (a, i) -> multiset(a.getMap(i), k);
            }
            case MAP -> {
                MapType m = (MapType) t;
                ElementReader k = elementReader(m.getKeyType());
                ElementReader v = elementReader(m.getValueType());
                yield (a, i) -> map(a.getMap(i), k, v);
            }
            case ROW -> {
                RowType rt = (RowType) t;
                int n = rt.getFieldCount();
                List<String> names = rt.getFieldNames();
                yield (a, i) -> rowTree(a.getRow(i, n), rt, names);
            }
            default -> g::getElementOrNull; // booleans and numbers are boxed Java values already
        };
        return (a, i) -> a.isNullAt(i) ? null : raw.read(a, i);
    }

    private static List<Object> list(ArrayData a, ElementReader e) {
        List<Object> out = new ArrayList<>(a.size());
        for (int i = 0; i < a.size(); i++) {
            out.add(e.read(a, i));
        }
        return out;
    }

    private static List<Object> multiset(MapData m, ElementReader k) {
        List<Object> out = new ArrayList<>();
        ArrayData keys = m.keyArray();
        ArrayData counts = m.valueArray();
        for (int i = 0; i < m.size(); i++) {
            Object v = k.read(keys, i);
            for (int n = 0; n < counts.getInt(i); n++) {
                out.add(v);
            }
        }
        return out;
    }

    private static Map<String, Object> map(MapData m, ElementReader k, ElementReader v) {
        Map<String, Object> out = new LinkedHashMap<>();
        ArrayData keys = m.keyArray();
        ArrayData values = m.valueArray();
        for (int i = 0; i < m.size(); i++) {
            out.put(String.valueOf(k.read(keys, i)), v.read(values, i));
        }
        return out;
    }

    private static Map<String, Object> rowTree(RowData r, RowType t, List<String> names) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (int i = 0; i < names.size(); i++) {
            LogicalType ft = t.getTypeAt(i);
            RowData.FieldGetter g = RowData.createFieldGetter(ft, i);
            Object v = g.getFieldOrNull(r);
            out.put(names.get(i), v == null ? null : fieldValue(ft, r, i, v));
        }
        return out;
    }

    private static Object fieldValue(LogicalType ft, RowData r, int i, Object internal) {
        return switch (ft.getTypeRoot()) {
            case BOOLEAN, TINYINT, SMALLINT, INTEGER, BIGINT, FLOAT, DOUBLE -> internal;
            default -> scalarReader(ft).read(r, i);
        };
    }

    /**
     * The client's write path for the connector's, which also says which column types it carries.
     *
     * @param path the connector's write path
     * @return the client's
     */
    public static BatchingWriter.Path clientPath(WritePath path) {
        return path == WritePath.BULK ? BatchingWriter.Path.Bulk : BatchingWriter.Path.Regular;
    }
}
