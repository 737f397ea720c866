package dev.sluice.importer.internal.plan;

import dev.sluice.data.DataType;
import dev.sluice.data.InvalidDataException;
import dev.sluice.data.RowAppender;
import dev.sluice.data.SemanticType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.importer.internal.failure.ImportFailure;
import dev.sluice.importer.internal.source.Inputs;
import dev.sluice.importer.internal.source.LineProtocol;
import dev.sluice.importer.internal.source.LineProtocolSource;
import dev.sluice.importer.internal.source.RecordSource;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Turns line protocol points into tables, one per measurement. A measurement's columns grow as lines bring new
 * tags or fields: the rows so far are kept in a table of the old shape and the next rows go to a table of the
 * new one, so the regular path adds the columns. Each column's kind and type is decided once for the whole import
 * by its {@link Columns}, shared by every reader. A field whose type differs from the column's is converted when
 * nothing is lost (an integer a float column holds exactly), else the line is rejected.
 */
public final class LineProtocolTables {
    /** The name of the time index of tables the import creates, as GreptimeDB's line protocol endpoint names it. */
    static final String TIME_COLUMN = "greptime_timestamp";

    /**
     * A column's kind and type.
     *
     * @param semantic tag or field
     * @param type the data type
     */
    private record Col(SemanticType semantic, DataType type) {
    }

    /**
     * The columns of the import's tables, shared by every reader of the import, so that files read side by side
     * give a column one kind and one type: an existing table's column as it is; else the type the samples decided
     * (taken before any row is sent: a field given as an integer in one line and as a float in another is Float64);
     * else the type of the first line to bring the column.
     */
    public static final class Columns {
        private final String tableOverride;
        private final Function<String, TableSchema> existing;
        private final Map<String, Map<String, Col>> sampled = new HashMap<>();
        private final Map<String, Map<String, Col>> decided = new ConcurrentHashMap<>();

        /**
         * Creates the registry.
         *
         * @param tableOverride a table for every measurement, or null
         * @param existing reads an existing table's schema (null when it does not exist)
         */
        public Columns(String tableOverride, Function<String, TableSchema> existing) {
            this.tableOverride = tableOverride;
            this.existing = existing;
        }

        String table(LineProtocol.Point pt) {
            return tableOverride != null ? tableOverride : pt.measurement();
        }

        /**
         * Reads the first points of every input that is a file, before any row is sent, to decide the columns'
         * types (standard input is read once, by the import itself).
         *
         * @param inputs the inputs
         * @param done whether an input was imported to its end already (it is not read)
         * @param rows how many points of each input to read
         * @return the points read, per input
         * @throws ImportFailure when an input cannot be read
         */
        public List<SampledPoints> sample(List<Inputs.Input> inputs, java.util.function.Predicate<Inputs.Input> done,
                int rows) {
            List<SampledPoints> out = new ArrayList<>();
            for (Inputs.Input in : inputs) {
                if (in.path() != null && !done.test(in)) {
                    try {
                        out.add(new SampledPoints(in.name(), sample(Inputs.open(in,
                                new java.util.concurrent.atomic.AtomicLong()), rows)));
                    } catch (IOException e) {
                        throw new ImportFailure("'" + in.name() + "' cannot be read: " + e.getMessage(), e);
                    }
                }
            }
            return out;
        }

        /**
         * Reads up to {@code rows} points of an input, before any row is sent, to decide its columns' types. Lines
         * that do not parse are left to the import to reject.
         *
         * @param in the input, closed here
         * @param rows how many points to read
         * @return the points read
         * @throws IOException when the input cannot be read
         */
        public List<LineProtocol.Point> sample(InputStream in, int rows) throws IOException {
            List<LineProtocol.Point> points = new ArrayList<>();
            try (LineProtocolSource src = new LineProtocolSource(in)) {
                for (int n = 0; n < rows; n++) {
                    try {
                        if (!src.next()) {
                            break;
                        }
                        sample(src.point());
                        points.add(src.point());
                    } catch (RecordSource.BadRecord e) {
                        // rejected when the import reads the line
                    }
                }
            }
            return points;
        }

        private synchronized void sample(LineProtocol.Point pt) {
            Map<String, Col> cols = sampled.computeIfAbsent(table(pt), t -> new HashMap<>());
            for (String k : pt.tagKeys()) {
                cols.putIfAbsent(k, new Col(SemanticType.Tag, DataType.String));
            }
            for (int i = 0; i < pt.fieldKeys().size(); i++) {
                Col given = new Col(SemanticType.Field, typeOf(pt.fieldValues().get(i)));
                cols.merge(pt.fieldKeys().get(i), given, Columns::wider);
            }
        }

        /**
         * Integers beside floats make a float column; any other disagreement keeps the first (its lines convert or
         * are rejected).
         */
        private static Col wider(Col a, Col b) {
            boolean floatAndInteger = a.type() == DataType.Float64 && isInteger(b.type())
                    || b.type() == DataType.Float64 && isInteger(a.type());
            return a.semantic() == SemanticType.Field && b.semantic() == SemanticType.Field && floatAndInteger
                    ? new Col(SemanticType.Field, DataType.Float64) : a;
        }

        private static boolean isInteger(DataType t) {
            return t == DataType.Int64 || t == DataType.UInt64;
        }

        /**
         * Returns an existing table's schema.
         *
         * @param table the table
         * @return its schema, or null when it does not exist
         */
        public TableSchema existing(String table) {
            return existing.apply(table);
        }

        /** The column every reader uses: decided once, from the existing table, the samples or this first line. */
        Col column(String table, String name, Col given) {
            Map<String, Col> cols = decided.computeIfAbsent(table, t -> {
                Map<String, Col> m = new ConcurrentHashMap<>();
                TableSchema s = existing.apply(t);
                if (s != null) {
                    for (TableSchema.Column c : s.columns()) {
                        if (c.semanticType() != SemanticType.Timestamp) {
                            m.put(c.name(), new Col(c.semanticType(), c.dataType()));
                        }
                    }
                }
                return m;
            });
            return cols.computeIfAbsent(name, n -> {
                synchronized (this) {
                    Map<String, Col> fromSample = sampled.get(table);
                    Col c = fromSample == null ? null : fromSample.get(n);
                    return c != null ? c : given;
                }
            });
        }
    }

    /**
     * The points sampled from one input.
     *
     * @param input the input's name
     * @param points its first points, in order
     */
    public record SampledPoints(String input, List<LineProtocol.Point> points) {
        /** Fixes the list. */
        public SampledPoints {
            points = List.copyOf(points);
        }
    }

    /**
     * Warns of sampled points that their table would store as one row: points of one series (measurement and tag
     * set) and time, each input's points as the import would write them.
     *
     * @param precisionUnits units per second of the lines' timestamps
     * @param columns the import's columns, decided by the samples
     * @param samples the sampled points
     * @param defaultTimeNanos the time of a point without a timestamp, in nanoseconds
     * @param keepsEveryRow whether a table keeps every row (append mode)
     * @return the warnings, one per input and table whose points collapse
     */
    public static List<String> collapses(long precisionUnits, Columns columns, List<SampledPoints> samples,
            long defaultTimeNanos, java.util.function.Predicate<String> keepsEveryRow) {
        List<String> warnings = new ArrayList<>();
        for (SampledPoints s : samples) {
            LineProtocolTables tables = new LineProtocolTables(precisionUnits, columns);
            for (LineProtocol.Point pt : s.points()) {
                try {
                    tables.add(pt, defaultTimeNanos);
                } catch (BadValue | IllegalArgumentException | ArithmeticException e) {
                    // a rejected line is no key; the import names it when it reads it
                }
            }
            warnings.addAll(SampledCollisions.checkPoints(tables.drain(), s.points().size(), s.input(),
                    keepsEveryRow));
        }
        return warnings;
    }

    private final class Measurement {
        final String table;
        final LinkedHashMap<String, Col> cols = new LinkedHashMap<>();
        String timeColumn = TIME_COLUMN;
        DataType timeType;
        TableSchema schema;
        Table current;
        RowAppender appender;

        Measurement(String table, TableSchema existing) {
            this.table = table;
            if (existing != null) {
                for (TableSchema.Column c : existing.columns()) {
                    if (c.semanticType() == SemanticType.Timestamp) {
                        timeColumn = c.name();
                        timeType = c.dataType();
                    } else {
                        cols.put(c.name(), new Col(c.semanticType(), c.dataType()));
                    }
                }
            } else {
                timeType = precisionType;
            }
        }

        void reshape() {
            if (current != null && current.rowCount() > 0) {
                ready.add(current.complete());
            }
            TableSchema.Builder b = TableSchema.newBuilder(table);
            for (Map.Entry<String, Col> e : cols.entrySet()) {
                b.addColumn(e.getKey(), e.getValue().semantic(), e.getValue().type());
            }
            b.addTimestamp(timeColumn, timeType);
            schema = b.build();
            current = Table.from(schema);
            appender = current.appender();
        }
    }

    private final Map<String, Measurement> measurements = new LinkedHashMap<>();
    private final List<Table> ready = new ArrayList<>();
    private final DataType precisionType;
    private final long precisionUnits;
    private final Columns columns;
    private int rows;

    /**
     * Creates the converter.
     *
     * @param precisionUnits units per second of the lines' timestamps
     * @param columns the import's columns, shared by every reader
     */
    public LineProtocolTables(long precisionUnits, Columns columns) {
        this.precisionUnits = precisionUnits;
        this.precisionType = precisionUnits == 1 ? DataType.TimestampSecond : precisionUnits == 1_000
                ? DataType.TimestampMillisecond : precisionUnits == 1_000_000 ? DataType.TimestampMicrosecond
                : DataType.TimestampNanosecond;
        this.columns = columns;
    }

    /**
     * Returns the table a point goes to.
     *
     * @param pt the point
     * @return its measurement, or the table every point goes to
     */
    public String table(LineProtocol.Point pt) {
        return columns.table(pt);
    }

    /** @return rows added since the last {@link #drain()} */
    public int rows() {
        return rows;
    }

    /**
     * Adds a point.
     *
     * @param pt the point
     * @param defaultTimeNanos the time of a point without a timestamp, in nanoseconds
     * @throws IllegalArgumentException with the reason when the point does not fit its table
     * @throws BadValue when a value does not fit its column, naming the column
     */
    public void add(LineProtocol.Point pt, long defaultTimeNanos) throws BadValue {
        String name = columns.table(pt);
        Measurement m = measurements.get(name);
        if (m == null) {
            m = new Measurement(name, columns.existing(name));
            m.reshape(); // refuses a name that is no table name; only a measurement with a table is kept
            measurements.put(name, m);
        }
        boolean grown = false;
        for (String k : pt.tagKeys()) {
            Col c = m.cols.get(k);
            if (c == null) {
                checkName(m, k);
                c = columns.column(name, k, new Col(SemanticType.Tag, DataType.String));
            }
            if (c.semantic() != SemanticType.Tag) {
                throw new IllegalArgumentException("'" + k + "' is a tag here but a field of table '" + name + "'");
            }
            grown |= m.cols.putIfAbsent(k, c) == null;
        }
        for (int i = 0; i < pt.fieldKeys().size(); i++) {
            String k = pt.fieldKeys().get(i);
            Col c = m.cols.get(k);
            if (c == null) {
                checkName(m, k);
                c = columns.column(name, k, new Col(SemanticType.Field, typeOf(pt.fieldValues().get(i))));
            }
            if (c.semantic() == SemanticType.Tag) {
                throw new IllegalArgumentException("'" + k + "' is a field here but a tag of table '" + name + "'");
            }
            grown |= m.cols.putIfAbsent(k, c) == null;
        }
        if (grown) {
            m.reshape();
        }
        RowAppender a = m.appender;
        TableSchema s = m.schema;
        try {
            for (int i = 0; i < pt.tagKeys().size(); i++) {
                a.setString(s.indexOf(pt.tagKeys().get(i)), pt.tagValues().get(i));
            }
            for (int i = 0; i < pt.fieldKeys().size(); i++) {
                String k = pt.fieldKeys().get(i);
                int idx = s.indexOf(k);
                set(a, idx, s.column(idx).dataType(), k, pt.fieldValues().get(i), name);
            }
            long unit = m.timeType.unitsPerSecond();
            long ts = pt.timestamp() != null ? pt.timestamp()
                    : TimeFormat.rescale(defaultTimeNanos, 1_000_000_000L, precisionUnits);
            if (pt.timestamp() != null && precisionUnits > unit && ts % (precisionUnits / unit) != 0) {
                // Cut to the table's unit, the point could land on another point's time and replace it.
                throw new IllegalArgumentException("the time " + ts + " (" + TimeFormat.unitName(precisionUnits)
                        + ", --precision) is finer than the time index '" + m.timeColumn + "' of table '" + name
                        + "', which holds " + TimeFormat.unitName(unit) + " (" + m.timeType + "): cut to it, the"
                        + " point could replace another of its series; import into a new table (--table <new>),"
                        + " whose time index takes --precision's unit, or cut the times in the input if their"
                        + " finer digits are not wanted");
            }
            long time;
            try {
                time = TimeFormat.rescale(ts, precisionUnits, unit);
            } catch (ArithmeticException e) {
                throw new BadValue(m.timeColumn, "the time " + ts + " (" + TimeFormat.unitName(precisionUnits)
                        + ", --precision) is beyond " + TimeFormat.range(unit) + ", what the time index '"
                        + m.timeColumn + "' of table '" + name + "' (" + m.timeType + ") holds");
            }
            a.setLong(s.timestampIndex(), time);
            a.endRow();
        } catch (BadValue e) {
            a.cancelRow();
            throw e;
        } catch (RuntimeException e) {
            a.cancelRow();
            throw e instanceof IllegalArgumentException ? e : new IllegalArgumentException(e.getMessage(), e);
        }
        rows++;
    }

    private static void checkName(Measurement m, String k) {
        if (k.equals(m.timeColumn)) {
            throw new IllegalArgumentException("'" + k + "' is the time index of table '" + m.table + "'");
        }
    }

    static DataType typeOf(Object v) {
        if (v instanceof Double) {
            return DataType.Float64;
        }
        if (v instanceof Long) {
            return DataType.Int64;
        }
        if (v instanceof BigInteger) {
            return DataType.UInt64;
        }
        if (v instanceof Boolean) {
            return DataType.Bool;
        }
        return DataType.String;
    }

    private static void set(RowAppender a, int idx, DataType t, String key, Object v, String table)
            throws BadValue {
        DataType given = typeOf(v);
        if (given == t) {
            switch (t) {
                case Float64: a.setDouble(idx, (Double) v); return;
                case Int64: a.setLong(idx, (Long) v); return;
                case Bool: a.setBoolean(idx, (Boolean) v); return;
                case String: a.setString(idx, (String) v); return;
                default: a.setValue(idx, v); return;
            }
        }
        if ((t == DataType.Float64 || t == DataType.Float32) && (v instanceof Long || v instanceof BigInteger)) {
            double d = t == DataType.Float32 ? ((Number) v).floatValue() : ((Number) v).doubleValue();
            if (!ValueBinding.holdsExactly(d, v instanceof BigInteger b ? b : BigInteger.valueOf((Long) v))) {
                throw new BadValue(key, "field '" + key + "': the integer " + v + " has no exact " + t
                        + " value (column '" + key + "' of table '" + table + "' is " + t + "; the nearest is "
                        + new BigDecimal(d).toPlainString() + "): write it as a float if the rounding is wanted");
            }
            a.setDouble(idx, d);
            return;
        }
        if (t.isLongBacked() && !t.isTimestamp() && (v instanceof Long || v instanceof BigInteger)) {
            if (((Number) v).longValue() < 0 && v instanceof Long && t.name().startsWith("UInt")) {
                throw new BadValue(key, v + " is negative; column '" + key + "' of table '"
                        + table + "' is " + t + ", which takes no negative numbers");
            }
            try {
                a.setValue(idx, v); // range-checked by the appender
            } catch (InvalidDataException e) {
                throw new BadValue(key, "field '" + key + "': " + e.reason());
            }
            return;
        }
        if (t == DataType.Float32 && v instanceof Double d) {
            if ((double) (float) (double) d != d) {
                throw new BadValue(key, "field '" + key + "': " + d + " has no exact Float32 value (column '"
                        + key + "' of table '" + table + "' is Float32)");
            }
            a.setDouble(idx, d);
            return;
        }
        throw new BadValue(key, "field type conflict: '" + key + "' is " + t + " in table '" + table
                + "', this line gives " + given);
    }

    /**
     * Takes every table with rows, for one request, and starts empty ones of the same shapes.
     *
     * @return the tables
     */
    public List<Table> drain() {
        List<Table> out = new ArrayList<>(ready);
        ready.clear();
        for (Measurement m : measurements.values()) {
            if (m.current.rowCount() > 0) {
                out.add(m.current.complete());
                m.current = Table.from(m.schema);
                m.appender = m.current.appender();
            }
        }
        rows = 0;
        return out;
    }

    /**
     * The tables' schemas as they stand, for a dry run.
     *
     * @return schemas by table
     */
    public List<TableSchema> schemas() {
        List<TableSchema> out = new ArrayList<>();
        for (Measurement m : measurements.values()) {
            out.add(m.schema);
        }
        return out;
    }
}
