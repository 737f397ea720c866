package dev.sluice.importer.internal.plan;

import dev.sluice.data.DataType;
import dev.sluice.data.DecimalType;
import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import dev.sluice.importer.internal.failure.UsageException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How source columns become table columns: the table's schema, and for each table column its source column and
 * converter. Built from the options, a sample of rows (type inference) and, when the table exists, its columns.
 */
public final class Plan {
    /** The name of the time index column added when the data has none. */
    public static final String IMPORT_TIME_COLUMN = "greptime_timestamp";

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
    /** Sets source values into rows of the schema. */
    private final ValueBinding values;

    Plan(TableSchema schema, List<Col> cols, boolean importTime, List<String> newColumns, boolean tableExists,
            Mapping mapping, boolean jsonSource) {
        this.jsonSource = jsonSource;
        this.schema = schema;
        this.cols = cols;
        this.importTime = importTime;
        this.newColumns = newColumns;
        this.tableExists = tableExists;
        this.mapping = mapping;
        this.values = new ValueBinding(cols, jsonSource, mapping.zone());
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

    /** @return whether values come from JSON (a string is then a JSON string) */
    boolean jsonSource() {
        return jsonSource;
    }

    /** @return what sets source values into rows of the schema */
    public ValueBinding values() {
        return values;
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
        Map<String, TypeInference> stats = new LinkedHashMap<>();
        Map<String, Object> firstValue = new HashMap<>();
        for (int i = 0; i < sourceColumns.size(); i++) {
            TypeInference st = new TypeInference();
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
                if (!m.skip().contains(s) && !m.types().containsKey(s) && TypeInference.timeLike(s)
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
                if (timeSource == null && !m.skip().contains(s) && !m.types().containsKey(s) && TypeInference.timeLike(s)
                        && declared.get(s).type().isLongBacked() && !declared.get(s).type().isTimestamp()
                        && declared.get(s).type() != DataType.Date && stats.get(s).values > 0 && stats.get(s).allLong) {
                    timeSource = s;
                }
            }
        }
        if (timeSource == null && existing == null && declared == null) {
            // A column named like a time that holds ISO-8601 times or integers, else the first ISO-8601 column.
            for (String s : sourceColumns) {
                TypeInference st = stats.get(s);
                if (!m.skip().contains(s) && !m.types().containsKey(s) && TypeInference.timeLike(s)
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
            TypeInference st = stats.get(timeSource);
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
                    // A time finer than the time index's unit is refused, not cut: cut, it could replace a row.
                    TimeFormat format;
                    if (t == null) {
                        t = new TypeNames.Type(timeFormat.kind() == TimeFormat.Kind.ISO && stats.get(s).allIso
                                ? stats.get(s).isoUnit() : timeFormat.naturalType(), null);
                        format = timeFormat.exact("sample more rows (--sample N) or give the column a finer type"
                                + " (--types " + s + ":TimestampMicrosecond or TimestampNanosecond)");
                    } else if (!t.type().isTimestamp()) {
                        throw new UsageException("--types gives the time index '" + s + "' type " + t
                                + "; the time index must be a Timestamp type (TimestampSecond..TimestampNanosecond)");
                    } else {
                        format = timeFormat.exact("--types gives it " + t.type() + ": give it a finer type (--types "
                                + s + ":TimestampNanosecond) to keep such times");
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
                if (c.dataType().isTimestamp() && s != null && s.equals(timeSource)) {
                    tf = timeFormat.exact("table '" + existing.tableName() + "' keeps its time index '" + c.name()
                            + "' in " + TimeFormat.unitName(c.dataType().unitsPerSecond()) + " (" + c.dataType()
                            + "): import into a new table (--table <new>), whose time index takes the input's unit,"
                            + " or cut the times in the input if their finer digits are not wanted");
                } else if (c.dataType().isTimestamp()) {
                    tf = TimeFormat.parse("iso", m.zone());
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
                        fix.append("\n  ").append(DdlText.addColumn(existing.tableName(), c));
                    }
                }
                throw new UsageException("table '" + existing.tableName() + "' has no column " + String.join(", ",
                        newColumns.stream().map(n -> "'" + n + "'").toList()) + "; the bulk path cannot add columns."
                        + " Add them first:" + fix + "\nor leave them out with --skip, or use --path regular (adds them)");
            }
        }
        TableSchema schema;
        try {
            schema = schemaOf(existing != null ? existing.tableName() : m.table(), cols);
        } catch (IllegalArgumentException e) {
            throw new UsageException("the table's columns do not make a valid schema: " + e.getMessage());
        }
        return new Plan(schema, cols, importTime, newColumns, existing != null, m, jsonSource);
    }

    @SafeVarargs
    private static List<String> concat(java.util.Collection<String>... cs) {
        List<String> out = new ArrayList<>();
        for (java.util.Collection<String> c : cs) {
            out.addAll(c);
        }
        return out;
    }

    /**
     * Builds the schema of a table's columns.
     *
     * @param table the table
     * @param cols its columns, in order
     * @return the schema
     * @throws IllegalArgumentException when the columns do not make a valid schema
     */
    static TableSchema schemaOf(String table, List<Col> cols) {
        TableSchema.Builder b = TableSchema.newBuilder(table);
        for (Col c : cols) {
            if (c.type().type() == DataType.Decimal128) {
                b.addColumn(c.name(), c.semantic(), DataType.Decimal128, c.type().decimal());
            } else {
                b.addColumn(c.name(), c.semantic(), c.type().type());
            }
        }
        return b.build();
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
