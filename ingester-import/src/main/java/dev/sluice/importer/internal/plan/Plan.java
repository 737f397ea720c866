package dev.sluice.importer.internal.plan;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import dev.sluice.data.DataType;
import dev.sluice.data.DecimalType;
import dev.sluice.data.InvalidDataException;
import dev.sluice.data.RowAppender;
import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import dev.sluice.importer.internal.cli.UsageException;
import dev.sluice.importer.internal.source.RecordSource;
import dev.sluice.importer.internal.source.Utf8Text;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * How source columns become table columns: the table's schema, and for each table column its source column and
 * converter. Built from the options, a sample of rows (type inference) and, when the table exists, its columns.
 */
public final class Plan {
    /** The name of the time index column added when the data has none. */
    public static final String IMPORT_TIME_COLUMN = "greptime_timestamp";
    /** Names taken for an integer time index when none is given and no column holds ISO-8601 times. */
    private static final Set<String> TIME_NAMES = Set.of("ts", "time", "timestamp", "_time", "time_index", "datetime",
            "date_time", "event_time");

    /**
     * One table column.
     *
     * @param name the column name in the table
     * @param source the source column name, or null (import time, or a table column the input lacks)
     * @param semantic tag, field or timestamp
     * @param type the column's type
     * @param timeFormat for a timestamp column read from text or epochs, its format
     */
    public record Col(String name, String source, SemanticType semantic, TypeNames.Type type, TimeFormat timeFormat) {
    }

    private final TableSchema schema;
    private final List<Col> cols;
    private final boolean importTime;
    private final List<String> newColumns;
    private final boolean tableExists;
    private final Mapping mapping;
    /** Values come from JSON: a string is a JSON string, which a Json column stores quoted. */
    private final boolean jsonSource;

    private Plan(TableSchema schema, List<Col> cols, boolean importTime, List<String> newColumns, boolean tableExists,
            Mapping mapping, boolean jsonSource) {
        this.jsonSource = jsonSource;
        this.schema = schema;
        this.cols = cols;
        this.importTime = importTime;
        this.newColumns = newColumns;
        this.tableExists = tableExists;
        this.mapping = mapping;
    }

    /** @return the schema rows are written with */
    public TableSchema schema() {
        return schema;
    }

    /** @return the columns, in schema order */
    public List<Col> cols() {
        return cols;
    }

    /** @return whether the time index is the import's time */
    public boolean importTime() {
        return importTime;
    }

    /** @return columns the existing table lacks (the regular path adds them) */
    public List<String> newColumns() {
        return newColumns;
    }

    /** @return whether the table existed before the import */
    public boolean tableExists() {
        return tableExists;
    }

    /** @return the mapping options */
    public Mapping mapping() {
        return mapping;
    }

    // ---------------------------------------------------------------- inference

    /** What a sample tells about one source column. */
    static final class Stats {
        long values;
        boolean allLong = true;
        boolean allNumber = true;
        boolean allBool = true;
        boolean allIso = true;
        boolean anyNested;
        boolean allNested = true;
        int maxFraction;
        long firstLong;
        boolean haveFirstLong;
        /** Every value an integer, of any size; with {@link #bigUnsigned} and {@link #bigDigits} for those beyond Int64. */
        boolean allInteger = true;
        /** Every integer beyond Int64 is positive and within UInt64. */
        boolean bigUnsigned = true;
        /** The most digits of an integer beyond Int64 (0: none seen). */
        int bigDigits;
        /** A negative number was seen. */
        boolean anyNegative;
        /** Every non-integer number is written as plain digits with a point (no exponent, no NaN or infinity). */
        boolean plainFractions = true;
        /** The most digits after the point, and before it, of any number seen. */
        int maxScale;
        int maxIntegerDigits;

        /** Notes an integer beyond Int64 (its digits, without sign). */
        private void bigInteger(java.math.BigInteger b) {
            bigDigits = Math.max(bigDigits, b.abs().toString().length());
            if (b.bitLength() > 64) {
                bigUnsigned = false;
            }
        }

        /** Notes a number's sign and, as a decimal, its digits before and after the point. */
        private void digits(BigDecimal d) {
            if (d.signum() < 0) {
                anyNegative = true;
            }
            BigDecimal x = d.stripTrailingZeros();
            int scale = Math.max(0, x.scale());
            maxScale = Math.max(maxScale, scale);
            maxIntegerDigits = Math.max(maxIntegerDigits, Math.max(0, x.precision() - x.scale()));
        }

        void add(Object v, java.time.ZoneId zone) {
            if (v == null) {
                return;
            }
            values++;
            if (v instanceof Long l) {
                digits(BigDecimal.valueOf(l));
                allBool = false;
                allIso = false;
                allNested = false;
                if (!haveFirstLong) {
                    firstLong = l;
                    haveFirstLong = true;
                }
            } else if (v instanceof Double || v instanceof BigDecimal) {
                if (v instanceof Double d && (d.isNaN() || d.isInfinite())) {
                    plainFractions = false;
                } else {
                    digits(v instanceof BigDecimal b ? b : BigDecimal.valueOf((Double) v));
                }
                if (v instanceof BigDecimal b && b.stripTrailingZeros().scale() <= 0) {
                    bigInteger(b.toBigIntegerExact());
                } else {
                    allInteger = false;
                }
                allLong = false;
                allBool = false;
                allIso = false;
                allNested = false;
            } else if (v instanceof Boolean) {
                allInteger = false;
                allLong = false;
                allNumber = false;
                allIso = false;
                allNested = false;
            } else if (v instanceof RecordSource.JsonText) {
                anyNested = true;
                allInteger = false;
                allLong = false;
                allNumber = false;
                allBool = false;
                allIso = false;
            } else {
                String s = v.toString().strip();
                allNested = false;
                if (!isLong(s)) {
                    allLong = false;
                    if (isIntegerText(s)) {
                        java.math.BigInteger b = new java.math.BigInteger(s.startsWith("+") ? s.substring(1) : s);
                        bigInteger(b);
                        digits(new BigDecimal(b));
                    } else {
                        allInteger = false;
                    }
                    if (!isNumber(s)) {
                        allNumber = false;
                    } else if (!isIntegerText(s)) {
                        if (isPlainDecimal(s)) {
                            digits(new BigDecimal(s));
                        } else {
                            plainFractions = false;
                        }
                    }
                } else {
                    long l = Long.parseLong(s);
                    digits(BigDecimal.valueOf(l));
                    if (!haveFirstLong) {
                        firstLong = l;
                        haveFirstLong = true;
                    }
                }
                if (!s.equalsIgnoreCase("true") && !s.equalsIgnoreCase("false")) {
                    allBool = false;
                }
                if (allIso) {
                    if (TimeFormat.iso(s, zone) == null) {
                        allIso = false;
                    } else {
                        maxFraction = Math.max(maxFraction, TimeFormat.fractionDigits(s));
                    }
                }
            }
        }

        /** The inferred type; JSON strings stay strings unless they are ISO times. */
        TypeNames.Type type(boolean jsonSource, Object anyValue) {
            if (values == 0) {
                return new TypeNames.Type(DataType.String, null);
            }
            if (anyNested) {
                return new TypeNames.Type(allNested ? DataType.Json : DataType.Json, null);
            }
            if (allIso) {
                return new TypeNames.Type(isoUnit(), null);
            }
            boolean stringsSeen = jsonSource && anyValue instanceof String;
            if (!stringsSeen) {
                if (allBool) {
                    return new TypeNames.Type(DataType.Bool, null);
                }
                if (allLong) {
                    return new TypeNames.Type(DataType.Int64, null);
                }
                if (allInteger && allNumber) {
                    // Integers beyond Int64 keep every digit: UInt64 when they all fit it, else a decimal of scale
                    // 0, else text (Float64 would round them).
                    if (bigUnsigned && !anyNegative) {
                        return new TypeNames.Type(DataType.UInt64, null);
                    }
                    if (bigDigits <= 38) {
                        return new TypeNames.Type(DataType.Decimal128, new dev.sluice.data.DecimalType(38, 0));
                    }
                    return new TypeNames.Type(DataType.String, null);
                }
                if (allNumber && bigDigits > 0 && plainFractions && maxIntegerDigits + maxScale <= 38) {
                    // Fractions beside integers beyond Int64: a decimal holding both exactly.
                    return new TypeNames.Type(DataType.Decimal128, new dev.sluice.data.DecimalType(38, maxScale));
                }
                if (allNumber) {
                    return new TypeNames.Type(DataType.Float64, null);
                }
            }
            return new TypeNames.Type(DataType.String, null);
        }

        DataType isoUnit() {
            return maxFraction <= 3 ? DataType.TimestampMillisecond : maxFraction <= 6 ? DataType.TimestampMicrosecond
                    : DataType.TimestampNanosecond;
        }
    }

    /** Tells whether a column name reads as a time: ts, time, timestamp..., or ending in _ts, _time, _timestamp. */
    static boolean timeLike(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        return TIME_NAMES.contains(n) || n.endsWith("_ts") || n.endsWith("_time") || n.endsWith("_timestamp");
    }

    static boolean isLong(String s) {
        if (!isIntegerText(s)) {
            return false;
        }
        try {
            Long.parseLong(s); // a sign and leading zeros are fine; digits beyond Int64 are not
            return true;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /** Tells whether text is a number of plain digits with one point: {@code -12.50}, {@code .5}, {@code 3.}. */
    static boolean isPlainDecimal(String s) {
        int n = s.length();
        int i = n > 0 && (s.charAt(0) == '-' || s.charAt(0) == '+') ? 1 : 0;
        boolean point = false;
        boolean digit = false;
        for (; i < n; i++) {
            char c = s.charAt(i);
            if (c == '.' && !point) {
                point = true;
            } else if (c >= '0' && c <= '9') {
                digit = true;
            } else {
                return false;
            }
        }
        return digit;
    }

    /** Tells whether text is an integer of any size: an optional sign and digits. */
    static boolean isIntegerText(String s) {
        int n = s.length();
        int i = n > 0 && (s.charAt(0) == '-' || s.charAt(0) == '+') ? 1 : 0;
        if (i == n) {
            return false;
        }
        for (; i < n; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    static boolean isNumber(String s) {
        if (s.isEmpty()) {
            return false;
        }
        char c = s.charAt(0);
        if (!(c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9'))) {
            return s.equals("NaN") || s.equals("Infinity");
        }
        try {
            Decimals.parseDouble(s);
            return true;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /**
     * Builds the plan.
     *
     * @param sourceColumns the source column names (the sample's)
     * @param sample sample rows, values by source column index
     * @param jsonSource whether values come from JSON (strings are then kept as strings)
     * @param m the mapping options
     * @param existing the table's columns when it exists, else null
     * @param regularPath whether rows go through the regular path (which can add columns)
     * @return the plan
     * @throws UsageException when options name columns the input lacks, or the table cannot take the input
     */
    public static Plan build(List<String> sourceColumns, List<Object[]> sample, boolean jsonSource, Mapping m,
            TableSchema existing, boolean regularPath) {
        return build(sourceColumns, sample, jsonSource, m, existing, regularPath, null);
    }

    /**
     * Builds the plan of a source whose columns have declared types (Parquet): those types are used instead of
     * inference (unless {@code --types} overrides them), and the time index, when not named, is a Timestamp column
     * named like a time, else the first Timestamp column, else an integer column named like a time.
     *
     * @param sourceColumns the source column names (the sample's)
     * @param sample sample rows, values by source column index
     * @param jsonSource whether values come from JSON (strings are then kept as strings)
     * @param m the mapping options
     * @param existing the table's columns when it exists, else null
     * @param regularPath whether rows go through the regular path (which can add columns)
     * @param declared the source's column types, or null to infer them from the sample
     * @return the plan
     * @throws UsageException when options name columns the input lacks, or the table cannot take the input
     */
    public static Plan build(List<String> sourceColumns, List<Object[]> sample, boolean jsonSource, Mapping m,
            TableSchema existing, boolean regularPath, Map<String, TypeNames.Type> declared) {
        for (String named : concat(m.tags(), m.types().keySet(), m.skip(), m.rename().keySet())) {
            // A JSON key may first appear after the sample: --skip and --types may name it.
            // A Parquet source leaves --skip columns unread (it checks they are in the file).
            boolean late = jsonSource && (m.skip().contains(named) || m.types().containsKey(named))
                    || declared != null && m.skip().contains(named);
            if (!sourceColumns.contains(named) && !late) {
                String option = m.tags().contains(named) ? "--tags" : m.types().containsKey(named) ? "--types"
                        : m.skip().contains(named) ? "--skip" : "--rename";
                throw new UsageException("column '" + named + "' named by " + option + " is not in the input (its"
                        + " columns: " + String.join(", ", sourceColumns) + ")");
            }
        }
        if (m.timeIndex() != null && !sourceColumns.contains(m.timeIndex())) {
            throw new UsageException("--time-index '" + m.timeIndex() + "' is not a column of the input (its columns: "
                    + String.join(", ", sourceColumns) + ")");
        }
        Map<String, Stats> stats = new LinkedHashMap<>();
        Map<String, Object> firstValue = new HashMap<>();
        for (int i = 0; i < sourceColumns.size(); i++) {
            Stats st = new Stats();
            for (Object[] row : sample) {
                Object v = i < row.length ? row[i] : null;
                st.add(v, m.zone());
                if (v != null) {
                    firstValue.putIfAbsent(sourceColumns.get(i), v);
                }
            }
            stats.put(sourceColumns.get(i), st);
        }
        // The time index's source column.
        String timeSource = m.timeIndex();
        if (timeSource == null && existing == null) {
            // A column --types gives a Timestamp type is the time index (the first, when several are).
            for (String s : sourceColumns) {
                TypeNames.Type t = m.types().get(s);
                if (!m.skip().contains(s) && t != null && t.type().isTimestamp()) {
                    timeSource = s;
                    break;
                }
            }
        }
        if (timeSource == null && existing != null) {
            String tsName = existing.column(existing.timestampIndex()).name();
            for (String s : sourceColumns) {
                if (!m.skip().contains(s) && m.target(s).equals(tsName)) {
                    timeSource = s;
                }
            }
        }
        if (timeSource == null && existing == null && declared != null) {
            for (String s : sourceColumns) {
                if (!m.skip().contains(s) && !m.types().containsKey(s) && timeLike(s)
                        && declared.get(s).type().isTimestamp()) {
                    timeSource = s;
                    break;
                }
            }
            for (String s : sourceColumns) {
                if (timeSource == null && !m.skip().contains(s) && !m.types().containsKey(s)
                        && declared.get(s).type().isTimestamp()) {
                    timeSource = s;
                }
            }
            for (String s : sourceColumns) {
                if (timeSource == null && !m.skip().contains(s) && !m.types().containsKey(s) && timeLike(s)
                        && declared.get(s).type().isLongBacked() && !declared.get(s).type().isTimestamp()
                        && declared.get(s).type() != DataType.Date && stats.get(s).values > 0 && stats.get(s).allLong) {
                    timeSource = s;
                }
            }
        }
        if (timeSource == null && existing == null && declared == null) {
            // A column named like a time that holds ISO-8601 times or integers, else the first ISO-8601 column.
            for (String s : sourceColumns) {
                Stats st = stats.get(s);
                if (!m.skip().contains(s) && !m.types().containsKey(s) && timeLike(s)
                        && st.values > 0 && (st.allIso || st.allLong && !(firstValue.get(s) instanceof Boolean))) {
                    timeSource = s;
                    break;
                }
            }
            if (timeSource == null) {
                for (String s : sourceColumns) {
                    if (!m.skip().contains(s) && !m.types().containsKey(s) && stats.get(s).values > 0
                            && stats.get(s).allIso) {
                        timeSource = s;
                        break;
                    }
                }
            }
        }
        if (timeSource != null && m.skip().contains(timeSource)) {
            throw new UsageException("--time-index '" + timeSource + "' is also in --skip");
        }
        TimeFormat timeFormat = null;
        if (timeSource != null) {
            Stats st = stats.get(timeSource);
            TypeNames.Type d = declared == null ? null : declared.get(timeSource);
            if (m.timeFormat() != null) {
                timeFormat = TimeFormat.parse(m.timeFormat(), m.zone());
            } else if (d != null && d.type().isTimestamp()) {
                timeFormat = TimeFormat.epoch(d.type().unitsPerSecond(), m.zone());
            } else if (st.values > 0 && st.allLong) {
                timeFormat = TimeFormat.epoch(TimeFormat.guessEpochUnit(st.firstLong), m.zone());
            } else {
                timeFormat = TimeFormat.parse("iso", m.zone());
            }
        }
        List<Col> cols = new ArrayList<>();
        List<String> newColumns = new ArrayList<>();
        boolean importTime = false;
        if (existing == null) {
            for (String s : sourceColumns) {
                if (m.skip().contains(s)) {
                    continue;
                }
                String name = m.target(s);
                if (s.equals(timeSource)) {
                    TypeNames.Type t = m.types().get(s);
                    if (t == null && declared != null && declared.get(s).type().isTimestamp()) {
                        t = declared.get(s);
                    }
                    TimeFormat format = timeFormat;
                    if (t == null) {
                        t = new TypeNames.Type(timeFormat.kind() == TimeFormat.Kind.ISO && stats.get(s).allIso
                                ? stats.get(s).isoUnit() : timeFormat.naturalType(), null);
                        format = timeFormat.exact(); // a unit from the sample: a finer time later is refused, not cut
                    } else if (!t.type().isTimestamp()) {
                        throw new UsageException("--types gives the time index '" + s + "' type " + t
                                + "; the time index must be a Timestamp type (TimestampSecond..TimestampNanosecond)");
                    }
                    cols.add(new Col(name, s, SemanticType.Timestamp, t, format));
                    continue;
                }
                TypeNames.Type t = m.types().get(s);
                if (t == null) {
                    t = declared != null ? declared.get(s) : stats.get(s).type(jsonSource, firstValue.get(s));
                }
                SemanticType sem = m.tags().contains(s) ? SemanticType.Tag : SemanticType.Field;
                cols.add(new Col(name, s, sem, t, t.type().isTimestamp() ? TimeFormat.parse("iso", m.zone()) : null));
            }
            if (timeSource == null) {
                importTime = true;
                cols.add(new Col(IMPORT_TIME_COLUMN, null, SemanticType.Timestamp,
                        new TypeNames.Type(DataType.TimestampNanosecond, null), null));
            }
        } else {
            // The existing table decides names, types and kinds; its columns come first, in its order.
            Map<String, String> sourceOf = new HashMap<>();
            for (String s : sourceColumns) {
                if (!m.skip().contains(s)) {
                    sourceOf.put(m.target(s), s);
                }
            }
            TableSchema.Column tsCol = existing.column(existing.timestampIndex());
            // A table the import created for an input without times (or an earlier run of this one): its time index
            // is the import's time again, one nanosecond apart per record from the state's base.
            boolean timedByImport = timeSource == null && tsCol.name().equals(IMPORT_TIME_COLUMN)
                    && tsCol.dataType() == DataType.TimestampNanosecond && !sourceOf.containsKey(IMPORT_TIME_COLUMN);
            if (timedByImport) {
                importTime = true;
            } else if (timeSource == null || !m.target(timeSource).equals(tsCol.name())) {
                throw new UsageException("table '" + existing.tableName() + "' exists with time index '" + tsCol.name()
                        + "', which the input does not provide" + (timeSource != null ? " (--time-index '" + timeSource
                        + "' maps to '" + m.target(timeSource) + "')" : "") + ": name the input's time column with --rename"
                        + " <column>=" + tsCol.name());
            }
            for (TableSchema.Column c : existing.columns()) {
                String s = sourceOf.remove(c.name());
                TimeFormat tf = null;
                if (c.dataType().isTimestamp()) {
                    tf = s != null && s.equals(timeSource) ? timeFormat : TimeFormat.parse("iso", m.zone());
                }
                cols.add(new Col(c.name(), s, c.semanticType(), TypeNames.of(c), tf));
            }
            for (String s : sourceColumns) {
                if (m.skip().contains(s) || !sourceOf.containsKey(m.target(s))) {
                    continue;
                }
                newColumns.add(m.target(s));
                TypeNames.Type t = m.types().get(s);
                if (t == null) {
                    t = declared != null ? declared.get(s) : stats.get(s).type(jsonSource, firstValue.get(s));
                }
                SemanticType sem = m.tags().contains(s) ? SemanticType.Tag : SemanticType.Field;
                cols.add(new Col(m.target(s), s, sem, t, t.type().isTimestamp() ? TimeFormat.parse("iso", m.zone()) : null));
            }
            if (!newColumns.isEmpty() && !regularPath) {
                StringBuilder fix = new StringBuilder();
                for (Col c : cols) {
                    if (newColumns.contains(c.name())) {
                        fix.append("\n  ALTER TABLE ").append(quote(existing.tableName())).append(" ADD COLUMN ")
                                .append(quote(c.name())).append(' ').append(c.type().sql()).append(';');
                    }
                }
                throw new UsageException("table '" + existing.tableName() + "' has no column " + String.join(", ",
                        newColumns.stream().map(n -> "'" + n + "'").toList()) + "; the bulk path cannot add columns."
                        + " Add them first:" + fix + "\nor leave them out with --skip, or use --path regular (adds them)");
            }
        }
        TableSchema.Builder b = TableSchema.newBuilder(existing != null ? existing.tableName() : m.table());
        for (Col c : cols) {
            if (c.type().type() == DataType.Decimal128) {
                b.addColumn(c.name(), c.semantic(), DataType.Decimal128, c.type().decimal());
            } else {
                b.addColumn(c.name(), c.semantic(), c.type().type());
            }
        }
        TableSchema schema;
        try {
            schema = b.build();
        } catch (IllegalArgumentException e) {
            throw new UsageException("the table's columns do not make a valid schema: " + e.getMessage());
        }
        return new Plan(schema, cols, importTime, newColumns, existing != null, m, jsonSource);
    }

    /**
     * Returns this plan with one more field column, for a JSON key first seen after the sample (regular path, which
     * adds the column with its first write). Its type is inferred from the first value, as the sample's are.
     *
     * @param source the source column (the key)
     * @param value its first non-null value
     * @return the extended plan
     * @throws UsageException when the new column does not make a valid schema
     */
    public Plan withField(String source, Object value) {
        return withColumn(source, List.of(value));
    }

    /**
     * Returns this plan with one more column, for a source column of a later input that the sampled one lacks
     * (regular path, which adds the column with its first write). Its type is inferred from that input's sampled
     * values as the first input's are; it is a tag when {@code --tags} names it.
     *
     * @param source the source column
     * @param values its sampled values (nulls allowed)
     * @return the extended plan
     * @throws UsageException when the new column does not make a valid schema
     */
    public Plan withColumn(String source, List<Object> values) {
        Stats st = new Stats();
        Object first = null;
        for (Object v : values) {
            if (v != null) {
                st.add(v, mapping.zone());
                first = first == null ? v : first;
            }
        }
        TypeNames.Type t = mapping.types().get(source);
        if (t == null) {
            t = st.type(jsonSource, first);
        }
        SemanticType sem = mapping.tags().contains(source) ? SemanticType.Tag : SemanticType.Field;
        List<Col> more = new ArrayList<>(cols);
        more.add(new Col(mapping.target(source), source, sem, t,
                t.type().isTimestamp() ? TimeFormat.parse("iso", mapping.zone()) : null));
        TableSchema.Builder b = TableSchema.newBuilder(schema.tableName());
        for (Col c : more) {
            if (c.type().type() == DataType.Decimal128) {
                b.addColumn(c.name(), c.semantic(), DataType.Decimal128, c.type().decimal());
            } else {
                b.addColumn(c.name(), c.semantic(), c.type().type());
            }
        }
        TableSchema extended;
        try {
            extended = b.build();
        } catch (IllegalArgumentException e) {
            throw new UsageException("key '" + source + "' cannot be added as a column: " + e.getMessage());
        }
        List<String> added = new ArrayList<>(newColumns);
        added.add(mapping.target(source));
        return new Plan(extended, more, importTime, added, tableExists, mapping, jsonSource);
    }

    @SafeVarargs
    private static List<String> concat(java.util.Collection<String>... cs) {
        List<String> out = new ArrayList<>();
        for (java.util.Collection<String> c : cs) {
            out.addAll(c);
        }
        return out;
    }

    public static String quote(String name) {
        return '"' + name.replace("\"", "\"\"") + '"';
    }

    // ---------------------------------------------------------------- DDL

    /**
     * Renders the CREATE TABLE the import runs when the table does not exist.
     *
     * @return the statement
     */
    public String createTableSql() {
        return createTableSql(schema, mapping.tableOptions());
    }

    /**
     * Renders the CREATE TABLE of a schema.
     *
     * @param schema the schema
     * @param tableOptions options for the WITH clause
     * @return the statement
     */
    public static String createTableSql(TableSchema schema, Map<String, String> tableOptions) {
        StringBuilder sb = new StringBuilder("CREATE TABLE IF NOT EXISTS ").append(quote(schema.tableName())).append(" (\n");
        List<String> tags = new ArrayList<>();
        String ts = null;
        for (TableSchema.Column c : schema.columns()) {
            sb.append("  ").append(quote(c.name())).append(' ').append(TypeNames.of(c).sql());
            if (c.semanticType() == SemanticType.Timestamp) {
                sb.append(" NOT NULL");
                ts = c.name();
            } else if (c.semanticType() == SemanticType.Tag) {
                tags.add(quote(c.name()));
            }
            sb.append(",\n");
        }
        sb.append("  TIME INDEX (").append(quote(ts)).append(')');
        if (!tags.isEmpty()) {
            sb.append(",\n  PRIMARY KEY (").append(String.join(", ", tags)).append(')');
        }
        sb.append("\n)");
        if (!tableOptions.isEmpty()) {
            List<String> opts = new ArrayList<>();
            tableOptions.forEach((k, v) -> opts.add("'" + k + "' = '" + v.replace("'", "''") + "'"));
            sb.append(" WITH (").append(String.join(", ", opts)).append(')');
        }
        return sb.append(';').toString();
    }

    // ---------------------------------------------------------------- conversion

    /** A finite double that a Float32 column would turn into an infinity is refused. */
    private static double inRange(Col c, DataType t, double d, Object source) throws BadValue {
        if (t == DataType.Float32 && !Double.isInfinite(d) && Math.abs(d) > Float.MAX_VALUE) {
            throw new BadValue(c.name(), "'" + source + "' is beyond Float32's range");
        }
        return d;
    }

    /** A value that does not fit its column; the message is the reason. */
    public static final class BadValue extends Exception {
        private static final long serialVersionUID = 1L;
        private final String column;

        public BadValue(String column, String reason) {
            super(reason);
            this.column = column;
        }

        /** @return the table column */
        public String column() {
            return column;
        }
    }

    /**
     * Sets one value into a row.
     *
     * @param a the row appender
     * @param index the column index (schema order)
     * @param v the source value (never null)
     * @throws BadValue when the value does not fit
     */
    public void set(RowAppender a, int index, Object v) throws BadValue {
        Col c = cols.get(index);
        DataType t = c.type().type();
        try {
            if (v instanceof FieldText f) {
                setField(a, index, c, t, f);
            } else if (v instanceof Utf8Text u) {
                if (t == DataType.String) {
                    try {
                        a.setUtf8(index, u.bytes(), u.offset(), u.byteLength());
                    } catch (InvalidDataException e) {
                        String r = e.reason();
                        int from = r.indexOf("(byte ");
                        String at = from < 0 ? "" : " " + r.substring(from, r.indexOf(')', from) + 1);
                        throw new BadValue(c.name(), "the text is not well-formed UTF-8" + at + ", as Parquet strings"
                                + " must be: fix the file, or --skip the column");
                    }
                } else {
                    setText(a, index, c, t, u.toString());
                }
            } else if (v instanceof String s) {
                if (jsonSource && t == DataType.Json) {
                    a.setString(index, '"' + new String(JsonStringEncoder.getInstance().quoteAsString(s)) + '"');
                } else {
                    setText(a, index, c, t, s);
                }
            } else if (v instanceof Long l) {
                if (t.isTimestamp()) {
                    a.setLong(index, c.timeFormat() != null && c.timeFormat().kind() == TimeFormat.Kind.EPOCH
                            ? c.timeFormat().toUnits(l, t.unitsPerSecond()) : l);
                } else if (t == DataType.String || t == DataType.Json) {
                    a.setString(index, Long.toString(l));
                } else if (t == DataType.Decimal128) {
                    a.setDecimal(index, BigDecimal.valueOf(l));
                } else if (t == DataType.Bool) {
                    throw new BadValue(c.name(), l + " is not a boolean");
                } else if (l < 0 && (t == DataType.UInt8 || t == DataType.UInt16 || t == DataType.UInt32
                        || t == DataType.UInt64)) {
                    throw new BadValue(c.name(), l + " is negative; " + t + " takes no negative numbers");
                } else {
                    a.setLong(index, l);
                }
            } else if (v instanceof Double d) {
                if (t == DataType.Float64 || t == DataType.Float32) {
                    if (jsonSource && Double.isInfinite(d)) {
                        // JSON has no infinity: the number overflowed Float64.
                        throw new BadValue(c.name(), "a number beyond " + c.type() + "'s range");
                    }
                    a.setDouble(index, inRange(c, t, d, d));
                } else if (t == DataType.String || t == DataType.Json) {
                    a.setString(index, Double.toString(d));
                } else if (t == DataType.Decimal128) {
                    a.setDecimal(index, BigDecimal.valueOf(d));
                } else if (t.isTimestamp() && c.timeFormat() != null && c.timeFormat().kind() == TimeFormat.Kind.EPOCH) {
                    a.setLong(index, c.timeFormat().toUnits(d, t.unitsPerSecond()));
                } else if (d == Math.rint(d) && !t.isTimestamp() && t != DataType.Bool) {
                    a.setLong(index, d.longValue());
                } else {
                    throw new BadValue(c.name(), d + " does not fit " + c.type());
                }
            } else if (v instanceof BigDecimal bd) {
                if (t == DataType.Decimal128) {
                    a.setDecimal(index, bd);
                } else if (t == DataType.UInt64) {
                    a.setValue(index, bd.toBigIntegerExact());
                } else {
                    setText(a, index, c, t, bd.toPlainString());
                }
            } else if (v instanceof Boolean bo) {
                if (t == DataType.Bool) {
                    a.setBoolean(index, bo);
                } else if (t == DataType.String || t == DataType.Json) {
                    a.setString(index, bo.toString());
                } else {
                    throw new BadValue(c.name(), bo + " does not fit " + c.type());
                }
            } else if (v instanceof RecordSource.JsonText j) {
                if (t == DataType.Json || t == DataType.String) {
                    a.setString(index, j.text());
                } else {
                    throw new BadValue(c.name(), "a nested JSON value does not fit " + c.type());
                }
            } else {
                a.setValue(index, v);
            }
        } catch (IllegalArgumentException | ArithmeticException | DateTimeParseException e) {
            // The client's own message names a batch's row: the caller names the input's line instead.
            throw new BadValue(c.name(), e instanceof InvalidDataException ide ? ide.reason() : e.getMessage());
        }
    }

    /**
     * Sets a CSV field: integers, decimals and epoch times are read from its characters when they are written plainly;
     * everything else, and anything unusual (signs, spaces, exponents...), as text by {@link #setText}.
     */
    private void setField(RowAppender a, int index, Col c, DataType t, FieldText f) throws BadValue {
        switch (t) {
            case Int8: case Int16: case Int32: case Int64: case UInt8: case UInt16: case UInt32: {
                long l = f.plainLong();
                if (l != Long.MIN_VALUE) {
                    a.setLong(index, l);
                    return;
                }
                break;
            }
            case Float32: case Float64: {
                double d;
                try {
                    d = f.toDouble();
                } catch (NumberFormatException e) {
                    break; // the text path names the value
                }
                if (!Double.isInfinite(d) && (t == DataType.Float64 || Math.abs(d) <= Float.MAX_VALUE)) {
                    a.setDouble(index, d);
                    return;
                }
                break;
            }
            case TimestampSecond: case TimestampMillisecond: case TimestampMicrosecond: case TimestampNanosecond: {
                TimeFormat tf = c.timeFormat();
                if (tf != null && tf.kind() == TimeFormat.Kind.EPOCH) {
                    long l = f.plainLong();
                    if (l != Long.MIN_VALUE) {
                        a.setLong(index, tf.toUnits(l, t.unitsPerSecond()));
                        return;
                    }
                }
                break;
            }
            default:
                break;
        }
        setText(a, index, c, t, f.toString());
    }

    private void setText(RowAppender a, int index, Col c, DataType t, String s) throws BadValue {
        switch (t) {
            case String:
            case Json:
                a.setString(index, s);
                return;
            case Int8: case Int16: case Int32: case Int64: case UInt8: case UInt16: case UInt32: {
                String x = s.strip();
                long l;
                try {
                    l = Long.parseLong(x);
                } catch (NumberFormatException e) {
                    throw new BadValue(c.name(), "'" + s + "' is not an integer (" + c.type() + ")");
                }
                a.setLong(index, l);
                return;
            }
            case UInt64:
                try {
                    a.setValue(index, new BigInteger(s.strip()));
                } catch (NumberFormatException e) {
                    throw new BadValue(c.name(), "'" + s + "' is not an integer (UInt64)");
                }
                return;
            case Float32: case Float64: {
                double d;
                try {
                    d = Decimals.parseDouble(s);
                } catch (NumberFormatException e) {
                    throw new BadValue(c.name(), "'" + s + "' is not a number (" + c.type() + ")");
                }
                // An infinity only when the text says so: 1e400 overflows to one.
                if (Double.isInfinite(d) && !s.toLowerCase(Locale.ROOT).contains("inf")) {
                    throw new BadValue(c.name(), "'" + s + "' is beyond " + c.type() + "'s range");
                }
                a.setDouble(index, inRange(c, t, d, s));
                return;
            }
            case Bool: {
                String x = s.strip().toLowerCase(Locale.ROOT);
                switch (x) {
                    case "true": case "t": case "1": case "yes": case "y": a.setBoolean(index, true); return;
                    case "false": case "f": case "0": case "no": case "n": a.setBoolean(index, false); return;
                    default: throw new BadValue(c.name(), "'" + s + "' is not a boolean (true/false, 1/0, yes/no)");
                }
            }
            case Decimal128:
                try {
                    a.setDecimal(index, new BigDecimal(s.strip()));
                } catch (NumberFormatException e) {
                    throw new BadValue(c.name(), "'" + s + "' is not a decimal number");
                }
                return;
            case Date:
                try {
                    a.setLong(index, LocalDate.parse(s.strip()).toEpochDay());
                } catch (DateTimeParseException e) {
                    throw new BadValue(c.name(), "'" + s + "' is not a date (yyyy-MM-dd)");
                }
                return;
            case TimeSecond: case TimeMillisecond: case TimeMicrosecond: case TimeNanosecond:
                try {
                    a.setValue(index, LocalTime.parse(s.strip()));
                } catch (DateTimeParseException e) {
                    throw new BadValue(c.name(), "'" + s + "' is not a time of day (HH:mm:ss[.fff])");
                }
                return;
            case Binary:
                try {
                    a.setBytes(index, Base64.getDecoder().decode(s.strip()));
                } catch (IllegalArgumentException e) {
                    throw new BadValue(c.name(), "'" + s + "' is not base64 (Binary columns take base64 text)");
                }
                return;
            case TimestampSecond: case TimestampMillisecond: case TimestampMicrosecond: case TimestampNanosecond: {
                TimeFormat f = c.timeFormat() != null ? c.timeFormat() : TimeFormat.parse("iso", mapping.zone());
                try {
                    a.setLong(index, f.toUnits(s, t.unitsPerSecond()));
                } catch (IllegalArgumentException e) {
                    throw new BadValue(c.name(), e.getMessage());
                }
                return;
            }
            default:
                throw new BadValue(c.name(), "type " + c.type() + " cannot be read from text");
        }
    }

    /**
     * Resolves which source column feeds each table column, for one source's column order.
     *
     * @param sourceColumns the source's columns
     * @return source index per table column (-1: none)
     */
    public int[] bind(List<String> sourceColumns) {
        int[] out = new int[cols.size()];
        for (int i = 0; i < cols.size(); i++) {
            out[i] = cols.get(i).source() == null ? -1 : sourceColumns.indexOf(cols.get(i).source());
        }
        return out;
    }

    /**
     * Tells whether a source column is imported or skipped, so that any other is reported.
     *
     * @param source a source column name
     * @return true when known
     */
    public boolean knows(String source) {
        if (mapping.skip().contains(source)) {
            return true;
        }
        for (Col c : cols) {
            if (source.equals(c.source())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Formats an instant for dry-run output.
     *
     * @param count a count of the unit
     * @param unitsPerSecond the unit
     * @return ISO-8601 text
     */
    public static String instant(long count, long unitsPerSecond) {
        long sec = Math.floorDiv(count, unitsPerSecond);
        long nanos = Math.floorMod(count, unitsPerSecond) * (1_000_000_000L / unitsPerSecond);
        return Instant.ofEpochSecond(sec, nanos).toString();
    }

    /**
     * Returns the index of a table column whose type has a given decimal type, for tests.
     *
     * @return the decimal types by column name
     */
    Map<String, DecimalType> decimals() {
        Map<String, DecimalType> out = new HashMap<>();
        for (Col c : cols) {
            if (c.type().decimal() != null) {
                out.put(c.name(), c.type().decimal());
            }
        }
        return out;
    }
}
