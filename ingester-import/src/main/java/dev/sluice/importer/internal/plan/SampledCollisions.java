package dev.sluice.importer.internal.plan;

import dev.sluice.data.DataType;
import dev.sluice.data.RowAppender;
import dev.sluice.data.SemanticType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntFunction;

/**
 * Finds sampled rows that a table which keeps the last row of each key (tags and time index) would store as one:
 * rows the import would count as written while the table keeps fewer. Told before anything is written, with the
 * columns that tell such rows apart.
 */
public final class SampledCollisions {
    private SampledCollisions() {
    }

    /**
     * Converts one source row into the appender as the import stores it (a row without a time index column gets
     * the import's time).
     *
     * @param plan the plan
     * @param bind source index per table column ({@link Plan#bind})
     * @param a the appender; the row is ended
     * @param value the source row's value by source index
     * @param importTime the time index value of a row whose time is the import's
     * @throws BadValue when a value does not fit its column (the row is left open: cancel it)
     */
    public static void appendRow(Plan plan, int[] bind, RowAppender a, IntFunction<Object> value, long importTime)
            throws BadValue {
        TableSchema schema = plan.schema();
        for (int c = 0; c < schema.columnCount(); c++) {
            if (bind[c] < 0) {
                if (c == schema.timestampIndex()) {
                    a.setLong(c, importTime);
                }
                continue;
            }
            Object v = value.apply(bind[c]);
            if (v != null) {
                plan.values().set(a, c, v);
            }
        }
        a.endRow();
    }

    /**
     * Rows of one table that a table keeping one row per key (tags and time index) stores as one.
     *
     * @param table the table
     * @param collapsed how many rows have the key of an earlier row
     * @param example the time index of the first such row, as text
     * @param tags the table's tag columns
     * @param apart the fields whose values differ between such a row and the earlier one
     * @param apartText those of them that are String columns
     */
    record Found(String table, int collapsed, String example, List<String> tags, Set<String> apart,
            Set<String> apartText) {
    }

    /**
     * Finds, among rows of one table (possibly in several tables of its growing shape), the rows whose tags and time
     * index equal an earlier row's: a tag a shape lacks is null, as the server stores it.
     *
     * @param tables the rows, of one table name, in input order
     * @return what collapses, or null when every row has a key of its own
     */
    static Found find(List<Table> tables) {
        Set<String> tags = new LinkedHashSet<>();
        Set<String> textFields = new HashSet<>();
        for (Table t : tables) {
            for (TableSchema.Column c : t.schema().columns()) {
                if (c.semanticType() == SemanticType.Tag) {
                    tags.add(c.name());
                } else if (c.semanticType() == SemanticType.Field && c.dataType() == DataType.String) {
                    textFields.add(c.name());
                }
            }
        }
        Map<List<String>, Map<String, String>> first = new HashMap<>();
        Set<String> apart = new LinkedHashSet<>();
        int collapsed = 0;
        String example = null;
        for (Table t : tables) {
            TableSchema schema = t.schema();
            int ts = schema.timestampIndex();
            for (int r = 0; r < t.rowCount(); r++) {
                List<String> key = new ArrayList<>();
                for (String tag : tags) {
                    int c = schema.indexOf(tag);
                    key.add(c < 0 ? null : orNull(t, schema, c, r)); // a null is not the text NULL
                }
                key.add(CellText.cell(t.column(ts), schema.column(ts), r));
                Map<String, String> fields = new java.util.LinkedHashMap<>();
                for (int c = 0; c < schema.columnCount(); c++) {
                    if (schema.column(c).semanticType() == SemanticType.Field) {
                        fields.put(schema.column(c).name(), orNull(t, schema, c, r));
                    }
                }
                Map<String, String> earlier = first.putIfAbsent(key, fields);
                if (earlier == null) {
                    continue;
                }
                collapsed++;
                if (example == null) {
                    example = key.get(key.size() - 1);
                }
                Set<String> names = new LinkedHashSet<>(earlier.keySet());
                names.addAll(fields.keySet());
                for (String f : names) {
                    if (!java.util.Objects.equals(earlier.get(f), fields.get(f))) {
                        apart.add(f);
                    }
                }
            }
        }
        if (collapsed == 0) {
            return null;
        }
        Set<String> apartText = new LinkedHashSet<>(apart);
        apartText.retainAll(textFields);
        return new Found(tables.get(0).tableName(), collapsed, example, List.copyOf(tags), apart, apartText);
    }

    /**
     * Looks for sampled rows of equal tags and time index.
     *
     * @param plan the plan
     * @param columns the sampled input's columns
     * @param rows the sampled rows' values
     * @param input the sampled input's name
     * @return a warning naming the rows' count, the columns that tell them apart and the fix; null when every
     *     sampled row has a key of its own (or the time index is the import's own, one nanosecond apart per row)
     */
    public static String check(Plan plan, List<String> columns, List<Object[]> rows, String input) {
        TableSchema schema = plan.schema();
        int[] bind = plan.bind(columns);
        int ts = schema.timestampIndex();
        if (bind[ts] < 0) {
            return null;
        }
        Table t = Table.from(schema, rows.size());
        RowAppender a = t.appender();
        for (Object[] row : rows) {
            try {
                appendRow(plan, bind, a, i -> i < row.length ? row[i] : null, 0);
            } catch (BadValue | RuntimeException e) {
                a.cancelRow(); // a bad row is the import's to reject, not a key
            }
        }
        Found found = find(List.of(t));
        if (found == null) {
            return null;
        }
        List<String> tags = new ArrayList<>();
        found.tags().forEach(n -> tags.add(sourceName(plan, schema.indexOf(n))));
        Set<String> apart = new LinkedHashSet<>();
        found.apart().forEach(n -> apart.add(sourceName(plan, schema.indexOf(n))));
        Set<String> offer = new LinkedHashSet<>(tags);
        found.apartText().forEach(n -> offer.add(sourceName(plan, schema.indexOf(n))));
        if (found.apartText().isEmpty()) {
            offer.addAll(apart);
        }
        String sourceTime = plan.cols().get(ts).source();
        return found.collapsed() + " of the " + rows.size() + " sampled rows of '" + input + "' have the same "
                + (tags.isEmpty() ? "time index" : "tags (" + String.join(", ", tags) + ") and time index") + " as an"
                + " earlier row (e.g. '" + sourceTime + "' " + found.example() + "): table '" + schema.tableName()
                + "' keeps only the last row of equal tags and time, so such rows are acknowledged as written but not"
                + " stored." + (apart.isEmpty() ? " They are equal in every column."
                        : " Columns that tell them apart: " + quoted(apart) + ". If they name a series, make them tags"
                        + (plan.tableExists() ? " of a new table (the existing table's tags stay as they are): --table"
                        + " <new> --tags " : ": --tags ") + String.join(",", offer) + ".")
                + " To keep every row, import into an append-mode table (--with append_mode=true).";
    }

    /**
     * Looks for sampled line protocol points of one series (table and tag set) and time.
     *
     * @param tables the sampled points of one input as rows, as {@link LineProtocolTables#drain()} gives them
     * @param points the sampled points
     * @param input the input's name
     * @param keepsEveryRow whether a table keeps every row (append mode), so its points never collapse
     * @return a warning per table whose points collapse, naming their count and what the table keeps
     */
    public static List<String> checkPoints(List<Table> tables, int points, String input,
            java.util.function.Predicate<String> keepsEveryRow) {
        Map<String, List<Table>> byTable = new java.util.LinkedHashMap<>();
        for (Table t : tables) {
            byTable.computeIfAbsent(t.tableName(), n -> new ArrayList<>()).add(t);
        }
        List<String> warnings = new ArrayList<>();
        for (Map.Entry<String, List<Table>> e : byTable.entrySet()) {
            Found found = keepsEveryRow.test(e.getKey()) ? null : find(e.getValue());
            if (found == null) {
                continue;
            }
            warnings.add(found.collapsed() + " of the " + points + " sampled points of '" + input + "' have the same"
                    + " measurement, tags" + (found.tags().isEmpty() ? "" : " (" + String.join(", ", found.tags()) + ")")
                    + " and time as an earlier point (e.g. " + found.example() + "): table '" + found.table() + "'"
                    + " keeps one row per series and time, so such points are acknowledged as written but stored as"
                    + " one row" + (found.apart().isEmpty() ? " (they are equal in every field)"
                    : ": a table the import creates merges their fields (merge_mode last_non_null: a later point's"
                    + " value of a field replaces an earlier one's, as in InfluxDB); fields they disagree on: "
                    + quoted(found.apart())) + ". To keep every point, import into an append-mode table"
                    + " (--append-mode).");
        }
        return warnings;
    }

    /** A stored value as text, or null for a null. */
    private static String orNull(Table t, TableSchema schema, int c, int r) {
        return t.column(c).isNull(r) ? null : CellText.cell(t.column(c), schema.column(c), r);
    }

    private static String sourceName(Plan plan, int c) {
        String source = plan.cols().get(c).source();
        return source != null ? source : plan.schema().column(c).name();
    }

    private static String quoted(Set<String> names) {
        List<String> q = new ArrayList<>();
        names.forEach(n -> q.add("'" + n + "'"));
        return String.join(", ", q);
    }
}
