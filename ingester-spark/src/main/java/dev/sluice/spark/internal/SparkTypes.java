package dev.sluice.spark.internal;

import dev.sluice.data.DecimalType;
import dev.sluice.data.RowAppender;
import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import java.io.Serializable;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import dev.sluice.sql.ServerColumn;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.MapData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * How a DataFrame's columns become GreptimeDB columns, and how a Spark row fills a Sluice row. Spark's timestamps
 * are microseconds, so both {@code timestamp} (an instant) and {@code timestamp_ntz} (a wall-clock time, stored as
 * if it were UTC) become {@code TIMESTAMP(6)}; arrays, maps and structs become JSON on the regular path.
 */
public final class SparkTypes {
    private SparkTypes() {
    }

    /**
     * Builds the table schema a DataFrame is written as.
     *
     * @param struct the DataFrame's schema
     * @param o the write's options (table, tags, time index, path)
     * @param existing the existing table's columns, whose roles (tags, time index) win over the options; null when
     *     the table does not exist
     * @return the schema, one column per field in the DataFrame's order
     * @throws IllegalArgumentException naming the column whose type cannot be written, or a tag or time index
     *     the DataFrame lacks
     */
    public static TableSchema schema(StructType struct, WriteOptions o, List<ServerColumn> existing) {
        Set<String> names = new HashSet<>();
        for (StructField f : struct.fields()) {
            names.add(f.name());
        }
        if (existing != null) {
            Map<String, SemanticType> roles = new HashMap<>();
            existing.forEach(c -> roles.put(c.name(), c.semantic()));
            for (ServerColumn c : existing) {
                if (c.semantic() == SemanticType.Timestamp && !names.contains(c.name())) {
                    throw new IllegalArgumentException("table " + o.table() + " exists with time index " + c.name()
                            + ", which the DataFrame lacks (its columns: " + String.join(", ", struct.fieldNames())
                            + "): add the column, or rename the DataFrame's timestamp to " + c.name());
                }
            }
            Map<String, dev.sluice.data.DataType> types = new HashMap<>();
            existing.forEach(c -> types.put(c.name(), c.type()));
            return build(struct, o, f -> roles.getOrDefault(f, SemanticType.Field), types);
        }
        for (String tag : o.tags()) {
            if (!names.contains(tag)) {
                throw new IllegalArgumentException("option 'tags' names column " + tag + ", which the DataFrame"
                        + " written to table " + o.table() + " lacks (its columns: " + String.join(", ",
                        struct.fieldNames()) + ")");
            }
        }
        String time = o.timeIndex();
        if (time.isEmpty()) {
            List<String> timestamps = new ArrayList<>();
            for (StructField f : struct.fields()) {
                if (f.dataType() instanceof TimestampType || f.dataType() instanceof TimestampNTZType) {
                    timestamps.add(f.name());
                }
            }
            if (timestamps.size() != 1) {
                throw new IllegalArgumentException("table " + o.table() + ": set option 'timeIndex' to the column"
                        + " GreptimeDB indexes time by; the DataFrame has " + (timestamps.isEmpty()
                        ? "no timestamp column" : "several timestamp columns " + timestamps));
            }
            time = timestamps.get(0);
        } else if (!names.contains(time)) {
            throw new IllegalArgumentException("option 'timeIndex' names column " + time + ", which the DataFrame"
                    + " written to table " + o.table() + " lacks (its columns: " + String.join(", ",
                    struct.fieldNames()) + ")");
        }
        String timeIndex = time;
        return build(struct, o, f -> f.equals(timeIndex) ? SemanticType.Timestamp
                : o.tags().contains(f) ? SemanticType.Tag : SemanticType.Field, Map.of());
    }

    /**
     * Builds the schema. A Spark timestamp written to an existing timestamp column takes that column's unit
     * (seconds, milliseconds or nanoseconds too), and a string written to an existing JSON column stays JSON text.
     */
    private static TableSchema build(StructType struct, WriteOptions o, Function<String, SemanticType> role,
                                     Map<String, dev.sluice.data.DataType> existing) {
        TableSchema.Builder b = TableSchema.newBuilder(o.table());
        for (StructField f : struct.fields()) {
            dev.sluice.data.DataType t = columnType(o.table(), f);
            dev.sluice.data.DataType there = existing.get(f.name());
            if (there != null && (t.isTimestamp() && there.isTimestamp()
                    || t == dev.sluice.data.DataType.String && there == dev.sluice.data.DataType.Json)) {
                t = there;
            }
            SemanticType sem = role.apply(f.name());
            if (sem == SemanticType.Timestamp && !t.isTimestamp()) {
                throw new IllegalArgumentException("table " + o.table() + ": the time index " + f.name() + " is "
                        + f.dataType().sql() + "; give a timestamp or timestamp_ntz column (cast it)");
            }
            if (f.dataType() instanceof org.apache.spark.sql.types.DecimalType d) {
                b.addColumn(f.name(), sem, t, new DecimalType(d.precision(), d.scale()));
            } else {
                b.addColumn(f.name(), sem, t);
            }
        }
        return b.build();
    }

    /**
     * Names the Sluice type a Spark column is written as.
     *
     * @param table the table (for the message)
     * @param f the column
     * @return the type
     * @throws IllegalArgumentException for a type with no GreptimeDB column
     */
    static dev.sluice.data.DataType columnType(String table, StructField f) {
        DataType t = f.dataType();
        if (t instanceof BooleanType) {
            return dev.sluice.data.DataType.Bool;
        } else if (t instanceof ByteType) {
            return dev.sluice.data.DataType.Int8;
        } else if (t instanceof ShortType) {
            return dev.sluice.data.DataType.Int16;
        } else if (t instanceof IntegerType) {
            return dev.sluice.data.DataType.Int32;
        } else if (t instanceof LongType) {
            return dev.sluice.data.DataType.Int64;
        } else if (t instanceof FloatType) {
            return dev.sluice.data.DataType.Float32;
        } else if (t instanceof DoubleType) {
            return dev.sluice.data.DataType.Float64;
        } else if (t instanceof org.apache.spark.sql.types.DecimalType) {
            return dev.sluice.data.DataType.Decimal128;
        } else if (t instanceof StringType) {
            return dev.sluice.data.DataType.String;
        } else if (t instanceof BinaryType) {
            return dev.sluice.data.DataType.Binary;
        } else if (t instanceof DateType) {
            return dev.sluice.data.DataType.Date;
        } else if (t instanceof TimestampType || t instanceof TimestampNTZType) {
            return dev.sluice.data.DataType.TimestampMicrosecond;
        } else if (t instanceof ArrayType || t instanceof MapType || t instanceof StructType) {
            return dev.sluice.data.DataType.Json;
        }
        throw new IllegalArgumentException("table " + table + ", column " + f.name() + ": Spark type " + t.sql()
                + " has no GreptimeDB column type; cast it (e.g. to string or bigint) before writing");
    }

    /** Copies one Spark value into a Sluice row. */
    @FunctionalInterface
    interface Setter extends Serializable {
        void set(InternalRow row, int i, RowAppender a);
    }

    /**
     * Sets a Sluice row's values from a Spark row, column by column. The common columns (whole numbers, dates and
     * timestamps in microseconds, doubles, booleans, text) are set by a switch on a kind chosen once per write, with
     * no call through an interface per value; the others through their {@link Setter}. Holds no row: one filler
     * serves every row of a task.
     */
    static final class Filler {
        private static final int OTHER = 0;
        private static final int LONG = 1;
        private static final int INT = 2;
        private static final int DOUBLE = 3;
        private static final int BOOLEAN = 4;
        private static final int TEXT = 5;
        private final int[] kinds;
        private final Setter[] setters;

        /**
         * Chooses how each column is set.
         *
         * @param struct the DataFrame's schema
         * @param table the columns written, in the DataFrame's order
         */
        Filler(StructType struct, TableSchema table) {
            StructField[] fields = struct.fields();
            kinds = new int[fields.length];
            setters = new Setter[fields.length];
            for (int i = 0; i < fields.length; i++) {
                dev.sluice.data.DataType to = table.column(i).dataType();
                DataType t = fields[i].dataType();
                boolean otherUnit = to.isTimestamp() && to != dev.sluice.data.DataType.TimestampMicrosecond;
                setters[i] = otherUnit ? timestampIn(to.unitsPerSecond()) : setter(t);
                kinds[i] = otherUnit ? OTHER
                        : t instanceof LongType || t instanceof TimestampType || t instanceof TimestampNTZType ? LONG
                        : t instanceof IntegerType || t instanceof DateType ? INT
                        : t instanceof DoubleType ? DOUBLE
                        : t instanceof BooleanType ? BOOLEAN
                        : t instanceof StringType ? TEXT : OTHER;
            }
        }

        /**
         * Sets every column of a row (NULL where the Spark row has NULL).
         *
         * @param r the Spark row
         * @param a the Sluice row
         * @return the row's approximate size, as the batching writer counts it: text by its length, other values
         *     10 bytes
         */
        long fill(InternalRow r, RowAppender a) {
            // Text of a row Spark keeps in one array is handed over as the part of that array it lies in, which Sluice
            // copies into its batch (so Spark may reuse the array). The text never starts at the array's start (the
            // row's null bits and fixed-width slots come first), so it is never a whole array Sluice could keep.
            byte[] base = r instanceof UnsafeRow u && u.getBaseObject() instanceof byte[] b ? b : null;
            long start = base == null ? 0 : ((UnsafeRow) r).getBaseOffset() - Platform.BYTE_ARRAY_OFFSET;
            int[] k = kinds;
            long bytes = 10L * k.length;
            for (int i = 0; i < k.length; i++) {
                if (r.isNullAt(i)) {
                    a.setNull(i);
                    continue;
                }
                switch (k[i]) {
                    case LONG -> a.setLong(i, r.getLong(i));
                    case INT -> a.setLong(i, r.getInt(i));
                    case DOUBLE -> a.setDouble(i, r.getDouble(i));
                    case BOOLEAN -> a.setBoolean(i, r.getBoolean(i));
                    case TEXT -> {
                        if (base != null) {
                            // An UnsafeRow holds a text's offset from the row's start and its size in one long.
                            long offsetAndSize = r.getLong(i);
                            a.setUtf8(i, base, (int) (start + (offsetAndSize >> 32)), (int) offsetAndSize);
                            bytes += (int) offsetAndSize - 8;
                        } else {
                            UTF8String u = r.getUTF8String(i);
                            setUtf8(u, i, a);
                            bytes += u.numBytes() - 8;
                        }
                    }
                    default -> setters[i].set(r, i, a);
                }
            }
            return bytes;
        }
    }

    /** Spark's microseconds in another unit: finer parts dropped (floor), as Sluice drops them from instants. */
    private static Setter timestampIn(long unitsPerSecond) {
        if (unitsPerSecond > 1_000_000L) {
            long factor = unitsPerSecond / 1_000_000L;
            return (r, i, a) -> a.setLong(i, Math.multiplyExact(r.getLong(i), factor));
        }
        long divisor = 1_000_000L / unitsPerSecond;
        return (r, i, a) -> a.setLong(i, Math.floorDiv(r.getLong(i), divisor));
    }

    private static Setter setter(DataType t) {
        if (t instanceof BooleanType) {
            return (r, i, a) -> a.setBoolean(i, r.getBoolean(i));
        } else if (t instanceof ByteType) {
            return (r, i, a) -> a.setLong(i, r.getByte(i));
        } else if (t instanceof ShortType) {
            return (r, i, a) -> a.setLong(i, r.getShort(i));
        } else if (t instanceof IntegerType || t instanceof DateType) {
            return (r, i, a) -> a.setLong(i, r.getInt(i));
        } else if (t instanceof LongType || t instanceof TimestampType || t instanceof TimestampNTZType) {
            return (r, i, a) -> a.setLong(i, r.getLong(i));
        } else if (t instanceof FloatType) {
            return (r, i, a) -> a.setDouble(i, r.getFloat(i));
        } else if (t instanceof DoubleType) {
            return (r, i, a) -> a.setDouble(i, r.getDouble(i));
        } else if (t instanceof org.apache.spark.sql.types.DecimalType d) {
            int p = d.precision();
            int s = d.scale();
            return (r, i, a) -> a.setDecimal(i, r.getDecimal(i, p, s).toJavaBigDecimal());
        } else if (t instanceof StringType) {
            return (r, i, a) -> setUtf8(r.getUTF8String(i), i, a);
        } else if (t instanceof BinaryType) {
            return (r, i, a) -> a.setBytes(i, r.getBinary(i));
        }
        return (r, i, a) -> a.setValue(i, json(r.get(i, t), t));
    }

    /**
     * Sets text from Spark's UTF-8 bytes. Text lying in a larger array (a row's buffer) is handed over as that part
     * of the array, which Sluice copies into its batch: no array per value. Sluice may keep a whole array as it is,
     * and Spark may reuse the one behind a value for a later row, so text that is a whole array is copied first.
     */
    private static void setUtf8(UTF8String u, int i, RowAppender a) {
        Object base = u.getBaseObject();
        int length = u.numBytes();
        if (base instanceof byte[] b) {
            long at = u.getBaseOffset() - Platform.BYTE_ARRAY_OFFSET;
            if (at != 0 || length != b.length) {
                a.setUtf8(i, b, (int) at, length);
            } else {
                a.setUtf8(i, b.clone(), 0, length);
            }
        } else {
            byte[] bytes = u.getBytes(); // off-heap text: copied into an array of its own
            a.setUtf8(i, bytes, 0, length);
        }
    }

    /**
     * Turns a Spark value into the maps, lists, strings, numbers and booleans Sluice writes as JSON: arrays as JSON
     * arrays, maps and structs as objects (map keys as text), timestamps and dates as ISO-8601 text, binary as
     * base64.
     *
     * @param v the value (Spark's internal form)
     * @param t its type
     * @return the JSON tree
     */
    static Object json(Object v, DataType t) {
        if (v == null) {
            return null;
        }
        if (t instanceof ArrayType at) {
            ArrayData d = (ArrayData) v;
            List<Object> out = new ArrayList<>(d.numElements());
            for (int i = 0; i < d.numElements(); i++) {
                out.add(d.isNullAt(i) ? null : json(d.get(i, at.elementType()), at.elementType()));
            }
            return out;
        } else if (t instanceof MapType mt) {
            MapData m = (MapData) v;
            ArrayData keys = m.keyArray();
            ArrayData values = m.valueArray();
            Map<String, Object> out = new LinkedHashMap<>();
            for (int i = 0; i < m.numElements(); i++) {
                Object k = json(keys.get(i, mt.keyType()), mt.keyType());
                out.put(String.valueOf(k), values.isNullAt(i) ? null : json(values.get(i, mt.valueType()),
                        mt.valueType()));
            }
            return out;
        } else if (t instanceof StructType st) {
            InternalRow r = (InternalRow) v;
            Map<String, Object> out = new LinkedHashMap<>();
            StructField[] fs = st.fields();
            for (int i = 0; i < fs.length; i++) {
                out.put(fs[i].name(), r.isNullAt(i) ? null : json(r.get(i, fs[i].dataType()), fs[i].dataType()));
            }
            return out;
        } else if (v instanceof UTF8String u) {
            return u.toString();
        } else if (v instanceof Decimal d) {
            return d.toJavaBigDecimal();
        } else if (v instanceof byte[] b) {
            return Base64.getEncoder().encodeToString(b);
        } else if (t instanceof DateType) {
            return LocalDate.ofEpochDay((Integer) v).toString();
        } else if (t instanceof TimestampType) {
            long us = (Long) v;
            return Instant.ofEpochSecond(Math.floorDiv(us, 1_000_000L), Math.floorMod(us, 1_000_000L) * 1000L).toString();
        } else if (t instanceof TimestampNTZType) {
            long us = (Long) v;
            return LocalDateTime.ofEpochSecond(Math.floorDiv(us, 1_000_000L),
                    (int) (Math.floorMod(us, 1_000_000L) * 1000L), ZoneOffset.UTC).toString();
        }
        return v;
    }

    /**
     * Describes a Spark column's type as a user reads it in the DataFrame.
     *
     * @param struct the DataFrame's schema
     * @param i the column's index
     * @return e.g. {@code BIGINT in the DataFrame}
     */
    static String declared(StructType struct, int i) {
        return struct.fields()[i].dataType().sql() + " in the DataFrame";
    }


    /**
     * The Spark type an existing GreptimeDB column is read as (for the catalog): the narrowest Spark type that holds
     * every value of the column. Timestamps of any unit are Spark timestamps; JSON is text.
     *
     * @param c the column
     * @return the Spark type
     */
    static DataType sparkType(ServerColumn c) {
        if (c.type() == null) {
            return DataTypes.StringType;
        }
        return switch (c.type()) {
            case Bool -> DataTypes.BooleanType;
            case Int8 -> DataTypes.ByteType;
            case Int16, UInt8 -> DataTypes.ShortType;
            case Int32, UInt16 -> DataTypes.IntegerType;
            case Int64, UInt32 -> DataTypes.LongType;
            case UInt64 -> DataTypes.createDecimalType(20, 0);
            case Float32 -> DataTypes.FloatType;
            case Float64 -> DataTypes.DoubleType;
            case Decimal128 -> c.decimal() == null ? DataTypes.createDecimalType(38, 10)
                    : DataTypes.createDecimalType(c.decimal().precision(), c.decimal().scale());
            case Binary, Vector -> DataTypes.BinaryType;
            case Date -> DataTypes.DateType;
            case TimestampSecond, TimestampMillisecond, TimestampMicrosecond, TimestampNanosecond ->
                    DataTypes.TimestampType;
            default -> DataTypes.StringType;
        };
    }
}
