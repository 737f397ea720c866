package dev.sluice.kafka.connect.internal;

import dev.sluice.data.DataType;
import dev.sluice.data.DecimalType;
import dev.sluice.data.InvalidDataException;
import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import dev.sluice.kafka.connect.internal.ColumnTypeOverrides.ColumnType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Turns Connect records into rows: a {@link Struct} by its schema, a schemaless {@link Map} by inferring each
 * value's type; the user's column types win over both. The table comes from the topic or a record field; the
 * time index from a field or the record timestamp. Plans (schema and column order) are cached per Connect schema
 * or per schemaless key set, so a steady stream builds each table schema once. Not thread-safe (one per task).
 */
public final class RecordMapper {
    private static final long MILLIS_PER_DAY = 86_400_000L;
    /** Precision Connect converters put on decimals when they know it. */
    private static final String DECIMAL_PRECISION = "connect.decimal.precision";

    /**
     * What the mapping needs from the configuration.
     *
     * @param namer names tables from topics
     * @param tableField record field holding the table name, or empty
     * @param tags tag columns
     * @param tsField field of the time index, or empty for the record timestamp
     * @param tsUnit unit of numeric time index values: s, ms, us or ns
     * @param tsColumn column of the record timestamp
     * @param overrides the user's column types
     */
    public record Settings(TableNamer namer, String tableField, List<String> tags, String tsField, String tsUnit,
                           String tsColumn, ColumnTypeOverrides overrides) {
    }

    private final Settings settings;
    private final Set<String> tags;
    /** Position of each tag in {@code tag.fields}: a new table's primary key follows it. */
    private final Map<String, Integer> tagRank;
    private final DataType unitType;
    private final Map<Schema, Map<String, Plan>> structPlans = new IdentityHashMap<>();
    private final Map<Schema, Map<String, Plan>> structKeyPlans = new IdentityHashMap<>();
    private final Map<SchemalessKey, Plan> mapPlans = new HashMap<>();
    private final Map<SchemalessKey, Plan> mapKeyPlans = new HashMap<>();

    /**
     * Creates a mapper.
     *
     * @param settings the settings
     */
    public RecordMapper(Settings settings) {
        this.settings = settings;
        this.tags = Set.copyOf(settings.tags());
        Map<String, Integer> rank = new HashMap<>();
        for (String t : settings.tags()) {
            rank.putIfAbsent(t, rank.size());
        }
        this.tagRank = Map.copyOf(rank);
        this.unitType = switch (settings.tsUnit()) {
            case "s" -> DataType.TimestampSecond;
            case "us" -> DataType.TimestampMicrosecond;
            case "ns" -> DataType.TimestampNanosecond;
            default -> DataType.TimestampMillisecond;
        };
    }

    /** How to read one table's rows from records of one shape. */
    private static final class Plan {
        final TableSchema schema;
        /** Per column: the Connect field (struct plans), or null for the record timestamp. */
        final Field[] fields;
        /** Per source entry (schemaless plans): its column. */
        final int[] columnOfEntry;
        final int recordTsColumn;

        Plan(TableSchema schema, Field[] fields, int[] columnOfEntry, int recordTsColumn) {
            this.schema = schema;
            this.fields = fields;
            this.columnOfEntry = columnOfEntry;
            this.recordTsColumn = recordTsColumn;
        }
    }

    /** Table and key names and value kinds of a schemaless record. */
    private static final class SchemalessKey {
        final String table;
        final String[] names;
        final byte[] kinds;
        final int hash;

        SchemalessKey(String table, String[] names, byte[] kinds) {
            this.table = table;
            this.names = names;
            this.kinds = kinds;
            this.hash = (table.hashCode() * 31 + Arrays.hashCode(names)) * 31 + Arrays.hashCode(kinds);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof SchemalessKey k && k.hash == hash && k.table.equals(table)
                    && Arrays.equals(k.names, names) && Arrays.equals(k.kinds, kinds);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    private static final byte BOOL = 1;
    private static final byte INTEGER = 2;
    private static final byte FLOAT = 3;
    private static final byte DECIMAL = 4;
    private static final byte TEXT = 5;
    private static final byte BYTES = 6;
    private static final byte TREE = 7;
    private static final byte INSTANT = 8;

    /**
     * Maps a record's value to a row.
     *
     * @param record the record (value is a Struct or a Map)
     * @return the row
     * @throws MappingException naming table and column when the record does not fit
     */
    public MappedRow map(SinkRecord record) {
        return mapObject(record, record.value(), false);
    }

    /**
     * Maps a tombstone's key to the row to delete: its tags and time index. With {@code timestamp.field} set,
     * the key holds the time index in that field. Without it (the time index is the Kafka record timestamp, in
     * column {@code timestamp.column}), the key's field named like that column addresses the row (milliseconds,
     * a Connect Timestamp or ISO-8601 text); a key without it falls back to the tombstone's own record
     * timestamp.
     *
     * @param record the tombstone
     * @return the row holding only tag and time index columns
     * @throws MappingException when the key is not a Struct or Map with those fields
     */
    public MappedRow mapDelete(SinkRecord record) {
        return mapObject(record, record.key(), true);
    }

    /** The field holding the time index: timestamp.field, or for keys without it the record timestamp's column. */
    private String timeField(boolean keysOnly) {
        return keysOnly && settings.tsField().isEmpty() ? settings.tsColumn() : settings.tsField();
    }

    /** Whether the time index comes from the Kafka record timestamp, so a key's time field counts milliseconds. */
    private boolean recordTimeInKey(boolean keysOnly) {
        return keysOnly && settings.tsField().isEmpty();
    }

    private MappedRow mapObject(SinkRecord record, Object value, boolean keysOnly) {
        String what = keysOnly ? "key" : "value";
        if (value instanceof Struct s) {
            return mapStruct(record, s, keysOnly);
        }
        if (value instanceof Map<?, ?> m) {
            return mapSchemaless(record, m, keysOnly);
        }
        String table = settings.tableField().isEmpty() ? settings.namer().tableFor(record.topic()) : null;
        throw new MappingException(table, null, "the record " + what + " is "
                + (value == null ? "null" : "a " + value.getClass().getName())
                + "; the sink needs a Struct (a converter with schemas) or a Map (schemaless JSON)", null);
    }

    private String tableOf(SinkRecord record, Object fieldValue, boolean present) {
        if (settings.tableField().isEmpty()) {
            return settings.namer().tableFor(record.topic());
        }
        if (!present || fieldValue == null) {
            throw new MappingException(null, settings.tableField(), "the table name field is missing or null", null);
        }
        if (!(fieldValue instanceof String s) || s.isEmpty()) {
            throw new MappingException(null, settings.tableField(), "the table name field holds "
                    + fieldValue.getClass().getSimpleName() + " '" + fieldValue + "', not a non-empty string", null);
        }
        return s;
    }

    private MappedRow mapStruct(SinkRecord record, Struct s, boolean keysOnly) {
        Schema schema = s.schema();
        String table;
        if (settings.tableField().isEmpty()) {
            table = tableOf(record, null, false);
        } else {
            Field f = schema.field(settings.tableField());
            table = tableOf(record, f == null ? null : s.get(f), f != null);
        }
        Map<Schema, Map<String, Plan>> cache = keysOnly ? structKeyPlans : structPlans;
        Map<String, Plan> byTable = cache.computeIfAbsent(schema, k -> new HashMap<>(4));
        Plan plan = byTable.get(table);
        if (plan == null) {
            plan = structPlan(table, schema, keysOnly);
            byTable.put(table, plan);
        }
        TableSchema ts = plan.schema;
        Object[] row = new Object[ts.columnCount()];
        for (int i = 0; i < row.length; i++) {
            Field f = plan.fields[i];
            row[i] = f == null ? recordTimestamp(record, ts, i)
                    : recordTimeInKey(keysOnly) && i == ts.timestampIndex() ? keyTimestamp(ts, i, s.get(f))
                    : convert(ts, i, s.get(f));
        }
        return new MappedRow(ts, row);
    }

    private Plan structPlan(String table, Schema schema, boolean keysOnly) {
        if (schema.type() != Schema.Type.STRUCT) {
            throw new MappingException(table, null, "the record schema is " + schema.type() + ", not a STRUCT", null);
        }
        TableSchema.Builder b = TableSchema.newBuilder(table);
        List<Field> kept = new ArrayList<>();
        String timeField = timeField(keysOnly);
        for (Field f : schema.fields()) {
            String name = f.name();
            boolean isTs = name.equals(timeField);
            if (name.equals(settings.tableField()) || keysOnly && !isTs && !tags.contains(name)) {
                continue;
            }
            kept.add(f);
        }
        String[] keptNames = new String[kept.size()];
        for (int i = 0; i < keptNames.length; i++) {
            keptNames[i] = kept.get(i).name();
        }
        List<Field> fields = new ArrayList<>();
        boolean tsSeen = false;
        for (int entry : columnOrder(keptNames)) {
            Field f = kept.get(entry);
            String name = f.name();
            boolean isTs = name.equals(timeField);
            tsSeen |= isTs;
            ColumnType ct = settings.overrides().get(name);
            if (ct == null) {
                ct = isTs && recordTimeInKey(keysOnly) ? new ColumnType(DataType.TimestampMillisecond, null)
                        : inferConnect(table, name, f.schema(), isTs);
            }
            b.addColumn(name, isTs ? SemanticType.Timestamp : tags.contains(name) ? SemanticType.Tag
                    : SemanticType.Field, ct.dataType(), ct.decimalType());
            fields.add(f);
        }
        int recordTs = addRecordTimestamp(table, b, tsSeen);
        if (recordTs >= 0) {
            fields.add(null);
        }
        return new Plan(build(b, table), fields.toArray(new Field[0]), null, recordTs);
    }

    private int addRecordTimestamp(String table, TableSchema.Builder b, boolean tsSeen) {
        if (settings.tsField().isEmpty() && tsSeen) {
            return -1; // a tombstone's key named the row's record timestamp
        }
        if (!settings.tsField().isEmpty()) {
            if (!tsSeen) {
                throw new MappingException(table, settings.tsField(), "the record has no field '"
                        + settings.tsField() + "' for the time index (" + "timestamp.field)", null);
            }
            return -1;
        }
        ColumnType ct = settings.overrides().get(settings.tsColumn());
        b.addTimestamp(settings.tsColumn(), ct == null ? DataType.TimestampMillisecond : ct.dataType());
        return 0;
    }

    private static TableSchema build(TableSchema.Builder b, String table) {
        try {
            return b.build();
        } catch (InvalidDataException e) {
            throw new MappingException(table, e.column(), e.getMessage(), e);
        }
    }

    private ColumnType inferConnect(String table, String column, Schema s, boolean isTs) {
        String logical = s.name();
        if (Decimal.LOGICAL_NAME.equals(logical)) {
            int scale = Integer.parseInt(s.parameters().get(Decimal.SCALE_FIELD));
            String p = s.parameters().get(DECIMAL_PRECISION);
            int precision = p == null ? 38 : Integer.parseInt(p);
            try {
                return new ColumnType(DataType.Decimal128, new DecimalType(precision, scale));
            } catch (IllegalArgumentException e) {
                throw new MappingException(table, column, "Decimal(" + precision + ", " + scale + ") does not fit"
                        + " GreptimeDB's DECIMAL (precision 1..38, scale <= precision); override the column type", e);
            }
        }
        if (Timestamp.LOGICAL_NAME.equals(logical)) {
            // The time index has timestamp.unit's precision whatever the value's form (timestamp.unit doc), so a
            // topic mixing Connect Timestamps with numbers or ISO text keeps one column type.
            return new ColumnType(isTs ? unitType : DataType.TimestampMillisecond, null);
        }
        if (isTs) {
            switch (s.type()) {
                case INT8, INT16, INT32, INT64, STRING:
                    return new ColumnType(unitType, null);
                default:
                    throw new MappingException(table, column, "the time index field is " + s.type()
                            + (logical != null ? " (" + logical + ")" : "")
                            + "; it must be a Connect Timestamp, an integer or an ISO-8601 string", null);
            }
        }
        if (Date.LOGICAL_NAME.equals(logical)) {
            return new ColumnType(DataType.Date, null);
        }
        if (Time.LOGICAL_NAME.equals(logical)) {
            return new ColumnType(DataType.TimeMillisecond, null);
        }
        DataType t = switch (s.type()) {
            case INT8 -> DataType.Int8;
            case INT16 -> DataType.Int16;
            case INT32 -> DataType.Int32;
            case INT64 -> DataType.Int64;
            case FLOAT32 -> DataType.Float32;
            case FLOAT64 -> DataType.Float64;
            case BOOLEAN -> DataType.Bool;
            case STRING -> DataType.String;
            case BYTES -> DataType.Binary;
            case ARRAY, MAP, STRUCT -> DataType.Json;
        };
        return new ColumnType(t, null);
    }

    private MappedRow mapSchemaless(SinkRecord record, Map<?, ?> m, boolean keysOnly) {
        String tableField = settings.tableField();
        String table = tableField.isEmpty() ? tableOf(record, null, false)
                : tableOf(record, m.get(tableField), m.containsKey(tableField));
        int n = m.size();
        String[] names = new String[n];
        byte[] kinds = new byte[n];
        Object[] values = new Object[n];
        int k = 0;
        String timeField = timeField(keysOnly);
        for (Map.Entry<?, ?> e : m.entrySet()) {
            if (!(e.getKey() instanceof String name)) {
                throw new MappingException(table, String.valueOf(e.getKey()), "a schemaless record's keys must be"
                        + " strings, not " + (e.getKey() == null ? "null" : e.getKey().getClass().getSimpleName()), null);
            }
            Object v = e.getValue();
            boolean isTs = name.equals(timeField);
            if (v == null || name.equals(tableField) || keysOnly && !isTs && !tags.contains(name)) {
                continue;
            }
            names[k] = name;
            kinds[k] = kindOf(v);
            values[k] = v;
            k++;
        }
        if (k < n) {
            names = Arrays.copyOf(names, k);
            kinds = Arrays.copyOf(kinds, k);
        }
        SchemalessKey key = new SchemalessKey(table, names, kinds);
        Map<SchemalessKey, Plan> cache = keysOnly ? mapKeyPlans : mapPlans;
        Plan plan = cache.get(key);
        if (plan == null) {
            plan = schemalessPlan(table, names, kinds, timeField, recordTimeInKey(keysOnly));
            cache.put(key, plan);
        }
        TableSchema ts = plan.schema;
        Object[] row = new Object[ts.columnCount()];
        boolean keyTime = recordTimeInKey(keysOnly);
        for (int i = 0; i < k; i++) {
            int c = plan.columnOfEntry[i];
            row[c] = keyTime && c == ts.timestampIndex() ? keyTimestamp(ts, c, values[i]) : convert(ts, c, values[i]);
        }
        if (plan.recordTsColumn >= 0) {
            row[plan.recordTsColumn] = recordTimestamp(record, ts, plan.recordTsColumn);
        }
        return new MappedRow(ts, row);
    }

    private static byte kindOf(Object v) {
        if (v instanceof Boolean) {
            return BOOL;
        }
        if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte || v instanceof BigInteger) {
            return INTEGER;
        }
        if (v instanceof Double || v instanceof Float) {
            return FLOAT;
        }
        if (v instanceof BigDecimal) {
            return DECIMAL;
        }
        if (v instanceof CharSequence) {
            return TEXT;
        }
        if (v instanceof byte[] || v instanceof ByteBuffer) {
            return BYTES;
        }
        if (v instanceof java.util.Date) {
            return INSTANT;
        }
        return TREE;
    }

    private Plan schemalessPlan(String table, String[] names, byte[] kinds, String timeField, boolean keyTime) {
        TableSchema.Builder b = TableSchema.newBuilder(table);
        boolean tsSeen = false;
        int[] order = columnOrder(names);
        int[] columnOfEntry = new int[names.length];
        for (int c = 0; c < order.length; c++) {
            int i = order[c];
            columnOfEntry[i] = c;
            String name = names[i];
            boolean isTs = name.equals(timeField);
            tsSeen |= isTs;
            ColumnType ct = settings.overrides().get(name);
            if (ct == null) {
                if (keyTime && isTs && kinds[i] != INTEGER && kinds[i] != TEXT && kinds[i] != INSTANT) {
                    throw new MappingException(table, name, "the key's time index holds a " + kindName(kinds[i])
                            + "; it must be an integer in milliseconds or an ISO-8601 string", null);
                }
                ct = isTs && keyTime ? new ColumnType(DataType.TimestampMillisecond, null)
                        : inferSchemaless(table, name, kinds[i], isTs);
            }
            b.addColumn(name, isTs ? SemanticType.Timestamp : tags.contains(name) ? SemanticType.Tag
                    : SemanticType.Field, ct.dataType(), ct.decimalType());
        }
        int recordTs = addRecordTimestamp(table, b, tsSeen);
        return new Plan(build(b, table), null, columnOfEntry, recordTs >= 0 ? names.length : -1);
    }

    /**
     * Orders a record's columns: its tags first, in the order of {@code tag.fields} (GreptimeDB makes a new
     * table's tag columns its primary key in the order the request lists them), then the other columns in the
     * record's order.
     *
     * @param names the record's column names, in its order
     * @return for each column position, the index of the name that goes there
     */
    private int[] columnOrder(String[] names) {
        Integer[] order = new Integer[names.length];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        // Stable: non-tags (rank MAX) keep the record's order among themselves.
        Arrays.sort(order, java.util.Comparator.comparingInt(i -> tagRank.getOrDefault(names[i], Integer.MAX_VALUE)));
        int[] out = new int[order.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = order[i];
        }
        return out;
    }

    private ColumnType inferSchemaless(String table, String column, byte kind, boolean isTs) {
        if (isTs) {
            return switch (kind) {
                case INTEGER, TEXT -> new ColumnType(unitType, null);
                case INSTANT -> new ColumnType(unitType, null);
                default -> throw new MappingException(table, column, "the time index field holds a "
                        + kindName(kind) + "; it must be an integer in timestamp.unit or an ISO-8601 string", null);
            };
        }
        DataType t = switch (kind) {
            case BOOL -> DataType.Bool;
            case INTEGER -> DataType.Int64;
            case FLOAT, DECIMAL -> DataType.Float64;
            case TEXT -> DataType.String;
            case BYTES -> DataType.Binary;
            case INSTANT -> DataType.TimestampMillisecond;
            default -> DataType.Json;
        };
        return new ColumnType(t, null);
    }

    private static String kindName(byte kind) {
        return switch (kind) {
            case BOOL -> "boolean";
            case FLOAT -> "floating-point number";
            case DECIMAL -> "decimal number";
            case BYTES -> "byte array";
            default -> "map or list";
        };
    }

    /** The record timestamp (milliseconds), as the column's type takes it. */
    private static Object recordTimestamp(SinkRecord record, TableSchema schema, int column) {
        Long t = record.timestamp();
        if (t == null) {
            throw new MappingException(schema.tableName(), schema.column(column).name(), "the record has no timestamp"
                    + " for the time index (set timestamp.field to take it from a field)", null);
        }
        return schema.column(column).dataType() == DataType.TimestampMillisecond ? t : Instant.ofEpochMilli(t);
    }

    /**
     * A tombstone key's time index when the time index is the record timestamp: counted in milliseconds like the
     * record timestamp it names (timestamp.unit does not apply), a Date, or ISO-8601 text.
     */
    private static Object keyTimestamp(TableSchema schema, int column, Object v) {
        TableSchema.Column c = schema.column(column);
        Instant at;
        try {
            if (v instanceof java.util.Date d) {
                at = d.toInstant();
            } else if (v instanceof CharSequence text) {
                at = Instant.parse(text);
            } else if (v instanceof Number n && !(v instanceof Double) && !(v instanceof Float)
                    && !(v instanceof BigDecimal)) {
                at = Instant.ofEpochMilli(n.longValue());
            } else {
                throw new MappingException(schema.tableName(), c.name(), "the key's time index is "
                        + (v == null ? "null" : "a " + v.getClass().getSimpleName())
                        + "; it must be an integer in milliseconds, a Timestamp or an ISO-8601 string", null);
            }
        } catch (DateTimeParseException e) {
            throw new MappingException(schema.tableName(), c.name(), "'" + v + "' is not an ISO-8601 instant", e);
        }
        return c.dataType() == DataType.TimestampMillisecond ? (Object) at.toEpochMilli() : at;
    }

    /** Converts a Connect or schemaless value to what the column's type accepts; null stays null. */
    private Object convert(TableSchema schema, int index, Object v) {
        TableSchema.Column c = schema.column(index);
        if (v == null) {
            if (c.semanticType() == SemanticType.Timestamp) {
                throw new MappingException(schema.tableName(), c.name(), "the time index is null", null);
            }
            return null;
        }
        DataType t = c.dataType();
        try {
            switch (t) {
                case Float32, Float64:
                    return v instanceof BigDecimal d ? (Object) d.doubleValue()
                            : v instanceof BigInteger i ? (Object) i.doubleValue() : v;
                case Decimal128:
                    return v instanceof Double || v instanceof Float ? new BigDecimal(v.toString()) : v;
                case Json:
                    return v instanceof CharSequence ? v : toJsonTree(v);
                case String:
                    return v instanceof CharSequence || v instanceof Map || v instanceof List || v instanceof Struct
                            || v instanceof byte[] || v instanceof ByteBuffer ? v : v.toString();
                case Date:
                    return v instanceof java.util.Date d ? (Object) (int) Math.floorDiv(d.getTime(), MILLIS_PER_DAY) : v;
                case TimeSecond, TimeMillisecond, TimeMicrosecond, TimeNanosecond:
                    return v instanceof java.util.Date d
                            ? LocalTime.ofNanoOfDay(Math.floorMod(d.getTime(), MILLIS_PER_DAY) * 1_000_000L) : v;
                case TimestampSecond, TimestampMillisecond, TimestampMicrosecond, TimestampNanosecond:
                    return timestamp(t, c.semanticType() == SemanticType.Timestamp, v);
                default:
                    return v;
            }
        } catch (DateTimeParseException e) {
            throw new MappingException(schema.tableName(), c.name(), "'" + v + "' is not an ISO-8601 instant", e);
        }
    }

    private Object timestamp(DataType column, boolean timeIndex, Object v) {
        if (v instanceof CharSequence s) {
            return Instant.parse(s);
        }
        if (timeIndex && v instanceof Number n && !(v instanceof Double) && !(v instanceof Float)
                && !(v instanceof BigDecimal) && column != unitType) {
            // A number counts timestamp.unit; the column (overridden) has another unit.
            long x = n.longValue();
            long per = unitType.unitsPerSecond();
            return Instant.ofEpochSecond(Math.floorDiv(x, per), Math.floorMod(x, per) * (1_000_000_000L / per));
        }
        return v;
    }

    /** Converts nested Connect values into maps, lists and scalars for JSON text. */
    static Object toJsonTree(Object v) {
        if (v instanceof Struct s) {
            Map<String, Object> m = new LinkedHashMap<>();
            for (Field f : s.schema().fields()) {
                m.put(f.name(), toJsonTree(s.get(f)));
            }
            return m;
        }
        if (v instanceof Map<?, ?> map) {
            Map<String, Object> m = new LinkedHashMap<>();
            for (Map.Entry<?, ?> e : map.entrySet()) {
                m.put(String.valueOf(e.getKey()), toJsonTree(e.getValue()));
            }
            return m;
        }
        if (v instanceof List<?> list) {
            List<Object> out = new ArrayList<>(list.size());
            for (Object o : list) {
                out.add(toJsonTree(o));
            }
            return out;
        }
        if (v instanceof byte[] b) {
            return Base64.getEncoder().encodeToString(b);
        }
        if (v instanceof ByteBuffer bb) {
            ByteBuffer d = bb.duplicate();
            byte[] b = new byte[d.remaining()];
            d.get(b);
            return Base64.getEncoder().encodeToString(b);
        }
        if (v instanceof java.util.Date d) {
            return d.toInstant().toString();
        }
        if (v == null || v instanceof Number || v instanceof Boolean || v instanceof CharSequence) {
            return v;
        }
        return v.toString();
    }
}
